/*
 * test_gpu_checks.c: the judgements of the GPU checks (checks/gpu_checks.h) that need no GPU,
 * and the promise that a GPU asked for cannot be skipped: with APPORTION_USE_GPU=yes and no
 * usable GPU, the gpu suite's executable fails (exit 1) instead of skipping (77).
 *
 * The overlap check and the overall verdict are fed made-up figures and counts; their
 * expected verdicts come from the rules in docs/cli.md and docs/cuda.md. The reports the
 * judgements read are filled by hand, as the runtime would fill them.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "apportion.h"
#include "gpu_checks.h"
#include "test_tmpdir.h"

/* ---- the overlap check -------------------------------------------------------------------- */

static chk_result overlap_verdict(double overlap, int64_t chunks) {
    chk_verdict run, v;
    chk_verdict_init(&run);
    run.overlap = overlap;
    run.chunks = chunks;
    chk_overlap(&run, &v);
    cr_assert(v.message[0] != '\0');
    return v.result;
}

Test(gpu_checks, the_overlap_check_fails_a_pipeline_that_overlaps_nothing) {
    /* Enough chunks: no overlap is a failure, any is a pass. */
    cr_assert_eq(overlap_verdict(1.0, 8), CHK_FAIL);
    cr_assert_eq(overlap_verdict(1.0, CHK_OVERLAP_MIN_CHUNKS), CHK_FAIL);
    cr_assert_eq(overlap_verdict(1.005, 24), CHK_FAIL);
    cr_assert_eq(overlap_verdict(0.7, 24), CHK_FAIL);
    cr_assert_eq(overlap_verdict(1.6, 8), CHK_PASS);
    cr_assert_eq(overlap_verdict(1.02, CHK_OVERLAP_MIN_CHUNKS), CHK_PASS);
    /* Too few chunks to judge, or no figure: a warning either way. */
    cr_assert_eq(overlap_verdict(1.0, 1), CHK_WARN);
    cr_assert_eq(overlap_verdict(1.0, CHK_OVERLAP_MIN_CHUNKS - 1), CHK_WARN);
    cr_assert_eq(overlap_verdict(1.4, 2), CHK_PASS);
    cr_assert_eq(overlap_verdict(NAN, 8), CHK_WARN);
}

/* A report of one GPU that computed everything, with the given overlap figure. */
static apo_report *gpu_report(double overlap, uint64_t chunks) {
    apo_report *rep = calloc(1, sizeof *rep);
    cr_assert_not_null(rep);
    const apo_report init = APO_REPORT_INIT;
    *rep = init;
    rep->n_devices = 1;
    rep->elements = 1000;
    rep->rows = 1;
    rep->cols = 1000;
    apo_device_report *d = &rep->devices[0];
    d->kind = APO_DEVICE_CUDA;
    snprintf(d->id, sizeof d->id, "GPU-test");
    d->elements = 1000;
    d->chunks = chunks;
    d->wall_ms = 10;
    d->h2d_ms = d->kernel_ms = d->d2h_ms = 4;
    d->overlap = overlap;
    return rep;
}

Test(gpu_checks, the_run_carries_the_reports_overlap_to_the_overlap_check) {
    /* The figure comes from the report's interval-based overlap, not from the phases over the
     * wall time: these phases sum to 12 ms over a 10 ms wall, yet the report says 1.0. */
    apo_report *rep = gpu_report(1.0, 8);
    chk_verdict run, v;
    chk_verdict_init(&run);
    chk_gpu_computed_all(rep, &run);
    cr_assert_eq(run.result, CHK_PASS, "%s", run.message);
    cr_assert_float_eq(run.overlap, 1.0, 0.0);
    cr_assert_eq(run.chunks, 8);
    chk_overlap(&run, &v);
    cr_assert_eq(v.result, CHK_FAIL, "%s", v.message);
    free(rep);
    /* A device that does not measure it (0 in the report) gives no figure: a warning. */
    rep = gpu_report(0.0, 8);
    chk_verdict_init(&run);
    chk_gpu_computed_all(rep, &run);
    cr_assert(isnan(run.overlap));
    chk_overlap(&run, &v);
    cr_assert_eq(v.result, CHK_WARN, "%s", v.message);
    free(rep);
}

/* ---- the overall verdict ------------------------------------------------------------------ */

static chk_counts counts(size_t pass, size_t fail, size_t warn, size_t skip) {
    const chk_counts c = {pass, fail, warn, skip};
    return c;
}

