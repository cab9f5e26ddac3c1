/*
 * test_gpu_faults.c: the CUDA backend's failure paths on simulated GPUs, with faults the
 * simulated runtime injects (tests/simt/gpus/sim_faults.h; docs/cuda.md, "A simulated CUDA
 * runtime"). Built only with -Dsimulated_gpus=true: a real GPU cannot fail on cue. Each case
 * runs bollinger on "cuda,cpu" with the GPUs given most of the work, injects one fault, and
 * wants the cpu's bits all the same: the staging retried smaller, or the failed GPU's tiles
 * moved to the devices left. Then the ordering mistakes the simulated runtime catches (an
 * early read, an early free), planted with the CUDA calls themselves.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "gpu_fixtures.h"
#include "helpers.h"
#include "sim_faults.h"

typedef void (*injector)(void);

/* When a fault is injected: before the GPUs are opened, or after (just before the call). A
 * GPU allocates its staging slots on a thread started when it is opened (cuda_pipeline.c), so
 * an allocation fault injected after the opening may find that thread done and nothing left
 * to fail: allocation faults go in before it, so that they always meet the allocations. */
enum { BEFORE_OPENING, BEFORE_THE_CALL };

/* Runs case 3 (bollinger, one row of 12,411, period 20) with `inject` applied at `when`, and
 * returns its report after checking the bits. */
static apo_report run_with(injector inject, int when, const char *what) {
    apo_runtime *probe = gpu_runtime_or_skip();
    apo_runtime_destroy(probe);
    apo_runtime *cpu = runtime_on("cpu", 0);
    if (when == BEFORE_OPENING)
        inject();
    apo_runtime *mixed = runtime_on("cuda,cpu", 0);
    case_jobs cj;
    case_jobs_open(&cj, cpu, &cases[3], 29);
    double ratios[APO_MAX_DEVICES];
    const size_t n = ratios_by_kind(mixed, 1.0, 0.2, ratios);
    apo_report rep;
    chk_verdict v;
    if (when == BEFORE_THE_CALL)
        inject();
    /* The faults are cleared before the verdict is asserted, so not with assert_run(). */
    chk_host_run(mixed, &cj.ref, &cj.got, ratios, n, APO_SPLIT_TIME, &rep, &v);
    apo_simgpu_clear_faults();
    assert_verdict(&v, &cj.got, what);
    case_jobs_close(&cj);
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
    const apo_report rep =
        run_with(small_mallocs_only, BEFORE_OPENING, "cudaMalloc above 8 MiB failing");
    cr_assert_eq(rep.failovers, 0, "no device failed: the staging was retried smaller");
    cr_assert_gt(gpu_elements(&rep), 0, "the GPUs computed their share");
}

/* Every cudaMalloc fails: no GPU can stage, each fails its task, the cpu computes it all. */
static void no_mallocs(void) { apo_simgpu_fail_mallocs_from(1); }

Test(gpu_faults, gpus_without_memory_fail_and_the_cpu_computes_their_tiles, .timeout = 600) {
    const apo_report rep = run_with(no_mallocs, BEFORE_OPENING, "every cudaMalloc failing");
    cr_assert_geq(rep.failovers, 1, "the GPUs failed");
    cr_assert_eq(gpu_elements(&rep), 0, "no GPU computed anything");
}

/* The first kernel launch fails while it runs: its GPU fails the task and the tiles move. */
static void first_launch_fails(void) { apo_simgpu_fail_launch(1); }

Test(gpu_faults, a_failing_launch_moves_its_tiles_to_the_other_devices, .timeout = 600) {
    const apo_report rep =
        run_with(first_launch_fails, BEFORE_THE_CALL, "the first launch failing");
    cr_assert_geq(rep.failovers, 1, "the GPU whose launch failed is reported failed");
}

/* GPU 0 is lost a few calls into the call, every later call on it failing. */
static void gpu0_lost(void) { apo_simgpu_lose_device(0, 4); }

Test(gpu_faults, a_gpu_lost_mid_call_moves_its_tiles_to_the_other_devices, .timeout = 600) {
    const apo_report rep = run_with(gpu0_lost, BEFORE_THE_CALL, "GPU 0 lost from its 4th call");
    cr_assert_geq(rep.failovers, 1, "the lost GPU is reported failed");
}

