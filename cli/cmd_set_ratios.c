/*
 * `apportion set-ratios --workload TAG DEVICE=R ...`: force the shares of a workload tag
 * (apo_set_ratios()), stored in multigpu.json so that every later call with that tag uses
 * them instead of the models; `--clear` removes them again.
 *
 * The form of each item is checked here; whether a device id belongs to this machine is the
 * library's decision (it also accepts cuda:N), reported as a usage error.
 */
#include "cli.h"
#include "json_report.h"
#include "option_table.h"
#include "options.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char set_ratios_help[] =
    "Usage: apportion set-ratios --workload TAG [--custom-tag] DEVICE=R [DEVICE=R ...]\n"
    "                            [--devices LIST]\n"
    "       apportion set-ratios --workload TAG --clear [--devices LIST]\n"
    "\n"
    "Force the shares of a workload: every later call with this tag (by default a call's\n"
    "tag is its kernel's name) splits its work in these proportions instead of the ones\n"
    "the models give. The ratios are stored in multigpu.json. DEVICE is a device id as\n"
    "'apportion devices' shows it (cpu, sim:NAME, a GPU's UUID) or cuda:N for the Nth GPU;\n"
    "R is a number >= 0, at least one of them > 0; devices not named get no share. Items\n"
    "may also be given comma separated (cpu=1,sim:a=3).\n"
    "\n"
    "Options:\n"
    "  --workload TAG   the workload tag (required): a kernel's name, or a tag already\n"
    "                   stored in the profile\n"
    "  --custom-tag     TAG is a tag of your own (apo_workload.tag), not yet stored: take\n"
    "                   it as it is\n"
    "  --clear          remove the forced ratios of TAG: calls use the models again\n"
    "  --devices LIST   device list as in APPORTION_DEVICES (overrides it): the devices\n"
    "                   the ids are checked against\n"
    "  -h, --help       show this help\n"
    "\n"
    "Exit status: 0 success, 1 runtime failure (the profile could not be written),\n"
    "2 usage error (also a device that this machine does not have).\n";

void cli_set_ratios_options_init(cli_set_ratios_options *o) { memset(o, 0, sizeof *o); }

void cli_set_ratios_options_free(cli_set_ratios_options *o) {
    for (size_t i = 0; i < o->n; i++)
        free(o->ids[i]);
}

/* Keeps one DEVICE=R item. */
static int add_item(void *ctx, const char *id, double ratio) {
    cli_set_ratios_options *o = ctx;
    if (o->n == APO_MAX_DEVICES)
        return cli_usage_error("set-ratios", "too many devices (at most %d)", APO_MAX_DEVICES);
    o->ids[o->n] = strdup(id);
    if (o->ids[o->n] == NULL) {
        cli_error("out of memory");
        return CLI_EXIT_FAILURE;
    }
    o->ratios[o->n++] = ratio;
    return CLI_EXIT_OK;
}

/* An argument that is not an option: DEVICE=R items, one or several comma separated. */
static int read_items(const char *command, const char *text, void *options) {
    return cli_parse_ratio_items(command, NULL, text, add_item, options);
}

#define SET_RATIOS(field) offsetof(cli_set_ratios_options, field)

static const cli_option set_ratios_rows[] = {
    CLI_ROW_FLAG("--clear", SET_RATIOS(clear)),
    CLI_ROW_FLAG("--custom-tag", SET_RATIOS(custom_tag)),
    CLI_ROW_TEXT("--workload", CLI_ONCE, SET_RATIOS(tag)),
    CLI_ROW_TEXT("--devices", CLI_ONCE, SET_RATIOS(devices)),
};

static const cli_option_table set_ratios_table = {
    .command = "set-ratios", CLI_TABLE_ROWS(set_ratios_rows), .positional = read_items};

int cli_set_ratios_parse_options(int argc, char **argv, cli_set_ratios_options *o, int *help) {
    const int rc = cli_options_read(&set_ratios_table, argc, argv, o, help);
    if (*help)
        return CLI_EXIT_OK;
    if (rc != CLI_EXIT_OK)
        return rc;
    if (o->tag == NULL)
        return cli_usage_error("set-ratios", "missing --workload");
    if (o->tag[0] == '\0')
        return cli_usage_error("set-ratios", "--workload: empty tag");
    if (strlen(o->tag) >= APO_TAG_MAX)
        return cli_usage_error("set-ratios", "--workload: the tag is longer than %d bytes",
                               APO_TAG_MAX - 1);
    /* A tag is stored and printed: a control character in it would reach every terminal
     * that shows the profile. */
    for (size_t i = 0; o->tag[i] != '\0'; i++) {
        const unsigned char c = (unsigned char)o->tag[i];
        if (c < 0x20 || c == 0x7f) {
            char safe[CLI_ESCAPED_MAX];
            return cli_usage_error("set-ratios",
                                   "--workload '%s': the tag holds the control character 0x%02x "
                                   "(tags are stored and printed, so they may hold none)",
                                   cli_escape(o->tag, safe, sizeof safe), c);
        }
    }
    if (o->clear && o->n > 0)
        return cli_usage_error("set-ratios", "--clear takes no DEVICE=RATIO items");
    if (!o->clear && o->n == 0)
        return cli_usage_error("set-ratios", "give at least one DEVICE=RATIO (or --clear)");
    if (!o->clear) {
        int positive = 0;
        for (size_t i = 0; i < o->n; i++)
            positive |= o->ratios[i] > 0;
        if (!positive)
            return cli_usage_error("set-ratios", "every ratio is 0: at least one must be > 0");
    }
    return CLI_EXIT_OK;
}

