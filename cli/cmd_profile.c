/*
 * `apportion profile`: measure every device on the sample workloads, fit each device's cost
 * model, solve the shares and write both profile files (apo_profile_auto_balance()).
 *
 * With --if-older-than a kernel whose stored entry is younger than the given age is left
 * alone, so that the command can run from cron or a systemd timer and cost nothing while the
 * profile is fresh (docs/scheduling.md). All options are checked, and every kernel is looked
 * up, before the first measurement: a typo costs nothing.
 */
#include "cli.h"
#include "json_report.h"
#include "option_table.h"
#include "options.h"
#include "profile_checks.h"

#include <assert.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A stored updated_at at most this far in the future is taken as "just now" (timestamps
 * have whole seconds); further ahead, the clock that wrote it was wrong and its age is not
 * trusted. */
#define PROFILE_CLOCK_SLACK_S 300.0

static const char profile_help[] =
    "Usage: apportion profile [--kernels LIST] [--sizes LIST] [--sample-size N] [--runs N]\n"
    "                         [--seed S] [--if-older-than DURATION] [--devices LIST] [--json]\n"
    "\n"
    "Measure every device on generated sample workloads, fit each device's cost model\n"
    "(latency + elements x cost), solve the shares and write both profiles (multigpu.json\n"
    "and thresholds.json). Each kernel is profiled with its default parameters under the\n"
    "workload tag of its name.\n"
    "\n"
    "Options:\n"
    "  --kernels LIST       kernels to profile, comma separated (default: bollinger,macd)\n"
    "  --sizes LIST         sizes to run in samples, comma separated, at least two distinct\n"
    "                       (default: sample size / 16, / 4 and the sample size)\n"
    "  --sample-size N      size at which the shares are solved (default: the largest of\n"
    "                       --sizes, else 1000000)\n"
    "  --runs N             timed runs per device and size, after one warm-up (default 5)\n"
    "  --seed S             seed of the generated input (default 1)\n"
    "  --if-older-than D    skip a kernel whose stored profile is younger than D (30s, 15m,\n"
    "                       12h, 7d); when every kernel is skipped, nothing is measured\n"
    "  --devices LIST       device list as in APPORTION_DEVICES (overrides it)\n"
    "  --json               print one JSON object instead of the tables\n"
    "  -h, --help           show this help\n"
    "\n"
    "Exit status: 0 success (also when everything was skipped), 1 runtime failure (a device\n"
    "failed, a profile file could not be written), 2 usage error.\n";

void cli_profile_options_init(cli_profile_options *o) {
    memset(o, 0, sizeof *o);
    o->runs = 5;
    o->seed = 1;
}

void cli_profile_options_free(cli_profile_options *o) {
    for (size_t i = 0; i < o->n_kernels; i++)
        free(o->kernels[i]);
}

static int parse_kernels(cli_profile_options *o, const char *text) {
    const char *p = text;
    for (;;) {
        const char *comma = strchr(p, ',');
        const size_t len = comma != NULL ? (size_t)(comma - p) : strlen(p);
        if (len == 0)
            return cli_usage_error("profile", "--kernels '%s': empty item", text);
        if (len >= APO_NAME_MAX)
            return cli_usage_error("profile", "--kernels: '%.*s' is too long for a kernel name",
                                   (int)len, p);
        for (size_t i = 0; i < o->n_kernels; i++)
            if (strlen(o->kernels[i]) == len && strncmp(o->kernels[i], p, len) == 0)
                return cli_usage_error("profile", "--kernels: %.*s is given twice", (int)len, p);
        if (o->n_kernels == CLI_PROFILE_MAX_KERNELS)
            return cli_usage_error("profile", "--kernels: at most %d kernels",
                                   CLI_PROFILE_MAX_KERNELS);
        char *name = malloc(len + 1);
        if (name == NULL) {
            cli_error("out of memory");
            return CLI_EXIT_FAILURE;
        }
        memcpy(name, p, len);
        name[len] = '\0';
        o->kernels[o->n_kernels++] = name;
        if (comma == NULL)
            return CLI_EXIT_OK;
        p = comma + 1;
    }
}

