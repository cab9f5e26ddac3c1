/*
 * Files ThreadX wrote, read as ThreadX wrote them (docs/profiles.md, "The ThreadX shape"):
 * the `updated_at` of Python's datetime.now().isoformat() (no zone, microseconds) and the
 * other ISO 8601 forms it may hold; ThreadX's device names ("CPU", "GPU0") as apportion's
 * ids; and a file of ThreadX's shape that apportion cannot read, valid in no format, which
 * a write keeps aside as <file>.corrupt, as an unusable file of apportion's own. Expected times are
 * Unix seconds computed independently (Python's calendar.timegm), not by the code under test.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "profiles/profile_store.h"
#include "test_tmpdir.h"

/* 2026-11-23T05:03:14Z and 2026-11-23T10:03:14Z (calendar.timegm). */
#define T_0503 1795410194.0
#define T_1003 1795428194.0

static char dir[64];

static void make_dir(void) {
    snprintf(dir, sizeof dir, "%s/apo-threadx-XXXXXX", test_tmpdir());
    cr_assert_not_null(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
}

static void remove_dir(void) {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

static void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    cr_assert(fputs(text, f) >= 0);
    cr_assert_eq(fclose(f), 0);
}

static char *read_text(const char *path) {
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    static char buf[1 << 16];
    const size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

/* The process's local zone, as ThreadX's datetime.now() reads it. */
/* Merges one new entry, macd's at size 100 measured on the cpu only, into the thresholds
 * file at `path`; fails the test unless the merge succeeds (its note, if any, in err). */
static void merge_macd_entry(const char *path, char *err, size_t err_size) {
    apo__threshold add;
    memset(&add, 0, sizeof add);
    snprintf(add.key, sizeof add.key, "macd:{'size': 100}");
    add.cpu_ms_avg = 2;
    add.gpu_ms_avg = NAN;
    add.samples = 1;
    cr_assert_eq(apo__thresholds_merge(path, &add, 1, NULL, err, err_size), APO_OK, "%s", err);
}

static void set_zone(const char *tz) {
    cr_assert_eq(setenv("TZ", tz, 1), 0);
    tzset();
}

Test(threadx_files, iso_timestamps_threadx_writes_are_read) {
    set_zone("UTC0");
    const struct {
        const char *text;
        double want;
    } cases[] = {
        {"2026-11-23T05:03:14.123456", T_0503 + 0.123456},
        {"2026-11-23T05:03:14", T_0503},
        {"2026-11-23 05:03:14.5", T_0503 + 0.5},
        {"2026-11-23T05:03", T_0503 - 14},
        {"2026-11-23T05:03:14.123456+00:00", T_0503 + 0.123456},
        {"2026-11-23T06:03:14+01:00", T_0503},
        {"2026-11-23T06:03:14+0100", T_0503},
        {"2026-11-23T06:03:14+01", T_0503},
        {"2026-11-23T00:03:14-05:00", T_0503},
        {"2026-11-23T05:03:14Z", T_0503},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const double t = apo__timestamp_parse(cases[i].text);
        cr_expect(fabs(t - cases[i].want) < 1e-5, "%s: %.6f, expected %.6f", cases[i].text, t,
                  cases[i].want);
    }
    /* No zone is the local time: 05:03:14 in a zone five hours west of UTC is 10:03:14Z. */
    set_zone("EST5");
    cr_expect_eq(apo__timestamp_parse("2026-11-23T05:03:14"), T_1003);
    cr_expect_eq(apo__timestamp_parse("2026-11-23T05:03:14Z"), T_0503, "a zone given wins");
    static const char *const bad[] = {"2026-11-23T05:03:14.",     "2026-11-23T05:03:14+1",
                                      "2026-11-23T05:03:14+01:0", "2026-11-23T05:3:14",
                                      "2026-11-23_05:03:14",      "2026-11-23T05:03:14 "};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_expect_eq(apo__timestamp_parse(bad[i]), -1, "accepted \"%s\"", bad[i]);
}

/* A ThreadX thresholds file stamped by datetime.now().isoformat() is read, and a merge
 * adds to it rather than setting it aside. */
Test(threadx_files, thresholds_with_a_naive_isoformat_stamp_are_read_and_merged, .init = make_dir,
     .fini = remove_dir) {
    set_zone("UTC0");
    char path[128], aside[160], err[1024];
    snprintf(path, sizeof path, "%s/thresholds.json", dir);
    snprintf(aside, sizeof aside, "%s.corrupt", path);
    write_text(path, "{\"updated_at\": \"2026-11-23T05:03:14.123456\", \"entries\": "
                     "{\"bollinger_bands:{'period': 20, 'size': 10000}\": "
                     "{\"cpu_ms_avg\": 150.0, \"gpu_ms_avg\": 50.0, \"samples\": 1}}}\n");
    apo__thresholds t;
    cr_assert_eq(apo__thresholds_load(path, &t, NULL, err, sizeof err), APO_OK, "%s", err);
    cr_assert_str_eq(t.updated_at, "2026-11-23T05:03:14Z");
    cr_assert_eq(t.n, 1);
    apo__thresholds_free(&t);
    merge_macd_entry(path, err, sizeof err);
    cr_assert_neq(access(aside, F_OK), 0, "the ThreadX file was set aside: %s", err);
    cr_assert_eq(apo__thresholds_load(path, &t, NULL, err, sizeof err), APO_OK, "%s", err);
    cr_assert_eq(t.n, 2, "the ThreadX entry is kept beside the new one");
    cr_assert_str_eq(t.entries[0].key, "bollinger_bands:{'period': 20, 'size': 10000}");
    cr_assert_eq(t.entries[0].cpu_ms_avg, 150.0);
    apo__thresholds_free(&t);
}

Test(threadx_files, threadx_device_names_become_apportion_ids, .init = make_dir,
     .fini = remove_dir) {
    char path[128], err[1024];
    snprintf(path, sizeof path, "%s/multigpu.json", dir);
    write_text(path, "{\"updated_at\": \"2026-11-23T05:03:14.123456\", \"workload_tag\": \"w\", "
                     "\"ratios\": {\"CPU\": 0.2, \"GPU0\": 0.5, \"GPU_1\": 0.3}}");
    apo__multigpu p;
    cr_assert_eq(apo__multigpu_load(path, &p, NULL, err, sizeof err), APO_OK, "%s", err);
    const apo__stored_workload *w = apo__multigpu_find(&p, "w");
    cr_assert_not_null(w);
    cr_assert_eq(w->n_devices, 3);
    /* Sorted by id. */
    cr_assert_str_eq(w->devices[0].id, "cpu");
    cr_assert_eq(w->devices[0].ratio, 0.2);
    cr_assert_str_eq(w->devices[1].id, "cuda:0");
    cr_assert_eq(w->devices[1].ratio, 0.5);
    cr_assert_str_eq(w->devices[2].id, "cuda:1");
    apo__multigpu_free(&p);
}

/* A ThreadX-shaped file with a field apportion cannot read is valid in no format: left in
 * place it would fail every write for good, so a write keeps it aside byte for byte as
 * <file>.corrupt (as an unusable file of apportion's own) and stores what it had to store. */
Test(threadx_files, an_unreadable_threadx_file_is_kept_aside_and_the_write_goes_on,
     .init = make_dir, .fini = remove_dir) {
    char path[128], aside[160], err[1024];
    snprintf(path, sizeof path, "%s/thresholds.json", dir);
    snprintf(aside, sizeof aside, "%s.corrupt", path);
    static const char text[] = "{\"updated_at\": \"2026-11-23T05:03:14\", \"entries\": "
                               "{\"k\": {\"cpu_ms_avg\": 1, \"samples\": \"many\"}}}";
    write_text(path, text);
    merge_macd_entry(path, err, sizeof err);
    cr_assert(strstr(err, aside) != NULL, "the note names where it went: %s", err);
    cr_assert(strstr(err, "samples") != NULL, "the reason is given: %s", err);
    cr_assert_str_eq(read_text(aside), text);
    cr_assert(strstr(read_text(path), "macd:{'size': 100}") != NULL, "%s", read_text(path));

    /* The case: ThreadX's field names holding what ThreadX never writes. */
    snprintf(path, sizeof path, "%s/multigpu.json", dir);
    snprintf(aside, sizeof aside, "%s.corrupt", path);
    static const char mg[] = "{\"updated_at\": 5, \"workload_tag\": [], \"ratios\": {\"cpu\": 1}}";
    write_text(path, mg);
    apo__stored_workload w;
    memset(&w, 0, sizeof w);
    snprintf(w.tag, sizeof w.tag, "x");
    w.n_devices = 1;
    snprintf(w.devices[0].id, sizeof w.devices[0].id, "cpu");
    w.devices[0].ratio = 1;
    w.devices[0].latency_ms = w.devices[0].ms_per_melem = NAN;
    w.devices[0].online.prior_latency_ms = w.devices[0].online.prior_ms_per_melem = NAN;
    w.devices[0].online.known_latency_ms = NAN;
    cr_assert_eq(apo__multigpu_update(path, "host", &w, 1, NULL, 0, NULL, err, sizeof err), APO_OK,
                 "%s", err);
    cr_assert_str_eq(read_text(aside), mg);
    /* What was stored reads back: the next write finds apportion's own file. */
    apo__multigpu p;
    cr_assert_eq(apo__multigpu_load(path, &p, NULL, err, sizeof err), APO_OK, "%s", err);
    cr_assert_not_null(apo__multigpu_find(&p, "x"));
    apo__multigpu_free(&p);
}
