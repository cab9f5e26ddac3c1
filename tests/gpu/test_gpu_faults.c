/*
 * test_gpu_faults.c: the CUDA backend's failure paths on simulated GPUs, with faults the
 * simulated runtime injects (tests/simt/gpus/sim_faults.h; docs/cuda.md, "A simulated CUDA
 * runtime"). Built only with -Dsimulated_gpus=true: a real GPU cannot fail on cue. Each case
 * runs bollinger on "cuda,cpu" with the GPUs given most of the work, injects one fault, and
 * wants the cpu's bits all the same: the staging retried smaller, or the failed GPU's tiles
 * moved to the devices left.
 */
#include <stdlib.h>

#include "gpu_fixtures.h"
#include "sim_faults.h"

typedef void (*injector)(void);

/* Runs case 3 (bollinger, one row of 12,411, period 20) with `inject` applied just before
 * the call, and returns its report after checking the bits. */
static apo_report run_with(injector inject, const char *what) {
    apo_runtime *probe = gpu_runtime_or_skip();
    apo_runtime_destroy(probe);
    apo_runtime *cpu = runtime_on("cpu", 0);
    apo_runtime *mixed = runtime_on("cuda,cpu", 0);
    const gcase *c = &cases[3];
    double *x = walk(c->rows, c->cols, 29);
    chk_job ref, got;
    jobs_init(&ref, &got, cpu, c, x);
    const size_t n = device_count(mixed);
    double ratios[APO_MAX_DEVICES];
    for (size_t i = 0; i < n; i++)
        ratios[i] = device_kind(mixed, i) == APO_DEVICE_CUDA ? 1.0 : 0.2;
    apo_report rep;
    chk_verdict v;
    inject();
    chk_host_run(mixed, &ref, &got, ratios, n, APO_SPLIT_TIME, &rep, &v);
    apo_simgpu_clear_faults();
    assert_verdict(&v, &got, what);
    jobs_free(&ref, &got);
    free(x);
    apo_runtime_destroy(mixed);
    apo_runtime_destroy(cpu);
    return rep;
}

static uint64_t gpu_elements(const apo_report *rep) {
    uint64_t e = 0;
    for (size_t i = 0; i < APO_MAX_DEVICES; i++)
        if (rep->devices[i].kind == APO_DEVICE_CUDA)
            e += rep->devices[i].elements;
    return e;
}

/* Staging buffers above 8 MiB fail: the pipeline halves its slots (128 MiB down to 8) and
 * the GPUs still compute their share, no device failing. */
static void small_mallocs_only(void) { apo_simgpu_fail_mallocs_above((size_t)8 << 20); }

Test(gpu_faults, an_oom_on_large_staging_buffers_is_retried_smaller, .timeout = 600) {
    const apo_report rep = run_with(small_mallocs_only, "cudaMalloc above 8 MiB failing");
    cr_assert_eq(rep.failovers, 0, "no device failed: the staging was retried smaller");
    cr_assert_gt(gpu_elements(&rep), 0, "the GPUs computed their share");
}

/* Every cudaMalloc fails: no GPU can stage, each fails its task, the cpu computes it all. */
static void no_mallocs(void) { apo_simgpu_fail_mallocs_from(1); }

Test(gpu_faults, gpus_without_memory_fail_and_the_cpu_computes_their_tiles, .timeout = 600) {
    const apo_report rep = run_with(no_mallocs, "every cudaMalloc failing");
    cr_assert_geq(rep.failovers, 1, "the GPUs failed");
    cr_assert_eq(gpu_elements(&rep), 0, "no GPU computed anything");
}

/* The first kernel launch fails while it runs: its GPU fails the task and the tiles move. */
static void first_launch_fails(void) { apo_simgpu_fail_launch(1); }

Test(gpu_faults, a_failing_launch_moves_its_tiles_to_the_other_devices, .timeout = 600) {
    const apo_report rep = run_with(first_launch_fails, "the first launch failing");
    cr_assert_geq(rep.failovers, 1, "the GPU whose launch failed is reported failed");
}

/* GPU 0 is lost a few calls into the call, every later call on it failing. */
static void gpu0_lost(void) { apo_simgpu_lose_device(0, 4); }

Test(gpu_faults, a_gpu_lost_mid_call_moves_its_tiles_to_the_other_devices, .timeout = 600) {
    const apo_report rep = run_with(gpu0_lost, "GPU 0 lost from its 4th call");
    cr_assert_geq(rep.failovers, 1, "the lost GPU is reported failed");
}