/* ---- ordering mistakes, planted ------------------------------------------------------------
 * The two mistakes a host pipeline can make with asynchronous copies: reading a copy's
 * destination before waiting for its event, and freeing memory a queued copy still names.
 * Each is planted here with the CUDA calls themselves, the streams held so that the copy is
 * surely still queued, and each must show: the simulated runtime exists to catch them in
 * the backend. */

/* A pinned buffer, a device buffer of `n` doubles and a stream on GPU 0. */
typedef struct {
    double *host, *dev;
    cudaStream_t stream;
    size_t n;
} copy_rig;

static copy_rig rig_open(size_t n) {
    apo_runtime_destroy(gpu_runtime_or_skip());
    copy_rig r = {.n = n};
    cr_assert_eq(cudaSetDevice(0), cudaSuccess);
    cr_assert_eq(cudaMallocHost((void **)&r.host, n * sizeof(double)), cudaSuccess);
    cr_assert_eq(cudaMalloc((void **)&r.dev, n * sizeof(double)), cudaSuccess);
    cr_assert_eq(cudaStreamCreateWithFlags(&r.stream, cudaStreamNonBlocking), cudaSuccess);
    return r;
}

static void rig_close(copy_rig *r) {
    cr_assert_eq(cudaStreamSynchronize(r->stream), cudaSuccess);
    cr_assert_eq(cudaStreamDestroy(r->stream), cudaSuccess);
    cr_assert_eq(cudaFree(r->dev), cudaSuccess);
    cr_assert_eq(cudaFreeHost(r->host), cudaSuccess);
}

Test(gpu_faults, reading_a_copys_destination_before_its_event_reads_poison, .timeout = 120) {
    copy_rig r = rig_open(1024);
    for (size_t i = 0; i < r.n; i++)
        r.host[i] = (double)i;
    cr_assert_eq(
        cudaMemcpyAsync(r.dev, r.host, r.n * sizeof(double), cudaMemcpyHostToDevice, r.stream),
        cudaSuccess);
    cr_assert_eq(cudaStreamSynchronize(r.stream), cudaSuccess);
    apo_simgpu_hold_streams(1);
    cr_assert_eq(
        cudaMemcpyAsync(r.host, r.dev, r.n * sizeof(double), cudaMemcpyDeviceToHost, r.stream),
        cudaSuccess);
    /* The planted mistake: the host reads before the copy has run. */
    size_t poisoned = 0;
    for (size_t i = 0; i < r.n; i++)
        poisoned += isnan(r.host[i]);
    apo_simgpu_hold_streams(0);
    cr_assert_eq(poisoned, r.n, "an early read sees the poison, not the bytes: %zu of %zu NaN",
                 poisoned, r.n);
    cr_assert_eq(cudaStreamSynchronize(r.stream), cudaSuccess);
    for (size_t i = 0; i < r.n; i++)
        cr_assert_eq(r.host[i], (double)i, "after the wait the copy's bytes are there");
    rig_close(&r);
}

Test(gpu_faults, freeing_memory_a_queued_copy_names_is_refused, .timeout = 120) {
    copy_rig r = rig_open(1024);
    memset(r.host, 0, r.n * sizeof(double));
    apo_simgpu_hold_streams(1);
    cr_assert_eq(
        cudaMemcpyAsync(r.dev, r.host, r.n * sizeof(double), cudaMemcpyHostToDevice, r.stream),
        cudaSuccess);
    cr_assert_eq(apo_simgpu_copies_in_flight(), 1);
    /* The planted mistakes: each end of the queued copy freed before it has run. */
    const cudaError_t host_free = cudaFreeHost(r.host);
    const cudaError_t dev_free = cudaFree(r.dev);
    apo_simgpu_hold_streams(0);
    cr_assert_eq(host_free, cudaErrorIllegalState, "cudaFreeHost of a copy's source: %s",
                 cudaGetErrorName(host_free));
    cr_assert_eq(dev_free, cudaErrorIllegalState, "cudaFree of a copy's destination: %s",
                 cudaGetErrorName(dev_free));
    cr_assert_eq(cudaStreamSynchronize(r.stream), cudaSuccess);
    cr_assert_eq(apo_simgpu_copies_in_flight(), 0);
    rig_close(&r); /* once the copy has run, both frees succeed */
}

/* What the backend owes its caller: when a call returns, no copy of it is still queued
 * (one that were would read or write the caller's arrays after the caller took them back). */
static void nothing_injected(void) {}