Test(gpu_checks, the_overall_verdict_never_passes_on_skipped_gpu_checks) {
    chk_counts all = counts(40, 0, 1, 3);
    /* GPUs there, each passed a check of its own. */
    cr_assert_eq(chk_overall_verdict(&all, 1, 1), CHK_OVERALL_PASSED);
    cr_assert_eq(chk_overall_verdict(&all, 2, 2), CHK_OVERALL_PASSED);
    /* A GPU whose checks all skipped or warned: not a pass, and exit 1. */
    cr_assert_eq(chk_overall_verdict(&all, 1, 0), CHK_OVERALL_GPU_UNCHECKED);
    cr_assert_eq(chk_overall_verdict(&all, 2, 1), CHK_OVERALL_GPU_UNCHECKED);
    cr_assert_eq(chk_overall_exit(CHK_OVERALL_GPU_UNCHECKED), 1);
    /* No GPU (and none required, or the runtime would not exist): exit 0, not "passed". */
    cr_assert_eq(chk_overall_verdict(&all, 0, 0), CHK_OVERALL_NO_GPU);
    cr_assert_eq(chk_overall_exit(CHK_OVERALL_NO_GPU), 0);
    cr_assert_str_neq(chk_overall_name(CHK_OVERALL_NO_GPU), "passed");
    /* Nothing passed at all (every check skipped): not a pass either, GPU or not. */
    all = counts(0, 0, 2, 5);
    cr_assert_eq(chk_overall_verdict(&all, 0, 0), CHK_OVERALL_NOTHING_PASSED);
    cr_assert_eq(chk_overall_verdict(&all, 1, 0), CHK_OVERALL_NOTHING_PASSED);
    cr_assert_eq(chk_overall_exit(CHK_OVERALL_NOTHING_PASSED), 1);
    /* Any failure decides. */
    all = counts(40, 1, 0, 0);
    cr_assert_eq(chk_overall_verdict(&all, 1, 1), CHK_OVERALL_FAILED);
    cr_assert_eq(chk_overall_verdict(&all, 0, 0), CHK_OVERALL_FAILED);
    cr_assert_eq(chk_overall_exit(CHK_OVERALL_FAILED), 1);
    cr_assert_eq(chk_overall_exit(CHK_OVERALL_PASSED), 0);
    cr_assert_str_eq(chk_overall_name(CHK_OVERALL_PASSED), "passed");
    cr_assert_str_eq(chk_overall_name(CHK_OVERALL_GPU_UNCHECKED), "gpu-unchecked");
    /* Counting. */
    chk_counts c = counts(0, 0, 0, 0);
    const chk_result results[] = {CHK_PASS, CHK_SKIP, CHK_WARN, CHK_FAIL, CHK_PASS};
    for (size_t i = 0; i < 5; i++)
        chk_count(&c, results[i]);
    cr_assert(c.pass == 2 && c.fail == 1 && c.warn == 1 && c.skip == 1);
}

/* ---- a GPU asked for cannot be skipped ------------------------------------------------------ */

/* GPUs a runtime on "cuda" finds, without requiring one. */
static size_t usable_gpus(void) {
    apo_runtime *rt = NULL;
    cr_assert_eq(chk_runtime("cuda", APO_USE_GPU_AUTO, 0, APO_SWITCH_UNSET, &rt), APO_OK, "%s",
                 apo_last_error());
    size_t gpus = 0;
    apo_gpu_count(rt, &gpus);
    apo_runtime_destroy(rt);
    return gpus;
}

/* Runs the gpu suite's executable with `env` before it; its exit status, its stderr in err. */
static int run_gpu_suite(const char *env, char *err, size_t size) {
    char path[512];
    snprintf(path, sizeof path, "%s/apo-test-gpu-checks-XXXXXX", test_tmpdir());
    const int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    /* Criterion marks its workers' environment (BXFI_MAP, IS_SANDBOX); a second Criterion
     * program that inherits it takes itself for a worker and aborts. */
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "env -u BXFI_MAP -u IS_SANDBOX %s '%s' >/dev/null 2>'%s'", env,
             APO_TEST_GPU_PATH, path);
    const int status = system(cmd);
    FILE *f = fdopen(fd, "r");
    const size_t n = fread(err, 1, size - 1, f);
    err[n] = '\0';
    fclose(f);
    remove(path);
    cr_assert(WIFEXITED(status), "%s did not exit", APO_TEST_GPU_PATH);
    return WEXITSTATUS(status);
}

Test(gpu_checks, the_gpu_suite_fails_without_a_gpu_when_one_is_required, .timeout = 120) {
    if (usable_gpus() > 0)
        cr_skip_test("a GPU is usable here: the suite runs instead of failing");
    char err[4096];
    int rc = run_gpu_suite("APPORTION_USE_GPU=yes", err, sizeof err);
    cr_assert_eq(rc, 1, "exit %d: %s", rc, err);
    cr_assert_not_null(strstr(err, "APO_ERR_GPU_REQUIRED"), "%s", err);
    /* Not required: a skip, which meson counts as such, not as a pass. */
    rc = run_gpu_suite("APPORTION_USE_GPU=auto", err, sizeof err);
    cr_assert_eq(rc, 77, "exit %d: %s", rc, err);
    cr_assert_not_null(strstr(err, "skipped"), "%s", err);
}
