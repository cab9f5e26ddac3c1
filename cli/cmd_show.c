/*
 * `apportion show`: the stored profiles as this machine's runtime reads them: where both files
 * are and what became of them (loaded, missing, ignored and why), then every workload entry
 * of multigpu.json (source, age, staleness, per-device ratio and model) and every entry of
 * thresholds.json. Missing or unusable files are a normal state, not a failure.
 */
#include "cli.h"
#include "json_report.h"
#include "option_table.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const char show_help[] =
    "Usage: apportion show [--devices LIST] [--json]\n"
    "\n"
    "Show the stored profiles: where multigpu.json and thresholds.json are and whether they\n"
    "were loaded; per workload its source (profile, online or explicit), age, sample size,\n"
    "whether it is stale (its devices do not match this machine's) and, per device, the\n"
    "ratio and the model (latency and cost per million elements); then the CPU and GPU\n"
    "timings of thresholds.json.\n"
    "\n"
    "Options:\n"
    "  --devices LIST   device list as in APPORTION_DEVICES (overrides it): staleness is\n"
    "                   judged against these devices\n"
    "  --json           print one JSON object instead of the text\n"
    "  -h, --help       show this help\n"
    "\n"
    "Exit status: 0 (also when there is no profile yet), 1 runtime failure, 2 usage error.\n";

/* The message of a file that was not loaded, or NULL. */
static const char *state_message(apo_profile_state state, const char *message) {
    return (state == APO_PROFILE_IGNORED || state == APO_PROFILE_OFF) && message[0] != '\0'
               ? message
               : NULL;
}

static json_t *entry_json(const apo_profile_entry *e) {
    json_t *o = json_object();
    char age[32];
    cli_format_age(e->age_s, age, sizeof age);
    json_object_set_new(o, "tag", cli_json_string(e->tag));
    json_object_set_new(o, "source", json_string(apo_ratio_source_name(e->source)));
    json_object_set_new(o, "updated_at",
                        e->updated_at[0] != '\0' ? cli_json_string(e->updated_at) : json_null());
    json_object_set_new(o, "age_s", cli_json_number(e->age_s));
    json_object_set_new(o, "age", json_string(age));
    json_object_set_new(o, "sample_size", cli_json_u64(e->sample_size));
    json_object_set_new(o, "runs", json_integer(e->runs));
    json_object_set_new(o, "stale", json_boolean(e->stale));
    json_object_set_new(o, "stale_reason",
                        e->stale ? cli_json_string(e->stale_reason) : json_null());
    json_t *devs = json_array();
    for (size_t i = 0; i < e->n_devices && i < APO_MAX_DEVICES; i++)
        json_array_append_new(devs, cli_device_model_json(&e->devices[i], 0));
    json_object_set_new(o, "devices", devs);
    return o;
}

static json_t *threshold_json(const apo_threshold_info *t) {
    json_t *o = json_object();
    json_object_set_new(o, "key", cli_json_string(t->key));
    json_object_set_new(o, "cpu_ms_avg", cli_json_number(t->cpu_ms_avg));
    json_object_set_new(o, "gpu_ms_avg", cli_json_number(t->gpu_ms_avg));
    json_object_set_new(o, "samples", cli_json_u64(t->samples));
    json_object_set_new(o, "simulated", json_boolean(t->simulated));
    return o;
}

/* Everything printed below that comes from the files (paths, tags, ids, times, messages)
 * goes through cli_escape(): a profile written by hand, or by an older version, may hold
 * control characters in a tag, and they must not reach the terminal. */

static void print_file(const char *name, const char *path, apo_profile_state state,
                       const char *message, int threadx) {
    char safe[CLI_ESCAPED_MAX * 4];
    printf("%-16s %s: %s", name, cli_escape(path, safe, sizeof safe),
           apo_profile_state_name(state));
    if (state == APO_PROFILE_LOADED && threadx)
        printf(" (ThreadX shape: ratios only, no models)");
    const char *m = state_message(state, message);
    if (m != NULL)
        printf(" (%s)", cli_escape(m, safe, sizeof safe));
    printf("\n");
}

