/*
 * The profile files: where they are, how the golden files in tests/data/profiles read (with
 * exact values), how every bad one is refused (the message names the file and the field),
 * that writes read back bit for bit, that an unusable file is kept aside, that a failed write
 * leaves the old file byte-identical, the running averages of thresholds.json, the canonical
 * threshold keys and timestamps, and that concurrent writers lose nothing while a reader
 * never sees a torn file.
 *
 * Every case that writes works in its own mkdtemp folder under TMPDIR (else /tmp) and removes it.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "profiles/profile_store.h"

#define DATA APO_TEST_DATA_DIR "/profiles/"
#define H100 "GPU-9a1c4f3e-5b2d-4c8a-9e7f-1d2c3b4a5e6f"
/* 2026-11-21T10:00:00Z, computed independently (Python's calendar.timegm). */
#define T_2026_11_21 1795255200.0

/* ---- helpers ---------------------------------------------------------------------------- */

static void make_tmp(char *dir, size_t size) {
    const char *tmp = getenv("TMPDIR"); /* scripts/test.sh gives a private one */
    snprintf(dir, size, "%s/apo-profile-XXXXXX", tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
    cr_assert_not_null(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
}

/* Removes a tree made by a test (giving folders back their write bit first). */
static void rm_tree(const char *path) {
    struct stat st;
    if (lstat(path, &st) != 0)
        return;
    if (S_ISDIR(st.st_mode)) {
        chmod(path, 0700);
        DIR *d = opendir(path);
        if (d != NULL) {
            struct dirent *e;
            while ((e = readdir(d)) != NULL) {
                if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                    continue;
                char child[4096];
                snprintf(child, sizeof child, "%s/%s", path, e->d_name);
                rm_tree(child);
            }
            closedir(d);
        }
        rmdir(path);
    } else {
        unlink(path);
    }
}

static char *read_all(const char *path, size_t *len) {
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    size_t got;
    while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap)
            buf = realloc(buf, (cap *= 2) + 1);
    }
    fclose(f);
    buf[n] = '\0';
    *len = n;
    return buf;
}

static void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "%s: %s", path, strerror(errno));
    fputs(text, f);
    cr_assert_eq(fclose(f), 0);
}

/* Doubles compared bit for bit (NaN equals NaN). */
static int same_double(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

static void assert_device(const apo__stored_device *d, const char *id, const char *label,
                          double ratio, double latency, double cost, uint64_t samples) {
    cr_assert_str_eq(d->id, id);
    cr_assert_str_eq(d->label, label, "%s label", id);
    cr_assert(same_double(d->ratio, ratio), "%s ratio %.17g, expected %.17g", id, d->ratio, ratio);
    cr_assert(same_double(d->latency_ms, latency), "%s latency %.17g, expected %.17g", id,
              d->latency_ms, latency);
    cr_assert(same_double(d->ms_per_melem, cost), "%s cost %.17g, expected %.17g", id,
              d->ms_per_melem, cost);
    cr_assert_eq(d->samples, samples, "%s samples", id);
}

static void assert_same_workload(const apo__stored_workload *a, const apo__stored_workload *b) {
    cr_assert_str_eq(a->tag, b->tag);
    cr_assert_str_eq(a->updated_at, b->updated_at, "%s", a->tag);
    cr_assert_eq(a->sample_size, b->sample_size, "%s", a->tag);
    cr_assert_eq(a->runs, b->runs, "%s", a->tag);
    cr_assert_eq(a->origin, b->origin, "%s", a->tag);
    cr_assert_eq(a->n_devices, b->n_devices, "%s", a->tag);
    for (size_t i = 0; i < a->n_devices; i++) {
        const apo__stored_device *d = &b->devices[i];
        assert_device(&a->devices[i], d->id, d->label, d->ratio, d->latency_ms, d->ms_per_melem,
                      d->samples);
        cr_assert_str_eq(a->devices[i].config, d->config, "%s config", d->id);
        const apo__stored_online *x = &a->devices[i].online, *y = &d->online;
        cr_assert_eq(x->n_recent, y->n_recent, "%s online observations", d->id);
        for (unsigned k = 0; k < y->n_recent; k++)
            cr_assert(same_double(x->recent_elements[k], y->recent_elements[k]) &&
                          same_double(x->recent_ms[k], y->recent_ms[k]),
                      "%s observation %u", d->id, k);
        cr_assert(same_double(x->prior_latency_ms, y->prior_latency_ms) &&
                      same_double(x->prior_ms_per_melem, y->prior_ms_per_melem),
                  "%s prior", d->id);
        cr_assert(same_double(x->known_latency_ms, y->known_latency_ms), "%s known latency", d->id);
        cr_assert_eq(x->off_run, y->off_run, "%s off_run", d->id);
    }
}

static void assert_threshold(const apo__threshold *t, const char *key, double cpu, double gpu,
                             uint64_t samples, uint64_t cpu_samples, uint64_t gpu_samples) {
    cr_assert_str_eq(t->key, key);
    cr_assert(same_double(t->cpu_ms_avg, cpu), "%s cpu %.17g, expected %.17g", key, t->cpu_ms_avg,
              cpu);
    cr_assert(same_double(t->gpu_ms_avg, gpu), "%s gpu %.17g, expected %.17g", key, t->gpu_ms_avg,
              gpu);
    cr_assert_eq(t->samples, samples, "%s samples %llu", key, (unsigned long long)t->samples);
    cr_assert_eq(t->cpu_samples, cpu_samples, "%s cpu_samples %llu", key,
                 (unsigned long long)t->cpu_samples);
    cr_assert_eq(t->gpu_samples, gpu_samples, "%s gpu_samples %llu", key,
                 (unsigned long long)t->gpu_samples);
}

static apo__stored_device device(const char *id, const char *label, double ratio, double latency,
                                 double cost, uint64_t samples) {
    apo__stored_device d;
    memset(&d, 0, sizeof d);
    snprintf(d.id, sizeof d.id, "%s", id);
    snprintf(d.label, sizeof d.label, "%s", label);
    d.ratio = ratio;
    d.latency_ms = latency;
    d.ms_per_melem = cost;
    d.samples = samples;
    d.online.prior_latency_ms = d.online.prior_ms_per_melem = d.online.known_latency_ms = NAN;
    return d;
}

static apo__threshold add(const char *key, double cpu, double gpu, uint64_t samples) {
    apo__threshold t;
    memset(&t, 0, sizeof t);
    snprintf(t.key, sizeof t.key, "%s", key);
    t.cpu_ms_avg = cpu;
    t.gpu_ms_avg = gpu;
    t.samples = samples;
    return t;
}

static int name_cmp(const void *a, const void *b) { return strcmp(a, b); }

/* Names in a folder other than . and .., sorted, joined by spaces. */
static void list_dir(const char *dir, char *out, size_t size) {
    char names[16][256];
    size_t n = 0;
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < 16)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            snprintf(names[n++], sizeof names[0], "%s", e->d_name);
    closedir(d);
    qsort(names, n, sizeof names[0], name_cmp);
    out[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        strncat(out, names[i], size - strlen(out) - 1);
        if (i + 1 < n)
            strncat(out, " ", size - strlen(out) - 1);
    }
}

/* ---- locations -------------------------------------------------------------------------- */

Test(profile_store, paths_explicit_win, .timeout = 10) {
    apo__profile_location loc = {.multigpu_path = "/a/m.json",
                                 .thresholds_path = "rel/t.json",
                                 .profile_dir = "/dir",
                                 .xdg_state_home = "/xdg",
                                 .home = "/home/u"};
    char m[APO_PATH_MAX], t[APO_PATH_MAX], err[256];
    cr_assert_eq(apo__profile_paths(&loc, m, t, err, sizeof err), APO_OK, "%s", err);
    cr_assert_str_eq(m, "/a/m.json");
    cr_assert_str_eq(t, "rel/t.json");

    /* Each file is resolved on its own: one explicit, the other from the folder. */
    loc.thresholds_path = NULL;
    cr_assert_eq(apo__profile_paths(&loc, m, t, err, sizeof err), APO_OK, "%s", err);
    cr_assert_str_eq(m, "/a/m.json");
    cr_assert_str_eq(t, "/dir/thresholds.json");
}

Test(profile_store, paths_dir_then_xdg_then_home, .timeout = 10) {
    char m[APO_PATH_MAX], t[APO_PATH_MAX], err[256];
    apo__profile_location loc = {
        .profile_dir = "/p/dir/", .xdg_state_home = "/xdg/state", .home = "/home/u"};
    cr_assert_eq(apo__profile_paths(&loc, m, t, err, sizeof err), APO_OK, "%s", err);
    cr_assert_str_eq(m, "/p/dir/multigpu.json");
    cr_assert_str_eq(t, "/p/dir/thresholds.json");

    loc.profile_dir = "";
    cr_assert_eq(apo__profile_paths(&loc, m, t, err, sizeof err), APO_OK, "%s", err);
    cr_assert_str_eq(m, "/xdg/state/apportion/multigpu.json");
    cr_assert_str_eq(t, "/xdg/state/apportion/thresholds.json");

    /* A relative XDG_STATE_HOME is invalid by the XDG specification: HOME is used. */
    loc.xdg_state_home = "relative/state";
    cr_assert_eq(apo__profile_paths(&loc, m, t, err, sizeof err), APO_OK, "%s", err);
    cr_assert_str_eq(m, "/home/u/.local/state/apportion/multigpu.json");

    loc.xdg_state_home = NULL;
    loc.home = "/";
    cr_assert_eq(apo__profile_paths(&loc, m, t, err, sizeof err), APO_OK, "%s", err);
    cr_assert_str_eq(t, "/.local/state/apportion/thresholds.json");
}

Test(profile_store, paths_none_or_too_long, .timeout = 10) {
    char m[APO_PATH_MAX], t[APO_PATH_MAX], err[256];
    apo__profile_location none = {0};
    cr_assert_eq(apo__profile_paths(&none, m, t, err, sizeof err), APO_ERR_NOT_FOUND);
    cr_assert(strstr(err, "multigpu.json") != NULL && strstr(err, "HOME") != NULL, "%s", err);

    /* Only the thresholds file lacks a location: the error names it, the other is set. */
    apo__profile_location half = {.multigpu_path = "/a/m.json"};
    cr_assert_eq(apo__profile_paths(&half, m, t, err, sizeof err), APO_ERR_NOT_FOUND);
    cr_assert(strstr(err, "thresholds.json") != NULL, "%s", err);
    cr_assert_str_eq(m, "/a/m.json");

    static char long_dir[APO_PATH_MAX];
    memset(long_dir, 'd', sizeof long_dir - 10);
    long_dir[0] = '/';
    long_dir[sizeof long_dir - 10] = '\0';
    apo__profile_location too_long = {.profile_dir = long_dir};
    cr_assert_eq(apo__profile_paths(&too_long, m, t, err, sizeof err), APO_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(err, "APPORTION_PROFILE_DIR") != NULL, "%s", err);
}

