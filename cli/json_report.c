/*
 * Reports of `apportion run` as text and JSON, and shared JSON helpers (json_report.h).
 */
#include "json_report.h"

#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

json_t *cli_json_string(const char *s) {
    if (s == NULL)
        return json_null();
    json_t *j = json_string(s);
    if (j != NULL)
        return j;
    /* Not valid UTF-8: keep the ASCII bytes so that the text stays recognisable. */
    size_t n = strlen(s);
    char *copy = malloc(n + 1);
    if (copy == NULL)
        return json_null();
    for (size_t i = 0; i <= n; i++)
        copy[i] = (unsigned char)s[i] < 0x80 ? s[i] : '?';
    j = json_string(copy);
    free(copy);
    return j != NULL ? j : json_null();
}

json_t *cli_json_number(double v) {
    if (!isfinite(v))
        return json_null();
    json_t *j = json_real(v);
    return j != NULL ? j : json_null();
}

json_t *cli_json_u64(uint64_t v) {
    if (v <= (uint64_t)INT64_MAX)
        return json_integer((json_int_t)v);
    char text[32];
    snprintf(text, sizeof text, "%llu", (unsigned long long)v);
    return json_string(text);
}

int cli_json_print(const json_t *value) {
    if (json_dumpf(value, stdout, JSON_INDENT(2)) != 0 || fputc('\n', stdout) == EOF ||
        fflush(stdout) != 0) {
        cli_error("cannot write to standard output");
        return CLI_EXIT_FAILURE;
    }
    return CLI_EXIT_OK;
}

json_t *cli_runtime_warnings_json(const apo_runtime *rt) {
    json_t *arr = json_array();
    size_t n = 0;
    if (rt == NULL || apo_runtime_warning_count(rt, &n) != APO_OK)
        return arr;
    for (size_t i = 0; i < n; i++) {
        const char *w = NULL;
        if (apo_runtime_warning(rt, i, &w) == APO_OK && w != NULL)
            json_array_append_new(arr, cli_json_string(w));
    }
    return arr;
}

void cli_print_runtime_warnings(const apo_runtime *rt) {
    size_t n = 0;
    if (rt == NULL || apo_runtime_warning_count(rt, &n) != APO_OK)
        return;
    for (size_t i = 0; i < n; i++) {
        const char *w = NULL;
        apo_warning_kind kind = APO_WARNING_PLAIN;
        char safe[4 * CLI_ESCAPED_MAX];
        /* A machine without a GPU to offer is told by `devices` and the JSON outputs; said on
         * every command's stderr it would only teach the user to ignore warnings. */
        if (apo_runtime_warning_kind(rt, i, &kind) == APO_OK && kind == APO_WARNING_NO_GPU_HERE)
            continue;
        if (apo_runtime_warning(rt, i, &w) == APO_OK && w != NULL)
            fprintf(stderr, "apportion: warning: %s\n", cli_escape(w, safe, sizeof safe));
    }
}