static int parse_sizes(cli_profile_options *o, const char *text) {
    o->n_sizes = 0;
    const char *p = text;
    for (;;) {
        const char *comma = strchr(p, ',');
        const size_t len = comma != NULL ? (size_t)(comma - p) : strlen(p);
        char item[32];
        uint64_t v = 0;
        if (len == 0)
            return cli_usage_error("profile", "--sizes '%s': empty item", text);
        if (len < sizeof item) {
            memcpy(item, p, len);
            item[len] = '\0';
        }
        if (len >= sizeof item || cli_parse_u64(item, &v) != 0 || v == 0)
            return cli_usage_error("profile", "--sizes: '%.*s' is not a positive integer", (int)len,
                                   p);
        if (o->n_sizes == CLI_PROFILE_MAX_SIZES)
            return cli_usage_error("profile", "--sizes: at most %d sizes", CLI_PROFILE_MAX_SIZES);
        o->sizes[o->n_sizes++] = v;
        if (comma == NULL)
            break;
        p = comma + 1;
    }
    size_t distinct = 0;
    for (size_t i = 0; i < o->n_sizes; i++) {
        size_t j = 0;
        while (j < i && o->sizes[j] != o->sizes[i])
            j++;
        distinct += j == i;
    }
    if (distinct < 2)
        return cli_usage_error("profile",
                               "--sizes '%s': at least two distinct sizes are needed to fit "
                               "latency and cost",
                               text);
    return CLI_EXIT_OK;
}

/* --kernels LIST, read as it is given (a later argument's error comes after its own). */
static int read_kernels(const char *command, const char *v, void *dest) {
    (void)command;
    cli_profile_options *o = dest;
    o->kernels_text = v;
    return parse_kernels(o, v);
}

static int read_sizes(const char *command, const char *v, void *dest) {
    (void)command;
    return parse_sizes(dest, v);
}

static int read_older(const char *command, const char *v, void *dest) {
    (void)command;
    cli_profile_options *o = dest;
    if (cli_parse_duration(v, &o->older_s) != 0)
        return CLI_OPT_BAD;
    o->older_text = v;
    return CLI_EXIT_OK;
}

#define PROFILE(field) offsetof(cli_profile_options, field)

static const cli_option profile_rows[] = {
    CLI_ROW_FLAG("--json", PROFILE(json)),
    CLI_ROW_READ("--kernels", CLI_ONCE, 0, CLI_NO_FIELD, read_kernels, NULL),
    CLI_ROW_READ("--sizes", CLI_ONCE, 0, CLI_NO_FIELD, read_sizes, NULL),
    CLI_ROW_U64("--sample-size", CLI_ONCE, PROFILE(sample_size), CLI_NO_FIELD, 1, UINT64_MAX,
                "a positive integer"),
    CLI_ROW_UINT("--runs", CLI_ONCE, PROFILE(runs), CLI_NO_FIELD, 1, CLI_PROFILE_MAX_RUNS,
                 "an integer from %" PRIu64 " to %" PRIu64),
    CLI_ROW_U64("--seed", CLI_ONCE, PROFILE(seed), CLI_NO_FIELD, 0, UINT64_MAX,
                "an integer from 0 to 18446744073709551615"),
    CLI_ROW_READ("--if-older-than", CLI_ONCE, 0, CLI_NO_FIELD, read_older,
                 "a positive whole number and a unit, s, m, h or d (30s, 15m, 12h, 7d)"),
    CLI_ROW_TEXT("--devices", CLI_ONCE, PROFILE(devices)),
};

static const cli_option_table profile_table = {.command = "profile", CLI_TABLE_ROWS(profile_rows)};

int cli_profile_parse_options(int argc, char **argv, cli_profile_options *o, int *help) {
    int rc = cli_options_read(&profile_table, argc, argv, o, help);
    if (*help)
        return CLI_EXIT_OK;
    if (rc != CLI_EXIT_OK)
        return rc;
    if (o->kernels_text == NULL && (rc = parse_kernels(o, "bollinger,macd")) != CLI_EXIT_OK)
        return rc;
    /* The shares are solved at the largest size measured unless the user says otherwise:
     * the library's default sample size (1000000) may lie far outside the sizes given. */
    if (o->sample_size == 0 && o->n_sizes > 0)
        for (size_t i = 0; i < o->n_sizes; i++)
            if (o->sizes[i] > o->sample_size)
                o->sample_size = o->sizes[i];
    return CLI_EXIT_OK;
}

/* ---- --if-older-than --------------------------------------------------------------------- */

typedef struct skipped_kernel {
    const char *tag;
    char updated_at[40];
    double age_s;
} skipped_kernel;

/* Whether the stored entry of `tag` is younger than older_s: it exists, its devices match
 * this runtime, and it holds a model for at least one device. Ratios alone (read from a
 * ThreadX file, or forced by set-ratios before any profile) are no measurement and do not
 * count. */
