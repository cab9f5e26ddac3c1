/*
 * `apportion kernels [NAME] [--json]`: the kernels the library offers, each with its inputs,
 * outputs, parameters with their defaults and bounds, and halo, as the public API describes them
 * (apo_kernel_count(), apo_kernel_name(), apo_kernel_get()). The runtime is created on the cpu
 * alone and learns nothing: listing kernels needs no device. Kernels registered by a program
 * through the API live in that program's runtime, so the tool lists the built-ins.
 */
#include "cli.h"
#include "json_report.h"
#include "option_table.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const char kernels_help[] =
    "Usage: apportion kernels [NAME] [--json]\n"
    "\n"
    "List the kernels with their inputs, outputs, parameters (defaults and bounds) and halo\n"
    "(the input samples before a tile that it reads); with NAME, that kernel only.\n"
    "\n"
    "  --json      print one JSON object\n"
    "  -h, --help  show this help\n"
    "\n"
    "Exit status: 0 success, 1 runtime failure, 2 usage error (an unknown NAME).\n";

static json_t *kernel_json(const apo_kernel_info *k) {
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(k->name));
    json_object_set_new(o, "builtin", json_boolean(k->builtin));
    json_t *ins = json_array();
    for (size_t i = 0; i < k->n_inputs; i++)
        json_array_append_new(ins, json_string(k->input_names[i]));
    json_object_set_new(o, "inputs", ins);
    json_t *outs = json_array();
    for (size_t i = 0; i < k->n_outputs; i++)
        json_array_append_new(outs, json_string(k->output_names[i]));
    json_object_set_new(o, "outputs", outs);
    json_t *params = json_array();
    for (size_t i = 0; i < k->n_params; i++) {
        json_t *p = json_object();
        json_object_set_new(p, "name", json_string(k->param_names[i]));
        json_object_set_new(p, "default", json_real(k->param_defaults[i]));
        /* No bound is null: JSON has no infinity. */
        json_object_set_new(p, "min",
                            isfinite(k->param_min[i]) ? json_real(k->param_min[i]) : json_null());
        json_object_set_new(p, "max",
                            isfinite(k->param_max[i]) ? json_real(k->param_max[i]) : json_null());
        json_object_set_new(p, "integer", json_boolean(k->param_integer[i]));
        json_array_append_new(params, p);
    }
    json_object_set_new(o, "params", params);
    json_t *halo = json_object();
    json_object_set_new(halo, "at_defaults", json_integer((json_int_t)k->halo));
    json_object_set_new(halo, "whole_row", json_boolean(k->halo_whole_row));
    json_object_set_new(halo, "rule",
                        k->halo_rule != NULL ? json_string(k->halo_rule) : json_null());
    json_object_set_new(o, "halo", halo);
    return o;
}

/* A parameter's range in words: "integer from 2 to 100000", "any". */
static void param_range(const apo_kernel_info *k, size_t i, char *buf, size_t size) {
    const char *kind = k->param_integer[i] ? "integer" : "real";
    const int lo = isfinite(k->param_min[i]), hi = isfinite(k->param_max[i]);
    char min[32], max[32];
    cli_format_shortest(k->param_min[i], min, sizeof min);
    cli_format_shortest(k->param_max[i], max, sizeof max);
    if (lo && hi)
        snprintf(buf, size, "%s from %s to %s", kind, min, max);
    else if (lo)
        snprintf(buf, size, "%s from %s", kind, min);
    else if (hi)
        snprintf(buf, size, "%s up to %s", kind, max);
    else
        snprintf(buf, size, "any %s", kind);
}

static void kernel_text(FILE *f, const apo_kernel_info *k) {
    fprintf(f, "%s%s\n", k->name, k->builtin ? "" : " (registered)");
    fprintf(f, "  inputs  ");
    for (size_t i = 0; i < k->n_inputs; i++)
        fprintf(f, " %s", k->input_names[i]);
    fprintf(f, "\n  outputs ");
    for (size_t i = 0; i < k->n_outputs; i++)
        fprintf(f, " %s", k->output_names[i]);
    fprintf(f, "\n  params  ");
    if (k->n_params == 0)
        fprintf(f, " (none)\n");
    for (size_t i = 0; i < k->n_params; i++) {
        char range[96];
        param_range(k, i, range, sizeof range);
        char def[32];
        cli_format_shortest(k->param_defaults[i], def, sizeof def);
        fprintf(f, "%s%s=%s (%s)\n", i > 0 ? "           " : " ", k->param_names[i], def, range);
    }
    if (k->halo_whole_row)
        fprintf(f, "  halo     the whole row\n");
    else
        fprintf(f, "  halo     %zu at the defaults; %s\n", k->halo,
                k->halo_rule != NULL ? k->halo_rule : "");
}

/* What `kernels` is asked: --json, and the one NAME (NULL: every kernel). */
typedef struct kernels_options {
    int json;
    const char *only;
} kernels_options;

static int read_name(const char *command, const char *text, void *options) {
    kernels_options *o = options;
    if (o->only != NULL)
        return cli_usage_error(command, "unexpected argument '%s' (one NAME at most)", text);
    o->only = text;
    return CLI_EXIT_OK;
}

static const cli_option kernels_rows[] = {
    CLI_ROW_FLAG("--json", offsetof(kernels_options, json)),
};

static const cli_option_table kernels_table = {
    .command = "kernels", CLI_TABLE_ROWS(kernels_rows), .positional = read_name};

int cli_cmd_kernels(int argc, char **argv) {
    kernels_options opt = {0, NULL};
    int help = 0;
    int rc = cli_options_read(&kernels_table, argc, argv, &opt, &help);
    if (help) {
        fputs(kernels_help, stdout);
        return CLI_EXIT_OK;
    }
    if (rc != CLI_EXIT_OK)
        return rc;
    const int json = opt.json;
    const char *only = opt.only;
    apo_runtime *rt = NULL;
    rc = cli_runtime_create_learning("cpu", APO_SWITCH_OFF, &rt);
    if (rc != CLI_EXIT_OK)
        return rc;
    size_t count = 0;
    apo_status st = apo_kernel_count(rt, &count);
    if (st != APO_OK) {
        rc = cli_status_error(st, "cannot count the kernels");
        goto done;
    }
    json_t *list = json ? json_array() : NULL;
    for (size_t i = 0; i < count || (only != NULL && i == 0); i++) {
        const char *name = only;
        if (only == NULL) {
            st = apo_kernel_name(rt, i, &name);
            if (st != APO_OK) {
                rc = cli_status_error(st, "cannot name a kernel");
                break;
            }
        }
        apo_kernel_info info = APO_KERNEL_INFO_INIT;
        st = apo_kernel_get(rt, name, &info);
        if (st == APO_ERR_UNKNOWN_KERNEL && only != NULL) {
            rc = cli_unknown_kernel_error(rt, only, st, "kernels");
            break;
        }
        if (st != APO_OK) {
            rc = cli_status_error(st, "cannot describe a kernel");
            break;
        }
        if (json)
            json_array_append_new(list, kernel_json(&info));
        else
            kernel_text(stdout, &info);
        if (only != NULL)
            break;
    }
    if (json) {
        if (rc == CLI_EXIT_OK) {
            json_t *o = json_object();
            json_object_set_new(o, "kernels", list);
            rc = cli_json_print(o);
            json_decref(o);
        } else {
            json_decref(list);
        }
    } else if (rc == CLI_EXIT_OK && fflush(stdout) != 0) {
        cli_error("cannot write to standard output");
        rc = CLI_EXIT_FAILURE;
    }
done:
    apo_runtime_destroy(rt);
    return rc;
}