static json_t *device_report_json(const apo_device_report *d) {
    json_t *o = json_object();
    json_object_set_new(o, "id", cli_json_string(d->id));
    json_object_set_new(o, "label", cli_json_string(d->label));
    json_object_set_new(o, "kind", json_string(apo_device_kind_name(d->kind)));
    json_object_set_new(o, "share", cli_json_number(d->share));
    json_object_set_new(o, "elements", cli_json_u64(d->elements));
    json_object_set_new(o, "tiles", cli_json_u64(d->tiles));
    json_object_set_new(o, "wall_ms", cli_json_number(d->wall_ms));
    json_object_set_new(o, "first_touch_ms", cli_json_number(d->first_touch_ms));
    json_object_set_new(o, "h2d_ms", cli_json_number(d->h2d_ms));
    json_object_set_new(o, "kernel_ms", cli_json_number(d->kernel_ms));
    json_object_set_new(o, "d2h_ms", cli_json_number(d->d2h_ms));
    json_object_set_new(o, "host_copy_ms", cli_json_number(d->host_copy_ms));
    json_object_set_new(o, "overlap", d->overlap > 0 ? cli_json_number(d->overlap) : json_null());
    json_object_set_new(o, "chunks", cli_json_u64(d->chunks));
    json_object_set_new(o, "threads_offered", json_integer(d->threads_offered));
    json_object_set_new(o, "wait_ms", cli_json_number(d->wait_ms));
    json_object_set_new(o, "throughput", cli_json_number(d->throughput));
    json_object_set_new(o, "failed", json_boolean(d->failed));
    json_object_set_new(o, "failure", d->failed ? cli_json_string(d->failure) : json_null());
    json_object_set_new(o, "elements_moved_out", cli_json_u64(d->elements_moved_out));
    json_object_set_new(o, "elements_moved_in", cli_json_u64(d->elements_moved_in));
    json_object_set_new(o, "simulated", json_boolean(d->simulated));
    json_object_set_new(o, "deadline_missed", json_boolean(d->deadline_missed));
    json_object_set_new(o, "deadline_ms", cli_json_number(d->deadline_ms));
    json_object_set_new(o, "quarantined", json_boolean(d->quarantined));
    json_object_set_new(o, "quarantine_reason",
                        d->quarantined ? cli_json_string(d->quarantine_reason) : json_null());
    json_object_set_new(o, "no_share_reason",
                        d->no_share_reason[0] != '\0' ? cli_json_string(d->no_share_reason)
                                                      : json_null());
    return o;
}

int cli_nonfinite_warning(const apo_report *r, char *buf, size_t size) {
    buf[0] = '\0';
    if (r->nonfinite_outputs == 0)
        return 0;
    snprintf(buf, size,
             "%llu output value(s) of %s are not finite although every input sample that "
             "defines them is: the input is beyond the range %s computes through "
             "(docs/kernels.md, \"Range\"); those values are not the exact ones",
             (unsigned long long)r->nonfinite_outputs, r->kernel, r->kernel);
    return 1;
}

json_t *cli_report_json(const apo_report *r, const cli_run_times *times, const apo_runtime *rt,
                        const cli_output_desc *outputs, size_t n_outputs) {
    json_t *o = json_object();
    json_object_set_new(o, "kernel", cli_json_string(r->kernel));
    json_object_set_new(o, "rows", cli_json_u64(r->rows));
    json_object_set_new(o, "cols", cli_json_u64(r->cols));
    json_object_set_new(o, "seed", cli_json_u64(r->seed));
    json_object_set_new(o, "split_axis", json_string(apo_split_name(r->split_axis)));
    json_object_set_new(o, "ratio_source", json_string(apo_ratio_source_name(r->ratio_source)));
    json_object_set_new(o, "makespan_ms", cli_json_number(r->makespan_ms));
    json_object_set_new(o, "balance_efficiency", cli_json_number(r->balance_efficiency));
    json_object_set_new(o, "read_input_ms", cli_json_number(times->read_input_ms));
    json_object_set_new(o, "prepare_ms", cli_json_number(times->prepare_ms));
    json_object_set_new(o, "compute_ms", cli_json_number(times->compute_ms));
    json_object_set_new(o, "write_output_ms", cli_json_number(times->write_output_ms));
    if (times->sweep_sets > 0) {
        json_object_set_new(o, "sets", cli_json_u64(times->sweep_sets));
        json_object_set_new(o, "pieces", cli_json_u64(times->sweep_pieces));
    }
    json_object_set_new(o, "simulated", json_boolean(r->simulated));
    json_object_set_new(o, "virtual_clock", json_boolean(r->virtual_clock));
    json_object_set_new(o, "tile", cli_json_u64(r->tile));
    json_object_set_new(o, "tiles", cli_json_u64(r->tiles));
    json_object_set_new(o, "elements", cli_json_u64(r->elements));
    json_object_set_new(o, "failovers", cli_json_u64(r->failovers));
    json_object_set_new(o, "deadlines_missed", cli_json_u64(r->deadlines_missed));
    json_object_set_new(o, "quarantined", cli_json_u64(r->quarantined));
    json_object_set_new(o, "nonfinite_outputs", cli_json_u64(r->nonfinite_outputs));
    json_t *warnings = cli_runtime_warnings_json(rt);
    char note[512];
    if (cli_nonfinite_warning(r, note, sizeof note))
        json_array_append_new(warnings, cli_json_string(note));
    json_object_set_new(o, "warnings", warnings);
    json_t *outs = json_array();
    for (size_t i = 0; i < n_outputs; i++) {
        json_t *x = json_object();
        json_object_set_new(x, "name", cli_json_string(outputs[i].name));
        json_object_set_new(x, "rows", cli_json_u64(outputs[i].rows));
        json_object_set_new(x, "cols", cli_json_u64(outputs[i].cols));
        json_object_set_new(x, "file", cli_json_string(outputs[i].file));
        json_array_append_new(outs, x);
    }
    json_object_set_new(o, "outputs", outs);
    json_t *devs = json_array();
    const size_t n = r->n_devices < APO_MAX_DEVICES ? r->n_devices : APO_MAX_DEVICES;
    for (size_t i = 0; i < n; i++)
        json_array_append_new(devs, device_report_json(&r->devices[i]));
    json_object_set_new(o, "devices", devs);
    return o;
}