static int is_fresh(apo_runtime *rt, const char *tag, double older_s, skipped_kernel *out) {
    size_t n = 0;
    if (apo_profile_entry_count(rt, &n) != APO_OK)
        return 0;
    for (size_t i = 0; i < n; i++) {
        apo_profile_entry e = APO_PROFILE_ENTRY_INIT;
        if (apo_profile_entry_get(rt, i, &e) != APO_OK || strcmp(e.tag, tag) != 0)
            continue;
        if (e.stale || !isfinite(e.age_s) || e.age_s < -PROFILE_CLOCK_SLACK_S || e.age_s >= older_s)
            return 0;
        int has_model = 0;
        for (size_t d = 0; d < e.n_devices && d < APO_MAX_DEVICES; d++)
            has_model |= e.devices[d].valid;
        if (!has_model)
            return 0;
        out->tag = tag;
        snprintf(out->updated_at, sizeof out->updated_at, "%s", e.updated_at);
        out->age_s = e.age_s < 0 ? 0 : e.age_s;
        return 1;
    }
    return 0;
}

/* ---- progress ---------------------------------------------------------------------------- */

#define PROGRESS_BAR 20

typedef struct progress_state {
    const char *tag;
    int drawn;
    size_t width; /* characters of the last line drawn, to blank out what is left of it */
} progress_state;

static void progress_draw(void *user, size_t done, size_t total, const char *what) {
    progress_state *p = user;
    const double frac = total > 0 ? (double)(done < total ? done : total) / (double)total : 0.0;
    const int filled = (int)(frac * PROGRESS_BAR);
    char bar[PROGRESS_BAR + 1];
    for (int i = 0; i < PROGRESS_BAR; i++)
        bar[i] = i < filled ? '#' : '.';
    bar[PROGRESS_BAR] = '\0';
    char line[256];
    int w = snprintf(line, sizeof line, "profiling %s  [%s] %3d%%  %s", p->tag, bar,
                     (int)(frac * 100.0), what != NULL ? what : "");
    if (w < 0)
        return;
    const size_t width = (size_t)w < sizeof line ? (size_t)w : sizeof line - 1;
    const int pad = p->width > width ? (int)(p->width - width) : 0;
    fprintf(stderr, "\r%s%*s", line, pad, "");
    fflush(stderr);
    p->width = width;
    p->drawn = 1;
}

/* ---- output ------------------------------------------------------------------------------ */

static json_t *result_json(const apo_profile_result *res) {
    json_t *o = json_object();
    json_object_set_new(o, "tag", cli_json_string(res->tag));
    json_object_set_new(o, "sample_size", cli_json_u64(res->sample_size));
    json_object_set_new(o, "runs", json_integer(res->runs));
    json_object_set_new(o, "predicted_ms", cli_json_number(res->predicted_ms));
    json_object_set_new(o, "written", json_boolean(res->written));
    json_t *devs = json_array();
    for (size_t i = 0; i < res->n_devices && i < APO_MAX_DEVICES; i++)
        json_array_append_new(devs, cli_device_model_json(&res->devices[i], 1));
    json_object_set_new(o, "devices", devs);
    return o;
}

static void print_sizes(const cli_profile_options *o, const apo_profile_result *res) {
    printf("sizes       ");
    if (o->n_sizes > 0) {
        for (size_t i = 0; i < o->n_sizes; i++)
            printf("%s%llu", i ? ", " : "", (unsigned long long)o->sizes[i]);
    } else {
        /* The library's default sizes (apo_profile_options.sizes). */
        printf("%llu, %llu, %llu", (unsigned long long)(res->sample_size / 16),
               (unsigned long long)(res->sample_size / 4), (unsigned long long)res->sample_size);
    }
    printf(" samples; %u runs each after a warm-up\n", res->runs);
}

static void result_print(const cli_profile_options *o, const apo_profile_result *res,
                         int simulated) {
    printf("profile     %s\n", res->tag);
    print_sizes(o, res);
    if (isfinite(res->predicted_ms))
        printf("predicted   %.3f ms at %llu samples with the solved shares\n", res->predicted_ms,
               (unsigned long long)res->sample_size);
    else
        printf("predicted   - (no model for some device)\n");
    if (simulated)
        printf("note: simulated devices present; their times are modelled\n");
    printf("\n");
    cli_device_models_print(stdout, res->devices, res->n_devices, 0, 1);
    printf("\n");
}

static int any_simulated(const apo_runtime *rt) {
    size_t n = 0;
    if (apo_device_count(rt, &n) != APO_OK)
        return 0;
    for (size_t i = 0; i < n; i++) {
        apo_device_info d = APO_DEVICE_INFO_INIT;
        if (apo_device_get(rt, i, &d) == APO_OK && d.kind == APO_DEVICE_SIM)
            return 1;
    }
    return 0;
}

