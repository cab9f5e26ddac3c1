/*
 * What the files of test_balance*.c share; see balance_fixtures.h.
 */
#define _XOPEN_SOURCE 700 /* nftw, mkdtemp */
#include <criterion/criterion.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"

#include "balance_fixtures.h"
#include "test_tmpdir.h"

/* ---- set-up --------------------------------------------------------------------------- */

/* A temporary folder for the tests that use profile files, removed after each. */
char tmpdir[64];

char multigpu_path[128], thresholds_path[128];

void make_tmpdir(void) {
    snprintf(tmpdir, sizeof tmpdir, "%s/apo-test-balance-XXXXXX", test_tmpdir());
    cr_assert_not_null(mkdtemp(tmpdir), "mkdtemp");
    snprintf(multigpu_path, sizeof multigpu_path, "%s/multigpu.json", tmpdir);
    snprintf(thresholds_path, sizeof thresholds_path, "%s/thresholds.json", tmpdir);
}

int remove_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

void remove_tmpdir(void) {
    if (tmpdir[0] != '\0' && strstr(tmpdir, "XXXXXX") == NULL)
        nftw(tmpdir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
    tmpdir[0] = '\0';
}

/* A runtime on `devices` with the virtual sim clock. With `files`, profiles are on and
 * both paths point into the temporary folder; otherwise profiles are off. */
apo_runtime *runtime(const char *devices, apo_switch learn, int files) {
    apo_config config = files ? test_profiled_config(devices, multigpu_path, thresholds_path)
                              : test_config(devices);
    config.learn = learn;
    apo_runtime *rt = NULL;
    apo_status st = apo_runtime_create(&config, &rt);
    cr_assert_eq(st, APO_OK, "runtime on \"%s\": %s: %s", devices, apo_status_name(st),
                 apo_last_error());
    return rt;
}

/* One series of n samples of returns_stats, split along time. */
void job_init(test_job *job, apo_runtime *rt, const char *kernel, size_t n) {
    test_job_init(job, rt, kernel, 1, n, 11);
    job->w.split = APO_SPLIT_TIME;
}

apo_runtime *samples_job(test_job *job, apo_runtime *rt) {
    job_init(job, rt, "returns_stats", SAMPLES);
    return rt;
}

void samples_job_close(test_job *job, apo_runtime *rt) {
    test_job_free(job);
    apo_runtime_destroy(rt);
}

apo_report run(test_job *job, apo_runtime *rt) {
    apo_report report = APO_REPORT_INIT;
    apo_status st = test_job_run(job, rt, &report);
    cr_assert_eq(st, APO_OK, "call: %s: %s", apo_status_name(st), apo_last_error());
    cr_assert_eq(report.elements, (uint64_t)job->w.rows * job->w.cols);
    cr_assert(report.virtual_clock, "every device is simulated on the virtual clock");
    return report;
}

apo_profile_files files_of(apo_runtime *rt) {
    apo_profile_files f = APO_PROFILE_FILES_INIT;
    cr_assert_eq(apo_profile_files_get(rt, &f), APO_OK, "%s", apo_last_error());
    cr_assert_str_eq(f.multigpu_path, multigpu_path);
    cr_assert_str_eq(f.thresholds_path, thresholds_path);
    return f;
}