void cli_report_print(FILE *f, const apo_report *r, const cli_run_times *times) {
    fprintf(f, "kernel      %s\n", r->kernel);
    fprintf(f, "shape       %zu x %zu (%llu elements)\n", r->rows, r->cols,
            (unsigned long long)r->elements);
    fprintf(f, "seed        %llu\n", (unsigned long long)r->seed);
    if (times->sweep_sets > 0)
        fprintf(f, "sets        %zu (in %zu piece%s; shape and devices: the first piece's)\n",
                times->sweep_sets, times->sweep_pieces, times->sweep_pieces == 1 ? "" : "s");
    fprintf(f, "split       %s\n", apo_split_name(r->split_axis));
    fprintf(f, "ratios      %s\n", apo_ratio_source_name(r->ratio_source));
    fprintf(f, "tiles       %llu (tile length %zu)\n", (unsigned long long)r->tiles, r->tile);
    fprintf(f, "makespan    %.3f ms\n", r->makespan_ms);
    fprintf(f, "balance     %.3f\n", r->balance_efficiency);
    fprintf(
        f,
        "times       read input %.3f ms, prepare %.3f ms, compute %.3f ms, write output %.3f ms\n",
        times->read_input_ms, times->prepare_ms, times->compute_ms, times->write_output_ms);
    if (r->failovers > 0)
        fprintf(f, "failovers   %zu\n", r->failovers);
    if (r->deadlines_missed > 0)
        fprintf(f, "deadlines   %zu missed\n", r->deadlines_missed);
    if (r->quarantined > 0)
        fprintf(f, "quarantined %zu\n", r->quarantined);
    if (r->simulated)
        fprintf(f, "note: simulated devices present; their times are modelled (%s)\n",
                r->virtual_clock ? "virtual clock" : "wall clock");
    fprintf(f, "\n%-40s %-5s %6s %12s %6s %10s %9s %9s %10s %9s %9s %10s  %s\n", "device", "kind",
            "share", "elements", "tiles", "wall_ms", "touch_ms", "h2d_ms", "kernel_ms", "d2h_ms",
            "wait_ms", "Melem/s", "status");
    const size_t n = r->n_devices < APO_MAX_DEVICES ? r->n_devices : APO_MAX_DEVICES;
    for (size_t i = 0; i < n; i++) {
        const apo_device_report *d = &r->devices[i];
        char status[2 * APO_LABEL_MAX + 96];
        if (d->failed)
            snprintf(status, sizeof status, "FAILED: %s", d->failure);
        else if (d->quarantined)
            snprintf(status, sizeof status, "QUARANTINED: %s", d->quarantine_reason);
        else if (d->no_share_reason[0] != '\0')
            snprintf(status, sizeof status, "no share: %s", d->no_share_reason);
        else
            snprintf(status, sizeof status, "ok");
        if (d->failed && d->quarantined) {
            size_t len = strlen(status);
            snprintf(status + len, sizeof status - len, "; QUARANTINED: %s", d->quarantine_reason);
        }
        if (d->elements_moved_out > 0 || d->elements_moved_in > 0) {
            size_t len = strlen(status);
            snprintf(status + len, sizeof status - len, " (moved out %llu, in %llu)",
                     (unsigned long long)d->elements_moved_out,
                     (unsigned long long)d->elements_moved_in);
        }
        fprintf(f,
                "%-40s %-5s %6.3f %12llu %6llu %10.3f %9.3f %9.3f %10.3f %9.3f %9.3f %10.1f  %s\n",
                d->id, apo_device_kind_name(d->kind), d->share, (unsigned long long)d->elements,
                (unsigned long long)d->tiles, d->wall_ms, d->first_touch_ms, d->h2d_ms,
                d->kernel_ms, d->d2h_ms, d->wait_ms, d->throughput / 1e6, status);
    }
}