static void print_entry(const apo_profile_entry *e) {
    char age[32], safe[CLI_ESCAPED_MAX];
    cli_format_age(e->age_s, age, sizeof age);
    printf("\nworkload %s\n", cli_escape(e->tag, safe, sizeof safe));
    printf("  source       %s\n", apo_ratio_source_name(e->source));
    if (e->updated_at[0] != '\0')
        printf("  updated      %s (%s ago)\n", cli_escape(e->updated_at, safe, sizeof safe), age);
    else
        printf("  updated      unknown\n");
    if (e->sample_size > 0)
        printf("  sample size  %llu samples, %u runs\n", (unsigned long long)e->sample_size,
               e->runs);
    if (e->stale)
        printf("  stale        yes: %s (apportion profile measures it again)\n",
               cli_escape(e->stale_reason, safe, sizeof safe));
    else
        printf("  stale        no\n");
    cli_device_models_print(stdout, e->devices, e->n_devices, 2, 0);
}

static int entry_is_simulated(const apo_profile_entry *e) {
    for (size_t i = 0; i < e->n_devices && i < APO_MAX_DEVICES; i++)
        if (strncmp(e->devices[i].id, "sim:", 4) == 0)
            return 1;
    return 0;
}

static int flush_stdout(void) {
    if (fflush(stdout) == 0)
        return CLI_EXIT_OK;
    cli_error("cannot write to standard output");
    return CLI_EXIT_FAILURE;
}