/* The stored entry of `tag`, if any. */
static int find_entry(apo_runtime *rt, const char *tag, apo_profile_entry *e) {
    size_t n = 0;
    if (apo_profile_entry_count(rt, &n) != APO_OK)
        return 0;
    for (size_t i = 0; i < n; i++) {
        apo_profile_entry init = APO_PROFILE_ENTRY_INIT;
        *e = init;
        if (apo_profile_entry_get(rt, i, e) == APO_OK && strcmp(e->tag, tag) == 0)
            return 1;
    }
    return 0;
}

/* Whether `id` names a device of the runtime: its id, or cuda:N for the GPU labelled so. */
static int known_device(const apo_device_info *d, const char *id) {
    if (strcmp(d->id, id) == 0)
        return 1;
    const size_t len = strlen(id);
    return strncmp(id, "cuda:", 5) == 0 && d->kind == APO_DEVICE_CUDA &&
           strncmp(d->label, id, len) == 0 && (d->label[len] == ' ' || d->label[len] == '\0');
}

/* After the library refused the ids: when one of them is no device of this run, lists the
 * devices that are, so that the next try can be right. */
static void print_device_ids(apo_runtime *rt, const cli_set_ratios_options *o) {
    size_t n = 0;
    if (apo_device_count(rt, &n) != APO_OK)
        return;
    if (n > APO_MAX_DEVICES)
        n = APO_MAX_DEVICES;
    apo_device_info devs[APO_MAX_DEVICES];
    for (size_t i = 0; i < n; i++) {
        apo_device_info init = APO_DEVICE_INFO_INIT;
        devs[i] = init;
        if (apo_device_get(rt, i, &devs[i]) != APO_OK)
            return;
    }
    int unknown = 0;
    for (size_t k = 0; k < o->n; k++) {
        size_t i = 0;
        while (i < n && !known_device(&devs[i], o->ids[k]))
            i++;
        unknown |= i == n;
    }
    if (!unknown)
        return;
    fprintf(stderr, "apportion: the devices of this run are:");
    for (size_t i = 0; i < n; i++)
        fprintf(stderr, "%s %s", i ? "," : "", devs[i].id);
    fprintf(stderr, "\n");
}

/* Says where the ratios were stored (or that they were not). */
static void print_where(apo_runtime *rt) {
    apo_profile_files files = APO_PROFILE_FILES_INIT;
    if (apo_profile_files_get(rt, &files) != APO_OK)
        return;
    if (files.multigpu_state == APO_PROFILE_OFF && files.multigpu_message[0] != '\0')
        cli_error("warning: profile %s: the change applied to this process only and was not "
                  "stored",
                  files.multigpu_message);
    else if (files.multigpu_state == APO_PROFILE_OFF)
        cli_error("warning: profiles are off (APPORTION_PROFILES=0): the change applied to this "
                  "process only and was not stored");
    else
        printf("stored in   %s\n", files.multigpu_path);
}

/* The edit distance of a and b (insertions, deletions, substitutions), up to 3. */
static size_t edit_distance(const char *a, const char *b) {
    const size_t n = strlen(a), m = strlen(b);
    if (n > APO_TAG_MAX || m > APO_TAG_MAX)
        return 3;
    size_t row[APO_TAG_MAX + 1];
    for (size_t j = 0; j <= m; j++)
        row[j] = j;
    for (size_t i = 1; i <= n; i++) {
        size_t diagonal = row[0];
        row[0] = i;
        for (size_t j = 1; j <= m; j++) {
            const size_t above = row[j];
            size_t best = diagonal + (a[i - 1] != b[j - 1]);
            if (above + 1 < best)
                best = above + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diagonal = above;
        }
    }
    return row[m] < 3 ? row[m] : 3;
}

/* Ratios forced for a tag that no call will ever use apply to nothing: a tag is a kernel's
 * name (a call's tag by default) or one stored already, unless --custom-tag says the caller's
 * own calls set it. A near miss of a kernel's name is named. */