/* Whether some device of rt is a real one, whose times the machine's load can spoil. */
static int any_real(const apo_runtime *rt) {
    size_t n = 0;
    if (apo_device_count(rt, &n) != APO_OK)
        return 0;
    for (size_t i = 0; i < n; i++) {
        apo_device_info d = APO_DEVICE_INFO_INIT;
        if (apo_device_get(rt, i, &d) == APO_OK && d.kind != APO_DEVICE_SIM)
            return 1;
    }
    return 0;
}

/* ---- the command ------------------------------------------------------------------------- */

typedef struct profile_run {
    apo_runtime *rt;
    json_t *profiles; /* --json: the results so far */
    json_t *skipped;
    size_t n_results; /* kernels measured */
    size_t n_written; /* of which both files were written */
    skipped_kernel skips[CLI_PROFILE_MAX_KERNELS];
    size_t n_skips;
} profile_run;

/* Prints where the files are (text) or adds the paths to the JSON object. */
static void report_files(const profile_run *s, json_t *j) {
    apo_profile_files files = APO_PROFILE_FILES_INIT;
    const int known = apo_profile_files_get(s->rt, &files) == APO_OK;
    if (j != NULL) {
        const int on = known && files.multigpu_state != APO_PROFILE_OFF;
        json_object_set_new(j, "multigpu_path",
                            on ? cli_json_string(files.multigpu_path) : json_null());
        json_object_set_new(j, "thresholds_path",
                            on ? cli_json_string(files.thresholds_path) : json_null());
        return;
    }
    if (!known)
        return;
    if (files.multigpu_state == APO_PROFILE_OFF) {
        if (files.multigpu_message[0] != '\0')
            printf("profile %s: the models were applied to this process only, nothing was "
                   "written\n",
                   files.multigpu_message);
        else
            printf("profiles are off (APPORTION_PROFILES=0): the models were applied to this "
                   "process only, nothing was written\n");
        return;
    }
    const int written = s->n_results > 0 && s->n_written == s->n_results;
    printf("%-11s %s\n", written ? "written" : "files", files.multigpu_path);
    printf("%-11s %s\n", "", files.thresholds_path);
}

/* The 1-minute load average (NaN where /proc/loadavg cannot be read). */
static double load_average(void) {
    FILE *f = fopen("/proc/loadavg", "r");
    double load1 = NAN;
    if (f != NULL) {
        if (fscanf(f, "%lf", &load1) != 1)
            load1 = NAN;
        fclose(f);
    }
    return load1;
}

/* Warns on stderr, whatever the format (as `run` does for non-finite outputs), about each
 * host device whose measured fixed cost no idle host has (profile_checks.h). */
static void check_models(const apo_runtime *rt, const apo_profile_result *res) {
    char note[512];
    for (size_t i = 0; i < res->n_devices && i < APO_MAX_DEVICES; i++) {
        const apo_device_model *m = &res->devices[i];
        apo_device_info d = APO_DEVICE_INFO_INIT;
        const int simulated = apo_device_get(rt, i, &d) != APO_OK || d.kind == APO_DEVICE_SIM;
        if (m->valid && cli_latency_warning(m->id, simulated, m->latency_ms, note, sizeof note))
            fprintf(stderr, "apportion: warning: %s: %s\n", res->tag, note);
    }
}