static int show(apo_runtime *rt, int json) {
    apo_profile_files files = APO_PROFILE_FILES_INIT;
    apo_status st = apo_profile_files_get(rt, &files);
    if (st != APO_OK)
        return cli_status_error(st, "cannot read the profile state");
    size_t n_entries = 0, n_thresholds = 0;
    st = apo_profile_entry_count(rt, &n_entries);
    if (st == APO_OK)
        st = apo_threshold_count(rt, &n_thresholds);
    if (st != APO_OK)
        return cli_status_error(st, "cannot read the profiles");
    const int off = files.multigpu_state == APO_PROFILE_OFF;
    const int nothing = n_entries == 0 && n_thresholds == 0;

    if (json) {
        json_t *o = json_object();
        json_t *m = json_object();
        json_object_set_new(m, "path", off ? json_null() : cli_json_string(files.multigpu_path));
        json_object_set_new(m, "state", json_string(apo_profile_state_name(files.multigpu_state)));
        const char *msg = state_message(files.multigpu_state, files.multigpu_message);
        json_object_set_new(m, "message", msg != NULL ? cli_json_string(msg) : json_null());
        json_object_set_new(m, "threadx", json_boolean(files.multigpu_threadx));
        /* The host and time that wrote the file: only a loaded file has them. */
        const int loaded = files.multigpu_state == APO_PROFILE_LOADED;
        json_object_set_new(
            m, "host", loaded && files.host[0] != '\0' ? cli_json_string(files.host) : json_null());
        json_object_set_new(m, "updated_at",
                            loaded && files.updated_at[0] != '\0'
                                ? cli_json_string(files.updated_at)
                                : json_null());
        json_t *ws = json_array();
        for (size_t i = 0; i < n_entries; i++) {
            apo_profile_entry e = APO_PROFILE_ENTRY_INIT;
            st = apo_profile_entry_get(rt, i, &e);
            if (st != APO_OK) {
                json_decref(ws);
                json_decref(m);
                json_decref(o);
                return cli_status_error(st, "cannot read a profile entry");
            }
            json_array_append_new(ws, entry_json(&e));
        }
        json_object_set_new(m, "workloads", ws);
        json_object_set_new(o, "multigpu", m);

        json_t *t = json_object();
        json_object_set_new(t, "path", off ? json_null() : cli_json_string(files.thresholds_path));
        json_object_set_new(t, "state",
                            json_string(apo_profile_state_name(files.thresholds_state)));
        msg = state_message(files.thresholds_state, files.thresholds_message);
        json_object_set_new(t, "message", msg != NULL ? cli_json_string(msg) : json_null());
        json_t *es = json_array();
        for (size_t i = 0; i < n_thresholds; i++) {
            apo_threshold_info info = APO_THRESHOLD_INFO_INIT;
            st = apo_threshold_get(rt, i, &info);
            if (st != APO_OK) {
                json_decref(es);
                json_decref(t);
                json_decref(o);
                return cli_status_error(st, "cannot read a threshold entry");
            }
            json_array_append_new(es, threshold_json(&info));
        }
        json_object_set_new(t, "entries", es);
        json_object_set_new(o, "thresholds", t);
        json_object_set_new(o, "empty", json_boolean(nothing));
        json_object_set_new(o, "warnings", cli_runtime_warnings_json(rt));
        const int rc = cli_json_print(o);
        json_decref(o);
        return rc;
    }

    cli_print_runtime_warnings(rt);
    if (off && files.multigpu_message[0] != '\0') {
        printf("profile %s: nothing is read or written\n", files.multigpu_message);
        return flush_stdout();
    }
    if (off) {
        printf("profiles are off (APPORTION_PROFILES=0): nothing is read or written\n");
        return flush_stdout();
    }
    print_file("multigpu.json", files.multigpu_path, files.multigpu_state, files.multigpu_message,
               files.multigpu_threadx);
    if (files.multigpu_state == APO_PROFILE_LOADED) {
        char host[CLI_ESCAPED_MAX], updated[CLI_ESCAPED_MAX];
        printf("%-16s host %s, updated %s\n", "",
               files.host[0] != '\0' ? cli_escape(files.host, host, sizeof host) : "unknown",
               files.updated_at[0] != '\0' ? cli_escape(files.updated_at, updated, sizeof updated)
                                           : "unknown");
    }
    print_file("thresholds.json", files.thresholds_path, files.thresholds_state,
               files.thresholds_message, 0);
    if (nothing) {
        if (files.multigpu_state == APO_PROFILE_IGNORED ||
            files.thresholds_state == APO_PROFILE_IGNORED)
            printf("\nno usable profile: run 'apportion profile' to write a new one\n");
        else
            printf("\nno profile yet: run 'apportion profile'\n");
        return flush_stdout();
    }

    int simulated = 0;
    for (size_t i = 0; i < n_entries; i++) {
        apo_profile_entry e = APO_PROFILE_ENTRY_INIT;
        st = apo_profile_entry_get(rt, i, &e);
        if (st != APO_OK)
            return cli_status_error(st, "cannot read a profile entry");
        print_entry(&e);
        simulated |= entry_is_simulated(&e);
    }
    if (n_entries == 0)
        printf("\nno workload in multigpu.json: run 'apportion profile'\n");

    printf("\nthresholds (%zu %s)\n", n_thresholds, n_thresholds == 1 ? "entry" : "entries");
    if (n_thresholds > 0)
        printf("  %12s %12s %8s  %s\n", "cpu_ms_avg", "gpu_ms_avg", "samples", "key");
    for (size_t i = 0; i < n_thresholds; i++) {
        apo_threshold_info t = APO_THRESHOLD_INFO_INIT;
        st = apo_threshold_get(rt, i, &t);
        if (st != APO_OK)
            return cli_status_error(st, "cannot read a threshold entry");
        char cpu[32] = "-", gpu[32] = "-";
        if (isfinite(t.cpu_ms_avg))
            snprintf(cpu, sizeof cpu, "%.4f", t.cpu_ms_avg);
        if (isfinite(t.gpu_ms_avg))
            snprintf(gpu, sizeof gpu, "%.4f%s", t.gpu_ms_avg, t.simulated ? " (sim)" : "");
        char key[CLI_ESCAPED_MAX * 2];
        printf("  %12s %12s %8llu  %s\n", cpu, gpu, (unsigned long long)t.samples,
               cli_escape(t.key, key, sizeof key));
    }
    if (simulated)
        printf("\nnote: entries with sim: devices hold modelled times of simulated devices\n");
    return flush_stdout();
}

int cli_cmd_show(int argc, char **argv) {
    int json = 0;
    apo_runtime *rt = NULL;
    int done = cli_open_json_devices("show", show_help, argc, argv, &json, &rt);
    if (done >= 0)
        return done;
    int rc = show(rt, json);
    if (rc != CLI_EXIT_OK && json)
        cli_print_runtime_warnings(rt);
    apo_runtime_destroy(rt);
    return rc;
}
