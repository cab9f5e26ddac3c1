/*
 * A hostile environment around one runtime: profile folders it cannot write (permissions,
 * even as root; a read-only file system), a full disk and a file-size limit, a profile path
 * that is a folder, a FIFO or a symbolic link, profiles that are huge, deeply nested, hold
 * NaN, Infinity, negative, overflowing or extreme numbers, and every APPORTION_* variable
 * malformed or out of range. In each case: a clear warning or error that names the file or
 * the variable, the computation still runs with the same bits, and the files already there
 * keep every byte (or, for an unusable file a writer replaces, live on byte for byte as
 * <file>.corrupt).
 *
 * Cases that need privileges (a private mount namespace for a tmpfs, dropping to an
 * unprivileged user) run in a forked child, which reports through its exit status: 0 passed,
 * 77 could not be set up here (the case says so and is skipped), anything else failed (the
 * child says why on stderr).
 *
 * This file has the folders, disks and contents; the paths that are not files are in
 * test_hostile_paths.c, the variables in test_hostile_environment.c, and the set-up all
 * three share (a private folder per case, runtimes on it, forked children) in
 * hostile_fixtures.c.
 */
#define _GNU_SOURCE /* unshare(), CLONE_NEWNS, mount(), setgroups() for the privileged cases */

#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/runtime.h"
#include "helpers.h"
#include "profiles/profile_store.h"

#include "hostile_fixtures.h"

TestSuite(hostile, .init = make_dir, .fini = remove_dir, .timeout = 120);

/* Where a write must fail and why (the errno text expected in the message). */
static const char *expected_why;

/* The runtime over profiles it can read but not write: it loads them, computes, keeps
 * forced ratios and refinements in memory, and every write fails with APO_ERR_IO naming
 * the file and the reason; the files keep every byte and no temporary file is left. */
static void exercise_unwritable(void) {
    snapshot m = take(mpath), t = take(tpath);
    CHILD_CHECK(m.bytes != NULL && t.bytes != NULL, "cannot read the profiles back");
    char before[512], after[512];
    test_list_dir(dir, before, sizeof before);

    apo_runtime *rt;
    CHILD_CHECK(profiled_runtime(mpath, tpath, &rt) == APO_OK, "create: %s", apo_last_error());
    apo_profile_files files = APO_PROFILE_FILES_INIT;
    apo_profile_files_get(rt, &files);
    CHILD_CHECK(files.multigpu_state == APO_PROFILE_LOADED &&
                    files.thresholds_state == APO_PROFILE_LOADED,
                "the readable profiles were not loaded: %s / %s", files.multigpu_message,
                files.thresholds_message);
    apo_report report = APO_REPORT_INIT;
    long diff = run_compared(rt, &report);
    CHILD_CHECK(diff == 0, "the call failed or differs (%ld): %s", diff, apo_last_error());
    CHILD_CHECK(report.ratio_source == APO_RATIOS_PROFILE, "the loaded model was not used");

    /* Forced ratios: not stored, but in force. */
    static const char *const ids[2] = {"cpu", "sim:a"};
    const double ratios[2] = {1, 3};
    apo_status st = apo_set_ratios(rt, "bollinger", ids, ratios, 2);
    CHILD_CHECK(st == APO_ERR_IO, "apo_set_ratios gave %s", apo_status_name(st));
    CHILD_CHECK(
        strstr(apo_last_error(), dir) != NULL && strstr(apo_last_error(), expected_why) != NULL,
        "the message does not name the file and \"%s\": %s", expected_why, apo_last_error());
    diff = run_compared(rt, &report);
    CHILD_CHECK(
        diff == 0 && report.ratio_source == APO_RATIOS_EXPLICIT && report.devices[1].share == 0.75,
        "forced ratios not applied in memory (%ld, share %g)", diff, report.devices[1].share);

    /* Profiling: applied in memory, not stored. */
    apo_profile_options opt = APO_PROFILE_OPTIONS_INIT;
    opt.tag = "returns_stats";
    /* The cpu is timed on the wall clock: sizes 200x apart and the median of three runs,
     * so that a loaded machine cannot make the larger one look faster and have profiling
     * refused before it reaches the write this test is about. */
    const uint64_t sizes[2] = {2000, 400000};
    opt.sizes = sizes;
    opt.n_sizes = 2;
    opt.runs = 3;
    apo_profile_result result = APO_PROFILE_RESULT_INIT;
    st = apo_profile_auto_balance(rt, &opt, &result);
    CHILD_CHECK(st == APO_ERR_IO && result.written == 0, "profiling gave %s", apo_status_name(st));
    st = apo_profile_save(rt);
    CHILD_CHECK(st == APO_ERR_IO || st == APO_OK, "save gave %s", apo_status_name(st));
    apo_runtime_destroy(rt); /* tries once more, and says so only in the debug log */

    CHILD_CHECK(!differs(&m, mpath) && !differs(&t, tpath), "a profile was changed");
    test_list_dir(dir, after, sizeof after);
    CHILD_CHECK(strcmp(before, after) == 0, "the folder changed: \"%s\" -> \"%s\"", before, after);
    free(m.bytes);
    free(t.bytes);
}