Test(gpu_faults, a_call_returns_with_no_copy_in_flight, .timeout = 600) {
    const apo_report rep = run_with(nothing_injected, BEFORE_THE_CALL, "no fault");
    cr_assert_gt(gpu_elements(&rep), 0, "the GPUs computed their share");
    cr_assert_eq(apo_simgpu_copies_in_flight(), 0, "no copy left queued after the call");
}

/* ---- the copies of a shared pass ------------------------------------------------------------ */

/* The scores of `rows` series of *x under bollinger:bands_zone with `sweep` (NULL: the
 * defaults alone), into `scores`. */
static apo_workload bands_zone(const double *const *x, size_t rows, size_t cols,
                               const apo_sweep *sweep, double **scores) {
    apo_workload w = test_workload("bollinger", rows, cols, x, 1, scores, APO_N_SCORES);
    w.score = "bands_zone";
    w.sweep = sweep;
    return w;
}

/* Scores `rows` series of x under bollinger:bands_zone with `sweep` (NULL: the defaults alone)
 * on the first GPU of `rt` alone, into freshly allocated scores; returns the bytes the
 * simulated runtime copied to the GPUs meanwhile. */
static size_t scored_h2d(apo_runtime *rt, const double *x, size_t rows, size_t cols,
                         const apo_sweep *sweep, double **scores) {
    apo_workload w = bands_zone(&x, rows, cols, sweep, scores);
    double ratios[APO_MAX_DEVICES] = {0};
    ratios[first_gpu(rt)] = 1.0;
    w.ratios = ratios;
    w.n_ratios = device_count(rt);
    for (size_t k = 0; k < APO_N_SCORES; k++) {
        size_t len = 0;
        scores[k] = poisoned_output(rt, &w, k, &len);
    }
    apo_report rep = APO_REPORT_INIT;
    const size_t before = apo_simgpu_h2d_bytes();
    cr_assert_eq(apo_distribute_workload(rt, &w, &rep), APO_OK, "%s", apo_last_error());
    const size_t copied = apo_simgpu_h2d_bytes() - before;
    cr_assert_eq(gpu_tiles_of(&rep), rows * (sweep != NULL ? 6 : 1), "the GPU scored every series");
    return copied;
}

/* A sweep's sets that share a pass reach a GPU as one task (worker_pool.c, cuda_pipeline.c):
 * six sets of one period, three widths by two costs, copy the series to the GPU as often as
 * the one set alone does, once, where a GPU given one set at a time copied them six times;
 * and each set's scores are the cpu's bits. */
Test(gpu_faults, a_shared_pass_copies_its_inputs_once_for_all_its_sets, .timeout = 600) {
    apo_runtime *cpu, *mixed;
    open_runtimes(&cpu, &mixed, "cuda,cpu", 0);
    const size_t rows = 40, cols = 3001;
    double *x = walk(rows, cols, 313);
    const double widths[] = {1, 1.5, 2.5}, costs[] = {0, 0.001};
    const apo_sweep_param grid[] = {{"nbdev_up", widths, 3}, {"cost", costs, 2}};
    apo_sweep sweep = APO_SWEEP_INIT;
    sweep.grid = grid;
    sweep.n_grid = 2;
    double *alone[APO_N_SCORES], *group[APO_N_SCORES], *ref[APO_N_SCORES];
    const size_t one_set = scored_h2d(mixed, x, rows, cols, NULL, alone);
    const size_t six_sets = scored_h2d(mixed, x, rows, cols, &sweep, group);
    cr_expect(one_set >= rows * cols * sizeof(double), "one set copied %zu bytes, not its series",
              one_set);
    cr_expect_eq(six_sets, one_set, "six sets sharing a pass copied %zu bytes, one set %zu",
                 six_sets, one_set);
    /* The cpu's scores of the same sweep, bit for bit. */
    const double *inputs[1] = {x};
    apo_workload w = bands_zone(inputs, rows, cols, &sweep, ref);
    for (size_t k = 0; k < APO_N_SCORES; k++)
        cr_assert_not_null(ref[k] = malloc(6 * rows * sizeof(double)));
    apo_report rep = APO_REPORT_INIT;
    cr_assert_eq(apo_distribute_workload(cpu, &w, &rep), APO_OK, "%s", apo_last_error());
    for (size_t k = 0; k < APO_N_SCORES; k++) {
        cr_expect_eq(memcmp(group[k], ref[k], 6 * rows * sizeof(double)), 0,
                     "score %zu of the sweep differs from the cpu's", k);
        free(alone[k]);
        free(group[k]);
        free(ref[k]);
    }
    free(x);
    close_runtimes(cpu, mixed);
}