Test(profile_store, make_dir_creates_parents_0700, .timeout = 10) {
    char dir[64], path[256], err[256];
    make_tmp(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/a/b/c/multigpu.json", dir);
    cr_assert_eq(apo__profile_make_dir(path, err, sizeof err), APO_OK, "%s", err);
    cr_assert_eq(apo__profile_make_dir(path, err, sizeof err), APO_OK, "%s", err);
    struct stat st;
    snprintf(path, sizeof path, "%s/a/b/c", dir);
    cr_assert_eq(stat(path, &st), 0);
    cr_assert(S_ISDIR(st.st_mode));
    cr_assert_eq(st.st_mode & 0777, 0700);
    snprintf(path, sizeof path, "%s/a", dir);
    cr_assert_eq(stat(path, &st), 0);
    cr_assert_eq(st.st_mode & 0777, 0700);

    /* A file where a folder should be is an I/O error that names it. */
    snprintf(path, sizeof path, "%s/plain", dir);
    write_text(path, "x");
    snprintf(path, sizeof path, "%s/plain/sub/multigpu.json", dir);
    cr_assert_eq(apo__profile_make_dir(path, err, sizeof err), APO_ERR_IO);
    cr_assert(strstr(err, "plain") != NULL, "%s", err);
    rm_tree(dir);
}

/* ---- reading multigpu.json -------------------------------------------------------------- */

Test(profile_store, load_valid_multigpu, .timeout = 10) {
    apo__multigpu p;
    int missing = -1;
    char err[512];
    cr_assert_eq(apo__multigpu_load(DATA "multigpu_valid.json", &p, &missing, err, sizeof err),
                 APO_OK, "%s", err);
    cr_assert_eq(missing, 0);
    cr_assert_str_eq(p.host, "node17");
    cr_assert_str_eq(p.library_version, "0.1.0");
    cr_assert_str_eq(p.updated_at, "2026-11-21T10:00:00Z");
    cr_assert_eq(p.threadx, 0);
    cr_assert_eq(p.n_workloads, 3);

    /* Sorted by tag; devices by id ('G' sorts before 'c'). */
    const apo__stored_workload *b = &p.workloads[0];
    cr_assert_str_eq(b->tag, "bollinger");
    cr_assert_str_eq(b->updated_at, "2026-11-21T10:00:00Z");
    cr_assert_eq(b->sample_size, 1000000);
    cr_assert_eq(b->runs, 5);
    cr_assert_eq(b->origin, APO_ORIGIN_PROFILE);
    cr_assert_eq(b->n_devices, 2);
    assert_device(&b->devices[0], H100, "cuda:0 NVIDIA H100 80GB HBM3", 0.91, 0.08, 0.35, 5);
    assert_device(&b->devices[1], "cpu", "cpu (16 threads)", 0.09, 0.002, 3.9, 5);

    const apo__stored_workload *m = &p.workloads[1];
    cr_assert_str_eq(m->tag, "macd");
    cr_assert_str_eq(m->updated_at, "2026-11-21T09:15:30Z");
    cr_assert_eq(m->sample_size, 250000);
    cr_assert_eq(m->runs, 3);
    cr_assert_eq(m->origin, APO_ORIGIN_ONLINE);
    cr_assert_eq(m->n_devices, 2);
    assert_device(&m->devices[0], "cpu", "cpu (16 threads)", 0.25, 0.01, 4.5, 41);
    /* Listed in `ratios` only: a device with a ratio and no model. */
    assert_device(&m->devices[1], "sim:b", "", 0.75, NAN, NAN, 0);

    const apo__stored_workload *s = &p.workloads[2];
    cr_assert_str_eq(s->tag, "sweep");
    cr_assert_str_eq(s->updated_at, "");
    cr_assert_eq(s->sample_size, 0);
    cr_assert_eq(s->runs, 0);
    cr_assert_eq(s->origin, APO_ORIGIN_FORCED);
    cr_assert_eq(s->n_devices, 1);
    assert_device(&s->devices[0], "cpu", "", 1.0, NAN, NAN, 0);

    cr_assert_eq(apo__multigpu_find(&p, "macd"), m);
    cr_assert_eq(apo__multigpu_find(&p, "sweep"), s);
    cr_assert_null(apo__multigpu_find(&p, "returns_stats"));
    apo__multigpu_free(&p);
    cr_assert_null(p.workloads);
    cr_assert_eq(p.n_workloads, 0);
}

Test(profile_store, load_threadx_multigpu, .timeout = 10) {
    apo__multigpu p;
    int missing = -1;
    char err[512];
    cr_assert_eq(apo__multigpu_load(DATA "multigpu_threadx.json", &p, &missing, err, sizeof err),
                 APO_OK, "%s", err);
    cr_assert_eq(missing, 0);
    cr_assert_eq(p.threadx, 1);
    cr_assert_str_eq(p.host, "");
    /* The fraction of a second is dropped, the offset folded into UTC. */
    cr_assert_str_eq(p.updated_at, "2025-06-01T08:30:00Z");
    cr_assert_eq(p.n_workloads, 1);
    const apo__stored_workload *w = &p.workloads[0];
    cr_assert_str_eq(w->tag, "bollinger");
    cr_assert_eq(w->origin, APO_ORIGIN_THREADX);
    cr_assert_str_eq(w->updated_at, "2025-06-01T08:30:00Z");
    cr_assert_eq(w->n_devices, 2);
    assert_device(&w->devices[0], H100, "", 0.8, NAN, NAN, 0);
    assert_device(&w->devices[1], "cpu", "", 0.2, NAN, NAN, 0);
    apo__multigpu_free(&p);
}

Test(profile_store, load_shipped_examples, .timeout = 10) {
    /* The examples in profiles/ are read as they are shipped. */
    apo__multigpu p;
    char err[512];
    cr_assert_eq(apo__multigpu_load(APO_TEST_DATA_DIR "/../../profiles/examples/multigpu.json", &p,
                                    NULL, err, sizeof err),
                 APO_OK, "%s", err);
    cr_assert_eq(p.n_workloads, 3);
    const apo__stored_workload *b = apo__multigpu_find(&p, "bollinger");
    cr_assert_not_null(b);
    assert_device(&b->devices[0], H100, "cuda:0 NVIDIA H100 80GB HBM3", 0.8993, 0.08, 0.35, 15);
    cr_assert_str_eq(b->devices[0].config, "budget_mb=4096,cc=9.0,sms=132");
    cr_assert_eq(apo__multigpu_find(&p, "sweep")->origin, APO_ORIGIN_FORCED);
    apo__multigpu_free(&p);
    apo__thresholds t;
    cr_assert_eq(apo__thresholds_load(APO_TEST_DATA_DIR "/../../profiles/examples/thresholds.json",
                                      &t, NULL, err, sizeof err),
                 APO_OK, "%s", err);
    cr_assert_eq(t.n, 4);
    assert_threshold(&t.entries[3], "macd:{'fast': 12, 'signal': 9, 'size': 62500, 'slow': 26}",
                     0.278, NAN, 6, 6, 0);
    apo__thresholds_free(&t);
}

Test(profile_store, load_missing_file, .timeout = 10) {
    apo__multigpu p;
    apo__thresholds t;
    int missing = 0;
    char err[256];
    cr_assert_eq(
        apo__multigpu_load("/tmp/apo-no-such-dir/multigpu.json", &p, &missing, err, sizeof err),
        APO_OK);
    cr_assert_eq(missing, 1);
    cr_assert_eq(p.n_workloads, 0);
    missing = 0;
    cr_assert_eq(
        apo__thresholds_load(DATA "no-such-thresholds.json", &t, &missing, err, sizeof err),
        APO_OK);
    cr_assert_eq(missing, 1);
    cr_assert_eq(t.n, 0);
}

typedef struct bad_case {
    const char *file;
    apo_status status;
    const char *says; /* the JSON path and what was expected */
} bad_case;

static const bad_case bad_multigpu[] = {
    {"multigpu_bad_truncated.json", APO_ERR_INVALID_ARGUMENT, "not valid JSON (line "},
    {"multigpu_bad_not_json.json", APO_ERR_INVALID_ARGUMENT, "not valid JSON (line 1, column "},
    {"multigpu_bad_empty.json", APO_ERR_INVALID_ARGUMENT, "not valid JSON"},
    {"multigpu_bad_nan_literal.json", APO_ERR_INVALID_ARGUMENT, "not valid JSON"},
    {"multigpu_bad_overflow.json", APO_ERR_INVALID_ARGUMENT, "not valid JSON"},
    {"multigpu_bad_deeply_nested.json", APO_ERR_INVALID_ARGUMENT, "depth"},
    {"multigpu_bad_duplicate_key.json", APO_ERR_INVALID_ARGUMENT, "duplicate"},
    {"multigpu_bad_unknown_format.json", APO_ERR_INVALID_ARGUMENT,
     "format: unknown format \"apportion.multigpu/2\"; expected \"apportion.multigpu/1\""},
    {"multigpu_bad_no_format.json", APO_ERR_INVALID_ARGUMENT,
     "unknown format: no \"format\" field"},
    {"multigpu_bad_top_array.json", APO_ERR_INVALID_ARGUMENT,
     "expected a JSON object at the top level, got an array"},
    {"multigpu_bad_negative_latency.json", APO_ERR_INVALID_ARGUMENT,
     "workloads.bollinger.devices.cpu.latency_ms: expected a finite number >= 0, got -0.25"},
    {"multigpu_bad_negative_ratio.json", APO_ERR_INVALID_ARGUMENT,
     "workloads.bollinger.ratios.cpu: expected a finite number >= 0, got -0.5"},
    {"multigpu_bad_ratio_sum_zero.json", APO_ERR_INVALID_ARGUMENT,
     "workloads.bollinger: the device ratios sum to 0; expected a positive finite sum"},
    {"multigpu_bad_no_ratios.json", APO_ERR_INVALID_ARGUMENT,
     "workloads.bollinger: the device ratios sum to 0"},
    {"multigpu_bad_ratio_string.json", APO_ERR_INVALID_ARGUMENT,
     "workloads.bollinger.devices.cpu.ratio: expected a finite number >= 0, got \"0.1\""},
    {"multigpu_bad_samples_real.json", APO_ERR_INVALID_ARGUMENT,
     "workloads.bollinger.devices." H100 ".samples: expected an integer >= 0, got 2.5"},
    {"multigpu_bad_runs_negative.json", APO_ERR_INVALID_ARGUMENT,
     "workloads.bollinger.runs: expected an integer from 0 to 4294967295, got -1"},
    {"multigpu_bad_source.json", APO_ERR_INVALID_ARGUMENT,
     "workloads.bollinger.source: expected \"profile\", \"online\", \"forced\" or \"threadx\", "
     "got \"magic\""},
    {"multigpu_bad_devices_array.json", APO_ERR_INVALID_ARGUMENT,
     "workloads.bollinger.devices: expected an object of device id to device, got an array"},
    {"multigpu_bad_timestamp.json", APO_ERR_INVALID_ARGUMENT,
     "workloads.bollinger.updated_at: expected an RFC 3339 timestamp such as "
     "\"2026-11-21T10:00:00Z\", got \"yesterday\""},
    {"multigpu_bad_tag_too_long.json", APO_ERR_INVALID_ARGUMENT,
     "expected a workload tag of 1 to 63 bytes, got 80 bytes"},
    {"multigpu_bad_id_too_long.json", APO_ERR_INVALID_ARGUMENT,
     "expected a device id of 1 to 63 bytes, got 84 bytes"},
    {"multigpu_bad_too_many_devices.json", APO_ERR_INVALID_ARGUMENT,
     "workloads.bollinger.devices: 65 devices; at most 64 are supported"},
    {"multigpu_bad_label_nested.json", APO_ERR_INVALID_ARGUMENT,
     "workloads.bollinger.devices.cpu.label: expected a string, got an object"},
    {"multigpu_bad_threadx_ratio.json", APO_ERR_INVALID_ARGUMENT,
     "ratios.cpu: expected a finite number >= 0, got true"},
    {"multigpu_bad_online_recent_pair.json", APO_ERR_INVALID_ARGUMENT,
     "workloads.bollinger.devices.cpu.online.recent: item 1: expected [elements > 0, ms >= 0], "
     "finite, got an array"},
    {"multigpu_bad_online_too_many.json", APO_ERR_INVALID_ARGUMENT,
     "workloads.bollinger.devices.cpu.online.recent: expected an array of at most 8 [elements, "
     "ms] pairs, got an array"},
    {"multigpu_bad_online_off_run.json", APO_ERR_INVALID_ARGUMENT,
     "workloads.bollinger.devices.cpu.online.off_run: expected an integer from -8 to 8, got 99"},
    {"multigpu_bad_online_prior.json", APO_ERR_INVALID_ARGUMENT,
     "workloads.bollinger.devices.cpu.online.prior: expected an object (latency_ms, "
     "ms_per_melem), got an array"},
};

static const bad_case bad_thresholds[] = {
    {"thresholds_bad_truncated.json", APO_ERR_INVALID_ARGUMENT, "not valid JSON (line "},
    {"thresholds_bad_unknown_format.json", APO_ERR_INVALID_ARGUMENT,
     "format: unknown format \"apportion.thresholds/9\"; expected \"apportion.thresholds/1\""},
    {"thresholds_bad_no_format.json", APO_ERR_INVALID_ARGUMENT,
     "unknown format: no \"format\" field"},
    {"thresholds_bad_negative.json", APO_ERR_INVALID_ARGUMENT,
     "entries.bollinger:{'period': 20, 'size': 10000}.cpu_ms_avg: expected a finite number >= 0, "
     "got -1.5"},
    {"thresholds_bad_type.json", APO_ERR_INVALID_ARGUMENT,
     "entries.bollinger:{'period': 20, 'size': 10000}.gpu_ms_avg: expected a finite number >= 0, "
     "got \"fast\""},
    {"thresholds_bad_missing_samples.json", APO_ERR_INVALID_ARGUMENT,
     "entries.bollinger:{'period': 20, 'size': 10000}.samples: missing; expected an integer >= 0"},
    {"thresholds_bad_side_count.json", APO_ERR_INVALID_ARGUMENT,
     "entries.bollinger:{'period': 20, 'size': 10000}.cpu_samples: expected at most samples (2), "
     "got 3"},
    {"thresholds_bad_side_without_time.json", APO_ERR_INVALID_ARGUMENT,
     "entries.bollinger:{'period': 20, 'size': 10000}.gpu_samples: expected 0 since gpu_ms_avg "
     "is absent, got 1"},
    {"thresholds_bad_key_too_long.json", APO_ERR_INVALID_ARGUMENT,
     "entries.bollinger:{'p': 1, 'p': 1, 'p': 1, 'p': 1, 'p': 1, 'p': 1, '...: expected a key of 1 "
     "to 255 bytes, got 341 bytes"},
    {"thresholds_bad_entries_array.json", APO_ERR_INVALID_ARGUMENT,
     "entries: expected an object of key to timings, got an array"},
};

Test(profile_store, load_rejects_bad_multigpu, .timeout = 20) {
    for (size_t i = 0; i < sizeof bad_multigpu / sizeof bad_multigpu[0]; i++) {
        const bad_case *c = &bad_multigpu[i];
        char path[1024], err[1024];
        snprintf(path, sizeof path, DATA "%s", c->file);
        apo__multigpu p;
        int missing = -1;
        apo_status st = apo__multigpu_load(path, &p, &missing, err, sizeof err);
        cr_expect_eq(st, c->status, "%s: status %d: %s", c->file, st, err);
        cr_expect_eq(missing, 0, "%s", c->file);
        cr_expect(strncmp(err, path, strlen(path)) == 0, "%s: message does not name the file: %s",
                  c->file, err);
        cr_expect(strstr(err, c->says) != NULL, "%s: message \"%s\" lacks \"%s\"", c->file, err,
                  c->says);
        cr_expect(p.n_workloads == 0 && p.workloads == NULL, "%s: not left empty", c->file);
    }
}

Test(profile_store, load_rejects_bad_thresholds, .timeout = 20) {
    for (size_t i = 0; i < sizeof bad_thresholds / sizeof bad_thresholds[0]; i++) {
        const bad_case *c = &bad_thresholds[i];
        char path[1024], err[1024];
        snprintf(path, sizeof path, DATA "%s", c->file);
        apo__thresholds t;
        apo_status st = apo__thresholds_load(path, &t, NULL, err, sizeof err);
        cr_expect_eq(st, c->status, "%s: status %d: %s", c->file, st, err);
        cr_expect(strncmp(err, path, strlen(path)) == 0, "%s: message does not name the file: %s",
                  c->file, err);
        cr_expect(strstr(err, c->says) != NULL, "%s: message \"%s\" lacks \"%s\"", c->file, err,
                  c->says);
        cr_expect(t.n == 0 && t.entries == NULL, "%s: not left empty", c->file);
    }
}

Test(profile_store, load_rejects_directory_and_oversized_file, .timeout = 20) {
    char dir[64], path[256], err[512];
    make_tmp(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/multigpu.json", dir);
    cr_assert_eq(mkdir(path, 0700), 0);
    apo__multigpu p;
    cr_assert_eq(apo__multigpu_load(path, &p, NULL, err, sizeof err), APO_ERR_IO);
    cr_assert(strstr(err, path) != NULL && strstr(err, "is a directory") != NULL, "%s", err);
    /* A writer does not touch it either. */
    apo__stored_workload w = {.tag = "t", .n_devices = 1};
    w.devices[0] = device("cpu", "", 1, NAN, NAN, 0);
    cr_assert_eq(apo__multigpu_update(path, "h", &w, 1, NULL, 0, NULL, err, sizeof err),
                 APO_ERR_IO);
    struct stat st;
    cr_assert_eq(stat(path, &st), 0);
    cr_assert(S_ISDIR(st.st_mode));

    /* One byte over the limit is refused before anything is read (a sparse file). */
    snprintf(path, sizeof path, "%s/thresholds.json", dir);
    int fd = open(path, O_WRONLY | O_CREAT, 0600);
    cr_assert_geq(fd, 0);
    cr_assert_eq(ftruncate(fd, (off_t)APO_PROFILE_FILE_MAX + 1), 0);
    close(fd);
    apo__thresholds t;
    cr_assert_eq(apo__thresholds_load(path, &t, NULL, err, sizeof err), APO_ERR_IO);
    cr_assert(strstr(err, path) != NULL && strstr(err, "larger than") != NULL, "%s", err);
    /* That file is unusable, so a writer keeps it aside and starts afresh. */
    apo__threshold a = add("k:{'size': 1}", 1.0, NAN, 1);
    cr_assert_eq(apo__thresholds_merge(path, &a, 1, NULL, err, sizeof err), APO_OK, "%s", err);
    cr_assert(strstr(err, ".corrupt") != NULL, "%s", err);
    char aside[300];
    snprintf(aside, sizeof aside, "%s.corrupt", path);
    cr_assert_eq(stat(aside, &st), 0);
    cr_assert_eq(st.st_size, (off_t)APO_PROFILE_FILE_MAX + 1);
    rm_tree(dir);
}

/* The in-memory parsers (what the fuzz targets drive) and the file loaders must agree on every
 * file: same status, same message (the name given stands for the path), same contents. */
Test(profile_store, parse_from_memory_matches_file_load, .timeout = 20) {
    DIR *d = opendir(DATA);
    cr_assert_not_null(d);
    struct dirent *e;
    size_t n_multigpu = 0, n_thresholds = 0;
    while ((e = readdir(d)) != NULL) {
        char path[1024], err_load[1024], err_parse[1024];
        snprintf(path, sizeof path, DATA "%s", e->d_name);
        size_t len;
        if (strncmp(e->d_name, "multigpu", 8) == 0) {
            char *text = read_all(path, &len);
            cr_assert_not_null(text, "%s", path);
            apo__multigpu a, b;
            apo_status sa = apo__multigpu_load(path, &a, NULL, err_load, sizeof err_load);
            apo_status sb = apo__multigpu_parse(path, text, len, &b, err_parse, sizeof err_parse);
            cr_expect_eq(sa, sb, "%s: load %d, parse %d", e->d_name, sa, sb);
            cr_expect_str_eq(err_load, err_parse, "%s", e->d_name);
            cr_expect_eq(a.n_workloads, b.n_workloads, "%s", e->d_name);
            cr_expect_str_eq(a.host, b.host);
            cr_expect_str_eq(a.updated_at, b.updated_at);
            for (size_t i = 0; i < a.n_workloads && i < b.n_workloads; i++)
                assert_same_workload(&a.workloads[i], &b.workloads[i]);
            apo__multigpu_free(&a);
            apo__multigpu_free(&b);
            free(text);
            n_multigpu++;
        } else if (strncmp(e->d_name, "thresholds", 10) == 0) {
            char *text = read_all(path, &len);
            cr_assert_not_null(text, "%s", path);
            apo__thresholds a, b;
            apo_status sa = apo__thresholds_load(path, &a, NULL, err_load, sizeof err_load);
            apo_status sb = apo__thresholds_parse(path, text, len, &b, err_parse, sizeof err_parse);
            cr_expect_eq(sa, sb, "%s: load %d, parse %d", e->d_name, sa, sb);
            cr_expect_str_eq(err_load, err_parse, "%s", e->d_name);
            cr_expect_eq(a.n, b.n, "%s", e->d_name);
            for (size_t i = 0; i < a.n && i < b.n; i++) {
                const apo__threshold *t = &a.entries[i];
                assert_threshold(&b.entries[i], t->key, t->cpu_ms_avg, t->gpu_ms_avg, t->samples,
                                 t->cpu_samples, t->gpu_samples);
            }
            apo__thresholds_free(&a);
            apo__thresholds_free(&b);
            free(text);
            n_thresholds++;
        }
    }
    closedir(d);
    cr_assert_geq(n_multigpu, 20);
    cr_assert_geq(n_thresholds, 10);

    /* A text need not end in NUL: only len bytes are read. */
    static const char cut[] = "{\"format\": \"apportion.thresholds/1\", \"entries\": {}}garbage";
    apo__thresholds t;
    char err[256];
    cr_assert_eq(apo__thresholds_parse(NULL, cut, strlen(cut) - 7, &t, err, sizeof err), APO_OK,
                 "%s", err);
    cr_assert_eq(t.n, 0);
    apo__thresholds_free(&t);
    /* The size limit of a file holds for a text too, and no text is no JSON. */
    const size_t big = (size_t)APO_PROFILE_FILE_MAX + 1;
    char *spaces = malloc(big);
    cr_assert_not_null(spaces);
    memset(spaces, ' ', big);
    apo__multigpu p;
    cr_assert_eq(apo__multigpu_parse(NULL, spaces, big, &p, err, sizeof err),
                 APO_ERR_INVALID_ARGUMENT);
    free(spaces);
    cr_assert(strstr(err, "multigpu.json: is ") != NULL && strstr(err, "larger than") != NULL, "%s",
              err);
    cr_assert_eq(apo__multigpu_parse("m", NULL, 0, &p, err, sizeof err), APO_ERR_INVALID_ARGUMENT);
    cr_assert(strncmp(err, "m: not valid JSON", 17) == 0, "%s", err);
    cr_assert_eq(apo__multigpu_parse("m", NULL, 1, &p, err, sizeof err), APO_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(err, "NULL argument") != NULL, "%s", err);
}

/* Found by tests/fuzz/fuzz_thresholds and fuzz_multigpu (corpus regress_control_byte): jansson
 * quotes the bytes near a syntax error raw, so a control byte of the file (here BEL, or an
 * escape sequence) reached the message that goes to the terminal or the log. */
Test(profile_store, syntax_error_message_shows_control_bytes_escaped, .timeout = 10) {
    static const char bel[] = "{\a  \"updatedes\": []\n}\n";
    static const char esc[] = "{\"format\": \"apportion.multigpu/1\",\x1b[2J\"workloads\": {}}";
    char err[512];
    apo__thresholds t;
    cr_assert_eq(apo__thresholds_parse("t.json", bel, strlen(bel), &t, err, sizeof err),
                 APO_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(err, "t.json: not valid JSON (line 1, column 2): ") == err, "%s", err);
    cr_assert(strstr(err, "\\x07") != NULL, "%s", err);
    /* The file loader gives the same message. */
    char dir[64], path[256];
    make_tmp(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/multigpu.json", dir);
    write_text(path, esc);
    apo__multigpu p;
    cr_assert_eq(apo__multigpu_load(path, &p, NULL, err, sizeof err), APO_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(err, "\\x1b") != NULL, "%s", err);
    for (const char *c = err; *c != '\0'; c++)
        cr_assert((unsigned char)*c >= 0x20 && *c != 0x7f, "control byte in \"%s\"", err);
    rm_tree(dir);
}

/* ---- reading thresholds.json ------------------------------------------------------------ */

#define KEY_B10K "bollinger:{'nbdev_dn': 2, 'nbdev_up': 2, 'period': 20, 'size': 10000}"
#define KEY_B1M "bollinger:{'nbdev_dn': 2, 'nbdev_up': 2, 'period': 20, 'size': 1000000}"
#define KEY_MACD "macd:{'fast': 12, 'signal': 9, 'size': 5000, 'slow': 26}"

Test(profile_store, load_valid_thresholds, .timeout = 10) {
    apo__thresholds t;
    int missing = -1;
    char err[512];
    cr_assert_eq(apo__thresholds_load(DATA "thresholds_valid.json", &t, &missing, err, sizeof err),
                 APO_OK, "%s", err);
    cr_assert_eq(missing, 0);
    cr_assert_str_eq(t.updated_at, "2026-11-21T10:00:00Z");
    cr_assert_eq(t.n, 3);
    /* strcmp order: "...1000000}" sorts before "...10000}" ('0' < '}'). */
    assert_threshold(&t.entries[0], KEY_B1M, 61.5, NAN, 2, 2, 0);
    assert_threshold(&t.entries[1], KEY_B10K, 0.75, 0.125, 4, 4, 3);
    /* No cpu_samples: taken as samples, since the CPU time is there. */
    assert_threshold(&t.entries[2], KEY_MACD, 0.5, NAN, 1, 1, 0);
    apo__thresholds_free(&t);
    cr_assert_null(t.entries);
}

Test(profile_store, load_threadx_thresholds, .timeout = 10) {
    apo__thresholds t;
    char err[512];
    cr_assert_eq(apo__thresholds_load(DATA "thresholds_threadx.json", &t, NULL, err, sizeof err),
                 APO_OK, "%s", err);
    /* ThreadX wrote Unix seconds: 1748766600 is 2025-06-01T08:30:00Z. */
    cr_assert_str_eq(t.updated_at, "2025-06-01T08:30:00Z");
    cr_assert_eq(t.n, 2);
    assert_threshold(&t.entries[0], "bollinger:{'period': 20, 'size': 10000}", 0.5, NAN, 3, 3, 0);
    assert_threshold(&t.entries[1], "macd:{'fast': 12, 'signal': 9, 'slow': 26}", 1.5, 0.25, 8, 8,
                     8);
    apo__thresholds_free(&t);
}

/* ---- writing multigpu.json -------------------------------------------------------------- */

static void sample_workloads(apo__stored_workload w[2]) {
    memset(w, 0, 2 * sizeof w[0]);
    snprintf(w[0].tag, sizeof w[0].tag, "bollinger");
    snprintf(w[0].updated_at, sizeof w[0].updated_at, "2026-11-21T10:00:00Z");
    w[0].sample_size = 1000000;
    w[0].runs = 5;
    w[0].origin = APO_ORIGIN_PROFILE;
    w[0].n_devices = 3;
    /* Given out of id order: stored and returned in id order. */
    w[0].devices[0] = device("cpu", "cpu (16 threads)", 1.0 / 3.0, 0.1, 3.9, 5);
    snprintf(w[0].devices[0].config, sizeof w[0].devices[0].config,
             "threads=16,isa=avx2,model=\"quoted\" \xc3\xbc");
    /* Online refinement's state beside the model: three observations, oldest first, the
     * prior that still votes, the latency kept and a run of two faster calls. */
    apo__stored_online *o = &w[0].devices[0].online;
    o->n_recent = 3;
    const double elements[3] = {1e6, 250000, 1e6}, ms[3] = {3.5, 1.0000000000000002, 0.0};
    memcpy(o->recent_elements, elements, sizeof elements);
    memcpy(o->recent_ms, ms, sizeof ms);
    o->prior_latency_ms = 0.1;
    o->prior_ms_per_melem = 3.9;
    o->known_latency_ms = 0.1;
    o->off_run = -2;
    w[0].devices[1] =
        device(H100, "cuda:0 NVIDIA H100 80GB HBM3 \"quoted\" \xc3\xbc", 2.0 / 3.0, 0.08, 0.35, 5);
    w[0].devices[2] = device("sim:z", "", 5e-324, NAN, 1e300, 0);
    snprintf(w[1].tag, sizeof w[1].tag, "sweep");
    w[1].origin = APO_ORIGIN_FORCED;
    w[1].n_devices = 1;
    w[1].devices[0] = device("cpu", "", 1.0, NAN, NAN, 0);
}

Test(profile_store, write_then_read_back_exact, .timeout = 20) {
    char dir[64], path[256], err[512];
    make_tmp(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/state/apportion/multigpu.json", dir);
    apo__stored_workload w[2];
    sample_workloads(w);

    apo__multigpu merged;
    double before = (double)time(NULL);
    cr_assert_eq(apo__multigpu_update(path, "node17", w, 2, NULL, 0, &merged, err, sizeof err),
                 APO_OK, "%s", err);
    cr_assert_str_eq(err, "");
    apo__multigpu back;
    int missing = -1;
    cr_assert_eq(apo__multigpu_load(path, &back, &missing, err, sizeof err), APO_OK, "%s", err);
    cr_assert_eq(missing, 0);

    cr_assert_str_eq(back.host, "node17");
    cr_assert_str_eq(back.library_version, APO_VERSION_STRING);
    double stamp = apo__timestamp_parse(back.updated_at);
    cr_assert(stamp >= before - 1 && stamp <= (double)time(NULL) + 1, "%s", back.updated_at);
    cr_assert_str_eq(merged.updated_at, back.updated_at);
    cr_assert_str_eq(merged.host, back.host);
    cr_assert_eq(back.n_workloads, 2);
    cr_assert_eq(merged.n_workloads, 2);

    /* The update's devices in id order, every double bit for bit. */
    apo__stored_workload expect = w[0];
    expect.devices[0] = w[0].devices[1];
    expect.devices[1] = w[0].devices[0];
    assert_same_workload(&back.workloads[0], &expect);
    assert_same_workload(&merged.workloads[0], &expect);
    /* An update without updated_at is stamped with the time of the write. */
    expect = w[1];
    snprintf(expect.updated_at, sizeof expect.updated_at, "%s", back.updated_at);
    assert_same_workload(&back.workloads[1], &expect);
    assert_same_workload(&merged.workloads[1], &expect);

    /* The file is the apportion shape, with `ratios` repeated and the source named; only the
     * file and its lock are left in the folder, both private. */
    json_error_t jerr;
    json_t *root = json_load_file(path, 0, &jerr);
    cr_assert_not_null(root, "%s", jerr.text);
    cr_assert_str_eq(json_string_value(json_object_get(root, "format")), APO_MULTIGPU_FORMAT);
    json_t *sweep = json_object_get(json_object_get(root, "workloads"), "sweep");
    cr_assert_str_eq(json_string_value(json_object_get(sweep, "source")), "forced");
    json_t *ratios =
        json_object_get(json_object_get(json_object_get(root, "workloads"), "bollinger"), "ratios");
    cr_assert_eq(json_object_size(ratios), 3);
    cr_assert(same_double(json_real_value(json_object_get(ratios, "cpu")), 1.0 / 3.0));
    json_decref(root);
    /* Reals are written in their shortest exact form, and still as reals. */
    size_t len;
    char *text = read_all(path, &len);
    cr_assert(strstr(text, "\"ratio\": 0.3333333333333333,") != NULL, "%s", text);
    cr_assert(strstr(text, "\"ratio\": 1.0,") != NULL, "%s", text);
    cr_assert(strstr(text, "\"ms_per_melem\": 1e+300,") != NULL, "%s", text);
    cr_assert(strstr(text, "\"latency_ms\": 0.08,") != NULL, "%s", text);
    free(text);

    char names[256], folder[256];
    snprintf(folder, sizeof folder, "%s/state/apportion", dir);
    list_dir(folder, names, sizeof names);
    cr_assert_str_eq(names, "multigpu.json multigpu.json.lock");
    struct stat st;
    cr_assert_eq(stat(path, &st), 0);
    cr_assert_eq(st.st_mode & 0777, 0600);
    cr_assert_eq(stat(folder, &st), 0);
    cr_assert_eq(st.st_mode & 0777, 0700);

    apo__multigpu_free(&merged);
    apo__multigpu_free(&back);
    rm_tree(dir);
}

Test(profile_store, update_replaces_and_removes_whole_entries, .timeout = 20) {
    char dir[64], path[256], err[512];
    make_tmp(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/multigpu.json", dir);
    apo__stored_workload w[2];
    sample_workloads(w);
    cr_assert_eq(apo__multigpu_update(path, "node17", w, 2, NULL, 0, NULL, err, sizeof err), APO_OK,
                 "%s", err);

    /* bollinger is replaced whole (its other devices go), sweep removed, macd added; a
     * removal of a tag that is not there is fine; host NULL keeps the stored host. */
    apo__stored_workload u[2];
    memset(u, 0, sizeof u);
    snprintf(u[0].tag, sizeof u[0].tag, "bollinger");
    u[0].origin = APO_ORIGIN_ONLINE;
    u[0].n_devices = 1;
    u[0].devices[0] = device("cpu", "cpu", 1.0, 0.5, 0.25, 9);
    snprintf(u[1].tag, sizeof u[1].tag, "macd");
    snprintf(u[1].updated_at, sizeof u[1].updated_at, "2026-01-02T03:04:05Z");
    u[1].n_devices = 1;
    u[1].devices[0] = device("sim:a", "sim:a", 0.5, NAN, NAN, 0);
    const char *removals[] = {"sweep", "never-there"};
    apo__multigpu p;
    cr_assert_eq(apo__multigpu_update(path, NULL, u, 2, removals, 2, &p, err, sizeof err), APO_OK,
                 "%s", err);
    cr_assert_str_eq(p.host, "node17");
    cr_assert_eq(p.n_workloads, 2);
    cr_assert_str_eq(p.workloads[0].tag, "bollinger");
    cr_assert_eq(p.workloads[0].origin, APO_ORIGIN_ONLINE);
    cr_assert_eq(p.workloads[0].n_devices, 1);
    assert_device(&p.workloads[0].devices[0], "cpu", "cpu", 1.0, 0.5, 0.25, 9);
    cr_assert_str_eq(p.workloads[1].tag, "macd");
    cr_assert_str_eq(p.workloads[1].updated_at, "2026-01-02T03:04:05Z");
    apo__multigpu_free(&p);

    apo__multigpu back;
    cr_assert_eq(apo__multigpu_load(path, &back, NULL, err, sizeof err), APO_OK, "%s", err);
    cr_assert_eq(back.n_workloads, 2);
    cr_assert_null(apo__multigpu_find(&back, "sweep"));
    cr_assert_not_null(apo__multigpu_find(&back, "macd"));
    apo__multigpu_free(&back);
    rm_tree(dir);
}

Test(profile_store, update_refuses_an_entry_it_could_not_read_back, .timeout = 20) {
    char dir[64], path[256], err[512];
    make_tmp(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/multigpu.json", dir);
    apo__stored_workload w[2];
    sample_workloads(w);
    cr_assert_eq(apo__multigpu_update(path, "node17", w, 2, NULL, 0, NULL, err, sizeof err), APO_OK,
                 "%s", err);
    size_t len_before, len_after;
    char *before = read_all(path, &len_before);

    apo__stored_workload bad = w[1];
    bad.devices[0].ratio = -1;
    cr_assert_eq(apo__multigpu_update(path, "node17", &bad, 1, NULL, 0, NULL, err, sizeof err),
                 APO_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(err, "sweep") != NULL && strstr(err, "cpu") != NULL, "%s", err);
    bad = w[1];
    bad.devices[0].ratio = 0;
    cr_assert_eq(apo__multigpu_update(path, "node17", &bad, 1, NULL, 0, NULL, err, sizeof err),
                 APO_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(err, "sum") != NULL, "%s", err);
    bad = w[0];
    snprintf(bad.devices[2].id, sizeof bad.devices[2].id, "cpu");
    cr_assert_eq(apo__multigpu_update(path, "node17", &bad, 1, NULL, 0, NULL, err, sizeof err),
                 APO_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(err, "twice") != NULL, "%s", err);

    char *after = read_all(path, &len_after);
    cr_assert_eq(len_before, len_after);
    cr_assert_eq(memcmp(before, after, len_before), 0);
    free(before);
    free(after);
    rm_tree(dir);
}

Test(profile_store, update_rewrites_threadx_file_in_apportion_shape, .timeout = 20) {
    char dir[64], path[256], err[512];
    make_tmp(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/multigpu.json", dir);
    size_t len;
    char *text = read_all(DATA "multigpu_threadx.json", &len);
    cr_assert_not_null(text);
    write_text(path, text);
    free(text);

    apo__stored_workload w[2];
    sample_workloads(w);
    apo__multigpu p;
    cr_assert_eq(apo__multigpu_update(path, "node17", &w[1], 1, NULL, 0, &p, err, sizeof err),
                 APO_OK, "%s", err);
    apo__multigpu_free(&p);
    cr_assert_eq(apo__multigpu_load(path, &p, NULL, err, sizeof err), APO_OK, "%s", err);
    cr_assert_eq(p.threadx, 0);
    cr_assert_eq(p.n_workloads, 2);
    /* The ThreadX entry is kept, marked as such, its ratios as they were. */
    const apo__stored_workload *b = apo__multigpu_find(&p, "bollinger");
    cr_assert_not_null(b);
    cr_assert_eq(b->origin, APO_ORIGIN_THREADX);
    cr_assert_str_eq(b->updated_at, "2025-06-01T08:30:00Z");
    assert_device(&b->devices[0], H100, "", 0.8, NAN, NAN, 0);
    assert_device(&b->devices[1], "cpu", "", 0.2, NAN, NAN, 0);
    apo__multigpu_free(&p);
    rm_tree(dir);
}

Test(profile_store, unusable_file_is_kept_aside, .timeout = 20) {
    char dir[64], path[256], aside[300], err[1024];
    make_tmp(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/multigpu.json", dir);
    snprintf(aside, sizeof aside, "%s.corrupt", path);
    const char *garbage = "{\"format\": \"apportion.multigpu/1\", \"workloads\": {\"tr";
    write_text(path, garbage);
    write_text(aside, "an older corrupt file, replaced");

    apo__stored_workload w[2];
    sample_workloads(w);
    apo__multigpu p;
    cr_assert_eq(apo__multigpu_update(path, "node17", &w[1], 1, NULL, 0, &p, err, sizeof err),
                 APO_OK, "%s", err);
    cr_assert(strstr(err, aside) != NULL && strstr(err, "not valid JSON") != NULL, "%s", err);
    cr_assert_eq(p.n_workloads, 1);
    apo__multigpu_free(&p);
    size_t len;
    char *kept = read_all(aside, &len);
    cr_assert_eq(len, strlen(garbage));
    cr_assert_eq(memcmp(kept, garbage, len), 0);
    free(kept);
    cr_assert_eq(apo__multigpu_load(path, &p, NULL, err, sizeof err), APO_OK, "%s", err);
    cr_assert_eq(p.n_workloads, 1);
    cr_assert_str_eq(p.workloads[0].tag, "sweep");
    apo__multigpu_free(&p);

    /* The same for thresholds.json of an unknown format. */
    snprintf(path, sizeof path, "%s/thresholds.json", dir);
    snprintf(aside, sizeof aside, "%s.corrupt", path);
    const char *future = "{\"format\": \"apportion.thresholds/2\", \"entries\": {}}\n";
    write_text(path, future);
    apo__threshold a = add("k:{'size': 1}", 1.0, NAN, 1);
    cr_assert_eq(apo__thresholds_merge(path, &a, 1, NULL, err, sizeof err), APO_OK, "%s", err);
    cr_assert(strstr(err, aside) != NULL && strstr(err, "unknown format") != NULL, "%s", err);
    kept = read_all(aside, &len);
    cr_assert_str_eq(kept, future);
    free(kept);
    apo__thresholds t;
    cr_assert_eq(apo__thresholds_load(path, &t, NULL, err, sizeof err), APO_OK, "%s", err);
    cr_assert_eq(t.n, 1);
    apo__thresholds_free(&t);
    rm_tree(dir);
}

/* The two failing writes of unwritable_folder_leaves_old_file_intact; 0 when both failed
 * as they should. Runs in a child that may have given up root. */
static int write_where_not_allowed(const char *path, const char *tpath,
                                   const apo__stored_workload *w) {
    char err[512];
    if (apo__multigpu_update(path, "node17", w, 1, NULL, 0, NULL, err, sizeof err) != APO_ERR_IO ||
        strstr(err, path) == NULL || strstr(err, "Permission denied") == NULL) {
        fprintf(stderr, "update: %s\n", err);
        return 1;
    }
    apo__threshold a = add("k:{'size': 1}", 1.0, 2.0, 1);
    if (apo__thresholds_merge(tpath, &a, 1, NULL, err, sizeof err) != APO_ERR_IO ||
        strstr(err, tpath) == NULL) {
        fprintf(stderr, "merge: %s\n", err);
        return 1;
    }
    return 0;
}

Test(profile_store, unwritable_folder_leaves_old_file_intact, .timeout = 20) {
    char dir[64], path[256], err[512];
    make_tmp(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/multigpu.json", dir);
    apo__stored_workload w[2];
    sample_workloads(w);
    cr_assert_eq(apo__multigpu_update(path, "node17", w, 1, NULL, 0, NULL, err, sizeof err), APO_OK,
                 "%s", err);
    char tpath[256];
    snprintf(tpath, sizeof tpath, "%s/thresholds.json", dir);
    apo__threshold a = add("k:{'size': 1}", 1.0, 2.0, 1);
    cr_assert_eq(apo__thresholds_merge(tpath, &a, 1, NULL, err, sizeof err), APO_OK, "%s", err);
    size_t len_before, tlen_before, len_after;
    char *before = read_all(path, &len_before);
    char *tbefore = read_all(tpath, &tlen_before);

    /* Root ignores folder permissions, so as root the writes are made by a child that
     * becomes the unprivileged user 65534 first; the files are made readable and the lock
     * files writable for it, so that the writes fail at the folder and nowhere else. */
    int as_root = geteuid() == 0;
    if (as_root) {
        char lock[300];
        cr_assert_eq(chmod(path, 0644), 0);
        cr_assert_eq(chmod(tpath, 0644), 0);
        snprintf(lock, sizeof lock, "%s.lock", path);
        cr_assert_eq(chmod(lock, 0666), 0);
        snprintf(lock, sizeof lock, "%s.lock", tpath);
        cr_assert_eq(chmod(lock, 0666), 0);
    }
    cr_assert_eq(chmod(dir, as_root ? 0755 : 0500), 0);
    int failed;
    if (as_root) {
        fflush(stderr);
        pid_t pid = fork();
        cr_assert_geq(pid, 0);
        if (pid == 0) {
            if (setgid(65534) != 0 || setuid(65534) != 0)
                _exit(2);
            _exit(write_where_not_allowed(path, tpath, &w[1]));
        }
        int status;
        cr_assert_eq(waitpid(pid, &status, 0), pid);
        failed = !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    } else {
        failed = write_where_not_allowed(path, tpath, &w[1]);
    }
    chmod(dir, 0700);
    cr_assert_eq(failed, 0, "a write did not fail as it should (see above)");

    char *after = read_all(path, &len_after);
    cr_assert_eq(len_after, len_before);
    cr_assert_eq(memcmp(before, after, len_before), 0);
    free(after);
    after = read_all(tpath, &len_after);
    cr_assert_eq(len_after, tlen_before);
    cr_assert_eq(memcmp(tbefore, after, len_after), 0);
    char names[256];
    list_dir(dir, names, sizeof names);
    cr_assert_str_eq(names, "multigpu.json multigpu.json.lock thresholds.json "
                            "thresholds.json.lock");
    free(after);
    free(before);
    free(tbefore);
    rm_tree(dir);
}

/* ---- thresholds.json merges ------------------------------------------------------------- */

Test(profile_store, merge_running_averages_exact, .timeout = 20) {
    char dir[64], path[256], err[512];
    make_tmp(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/thresholds.json", dir);
    const char *k1 = "bollinger:{'period': 20, 'size': 10000}";
    const char *k2 = "macd:{'fast': 12, 'signal': 9, 'size': 10000, 'slow': 26}";

    /* Two CPU measurements averaging 2 ms; no GPU time. */
    apo__threshold a = add(k1, 2.0, NAN, 2);
    a.cpu_samples = 2;
    apo__thresholds t;
    cr_assert_eq(apo__thresholds_merge(path, &a, 1, &t, err, sizeof err), APO_OK, "%s", err);
    assert_threshold(&t.entries[0], k1, 2.0, NAN, 2, 2, 0);
    apo__thresholds_free(&t);

    /* One measurement of both sides, counts taken from `samples`: CPU (2*2 + 5*1) / 3. */
    a = add(k1, 5.0, 1.0, 1);
    cr_assert_eq(apo__thresholds_merge(path, &a, 1, &t, err, sizeof err), APO_OK, "%s", err);
    assert_threshold(&t.entries[0], k1, 3.0, 1.0, 3, 3, 1);
    apo__thresholds_free(&t);

    /* Sides with their own counts: CPU (3*3 + 7*5) / 8 = 5.5, GPU (1*1 + 4*3) / 4 = 3.25.
     * In the same merge, a new key added twice averages its two adds. */
    apo__threshold adds[3] = {add(k1, 7.0, 4.0, 5), add(k2, 1.0, NAN, 1), add(k2, 2.0, 0.5, 1)};
    adds[0].cpu_samples = 5;
    adds[0].gpu_samples = 3;
    cr_assert_eq(apo__thresholds_merge(path, adds, 3, &t, err, sizeof err), APO_OK, "%s", err);
    cr_assert_eq(t.n, 2);
    assert_threshold(&t.entries[0], k1, 5.5, 3.25, 8, 8, 4);
    assert_threshold(&t.entries[1], k2, 1.5, 0.5, 2, 2, 1);
    double stamp = apo__timestamp_parse(t.updated_at);
    cr_assert(fabs(stamp - (double)time(NULL)) < 5, "%s", t.updated_at);

    /* What the merge returned is what the file holds. */
    apo__thresholds back;
    cr_assert_eq(apo__thresholds_load(path, &back, NULL, err, sizeof err), APO_OK, "%s", err);
    cr_assert_eq(back.n, t.n);
    cr_assert_str_eq(back.updated_at, t.updated_at);
    for (size_t i = 0; i < t.n; i++) {
        const apo__threshold *e = &t.entries[i];
        assert_threshold(&back.entries[i], e->key, e->cpu_ms_avg, e->gpu_ms_avg, e->samples,
                         e->cpu_samples, e->gpu_samples);
    }
    apo__thresholds_free(&back);
    apo__thresholds_free(&t);

    /* Bad adds are refused before the file is touched. */
    a = add(k1, -1.0, NAN, 1);
    cr_assert_eq(apo__thresholds_merge(path, &a, 1, NULL, err, sizeof err),
                 APO_ERR_INVALID_ARGUMENT);
    a = add("", 1.0, NAN, 1);
    cr_assert_eq(apo__thresholds_merge(path, &a, 1, NULL, err, sizeof err),
                 APO_ERR_INVALID_ARGUMENT);
    rm_tree(dir);
}

Test(profile_store, merge_into_threadx_thresholds, .timeout = 20) {
    char dir[64], path[256], err[512];
    make_tmp(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/thresholds.json", dir);
    size_t len;
    char *text = read_all(DATA "thresholds_threadx.json", &len);
    write_text(path, text);
    free(text);
    /* macd had 8 samples of both at 1.5 / 0.25 ms; add 8 more at 2.5 / 0.75. */
    apo__threshold a = add("macd:{'fast': 12, 'signal': 9, 'slow': 26}", 2.5, 0.75, 8);
    apo__thresholds t;
    cr_assert_eq(apo__thresholds_merge(path, &a, 1, &t, err, sizeof err), APO_OK, "%s", err);
    cr_assert_str_eq(err, "");
    cr_assert_eq(t.n, 2);
    assert_threshold(&t.entries[0], "bollinger:{'period': 20, 'size': 10000}", 0.5, NAN, 3, 3, 0);
    assert_threshold(&t.entries[1], "macd:{'fast': 12, 'signal': 9, 'slow': 26}", 2.0, 0.5, 16, 16,
                     16);
    apo__thresholds_free(&t);
    /* Written back in apportion's shape. */
    json_error_t jerr;
    json_t *root = json_load_file(path, 0, &jerr);
    cr_assert_not_null(root);
    cr_assert_str_eq(json_string_value(json_object_get(root, "format")), APO_THRESHOLDS_FORMAT);
    json_decref(root);
    rm_tree(dir);
}

/* ---- concurrency ------------------------------------------------------------------------ */

#define WRITERS 8
#define MERGES 25
#define SHARED_KEY "shared:{'size': 1000}"

static void writer(const char *path, int id) {
    char own[64], err[512];
    snprintf(own, sizeof own, "own%d:{'size': 1000}", id);
    for (int i = 0; i < MERGES; i++) {
        /* CPU time the same for all (its average is exact), GPU time per writer. */
        apo__threshold adds[2] = {add(SHARED_KEY, 1.5, (double)(id + 1), 1),
                                  add(own, 0.25 * (id + 1), NAN, 1)};
        apo_status st = apo__thresholds_merge(path, adds, 2, NULL, err, sizeof err);
        if (st != APO_OK) {
            fprintf(stderr, "writer %d, merge %d: %s\n", id, i, err);
            _exit(1);
        }
    }
    _exit(0);
}

/* Loads the file until `done` exists; any error is a torn or broken file. */
static void reader(const char *path, const char *done) {
    char err[512];
    struct stat st;
    long loads = 0;
    while (stat(done, &st) != 0) {
        apo__thresholds t;
        if (apo__thresholds_load(path, &t, NULL, err, sizeof err) != APO_OK) {
            fprintf(stderr, "reader, load %ld: %s\n", loads, err);
            _exit(1);
        }
        apo__thresholds_free(&t);
        loads++;
    }
    _exit(loads > 0 ? 0 : 2);
}

Test(profile_store, concurrent_writers_lose_nothing, .timeout = 120) {
    char dir[64], path[256], done[256], err[512];
    make_tmp(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/thresholds.json", dir);
    snprintf(done, sizeof done, "%s/done", dir);

    pid_t reader_pid = fork();
    cr_assert_geq(reader_pid, 0);
    if (reader_pid == 0)
        reader(path, done);
    pid_t pids[WRITERS];
    for (int i = 0; i < WRITERS; i++) {
        pids[i] = fork();
        cr_assert_geq(pids[i], 0);
        if (pids[i] == 0)
            writer(path, i);
    }
    for (int i = 0; i < WRITERS; i++) {
        int status;
        cr_assert_eq(waitpid(pids[i], &status, 0), pids[i]);
        cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "writer %d failed", i);
    }
    write_text(done, "");
    int status;
    cr_assert_eq(waitpid(reader_pid, &status, 0), reader_pid);
    cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the reader saw an error");

    apo__thresholds t;
    cr_assert_eq(apo__thresholds_load(path, &t, NULL, err, sizeof err), APO_OK, "%s", err);
    cr_assert_eq(t.n, WRITERS + 1);
    for (int i = 0; i < WRITERS; i++) {
        char own[64];
        snprintf(own, sizeof own, "own%d:{'size': 1000}", i);
        assert_threshold(&t.entries[i], own, 0.25 * (i + 1), NAN, MERGES, MERGES, 0);
    }
    const apo__threshold *s = &t.entries[WRITERS];
    cr_assert_str_eq(s->key, SHARED_KEY);
    cr_assert_eq(s->samples, WRITERS * MERGES);
    cr_assert_eq(s->cpu_samples, WRITERS * MERGES);
    cr_assert_eq(s->gpu_samples, WRITERS * MERGES);
    cr_assert_eq(s->cpu_ms_avg, 1.5, "%.17g", s->cpu_ms_avg);
    /* GPU: 25 times each of 1..8 ms, mean 4.5; the running average rounds once per merge, so
     * it is exact to a few ulps, while one lost merge would move it by about 0.02. */
    cr_assert(fabs(s->gpu_ms_avg - 4.5) < 1e-12, "%.17g", s->gpu_ms_avg);
    apo__thresholds_free(&t);

    char names[512];
    list_dir(dir, names, sizeof names);
    cr_assert_str_eq(names, "done thresholds.json thresholds.json.lock");
    rm_tree(dir);
}

Test(profile_store, killed_lock_holder_does_not_block, .timeout = 30) {
    char dir[64], path[256], lock[300], err[512];
    make_tmp(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/thresholds.json", dir);
    snprintf(lock, sizeof lock, "%s.lock", path);
    int ready[2];
    cr_assert_eq(pipe(ready), 0);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        int fd = open(lock, O_RDWR | O_CREAT, 0600);
        if (fd < 0 || flock(fd, LOCK_EX) != 0)
            _exit(1);
        if (write(ready[1], "x", 1) != 1)
            _exit(1);
        for (;;)
            pause();
    }
    char c;
    cr_assert_eq(read(ready[0], &c, 1), 1);
    /* The child holds it: nobody else can have it now. */
    int fd = open(lock, O_RDWR);
    cr_assert_geq(fd, 0);
    cr_assert_neq(flock(fd, LOCK_EX | LOCK_NB), 0);
    close(fd);

    cr_assert_eq(kill(pid, SIGKILL), 0);
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFSIGNALED(status));

    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    apo__threshold a = add("k:{'size': 1}", 1.0, NAN, 1);
    cr_assert_eq(apo__thresholds_merge(path, &a, 1, NULL, err, sizeof err), APO_OK, "%s", err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double waited = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    cr_assert(waited < 2.0, "the merge took %.3f s after the holder died", waited);
    close(ready[0]);
    close(ready[1]);
    rm_tree(dir);
}

/* Both files at once, as several `apportion profile` jobs and programs would use them:
 * BOTH_WRITERS processes each make BOTH_ROUNDS rounds of one multigpu.json update (its own
 * tag, whole, and the shared tag) and one thresholds.json merge (its own key and the shared
 * key), while BOTH_READERS processes load both files in a loop. No load may fail (a torn
 * file would not parse), and afterwards every writer's last entry and every merged sample
 * must be there. Each reader sends its count of loads down a pipe, for the figures. */
#define BOTH_WRITERS 8
#define BOTH_READERS 4
#define BOTH_ROUNDS 20

static apo__stored_workload round_entry(const char *tag, int writer, int round) {
    apo__stored_workload w;
    memset(&w, 0, sizeof w);
    snprintf(w.tag, sizeof w.tag, "%s", tag);
    w.origin = APO_ORIGIN_ONLINE;
    w.sample_size = 1000;
    w.runs = (unsigned)round;
    w.n_devices = 2;
    /* The values say who wrote the entry and in which round, so the survivor is known. */
    w.devices[0] = device("cpu", "cpu", 1.0 + writer, 0.5, 2.0 + round, (uint64_t)round);
    w.devices[1] = device("sim:a", "sim:a", 1.0, 0.25, 1.0 + writer, (uint64_t)round);
    return w;
}

static void both_writer(const char *mpath, const char *tpath, int id) {
    char own_tag[32], own_key[64], err[512];
    snprintf(own_tag, sizeof own_tag, "writer%d", id);
    snprintf(own_key, sizeof own_key, "own%d:{'size': 1000}", id);
    for (int r = 1; r <= BOTH_ROUNDS; r++) {
        apo__stored_workload w[2] = {round_entry(own_tag, id, r), round_entry("shared", id, r)};
        if (apo__multigpu_update(mpath, "node", w, 2, NULL, 0, NULL, err, sizeof err) != APO_OK) {
            fprintf(stderr, "writer %d, round %d: %s\n", id, r, err);
            _exit(1);
        }
        apo__threshold adds[2] = {add(SHARED_KEY, 2.0, 1.0 + id, 1), add(own_key, 0.5, NAN, 1)};
        if (apo__thresholds_merge(tpath, adds, 2, NULL, err, sizeof err) != APO_OK) {
            fprintf(stderr, "writer %d, merge %d: %s\n", id, r, err);
            _exit(1);
        }
    }
    _exit(0);
}

/* Loads both files until `done` exists. A file that is not there yet is fine; any other
 * failure is a torn or broken file. */
static void both_reader(const char *mpath, const char *tpath, const char *done, int count_fd) {
    char err[512];
    struct stat st;
    long loads = 0;
    while (stat(done, &st) != 0) {
        apo__multigpu p;
        apo__thresholds t;
        int missing;
        if (apo__multigpu_load(mpath, &p, &missing, err, sizeof err) != APO_OK ||
            apo__thresholds_load(tpath, &t, &missing, err, sizeof err) != APO_OK) {
            fprintf(stderr, "reader, load %ld: %s\n", loads, err);
            _exit(1);
        }
        apo__multigpu_free(&p);
        apo__thresholds_free(&t);
        loads += 2;
    }
    _exit(write(count_fd, &loads, sizeof loads) == (ssize_t)sizeof loads ? 0 : 1);
}

Test(profile_store, writers_and_readers_of_both_files_in_many_processes, .timeout = 240) {
    char dir[64], mpath[256], tpath[256], done[256], err[512];
    make_tmp(dir, sizeof dir);
    snprintf(mpath, sizeof mpath, "%s/multigpu.json", dir);
    snprintf(tpath, sizeof tpath, "%s/thresholds.json", dir);
    snprintf(done, sizeof done, "%s/done", dir);
    int counts[2];
    cr_assert_eq(pipe(counts), 0);

    pid_t readers[BOTH_READERS], writers[BOTH_WRITERS];
    for (int i = 0; i < BOTH_READERS; i++) {
        readers[i] = fork();
        cr_assert_geq(readers[i], 0);
        if (readers[i] == 0)
            both_reader(mpath, tpath, done, counts[1]);
    }
    for (int i = 0; i < BOTH_WRITERS; i++) {
        writers[i] = fork();
        cr_assert_geq(writers[i], 0);
        if (writers[i] == 0)
            both_writer(mpath, tpath, i);
    }
    for (int i = 0; i < BOTH_WRITERS; i++) {
        int status;
        cr_assert_eq(waitpid(writers[i], &status, 0), writers[i]);
        cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "writer %d failed", i);
    }
    write_text(done, "");
    long total_loads = 0;
    for (int i = 0; i < BOTH_READERS; i++) {
        int status;
        cr_assert_eq(waitpid(readers[i], &status, 0), readers[i]);
        cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "reader %d saw a broken file", i);
        long loads = 0;
        cr_assert_eq(read(counts[0], &loads, sizeof loads), (ssize_t)sizeof loads);
        total_loads += loads;
    }
    close(counts[0]);
    close(counts[1]);
    cr_log_info("%d writer processes made %d updates and %d merges while %d readers loaded "
                "%ld files",
                BOTH_WRITERS, BOTH_WRITERS * BOTH_ROUNDS, BOTH_WRITERS * BOTH_ROUNDS, BOTH_READERS,
                total_loads);
    cr_assert_gt(total_loads, 0);

    /* Every writer's own entry, as its last round wrote it; the shared entry whole, as one
     * writer's last round wrote it (updates replace whole entries). */
    apo__multigpu p;
    cr_assert_eq(apo__multigpu_load(mpath, &p, NULL, err, sizeof err), APO_OK, "%s", err);
    cr_assert_eq(p.n_workloads, BOTH_WRITERS + 1);
    for (int i = 0; i < BOTH_WRITERS; i++) {
        char tag[32];
        snprintf(tag, sizeof tag, "writer%d", i);
        const apo__stored_workload *e = apo__multigpu_find(&p, tag);
        cr_assert_not_null(e, "%s is missing", tag);
        apo__stored_workload expect = round_entry(tag, i, BOTH_ROUNDS);
        snprintf(expect.updated_at, sizeof expect.updated_at, "%s", e->updated_at);
        assert_same_workload(e, &expect);
    }
    const apo__stored_workload *shared = apo__multigpu_find(&p, "shared");
    cr_assert_not_null(shared);
    int last_writer = (int)shared->devices[0].ratio - 1;
    cr_assert(last_writer >= 0 && last_writer < BOTH_WRITERS, "ratio %g", shared->devices[0].ratio);
    apo__stored_workload expect = round_entry("shared", last_writer, BOTH_ROUNDS);
    snprintf(expect.updated_at, sizeof expect.updated_at, "%s", shared->updated_at);
    assert_same_workload(shared, &expect);
    apo__multigpu_free(&p);

    /* Every merged sample. */
    apo__thresholds t;
    cr_assert_eq(apo__thresholds_load(tpath, &t, NULL, err, sizeof err), APO_OK, "%s", err);
    cr_assert_eq(t.n, BOTH_WRITERS + 1);
    for (int i = 0; i < BOTH_WRITERS; i++) {
        char own[64];
        snprintf(own, sizeof own, "own%d:{'size': 1000}", i);
        assert_threshold(&t.entries[i], own, 0.5, NAN, BOTH_ROUNDS, BOTH_ROUNDS, 0);
    }
    const apo__threshold *s = &t.entries[BOTH_WRITERS];
    cr_assert_str_eq(s->key, SHARED_KEY);
    cr_assert_eq(s->samples, BOTH_WRITERS * BOTH_ROUNDS);
    cr_assert_eq(s->cpu_ms_avg, 2.0, "%.17g", s->cpu_ms_avg);
    /* GPU: 20 times each of 1..8 ms, mean 4.5; one lost merge would move it by about 0.02. */
    cr_assert(fabs(s->gpu_ms_avg - 4.5) < 1e-12, "%.17g", s->gpu_ms_avg);
    apo__thresholds_free(&t);

    char names[512];
    list_dir(dir, names, sizeof names);
    cr_assert_str_eq(names,
                     "done multigpu.json multigpu.json.lock thresholds.json thresholds.json.lock");
    rm_tree(dir);
}

/* A writer killed (SIGKILL) at a random moment of its merges, most likely holding the lock
 * and with its temporary file half written: the next writer gets the lock at once (flock
 * dies with its holder), the file is whole (the old one or the new one), the dead writer's
 * temporary file is cleared by the next write, and no merge of the survivors is lost. */
#define KILLS 12

Test(profile_store, writers_killed_mid_write_block_nothing_and_break_nothing, .timeout = 120) {
    char dir[64], path[256], err[512];
    make_tmp(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/thresholds.json", dir);
    const char *mine = "survivor:{'size': 1}";
    uint64_t my_merges = 0;
    int mid_write = 0; /* kills that left a temporary file: the writer held the lock */
    for (int k = 0; k < KILLS; k++) {
        pid_t pid = fork();
        cr_assert_geq(pid, 0);
        if (pid == 0) {
            /* Big enough that a write takes a while: many keys. */
            apo__threshold adds[200];
            for (int i = 0; i < 200; i++) {
                char key[64];
                snprintf(key, sizeof key, "victim%03d:{'size': %d}", i, k);
                adds[i] = add(key, 1.0, 2.0, 1);
            }
            for (;;)
                if (apo__thresholds_merge(path, adds, 200, NULL, err, sizeof err) != APO_OK)
                    _exit(1);
        }
        /* Let it take the lock and write a few times, then kill it wherever it is. */
        struct timespec pause = {0, 20000000 + 3000000 * (long)k};
        nanosleep(&pause, NULL);
        cr_assert_eq(kill(pid, SIGKILL), 0);
        int status;
        cr_assert_eq(waitpid(pid, &status, 0), pid);
        cr_assert(WIFSIGNALED(status), "the writer ended by itself (status %d)", status);
        char before[512];
        list_dir(dir, before, sizeof before);
        mid_write += strstr(before, ".thresholds.json.") != NULL;

        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        apo__threshold a = add(mine, 1.0, NAN, 1);
        cr_assert_eq(apo__thresholds_merge(path, &a, 1, NULL, err, sizeof err), APO_OK, "%s", err);
        my_merges++;
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double waited = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
        cr_assert(waited < 5.0, "kill %d: the next merge took %.3f s", k, waited);
        apo__thresholds t;
        cr_assert_eq(apo__thresholds_load(path, &t, NULL, err, sizeof err), APO_OK, "kill %d: %s",
                     k, err);
        const apo__threshold *e = NULL;
        for (size_t i = 0; i < t.n; i++)
            if (strcmp(t.entries[i].key, mine) == 0)
                e = &t.entries[i];
        cr_assert_not_null(e);
        cr_assert_eq(e->samples, my_merges, "kill %d: %llu samples", k,
                     (unsigned long long)e->samples);
        apo__thresholds_free(&t);
        /* Only the file and its lock: the dead writer's temporary file is gone. */
        char names[512];
        list_dir(dir, names, sizeof names);
        cr_assert_str_eq(names, "thresholds.json thresholds.json.lock", "kill %d", k);
    }
    cr_log_info("%d writers killed, %d of them in the middle of a write", KILLS, mid_write);
    rm_tree(dir);
}

/* ---- threshold keys --------------------------------------------------------------------- */

static void check_key(const char *function, const char *const *names, const double *values,
                      size_t n, uint64_t samples, const char *expect) {
    char key[APO_THRESHOLD_KEY_MAX];
    cr_assert_eq(apo__threshold_key(key, function, names, values, n, samples), APO_OK, "%s",
                 expect);
    cr_assert_str_eq(key, expect);
    apo__threshold_key_parts parts;
    cr_assert_eq(apo__threshold_key_parse(key, &parts), APO_OK, "%s", key);
    cr_assert_str_eq(parts.function, function);
    cr_assert_eq(parts.samples, samples);
    cr_assert_eq(parts.n_params, n);
    /* Parts come back in name order; each value bit for bit. */
    for (size_t i = 0; i < n; i++) {
        size_t found = n;
        for (size_t k = 0; k < n; k++)
            if (strcmp(parts.names[k], names[i]) == 0)
                found = k;
        cr_assert_lt(found, n, "%s: %s missing", key, names[i]);
        double v = values[i] == 0 ? 0.0 : values[i];
        cr_assert(same_double(parts.values[found], v), "%s: %s is %.17g", key, names[i],
                  parts.values[found]);
        if (found > 0)
            cr_assert_lt(strcmp(parts.names[found - 1], parts.names[found]), 0);
    }
}

Test(profile_store, key_build_and_parse_round_trip, .timeout = 10) {
    const char *bb[] = {"period", "nbdev_up", "nbdev_dn"};
    const double bbv[] = {20, 2, 2};
    check_key("bollinger", bb, bbv, 3, 10000,
              "bollinger:{'nbdev_dn': 2, 'nbdev_up': 2, 'period': 20, 'size': 10000}");
    const char *macd[] = {"slow", "fast", "signal"};
    const double macdv[] = {26, 12, 9};
    check_key("macd", macd, macdv, 3, 5000,
              "macd:{'fast': 12, 'signal': 9, 'size': 5000, 'slow': 26}");
    check_key("sum", NULL, NULL, 0, 3, "sum:{'size': 3}");
    check_key("sum", NULL, NULL, 0, UINT64_MAX, "sum:{'size': 18446744073709551615}");

    const char *one[] = {"alpha"};
    struct {
        double v;
        const char *text;
    } values[] = {
        {0.5, "0.5"},
        {0.1, "0.1"},
        {1.0 / 3.0, "0.3333333333333333"},
        {-3, "-3"},
        {-0.0, "0"},
        {1e-7, "1e-07"},
        {9007199254740992.0, "9007199254740992"},
        {9007199254740994.0, "9007199254740994"},
        {1e20, "1e+20"},
        {2.5e-300, "2.5e-300"},
        {0.30000000000000004, "0.30000000000000004"},
        {5e-324, "4.94065645841247e-324"},
    };
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        char expect[128];
        snprintf(expect, sizeof expect, "f:{'alpha': %s, 'size': 7}", values[i].text);
        check_key("f", one, &values[i].v, 1, 7, expect);
    }
    /* Byte order: upper case before lower, 'size' wherever it falls. */
    const char *mixed[] = {"zeta", "Alpha", "s", "sz", "A_1"};
    const double mixedv[] = {1, 2, 3, 4, 5};
    check_key("k9", mixed, mixedv, 5, 1,
              "k9:{'A_1': 5, 'Alpha': 2, 's': 3, 'size': 1, 'sz': 4, 'zeta': 1}");
}

Test(profile_store, key_rejects, .timeout = 10) {
    char key[APO_THRESHOLD_KEY_MAX];
    const char *size_name[] = {"size"};
    const char *twice[] = {"p", "p"};
    const char *spaced[] = {"per iod"};
    const char *quoted[] = {"p'"};
    const double v1[] = {1, 2};
    const double nan1[] = {NAN};
    cr_assert_eq(apo__threshold_key(key, "f", size_name, v1, 1, 1), APO_ERR_INVALID_ARGUMENT);
    cr_assert_eq(apo__threshold_key(key, "f", twice, v1, 2, 1), APO_ERR_INVALID_ARGUMENT);
    cr_assert_eq(apo__threshold_key(key, "f", spaced, v1, 1, 1), APO_ERR_INVALID_ARGUMENT);
    cr_assert_eq(apo__threshold_key(key, "f", quoted, v1, 1, 1), APO_ERR_INVALID_ARGUMENT);
    cr_assert_eq(apo__threshold_key(key, "f", twice, nan1, 1, 1), APO_ERR_INVALID_ARGUMENT);
    cr_assert_eq(apo__threshold_key(key, "", NULL, NULL, 0, 1), APO_ERR_INVALID_ARGUMENT);
    cr_assert_eq(apo__threshold_key(key, "a:b", NULL, NULL, 0, 1), APO_ERR_INVALID_ARGUMENT);
    cr_assert_str_eq(key, "");

    /* Nine parameters with the longest names do not fit in 255 bytes; ten are too many. */
    char long_names[10][APO_NAME_MAX];
    const char *names[10];
    double values[10];
    for (int i = 0; i < 10; i++) {
        memset(long_names[i], 'a', APO_NAME_MAX - 1);
        long_names[i][APO_NAME_MAX - 1] = '\0';
        long_names[i][0] = (char)('a' + i);
        names[i] = long_names[i];
        values[i] = 0.1 * i + 0.01;
    }
    cr_assert_eq(apo__threshold_key(key, "f", names, values, 9, 1), APO_ERR_INVALID_ARGUMENT);
    cr_assert_eq(apo__threshold_key(key, "f", names, values, 10, 1), APO_ERR_INVALID_ARGUMENT);

    static const char *const bad[] = {
        "",
        "bollinger:{'period': 20}", /* ThreadX key without size */
        "bollinger:{'size': 10000, 'period': 20}",
        "bollinger:{'period': 20.0, 'size': 10}",
        "bollinger:{'period':20, 'size': 10}",
        "bollinger:{'period': 20,'size': 10}",
        "bollinger:{'period': 20, 'size': 10} ",
        "bollinger:{'period': 20, 'size': 10}}",
        "bollinger{'size': 10}",
        ":{'size': 1}",
        "b:{}",
        "b:{'size': -1}",
        "b:{'size': 01}",
        "b:{'size': +1}",
        "b:{'size': 1.0}",
        "b:{'size': 18446744073709551616}",
        "b:{'size': 1, 'size': 1}",
        "b:{\"size\": 1}",
        "b:{'p': nan, 'size': 1}",
        "b:{'p': inf, 'size': 1}",
        "b:{'p': 0x10, 'size': 1}",
        "b:{'p': 1e1, 'size': 1}",
        "b:{'p': -0, 'size': 1}",
        "b:{'p': 0.50, 'size': 1}",
        "b:{'p': 1, 'p': 2, 'size': 1}",
        "b:{'p q': 1, 'size': 1}",
        "b:{'': 1, 'size': 1}",
        "b c:{'size': 1}",
        "b:{'p': , 'size': 1}",
        "b:{'p': 1 , 'size': 1}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        apo__threshold_key_parts parts;
        cr_expect_eq(apo__threshold_key_parse(bad[i], &parts), APO_ERR_INVALID_ARGUMENT,
                     "accepted \"%s\"", bad[i]);
    }
    char too_long[APO_THRESHOLD_KEY_MAX + 8];
    memset(too_long, 'a', sizeof too_long);
    memcpy(too_long + sizeof too_long - 13, ":{'size': 1}", 13);
    apo__threshold_key_parts parts;
    cr_assert_eq(apo__threshold_key_parse(too_long, &parts), APO_ERR_INVALID_ARGUMENT);
}

/* ---- timestamps ------------------------------------------------------------------------- */

Test(profile_store, timestamp_round_trip, .timeout = 10) {
    char out[APO_TIMESTAMP_MAX];
    apo__timestamp_format(0, out, sizeof out);
    cr_assert_str_eq(out, "1970-01-01T00:00:00Z");
    apo__timestamp_format(951782400.75, out, sizeof out);
    cr_assert_str_eq(out, "2000-02-29T00:00:00Z");
    apo__timestamp_format(T_2026_11_21, out, sizeof out);
    cr_assert_str_eq(out, "2026-11-21T10:00:00Z");
    apo__timestamp_format(253402300799.0, out, sizeof out);
    cr_assert_str_eq(out, "9999-12-31T23:59:59Z");
    apo__timestamp_format(NAN, out, sizeof out);
    cr_assert_str_eq(out, "");
    apo__timestamp_format(-1, out, sizeof out);
    cr_assert_str_eq(out, "");

    cr_assert_eq(apo__timestamp_parse("1970-01-01T00:00:00Z"), 0);
    cr_assert_eq(apo__timestamp_parse("2026-11-21T10:00:00Z"), T_2026_11_21);
    cr_assert_eq(apo__timestamp_parse("2026-11-21t10:00:00z"), T_2026_11_21);
    cr_assert_eq(apo__timestamp_parse("2026-11-21T12:30:00+02:30"), T_2026_11_21);
    cr_assert_eq(apo__timestamp_parse("2026-11-21T05:00:00-05:00"), T_2026_11_21);
    cr_assert_eq(apo__timestamp_parse("2026-11-21T10:00:00+00:00"), T_2026_11_21);
    cr_assert_eq(apo__timestamp_parse("2026-11-21T10:00:00.5Z"), T_2026_11_21 + 0.5);
    cr_assert_eq(apo__timestamp_parse("2000-02-29T00:00:00Z"), 951782400.0);
    cr_assert_eq(apo__timestamp_parse("2016-12-31T23:59:60Z"),
                 apo__timestamp_parse("2017-01-01T00:00:00Z"));

    /* Every day boundary of a few centuries (leap years, 2000, 2100) round-trips. */
    for (double t = 0; t < 253402300799.0; t += 86400.0 * 97 + 3661) {
        apo__timestamp_format(t, out, sizeof out);
        cr_assert_eq(apo__timestamp_parse(out), floor(t), "%s", out);
    }
    /* And gmtime agrees with the parser on each of those strings' fields. */
    time_t probe = (time_t)4107542400; /* 2100-03-01, after a non-leap February */
    struct tm tm;
    gmtime_r(&probe, &tm);
    cr_assert_eq(tm.tm_mon, 2);
    cr_assert_eq(tm.tm_mday, 1);
    cr_assert_eq(apo__timestamp_parse("2100-03-01T00:00:00Z"), 4107542400.0);
}

Test(profile_store, timestamp_rejects, .timeout = 10) {
    static const char *const bad[] = {
        "",
        "2026-13-01T00:00:00Z",
        "2026-00-01T00:00:00Z",
        "2025-02-29T00:00:00Z",
        "2100-02-29T00:00:00Z",
        "2026-11-31T00:00:00Z",
        "2026-11-21 10:00:00Z",
        "2026-11-21T10:00:00",
        "2026-11-21T10:00:00Zjunk",
        "2026-11-21T24:00:00Z",
        "2026-11-21T10:60:00Z",
        "2026-11-21T10:00:61Z",
        "2026-11-21T10:00:00.Z",
        "2026-11-21T10:00:00+2:00",
        "2026-11-21T10:00:00+24:00",
        "2026-11-21T10:00:00+0200",
        "1969-12-31T23:59:59Z",
        "1970-01-01T00:00:00+01:00",
        "26-11-21T10:00:00Z",
        "2026-1-21T10:00:00Z",
        "yesterday",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_expect_eq(apo__timestamp_parse(bad[i]), -1, "accepted \"%s\"", bad[i]);
    cr_assert_eq(apo__timestamp_parse(NULL), -1);
}

Test(profile_store, simulated_gpu_times_are_marked_and_stay_marked, .timeout = 20) {
    char dir[64], path[256], err[512];
    make_tmp(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/thresholds.json", dir);
    const char *k = "bollinger:{'period': 20, 'size': 10000}";
    apo__threshold a = add(k, 2.0, 1.0, 1);
    apo__thresholds t;
    cr_assert_eq(apo__thresholds_merge(path, &a, 1, &t, err, sizeof err), APO_OK, "%s", err);
    cr_assert_eq(t.entries[0].simulated, 0);
    apo__thresholds_free(&t);

    /* A sim device's time marks the entry; a later real one does not clear the mark. */
    a.simulated = 1;
    cr_assert_eq(apo__thresholds_merge(path, &a, 1, NULL, err, sizeof err), APO_OK, "%s", err);
    a.simulated = 0;
    cr_assert_eq(apo__thresholds_merge(path, &a, 1, NULL, err, sizeof err), APO_OK, "%s", err);
    apo__thresholds back;
    cr_assert_eq(apo__thresholds_load(path, &back, NULL, err, sizeof err), APO_OK, "%s", err);
    cr_assert_eq(back.entries[0].simulated, 1);
    cr_assert_eq(back.entries[0].samples, 3);
    apo__thresholds_free(&back);

    write_text(path, "{\"format\": \"apportion.thresholds/1\", \"updated_at\": "
                     "\"2026-01-01T00:00:00Z\", \"entries\": {\"f:{'size': 1}\": {\"cpu_ms_avg\": "
                     "1, \"samples\": 1, \"simulated\": \"yes\"}}}");
    int missing = 0;
    cr_assert_eq(apo__thresholds_load(path, &back, &missing, err, sizeof err),
                 APO_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(err, "simulated") != NULL && strstr(err, "true or false") != NULL, "%s", err);
    rm_tree(dir);
}