static void write_good_profiles(void) {
    write_text(mpath, good_multigpu());
    write_text(tpath, good_thresholds);
    /* The lock files, as the first write leaves them. */
    char lock[300];
    snprintf(lock, sizeof lock, "%s.lock", mpath);
    write_text(lock, "");
    snprintf(lock, sizeof lock, "%s.lock", tpath);
    write_text(lock, "");
}

/* As root, permissions do not stop a write: the child drops to the unprivileged user
 * (65534, "nobody") first, so the folder's permissions apply to it as to anyone. */
static void unwritable_by_permissions(void) {
    if (geteuid() == 0) {
        CHILD_CHECK(setgroups(0, NULL) == 0 && setgid(65534) == 0 && setuid(65534) == 0,
                    "cannot become uid 65534: %s", strerror(errno));
    }
    CHILD_CHECK(geteuid() != 0, "still root");
    expected_why = "Permission denied";
    exercise_unwritable();
}

Test(hostile, unwritable_profile_folder_even_as_root) {
    write_good_profiles();
    /* Readable by all, writable by none but the owner; the lock files writable by all, so
     * that the write gets as far as its temporary file. */
    test_open_profiles_to_all(mpath, tpath);
    cr_assert_eq(chmod(dir, geteuid() == 0 ? 0755 : 0555), 0);
    int status = in_child(unwritable_by_permissions);
    chmod(dir, 0700);
    cr_assert_eq(status, 0, "the runtime did not cope with a folder it cannot write");
}

static void read_only_file_system(void) {
    private_tmpfs("1m");
    write_good_profiles();
    CHILD_CHECK(mount(NULL, dir, NULL, MS_REMOUNT | MS_RDONLY, NULL) == 0,
                "cannot remount read-only: %s", strerror(errno));
    expected_why = "Read-only file system";
    exercise_unwritable();
}

Test(hostile, read_only_file_system) {
    int status = in_child(read_only_file_system);
    if (status == SKIP_STATUS)
        skip_removing_dir("a read-only tmpfs needs a private mount namespace (root); the "
                          "permission case covers an unwritable folder");
    cr_assert_eq(status, 0, "the runtime did not cope with a read-only file system");
}

/* A tmpfs of 256 KiB filled to the last byte: every write fails with ENOSPC. */
static void full_disk(void) {
    private_tmpfs("256k");
    write_good_profiles();
    char filler[300];
    snprintf(filler, sizeof filler, "%s/filler", dir);
    int fd = open(filler, O_WRONLY | O_CREAT, 0600);
    CHILD_CHECK(fd >= 0, "filler: %s", strerror(errno));
    static char block[4096];
    size_t chunk = sizeof block;
    while (chunk > 0) {
        if (write(fd, block, chunk) < 0) {
            CHILD_CHECK(errno == ENOSPC, "filling: %s", strerror(errno));
            chunk /= 2; /* then fill the last partial page too */
        }
    }
    close(fd);
    expected_why = "No space left on device";
    exercise_unwritable();
}

Test(hostile, full_disk) {
    int status = in_child(full_disk);
    if (status == SKIP_STATUS)
        skip_removing_dir(
            "a full tmpfs needs a private mount namespace (root); the file size limit "
            "case covers a write that fails part-way");
    cr_assert_eq(status, 0, "the runtime did not cope with a full disk");
}

/* RLIMIT_FSIZE of 64 bytes: a write stops part-way with EFBIG (SIGXFSZ ignored, as a
 * program that wants the error does), which needs no privilege anywhere. */
static void file_size_limit(void) {
    CHILD_CHECK(signal(SIGXFSZ, SIG_IGN) != SIG_ERR, "signal");
    struct rlimit limit = {64, 64};
    CHILD_CHECK(setrlimit(RLIMIT_FSIZE, &limit) == 0, "setrlimit: %s", strerror(errno));
    expected_why = "File too large";
    exercise_unwritable();
}

Test(hostile, write_cut_short_by_a_file_size_limit) {
    write_good_profiles();
    cr_assert_eq(in_child(file_size_limit), 0, "the runtime did not cope with EFBIG");
}

