/*
 * The profile files written (docs/profiles.md): exact round trips, whole entries replaced and
 * removed, an entry that could not be read back refused, ThreadX files rewritten in apportion's
 * shape, unusable files kept aside, unwritable folders, running averages merged.
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

#include "helpers.h"
#include "profiles/profile_store.h"

#include "profile_store_fixtures.h"

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

/* The sample workloads in w, the first n of them written to path for the host node17. */
static void write_samples(const char *path, apo__stored_workload w[2], size_t n) {
    char err[512];
    sample_workloads(w);
    cr_assert_eq(apo__multigpu_update(path, "node17", w, n, NULL, 0, NULL, err, sizeof err), APO_OK,
                 "%s", err);
}

/* The case's private folder and the path of the profile file it writes there, made by the
 * case's .init; its .fini removes the folder, also after a failed assertion (no case here
 * skips, which would end the case before its .fini). */
static char dir[64], path[256];

/* A multigpu.json whose folders the store must make. */
static void with_nested_multigpu_file(void) {
    make_tmp_file(dir, sizeof dir, path, sizeof path, "state/apportion/multigpu.json");
}

static void with_multigpu_file(void) {
    make_tmp_file(dir, sizeof dir, path, sizeof path, "multigpu.json");
}

static void with_thresholds_file(void) {
    make_tmp_file(dir, sizeof dir, path, sizeof path, "thresholds.json");
}

static void remove_folder(void) { rm_tree(dir); }

/* The sample workloads, both written to a multigpu.json for the cases that update it. */
static apo__stored_workload samples[2];

static void with_samples_file(void) {
    with_multigpu_file();
    write_samples(path, samples, 2);
}

/* The golden file `name` (tests/data/profiles) copied to path. */
static void copy_golden(const char *name, const char *path) {
    char golden[512];
    snprintf(golden, sizeof golden, DATA "%s", name);
    char *text = read_all(golden, NULL);
    cr_assert_not_null(text, "%s", golden);
    write_text(path, text);
    free(text);
}

Test(profile_store, write_then_read_back_exact, .timeout = 60, .init = with_nested_multigpu_file,
     .fini = remove_folder) {
    char err[512];
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
}

Test(profile_store, update_replaces_and_removes_whole_entries, .timeout = 60,
     .init = with_samples_file, .fini = remove_folder) {
    char err[512];

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
}

Test(profile_store, update_refuses_an_entry_it_could_not_read_back, .timeout = 60,
     .init = with_samples_file, .fini = remove_folder) {
    char err[512];
    size_t len_before, len_after;
    char *before = read_all(path, &len_before);

    apo__stored_workload bad = samples[1];
    bad.devices[0].ratio = -1;
    cr_assert_eq(apo__multigpu_update(path, "node17", &bad, 1, NULL, 0, NULL, err, sizeof err),
                 APO_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(err, "sweep") != NULL && strstr(err, "cpu") != NULL, "%s", err);
    bad = samples[1];
    bad.devices[0].ratio = 0;
    cr_assert_eq(apo__multigpu_update(path, "node17", &bad, 1, NULL, 0, NULL, err, sizeof err),
                 APO_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(err, "sum") != NULL, "%s", err);
    bad = samples[0];
    snprintf(bad.devices[2].id, sizeof bad.devices[2].id, "cpu");
    cr_assert_eq(apo__multigpu_update(path, "node17", &bad, 1, NULL, 0, NULL, err, sizeof err),
                 APO_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(err, "twice") != NULL, "%s", err);

    char *after = read_all(path, &len_after);
    cr_assert_eq(len_before, len_after);
    cr_assert_eq(memcmp(before, after, len_before), 0);
    free(before);
    free(after);
}

Test(profile_store, update_rewrites_threadx_file_in_apportion_shape, .timeout = 60,
     .init = with_multigpu_file, .fini = remove_folder) {
    char err[512];
    copy_golden("multigpu_threadx.json", path);

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
}

