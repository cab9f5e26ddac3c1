/*
 * The profile files: where they are, how the golden files in tests/data/profiles read (with
 * exact values), how every bad one is refused (the message names the file and the field),
 * that writes read back bit for bit, that an unusable file is kept aside, that a failed write
 * leaves the old file byte-identical, the running averages of thresholds.json, the canonical
 * threshold keys and timestamps, and that concurrent writers lose nothing while a reader
 * never sees a torn file.
 *
 * This file has the paths, reading, keys and timestamps; the writes are in
 * test_profile_store_writes.c, the many processes in test_profile_store_processes.c, and
 * what all three share in profile_store_fixtures.c.
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

#include "profile_store_fixtures.h"

/* 2026-11-21T10:00:00Z, computed independently (Python's calendar.timegm). */
#define T_2026_11_21 1795255200.0

/* ---- helpers ---------------------------------------------------------------------------- */

Test(profile_store, paths_explicit_win, .timeout = 60) {
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

Test(profile_store, paths_dir_then_xdg_then_home, .timeout = 60) {
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

Test(profile_store, paths_none_or_too_long, .timeout = 60) {
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

Test(profile_store, make_dir_creates_parents_0700, .timeout = 60) {
    char dir[64], path[256], err[256];
    make_tmp_file(dir, sizeof dir, path, sizeof path, "a/b/c/multigpu.json");
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

Test(profile_store, load_valid_multigpu, .timeout = 60) {
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

Test(profile_store, load_threadx_multigpu, .timeout = 60) {
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

Test(profile_store, load_shipped_examples, .timeout = 60) {
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

Test(profile_store, load_missing_file, .timeout = 60) {
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

Test(profile_store, load_rejects_bad_multigpu, .timeout = 60) {
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

Test(profile_store, load_rejects_bad_thresholds, .timeout = 60) {
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

Test(profile_store, load_rejects_directory_and_oversized_file, .timeout = 60) {
    char dir[64], path[256], err[512];
    make_tmp_file(dir, sizeof dir, path, sizeof path, "multigpu.json");
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
Test(profile_store, parse_from_memory_matches_file_load, .timeout = 60) {
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
Test(profile_store, syntax_error_message_shows_control_bytes_escaped, .timeout = 60) {
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
    make_tmp_file(dir, sizeof dir, path, sizeof path, "multigpu.json");
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

Test(profile_store, load_valid_thresholds, .timeout = 60) {
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

Test(profile_store, load_threadx_thresholds, .timeout = 60) {
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

Test(profile_store, key_build_and_parse_round_trip, .timeout = 60) {
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

Test(profile_store, key_rejects, .timeout = 60) {
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

Test(profile_store, timestamp_round_trip, .timeout = 60) {
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

Test(profile_store, timestamp_rejects, .timeout = 60) {
    static const char *const bad[] = {
        "",
        "2026-13-01T00:00:00Z",
        "2026-00-01T00:00:00Z",
        "2025-02-29T00:00:00Z",
        "2100-02-29T00:00:00Z",
        "2026-11-31T00:00:00Z",
        /* A space for 'T', no zone and +0200 are ISO 8601 forms ThreadX writes, read since
         * (tests/runtime/profiles/test_threadx_files.c). */
        "2026-11-21T10:00:00Zjunk",
        "2026-11-21T24:00:00Z",
        "2026-11-21T10:60:00Z",
        "2026-11-21T10:00:61Z",
        "2026-11-21T10:00:00.Z",
        "2026-11-21T10:00:00+2:00",
        "2026-11-21T10:00:00+24:00",
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