/* ---- hostile contents ------------------------------------------------------------------- */

/* A profile the loader refuses: the runtime says so once, naming the file, ignores it and
 * computes with equal shares; the file keeps its bytes until a write replaces it, and then
 * lives on byte for byte as <file>.corrupt. */
static void expect_refused_content(const char *what, const char *text, size_t len,
                                   const char *says) {
    write_bytes(mpath, text, len);
    snapshot before = take(mpath);
    apo_runtime *rt;
    cr_assert_eq(profiled_runtime(mpath, tpath, &rt), APO_OK, "%s: %s", what, apo_last_error());
    apo_profile_files files = APO_PROFILE_FILES_INIT;
    apo_profile_files_get(rt, &files);
    cr_assert_eq(files.multigpu_state, APO_PROFILE_IGNORED, "%s: %s", what,
                 apo_profile_state_name(files.multigpu_state));
    cr_assert(strstr(files.multigpu_message, says) != NULL, "%s: \"%s\" lacks \"%s\"", what,
              files.multigpu_message, says);
    cr_assert_eq(warnings_naming(rt, mpath), 1, "%s: reported once", what);
    apo_report report = APO_REPORT_INIT;
    cr_assert_eq(run_compared(rt, &report), 0, "%s: the call failed or differs: %s", what,
                 apo_last_error());
    cr_assert_eq(report.ratio_source, APO_RATIOS_EQUAL, "%s", what);
    cr_assert_eq(differs(&before, mpath), 0, "%s: the file changed before any write", what);

    static const char *const ids[1] = {"cpu"};
    const double one = 1;
    cr_assert_eq(apo_set_ratios(rt, "forced", ids, &one, 1), APO_OK, "%s: %s", what,
                 apo_last_error());
    apo_runtime_destroy(rt);
    char aside[300];
    snprintf(aside, sizeof aside, "%s.corrupt", mpath);
    cr_assert_eq(differs(&before, aside), 0, "%s: the old file was not kept aside whole", what);
    apo__multigpu p;
    char err[512];
    cr_assert_eq(apo__multigpu_load(mpath, &p, NULL, err, sizeof err), APO_OK, "%s: %s", what, err);
    cr_assert_not_null(apo__multigpu_find(&p, "forced"));
    apo__multigpu_free(&p);
    free(before.bytes);
    unlink(aside);
}

#define HEAD "{\"format\": \"apportion.multigpu/1\", \"workloads\": {\"bollinger\": "

#define ENTRY(devices) HEAD "{\"devices\": {" devices "}}}}"