static int check_tag_is_known(const cli_set_ratios_options *o, apo_runtime *rt) {
    apo_kernel_info info = APO_KERNEL_INFO_INIT;
    apo_profile_entry e = APO_PROFILE_ENTRY_INIT;
    if (o->custom_tag || apo_kernel_get(rt, o->tag, &info) == APO_OK || find_entry(rt, o->tag, &e))
        return CLI_EXIT_OK;
    const char *closest = NULL;
    size_t best = 3, n = 0;
    if (apo_kernel_count(rt, &n) == APO_OK) {
        for (size_t i = 0; i < n; i++) {
            const char *name = NULL;
            if (apo_kernel_name(rt, i, &name) != APO_OK || name == NULL)
                continue;
            const size_t d = edit_distance(o->tag, name);
            if (d < best) {
                best = d;
                closest = name;
            }
        }
    }
    char hint[APO_TAG_MAX + 32] = "";
    if (closest != NULL)
        snprintf(hint, sizeof hint, "; did you mean %s?", closest);
    return cli_usage_error("set-ratios",
                           "--workload %s: no kernel has this name and no workload of this tag "
                           "is stored, so no call would use these ratios%s (a tag your own "
                           "calls set with apo_workload.tag: add --custom-tag)",
                           o->tag, hint);
}

static int set_ratios(const cli_set_ratios_options *o, apo_runtime *rt) {
    if (!o->clear) {
        const int rc = check_tag_is_known(o, rt);
        if (rc != CLI_EXIT_OK)
            return rc;
    }
    apo_profile_entry e = APO_PROFILE_ENTRY_INIT;
    const int had_forced = find_entry(rt, o->tag, &e) && e.source == APO_RATIOS_EXPLICIT;
    apo_status st = apo_set_ratios(rt, o->tag, o->clear ? NULL : (const char *const *)o->ids,
                                   o->clear ? NULL : o->ratios, o->clear ? 0 : o->n);
    if (st != APO_OK) {
        char what[APO_TAG_MAX + 48];
        snprintf(what, sizeof what, "cannot %s the ratios of %s", o->clear ? "clear" : "set",
                 o->tag);
        int rc = cli_status_error(st, what);
        if (st == APO_ERR_INVALID_ARGUMENT && !o->clear)
            print_device_ids(rt, o);
        return rc;
    }

    if (o->clear) {
        if (!had_forced)
            printf("%s: no forced ratios were stored; nothing to clear\n", o->tag);
        else if (find_entry(rt, o->tag, &e))
            printf("%s: forced ratios cleared; calls use the %s models again\n", o->tag,
                   apo_ratio_source_name(e.source));
        else
            printf("%s: forced ratios cleared; no model is stored, so calls use equal shares "
                   "until 'apportion profile' or online refinement gives one\n",
                   o->tag);
        print_where(rt);
        return CLI_EXIT_OK;
    }

    /* The ratios are stored as given; a call's shares are the ratios over their sum. */
    printf("%s: ratios forced\n", o->tag);
    printf("  %-40s %10s %7s  %s\n", "device", "ratio", "share", "label");
    if (find_entry(rt, o->tag, &e)) {
        double sum = 0;
        for (size_t i = 0; i < e.n_devices && i < APO_MAX_DEVICES; i++)
            if (isfinite(e.devices[i].ratio))
                sum += e.devices[i].ratio;
        for (size_t i = 0; i < e.n_devices && i < APO_MAX_DEVICES; i++) {
            const apo_device_model *m = &e.devices[i];
            if (isfinite(m->ratio) && sum > 0)
                printf("  %-40s %10.6g %7.3f  %s\n", m->id, m->ratio, m->ratio / sum, m->label);
            else
                printf("  %-40s %10s %7s  %s\n", m->id, "-", "-", m->label);
        }
    } else {
        double sum = 0;
        for (size_t i = 0; i < o->n; i++)
            sum += o->ratios[i];
        for (size_t i = 0; i < o->n; i++)
            printf("  %-40s %10.6g %7.3f\n", o->ids[i], o->ratios[i], o->ratios[i] / sum);
    }
    print_where(rt);
    return CLI_EXIT_OK;
}

int cli_cmd_set_ratios(int argc, char **argv) {
    cli_set_ratios_options o;
    cli_set_ratios_options_init(&o);
    int help = 0;
    int rc = cli_set_ratios_parse_options(argc, argv, &o, &help);
    if (rc == CLI_EXIT_OK && help) {
        fputs(set_ratios_help, stdout);
    } else if (rc == CLI_EXIT_OK) {
        apo_runtime *rt = NULL;
        rc = cli_runtime_create(o.devices, &rt);
        if (rc == CLI_EXIT_OK) {
            cli_print_runtime_warnings(rt);
            rc = set_ratios(&o, rt);
            if (fflush(stdout) != 0 && rc == CLI_EXIT_OK) {
                cli_error("cannot write to standard output");
                rc = CLI_EXIT_FAILURE;
            }
        }
        apo_runtime_destroy(rt);
    }
    cli_set_ratios_options_free(&o);
    return rc;
}