json_t *cli_device_model_json(const apo_device_model *m, int dropped) {
    json_t *o = json_object();
    json_object_set_new(o, "id", cli_json_string(m->id));
    json_object_set_new(o, "label", cli_json_string(m->label));
    json_object_set_new(o, "ratio", cli_json_number(m->ratio));
    json_object_set_new(o, "latency_ms", m->valid ? cli_json_number(m->latency_ms) : json_null());
    json_object_set_new(o, "ms_per_melem",
                        m->valid ? cli_json_number(m->ms_per_melem) : json_null());
    json_object_set_new(o, "samples", cli_json_u64(m->samples));
    if (dropped)
        json_object_set_new(o, "dropped", cli_json_u64(m->dropped));
    return o;
}

/* A figure of a model, or "-" when it is unknown. */
static void model_figure(char *out, size_t size, int known, double v, int decimals) {
    if (known && isfinite(v))
        snprintf(out, size, "%.*f", decimals, v);
    else
        snprintf(out, size, "-");
}

void cli_device_models_print(FILE *f, const apo_device_model *models, size_t n, int indent,
                             int dropped) {
    /* The label comes last: it is free text of any length (a GPU's name, a sim's rates). */
    fprintf(f, "%*s%-40s %7s %11s %13s %8s", indent, "", "device", "ratio", "latency_ms",
            "ms_per_melem", "samples");
    if (dropped)
        fprintf(f, " %8s", "dropped");
    fprintf(f, "  label\n");
    for (size_t i = 0; i < n && i < APO_MAX_DEVICES; i++) {
        const apo_device_model *m = &models[i];
        char ratio[32], latency[32], cost[32];
        model_figure(ratio, sizeof ratio, 1, m->ratio, 3);
        model_figure(latency, sizeof latency, m->valid, m->latency_ms, 4);
        model_figure(cost, sizeof cost, m->valid, m->ms_per_melem, 4);
        char id[CLI_ESCAPED_MAX], label[CLI_ESCAPED_MAX];
        fprintf(f, "%*s%-40s %7s %11s %13s %8llu", indent, "", cli_escape(m->id, id, sizeof id),
                ratio, latency, cost, (unsigned long long)m->samples);
        if (dropped)
            fprintf(f, " %8llu", (unsigned long long)m->dropped);
        fprintf(f, "  %s\n", cli_escape(m->label, label, sizeof label));
    }
}