Test(hostile, profiles_with_bad_numbers_are_ignored_never_fatal) {
    static const struct {
        const char *what, *text, *says;
    } cases[] = {
        {"a NaN literal", ENTRY("\"cpu\": {\"ratio\": NaN}"), "not valid JSON"},
        {"an Infinity literal", ENTRY("\"cpu\": {\"ratio\": Infinity}"), "not valid JSON"},
        {"a number beyond a double", ENTRY("\"cpu\": {\"latency_ms\": 1e999, \"ratio\": 1}"),
         "not valid JSON"},
        {"an integer beyond 64 bits",
         ENTRY("\"cpu\": {\"ratio\": 1, \"samples\": 99999999999999999999}"), "not valid JSON"},
        {"a negative ratio", ENTRY("\"cpu\": {\"ratio\": -0.5}, \"sim:a\": {\"ratio\": 1}"),
         "expected a finite number >= 0, got -0.5"},
        {"a negative latency",
         ENTRY("\"cpu\": {\"ratio\": 1, \"latency_ms\": -1, \"ms_per_melem\": 1}"),
         "latency_ms: expected a finite number >= 0, got -1"},
        {"a negative cost",
         ENTRY("\"cpu\": {\"ratio\": 1, \"latency_ms\": 0, \"ms_per_melem\": -3}"),
         "ms_per_melem: expected a finite number >= 0, got -3"},
        {"a negative count", ENTRY("\"cpu\": {\"ratio\": 1, \"samples\": -5}"),
         "samples: expected an integer >= 0, got -5"},
        {"ratios that sum to zero", ENTRY("\"cpu\": {\"ratio\": 0}, \"sim:a\": {\"ratio\": 0}"),
         "the device ratios sum to 0"},
        {"ratios that sum to infinity",
         ENTRY("\"cpu\": {\"ratio\": 1e308}, \"sim:a\": {\"ratio\": 1e308}"),
         "the device ratios sum to inf"},
        {"a ratio that is a string", ENTRY("\"cpu\": {\"ratio\": \"1\"}"), "got \"1\""},
        {"invalid UTF-8", ENTRY("\"cpu\xff\": {\"ratio\": 1}"), "not valid JSON"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_refused_content(cases[i].what, cases[i].text, strlen(cases[i].text), cases[i].says);
    /* NUL bytes inside the text. */
    static const char nul[] = "{\"format\": \"apportion.multigpu/1\"\0, \"workloads\": {}}";
    expect_refused_content("a NUL byte", nul, sizeof nul - 1, "not valid JSON");
}

/* Deeper than jansson's limit of 2048 levels (within the size limit: 200 KB). */
Test(hostile, deeply_nested_profile_is_refused) {
    size_t depth = 100000;
    char *text = malloc(2 * depth + 1);
    cr_assert_not_null(text);
    memset(text, '[', depth);
    memset(text + depth, ']', depth);
    text[2 * depth] = '\0';
    expect_refused_content("100000 levels of arrays", text, 2 * depth, "depth");
    /* Inside an otherwise good file. */
    size_t head = strlen(HEAD "{\"x\": ");
    char *nested = malloc(head + 2 * depth + 8);
    cr_assert_not_null(nested);
    memcpy(nested, HEAD "{\"x\": ", head);
    memset(nested + head, '[', depth);
    memset(nested + head + depth, ']', depth);
    memcpy(nested + head + 2 * depth, "}}}", 4);
    expect_refused_content("a deep unknown field", nested, strlen(nested), "depth");
    free(nested);
    free(text);
}

/* Within the size limit, but made of tiny values that would cost the parser some 40 bytes
 * each: 1.2 million of them (2.4 MB) are refused by their count before parsing. */
Test(hostile, profile_of_a_million_tiny_values_is_refused_before_parsing) {
    size_t n = 1200000;
    char *text = malloc(2 * n + 2);
    cr_assert_not_null(text);
    text[0] = '[';
    for (size_t i = 0; i < n; i++) {
        text[1 + 2 * i] = '0';
        text[2 + 2 * i] = i + 1 < n ? ',' : ']';
    }
    text[2 * n + 1] = '\0';
    expect_refused_content("1.2 million zeros", text, 2 * n + 1,
                           "JSON values, more than the 1000000 a profile may hold; refused");
    free(text);
}

/* 100 MB, refused by its size before a byte is read (the file is sparse, so the test is
 * cheap); a writer keeps it aside by a hard link, the same bytes. */
Test(hostile, huge_profile_is_refused_by_size) {
    int fd = open(mpath, O_WRONLY | O_CREAT, 0600);
    cr_assert_geq(fd, 0);
    cr_assert_eq(ftruncate(fd, 100 << 20), 0);
    cr_assert_eq(pwrite(fd, "{", 1, 0), 1);
    close(fd);
    struct stat before;
    cr_assert_eq(stat(mpath, &before), 0);

    apo_runtime *rt;
    cr_assert_eq(profiled_runtime(mpath, tpath, &rt), APO_OK, "%s", apo_last_error());
    apo_profile_files files = APO_PROFILE_FILES_INIT;
    apo_profile_files_get(rt, &files);
    cr_assert_eq(files.multigpu_state, APO_PROFILE_IGNORED);
    cr_assert(strstr(files.multigpu_message, "is 104857600 bytes, larger than the 16777216-byte "
                                             "limit of a profile; refused") != NULL,
              "%s", files.multigpu_message);
    cr_assert_eq(warnings_naming(rt, mpath), 1);
    cr_assert_eq(run_compared(rt, NULL), 0, "%s", apo_last_error());
    static const char *const ids[1] = {"cpu"};
    const double one = 1;
    cr_assert_eq(apo_set_ratios(rt, "forced", ids, &one, 1), APO_OK, "%s", apo_last_error());
    apo_runtime_destroy(rt);

    char aside[300];
    snprintf(aside, sizeof aside, "%s.corrupt", mpath);
    struct stat kept;
    cr_assert_eq(stat(aside, &kept), 0);
    cr_assert(kept.st_ino == before.st_ino && kept.st_size == before.st_size,
              "the huge file was not kept aside as it was");
    cr_assert_eq(stat(mpath, &kept), 0);
    cr_assert_lt(kept.st_size, 4096, "a small new file replaced it");
}

/* Numbers that are valid but extreme. A model whose latency or cost is 1e308 (or a cost of
 * 1e-300) would take all work or none for good: it is refused at load with a warning naming
 * the device and the value, and the device borrows the other's model, so it still gets work.
 * Forced ratios that sum to far more than one are divided by their sum. The calls stay
 * finite and exact. Each device object carries this machine's configuration key (%s: the
 * cpu's, then sim:a's), so that it is the value, not the key, that is refused. */
Test(hostile, implausible_models_are_refused_and_extreme_ratios_used_safely) {
#define CPU_CFG "\"config\": \"%s\", "
#define SIM_CFG "\"config\": \"%s\", "
    static const struct {
        const char *what, *text, *warns;
    } cases[] = {
        {"a latency of 1e308 ms",
         ENTRY("\"cpu\": {" CPU_CFG "\"latency_ms\": 0.01, \"ms_per_melem\": 4, \"samples\": 3, "
               "\"ratio\": 0.5}, \"sim:a\": {" SIM_CFG
               "\"latency_ms\": 1e308, \"ms_per_melem\": 4, "
               "\"samples\": 3, \"ratio\": 0.5}"),
         "device sim:a: latency_ms 1e+308"},
        {"a cost of 1e308 ms per Melem",
         ENTRY("\"cpu\": {" CPU_CFG "\"latency_ms\": 0.01, \"ms_per_melem\": 4, \"samples\": 3, "
               "\"ratio\": 0.5}, \"sim:a\": {" SIM_CFG "\"latency_ms\": 0.01, "
               "\"ms_per_melem\": 1e308, \"samples\": 3, \"ratio\": 0.5}"),
         "device sim:a: latency_ms 0.01, ms_per_melem 1e+308"},
        {"both at 1e308",
         ENTRY("\"cpu\": {" CPU_CFG "\"latency_ms\": 1e308, \"ms_per_melem\": 1e308, "
               "\"samples\": 3, \"ratio\": 0.5}, \"sim:a\": {" SIM_CFG "\"latency_ms\": 1e308, "
               "\"ms_per_melem\": 1e308, \"samples\": 3, \"ratio\": 0.5}"),
         "2 stored model(s) refused as implausible"},
        {"forced ratios summing to 7e300",
         HEAD "{\"source\": \"forced\", \"ratios\": {\"cpu\": 3e300, \"sim:a\": 4e300}}}}", NULL},
        {"a cost of 1e-300 ms per Melem (1/cost overflows)",
         ENTRY("\"cpu\": {" CPU_CFG "\"latency_ms\": 0.01, \"ms_per_melem\": 1e-300, "
               "\"samples\": 3, \"ratio\": 0.5}, \"sim:a\": {" SIM_CFG "\"latency_ms\": 0.01, "
               "\"ms_per_melem\": 4, \"samples\": 3, \"ratio\": 0.5}"),
         "device cpu: latency_ms 0.01, ms_per_melem 1e-300"},
    };
#undef CPU_CFG
#undef SIM_CFG
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[2048];
        snprintf(text, sizeof text, cases[i].text, config_of(0), config_of(1));
        write_text(mpath, text);
        apo_runtime *rt;
        cr_assert_eq(profiled_runtime(mpath, tpath, &rt), APO_OK, "%s", apo_last_error());
        apo_profile_files files = APO_PROFILE_FILES_INIT;
        apo_profile_files_get(rt, &files);
        cr_assert_eq(files.multigpu_state, APO_PROFILE_LOADED, "%s: %s", cases[i].what,
                     files.multigpu_message);
        if (cases[i].warns != NULL)
            cr_assert_eq(warnings_naming(rt, cases[i].warns), 1, "%s: no warning with \"%s\"",
                         cases[i].what, cases[i].warns);
        apo_report report = APO_REPORT_INIT;
        cr_assert_eq(run_compared(rt, &report), 0, "%s: %s", cases[i].what, apo_last_error());
        double sum = 0;
        for (size_t d = 0; d < report.n_devices; d++) {
            cr_assert(isfinite(report.devices[d].share) && report.devices[d].share > 0,
                      "%s: device %zu's share %g", cases[i].what, d, report.devices[d].share);
            sum += report.devices[d].share;
        }
        cr_assert_float_eq(sum, 1.0, 1e-12, "%s: shares sum to %.17g", cases[i].what, sum);
        if (i == 3)
            cr_assert_float_eq(report.devices[1].share, 4.0 / 7.0, 1e-12, "%s", cases[i].what);
        /* Again, with the models this call refined. */
        cr_assert_eq(run_compared(rt, &report), 0, "%s, second call: %s", cases[i].what,
                     apo_last_error());
        for (size_t d = 0; d < report.n_devices; d++)
            cr_assert(isfinite(report.devices[d].share), "%s, second call", cases[i].what);
        apo_runtime_destroy(rt);
    }
}