Test(profile_store, unusable_file_is_kept_aside, .timeout = 60, .init = with_multigpu_file,
     .fini = remove_folder) {
    char aside[300], err[1024];
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

Test(profile_store, unwritable_folder_leaves_old_file_intact, .timeout = 60,
     .init = with_multigpu_file, .fini = remove_folder) {
    apo__stored_workload w[2];
    write_samples(path, w, 1);
    char tpath[256];
    snprintf(tpath, sizeof tpath, "%s/thresholds.json", dir);
    apo__threshold a = add("k:{'size': 1}", 1.0, 2.0, 1);
    merge_ok(tpath, &a, 1, NULL);
    size_t len_before, tlen_before, len_after;
    char *before = read_all(path, &len_before);
    char *tbefore = read_all(tpath, &tlen_before);

    /* Root ignores folder permissions, so as root the writes are made by a child that
     * becomes the unprivileged user 65534 first; the files are made readable and the lock
     * files writable for it, so that the writes fail at the folder and nowhere else. */
    int as_root = geteuid() == 0;
    if (as_root)
        test_open_profiles_to_all(path, tpath);
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
}

/* ---- thresholds.json merges ------------------------------------------------------------- */

Test(profile_store, merge_running_averages_exact, .timeout = 60, .init = with_thresholds_file,
     .fini = remove_folder) {
    char err[512];
    const char *k1 = "bollinger:{'period': 20, 'size': 10000}";
    const char *k2 = "macd:{'fast': 12, 'signal': 9, 'size': 10000, 'slow': 26}";

    /* Two CPU measurements averaging 2 ms; no GPU time. */
    apo__threshold a = add(k1, 2.0, NAN, 2);
    a.cpu_samples = 2;
    apo__thresholds t;
    merge_ok(path, &a, 1, &t);
    assert_threshold(&t.entries[0], k1, 2.0, NAN, 2, 2, 0);
    apo__thresholds_free(&t);

    /* One measurement of both sides, counts taken from `samples`: CPU (2*2 + 5*1) / 3. */
    a = add(k1, 5.0, 1.0, 1);
    merge_ok(path, &a, 1, &t);
    assert_threshold(&t.entries[0], k1, 3.0, 1.0, 3, 3, 1);
    apo__thresholds_free(&t);

    /* Sides with their own counts: CPU (3*3 + 7*5) / 8 = 5.5, GPU (1*1 + 4*3) / 4 = 3.25.
     * In the same merge, a new key added twice averages its two adds. */
    apo__threshold adds[3] = {add(k1, 7.0, 4.0, 5), add(k2, 1.0, NAN, 1), add(k2, 2.0, 0.5, 1)};
    adds[0].cpu_samples = 5;
    adds[0].gpu_samples = 3;
    merge_ok(path, adds, 3, &t);
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
}

Test(profile_store, merge_into_threadx_thresholds, .timeout = 60, .init = with_thresholds_file,
     .fini = remove_folder) {
    char err[512];
    copy_golden("thresholds_threadx.json", path);
    /* macd had 8 samples of both at 1.5 / 0.25 ms; add 8 more at 2.5 / 0.75. */
    apo__threshold a = add("macd:{'fast': 12, 'signal': 9, 'slow': 26}", 2.5, 0.75, 8);
    apo__thresholds t;
    cr_assert_eq(apo__thresholds_merge(path, &a, 1, &t, err, sizeof err), APO_OK, "%s", err);
    cr_assert_str_eq(err, "", "a threadx file merges without a word");
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
}

/* ---- concurrency ------------------------------------------------------------------------ */

Test(profile_store, simulated_gpu_times_are_marked_and_stay_marked, .timeout = 60,
     .init = with_thresholds_file, .fini = remove_folder) {
    char err[512];
    const char *k = "bollinger:{'period': 20, 'size': 10000}";
    apo__threshold a = add(k, 2.0, 1.0, 1);
    apo__thresholds t;
    merge_ok(path, &a, 1, &t);
    cr_assert_eq(t.entries[0].simulated, 0);
    apo__thresholds_free(&t);

    /* A sim device's time marks the entry; a later real one does not clear the mark. */
    a.simulated = 1;
    merge_ok(path, &a, 1, NULL);
    a.simulated = 0;
    merge_ok(path, &a, 1, NULL);
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
}