static int profile_all(const cli_profile_options *o, profile_run *s) {
    int rc = cli_runtime_create(o->devices, &s->rt);
    if (rc != CLI_EXIT_OK)
        return rc;
    if (!o->json)
        cli_print_runtime_warnings(s->rt);

    /* Every kernel is known before anything is measured. */
    for (size_t k = 0; k < o->n_kernels; k++) {
        apo_kernel_info info = APO_KERNEL_INFO_INIT;
        apo_status st = apo_kernel_get(s->rt, o->kernels[k], &info);
        if (st != APO_OK)
            return cli_unknown_kernel_error(s->rt, o->kernels[k], st, "--kernels");
        /* The kernel's own spelling from here (a name is found in any case, docs/cli.md): the
         * profile's tag is the one a call of the kernel looks up. Case folds in place. */
        assert(strlen(info.name) == strlen(o->kernels[k]));
        memcpy(o->kernels[k], info.name, strlen(info.name));
    }

    const int simulated = any_simulated(s->rt);
    const int progress = cli_stderr_is_tty();
    /* Read before anything is measured (once profiling runs, the load is partly its own),
     * and said before the first kernel is measured, so that a profile the library refuses on
     * a busy machine is explained as well; a run that measures nothing (every profile fresh
     * under --if-older-than) has nothing the load could spoil, and says nothing of it.
     * Simulated devices are modelled: no load spoils their times. */
    char note[512];
    int busy = any_real(s->rt) &&
               cli_load_warning(load_average(), sysconf(_SC_NPROCESSORS_ONLN), note, sizeof note);
    for (size_t k = 0; k < o->n_kernels; k++) {
        const char *tag = o->kernels[k];
        if (o->older_text != NULL && is_fresh(s->rt, tag, o->older_s, &s->skips[s->n_skips])) {
            const skipped_kernel *sk = &s->skips[s->n_skips++];
            char age[32];
            cli_format_age(sk->age_s, age, sizeof age);
            if (o->json) {
                json_t *x = json_object();
                json_object_set_new(x, "tag", cli_json_string(tag));
                json_object_set_new(x, "updated_at", cli_json_string(sk->updated_at));
                json_object_set_new(x, "age_s", cli_json_number(sk->age_s));
                json_array_append_new(s->skipped, x);
            } else {
                printf("%s: profile is %s old (younger than %s), skipped\n", tag, age,
                       o->older_text);
                fflush(stdout);
            }
            continue;
        }

        if (busy) {
            fprintf(stderr, "apportion: warning: %s\n", note);
            busy = 0;
        }
        apo_profile_options opt = APO_PROFILE_OPTIONS_INIT;
        opt.tag = tag;
        opt.kernel = tag;
        opt.sample_size = o->sample_size;
        opt.sizes = o->n_sizes > 0 ? o->sizes : NULL;
        opt.n_sizes = o->n_sizes;
        opt.runs = o->runs;
        opt.seed = o->seed;
        progress_state ps = {.tag = tag, .drawn = 0, .width = 0};
        if (progress) {
            opt.progress = progress_draw;
            opt.progress_user = &ps;
        }
        apo_profile_result res = APO_PROFILE_RESULT_INIT;
        apo_status st = apo_profile_auto_balance(s->rt, &opt, &res);
        if (ps.drawn) {
            fputc('\n', stderr);
            fflush(stderr);
        }
        if (st != APO_OK && st != APO_ERR_IO) {
            char what[96];
            snprintf(what, sizeof what, "cannot profile %s", tag);
            return cli_status_error(st, what);
        }
        /* APO_ERR_IO: measured and applied, but not stored. Show what was measured, then
         * say why it was not stored. */
        s->n_results++;
        s->n_written += res.written != 0;
        if (o->json)
            json_array_append_new(s->profiles, result_json(&res));
        else
            result_print(o, &res, simulated);
        check_models(s->rt, &res);
        if (st == APO_ERR_IO) {
            char what[96];
            snprintf(what, sizeof what, "%s: the profile could not be stored", tag);
            fflush(stdout);
            cli_status_error(st, what);
            return CLI_EXIT_FAILURE;
        }
    }
    return CLI_EXIT_OK;
}

int cli_cmd_profile(int argc, char **argv) {
    cli_profile_options o;
    cli_profile_options_init(&o);
    int help = 0;
    int rc = cli_profile_parse_options(argc, argv, &o, &help);
    if (rc != CLI_EXIT_OK || help) {
        if (help)
            fputs(profile_help, stdout);
        cli_profile_options_free(&o);
        return rc;
    }

    profile_run s;
    memset(&s, 0, sizeof s);
    s.profiles = json_array();
    s.skipped = json_array();
    rc = profile_all(&o, &s);
    if (o.json && s.rt != NULL && (rc == CLI_EXIT_OK || s.n_results > 0)) {
        /* A failure after some kernels were measured still prints what was measured. */
        json_t *j = json_object();
        json_object_set(j, "profiles", s.profiles);
        json_object_set(j, "skipped", s.skipped);
        report_files(&s, j);
        json_object_set_new(j, "simulated", json_boolean(any_simulated(s.rt)));
        json_object_set_new(j, "warnings", cli_runtime_warnings_json(s.rt));
        const int prc = cli_json_print(j);
        json_decref(j);
        if (rc == CLI_EXIT_OK)
            rc = prc;
    } else if (o.json && s.rt != NULL) {
        /* No report: the warnings go to stderr rather than being lost. */
        cli_print_runtime_warnings(s.rt);
    } else if (s.rt != NULL && s.n_results > 0) {
        report_files(&s, NULL);
    }
    if (!o.json && fflush(stdout) != 0 && rc == CLI_EXIT_OK) {
        cli_error("cannot write to standard output");
        rc = CLI_EXIT_FAILURE;
    }
    json_decref(s.profiles);
    json_decref(s.skipped);
    apo_runtime_destroy(s.rt);
    cli_profile_options_free(&o);
    return rc;
}
