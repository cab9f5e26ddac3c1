/*
 * The gpu suite, device-resident arrays and beyond the usual sizes.
 *
 * Device-resident inputs and outputs (apportion_cuda.h) must give the bits of host arrays;
 * several GPUs gather alike by NCCL and by peer copies; the interop calls check their
 * arguments and name the GPU that holds a pointer; and a tiny GPU memory budget must give the same
 * bits in several chunks. Beyond those: a series of 1e8 samples, a batch of rows past 2^31
 * elements, a launch of more than 65,535 blocks, device-resident calls of several chunks, samples
 * whose sums overflow (and bollinger with nbdev 0), two GPUs where present, and host arrays pinned
 * with apo_cuda_host_register. Every run is bitwise the cpu's.
 *
 * Shared setup and main are in gpu_fixtures.c (exit 77 without a usable GPU, 1 when one is
 * required); the host-array cases are in test_gpu.c.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "apportion.h"
#include "apportion_cuda.h"
#include "gpu_checks.h"
#include "gpu_fixtures.h"
#include "reference.h"

/* ---- device-resident arrays ------------------------------------------------------------- */

Test(gpu, device_resident_arrays_give_the_bits_of_host_arrays, .timeout = 600) {
    apo_runtime *cpu, *gpu;
    open_runtimes(&cpu, &gpu, NULL, 0);
    const size_t g = first_gpu(gpu);
    /* Placements: both on the GPU, then each side alone. */
    const int placements[][2] = {{1, 1}, {1, 0}, {0, 1}};
    for (size_t ci = 0; ci < N_CASES; ci++) {
        case_jobs cj;
        case_jobs_open(&cj, cpu, &cases[ci], 900 + ci);
        for (size_t p = 0; p < 3; p++) {
            for (int repeat = 0; repeat < 2; repeat++) {
                const chk_placement at = {g, placements[p][0], placements[p][1], NULL, 0, 0, 0};
                const run_how how = {.at = &at, .then = chk_gpus_worked};
                assert_run(gpu, &cj.ref, &cj.got, &how, NULL,
                           "resident (inputs %s, outputs %s), run %d",
                           placements[p][0] ? "gpu" : "host", placements[p][1] ? "gpu" : "host",
                           repeat + 1);
            }
        }
        case_jobs_close(&cj);
    }
    close_runtimes(cpu, gpu);
}

/* ---- several GPUs: the gather ------------------------------------------------------------ */

/* A runtime on every GPU and nothing else, with the NCCL gather on or off. */
static apo_runtime *gpus_with_nccl(apo_switch nccl) {
    apo_runtime *rt = NULL;
    apo_status st = chk_runtime("cuda", APO_USE_GPU_YES, 0, nccl, &rt);
    cr_assert_eq(st, APO_OK, "runtime on cuda: %s", apo_last_error());
    return rt;
}

/* Outputs wanted on one GPU, computed by all of them in equal shares: the grouped NCCL
 * gather and the peer copies must both give the cpu's bits, and the report must say which
 * path ran (none when only the destination had work). */
Test(gpu, several_gpus_gather_by_nccl_and_by_peer_copies_alike, .timeout = 1200) {
    apo_runtime *probe = gpu_runtime_or_skip();
    size_t gpus = 0;
    apo_gpu_count(probe, &gpus);
    apo_runtime_destroy(probe);
    if (gpus < 2)
        cr_skip_test("%zu GPU: the gather needs two or more", gpus);
    apo_runtime *rts[2] = {gpus_with_nccl(APO_SWITCH_ON), gpus_with_nccl(APO_SWITCH_OFF)};
    /* A library built without NCCL (-Dnccl=disabled, the simulated GPUs' build) gathers by
     * peer copies whatever the switch says. */
#ifdef APO_TEST_HAVE_NCCL
    const apo_gather expect[2] = {APO_GATHER_NCCL, APO_GATHER_PEER};
#else
    const apo_gather expect[2] = {APO_GATHER_PEER, APO_GATHER_PEER};
#endif
    apo_runtime *cpu = runtime_on("cpu", 0);
    double ratios[APO_MAX_DEVICES];
    for (size_t i = 0; i < gpus; i++)
        ratios[i] = 1.0;
    const size_t dests[2] = {0, gpus - 1};
    for (size_t ci = 0; ci < N_CASES; ci++) {
        case_jobs cj;
        case_jobs_open(&cj, cpu, &cases[ci], 1300 + ci);
        for (size_t d = 0; d < 2; d++) {
            for (size_t path = 0; path < 2; path++) {
                const chk_placement at = {dests[d], 0, 1, ratios, gpus, 0, 0};
                apo_report rep;
                chk_verdict v;
                chk_resident(rts[path], &cj.ref, &cj.got, &at, &rep, &v);
                chk_gpus_worked(&rep, &v);
                chk_gather(&rep, dests[d], expect[path], &v);
                char what[96];
                snprintf(what, sizeof what, "outputs on GPU %zu, gather %s", dests[d],
                         path == 0 ? "by NCCL" : "by peer copies");
                assert_verdict(&v, &cj.got, what);
            }
        }
        case_jobs_close(&cj);
    }
    apo_runtime_destroy(cpu);
    apo_runtime_destroy(rts[0]);
    apo_runtime_destroy(rts[1]);
}

Test(gpu, the_interop_calls_check_their_arguments, .timeout = 60) {
    apo_runtime *gpu = gpu_runtime_or_skip();
    const size_t g = first_gpu(gpu);
    void *p = NULL;
    cr_assert_eq(apo_cuda_malloc(gpu, g, 1 << 20, NULL), APO_ERR_NULL);
    cr_assert_eq(apo_cuda_malloc(gpu, device_count(gpu) + 5, 1 << 20, &p),
                 APO_ERR_INVALID_ARGUMENT);
    cr_assert_eq(apo_cuda_free(gpu, g, NULL), APO_OK);
    /* A round trip through device memory and a device-to-device copy. */
    const size_t n = 1 << 20;
    double *h = malloc(n * sizeof *h);
    cr_assert_not_null(h);
    for (size_t i = 0; i < n; i++)
        h[i] = (double)i * 0.5 - 3.0;
    chk_verdict v;
    chk_round_trip(gpu, g, h, n * sizeof *h, 1, &v);
    assert_verdict(&v, NULL, "round trip");
    free(h);
    /* A placement that names a device which is not a GPU of this runtime. */
    apo_runtime *mixed = runtime_on("cuda,cpu", 0);
    size_t cpu_index = device_count(mixed);
    for (size_t i = 0; i < device_count(mixed); i++)
        if (device_kind(mixed, i) == APO_DEVICE_CPU)
            cpu_index = i;
    cr_assert_lt(cpu_index, device_count(mixed));
    cr_assert_eq(apo_cuda_malloc(mixed, cpu_index, 1024, &p), APO_ERR_INVALID_ARGUMENT);
    apo_runtime_destroy(mixed);
    apo_runtime_destroy(gpu);
}

/* apo_cuda_pointer_device() must name the GPU each allocation was made on (what the Python
 * binding hands to apo_cuda_placement for a CuPy or PyTorch array), and refuse memory no
 * GPU holds; apo_cuda_device_ordinal() names each GPU once. */
Test(gpu, a_pointer_names_the_gpu_that_holds_it, .timeout = 60) {
    apo_runtime *rt = runtime_on("cuda,cpu", 0);
    int ordinals_seen = 0;
    for (size_t d = 0; d < device_count(rt); d++) {
        int ordinal = -1;
        if (device_kind(rt, d) != APO_DEVICE_CUDA) {
            cr_assert_eq(apo_cuda_device_ordinal(rt, d, &ordinal), APO_ERR_INVALID_ARGUMENT);
            continue;
        }
        cr_assert_eq(apo_cuda_device_ordinal(rt, d, &ordinal), APO_OK);
        cr_assert(ordinal >= 0 && ordinal < 31 && !(ordinals_seen & (1 << ordinal)),
                  "device %zu: ordinal %d", d, ordinal);
        ordinals_seen |= 1 << ordinal;
        double *p = NULL;
        cr_assert_eq(apo_cuda_malloc(rt, d, 4096, (void **)&p), APO_OK);
        size_t found = device_count(rt);
        cr_assert_eq(apo_cuda_pointer_device(rt, p, &found), APO_OK);
        cr_assert_eq(found, d);
        found = device_count(rt);
        cr_assert_eq(apo_cuda_pointer_device(rt, p + 100, &found), APO_OK, "inside it");
        cr_assert_eq(found, d);
        cr_assert_eq(apo_cuda_free(rt, d, p), APO_OK);
    }
    cr_assert_neq(ordinals_seen, 0, "no GPU in the runtime");
    double on_host[4] = {0};
    size_t found;
    cr_assert_eq(apo_cuda_pointer_device(rt, on_host, &found), APO_ERR_NOT_FOUND);
    cr_assert_eq(apo_cuda_pointer_device(rt, NULL, &found), APO_ERR_NULL);
    cr_assert_eq(apo_cuda_device_ordinal(rt, 0, NULL), APO_ERR_NULL);
    apo_runtime_destroy(rt);
}

/* ---- the memory guard ------------------------------------------------------------------- */

/* The GPUs worked, and the first staged its work in chunks under the 8 MiB budget of the
 * runtimes below. */
static void gpus_worked_in_8_mib_chunks(const apo_report *rep, chk_verdict *v) {
    chk_gpus_worked(rep, v);
    chk_staged_in_chunks(rep, 8, v);
}

Test(gpu, a_tiny_memory_budget_gives_the_same_bits_in_chunks, .timeout = 600) {
    /* One GPU, 8 MiB of staging, and workloads of 24 MiB and more of input. */
    apo_runtime *cpu, *small;
    open_runtimes(&cpu, &small, "cuda:0", 8);
    const gcase guard_cases[] = {
        {"bollinger", 1, 3 * 1048576 + 77, NULL, 0}, {"bollinger", 3, 1000003, "period", 500},
        {"macd", 1, 3 * 1048576 + 77, NULL, 0},      {"macd", 4, 900001, NULL, 0},
        {"returns_stats", 2, 2000003, NULL, 0},
    };
    for (size_t ci = 0; ci < sizeof guard_cases / sizeof guard_cases[0]; ci++) {
        case_jobs cj;
        case_jobs_open(&cj, cpu, &guard_cases[ci], 300 + ci);
        for (int repeat = 0; repeat < 2; repeat++) {
            const run_how how = {.split = APO_SPLIT_AUTO, .then = gpus_worked_in_8_mib_chunks};
            assert_run(small, &cj.ref, &cj.got, &how, NULL, "8 MiB budget");
        }
        /* Device-resident under the same budget. */
        const chk_placement at = {first_gpu(small), 1, 1, NULL, 0, 0, 0};
        const run_how resident = {.at = &at};
        assert_run(small, &cj.ref, &cj.got, &resident, NULL, "8 MiB budget, resident");
        case_jobs_close(&cj);
    }
    close_runtimes(cpu, small);
}

/* ---- large and hostile workloads ------------------------------------------------------- */

/* Host memory this process can still have, in bytes. */
static double host_available_bytes(void) {
    const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (double)pages * (double)page : 0.0;
}

/* The large workloads below also skip with APPORTION_GPU_SUITE_SMALL=1: on simulated GPUs
 * (scripts/test.sh --simulated-gpus) each takes from minutes to past its time limit, a
 * simulated device being a host thread, and the largest needs 19 GB of host memory. */
static void skip_unless_host_has(double bytes, const char *what) {
    const char *small = getenv("APPORTION_GPU_SUITE_SMALL");
    if (small != NULL && strcmp(small, "1") == 0)
        cr_skip_test("%s left out (APPORTION_GPU_SUITE_SMALL=1)", what);
    const double have = host_available_bytes();
    if (have < bytes)
        cr_skip_test("%s needs %.1f GB of host memory, %.1f GB available", what, bytes * 1e-9,
                     have * 1e-9);
}

/* Host arrays on the GPU runtime, then arrays in the first GPU's memory (input, outputs, and
 * both) when it has room for them: every run bitwise the cpu's. */
static void host_and_resident_runs(apo_runtime *gpu, const chk_job *ref, chk_job *got,
                                   double device_bytes, const char *what) {
    const run_how host = {.split = APO_SPLIT_AUTO, .then = chk_gpus_worked};
    assert_run(gpu, ref, got, &host, NULL, "%s, host arrays", what);
    const size_t g = first_gpu(gpu);
    if (gpu_free_bytes(gpu, g) < 1.2 * device_bytes) {
        fprintf(stderr, "%s: device-resident runs left out: %.1f GB needed on the GPU\n", what,
                device_bytes * 1e-9);
        return;
    }
    const int placements[][2] = {{1, 1}, {1, 0}, {0, 1}};
    for (size_t p = 0; p < 3; p++) {
        const chk_placement at = {g, placements[p][0], placements[p][1], NULL, 0, 0, 0};
        const run_how resident = {.at = &at, .then = chk_gpus_worked};
        assert_run(gpu, ref, got, &resident, NULL, "%s, inputs %s, outputs %s", what,
                   placements[p][0] ? "gpu" : "host", placements[p][1] ? "gpu" : "host");
    }
}

Test(gpu, a_series_of_1e8_samples_gives_the_cpu_bits, .timeout = 900) {
    const size_t n = 100000000;
    skip_unless_host_has(7 * 8.0 * (double)n, "1e8 samples of bollinger");
    walk_case w;
    walk_case_open(&w, 1, n, 1e8);
    apo_runtime *mixed = runtime_on("cuda,cpu", 0);
    const char *kernels[] = {"bollinger", "returns_stats"};
    for (size_t k = 0; k < 2; k++) {
        const gcase c = {kernels[k], 1, n, NULL, 0};
        chk_job ref, got;
        jobs_init(&ref, &got, w.cpu, &c, w.x);
        const double out_bytes = k == 0 ? 3 * 8.0 * (double)n : 0.0;
        host_and_resident_runs(w.gpu, &ref, &got, 8.0 * (double)n + out_bytes, kernels[k]);
        /* The GPU beside the cpu, with an uneven split. */
        double ratios[APO_MAX_DEVICES];
        const size_t nd = ratios_by_kind(mixed, 0.7, 0.3, ratios);
        const run_how uneven = {ratios, nd, APO_SPLIT_TIME, NULL, chk_gpus_worked};
        assert_run(mixed, &ref, &got, &uneven, NULL, "cuda,cpu 0.7/0.3");
        jobs_free(&ref, &got);
    }
    apo_runtime_destroy(mixed);
    walk_case_close(&w);
}

/* A batch of rows whose element offsets pass 2^31: 520 rows of 4.2 million samples
 * (2.18e9 elements, 17.5 GB). returns_stats keeps the outputs small (five per row), so the
 * host holds the input once. Each row is a different stretch of one walk. */
Test(gpu, element_offsets_past_2_to_the_31_give_the_cpu_bits, .timeout = 900) {
    const size_t rows = 520, cols = 4200000;
    const double elements = (double)rows * (double)cols;
    cr_assert_gt(elements, 2147483648.0);
    skip_unless_host_has(1.1 * 8.0 * elements, "a batch past 2^31 elements");
    apo_runtime *cpu, *gpu;
    open_runtimes(&cpu, &gpu, NULL, 0);
    double *x = malloc(rows * cols * sizeof *x);
    double *base = malloc((cols + 7 * rows) * sizeof *base);
    cr_assert(x != NULL && base != NULL);
    apo__test_random_walk(2031, cols + 7 * rows, 100.0, 1.0, base);
    for (size_t r = 0; r < rows; r++)
        memcpy(x + r * cols, base + 7 * r, cols * sizeof *x);
    free(base);
    const gcase c = {"returns_stats", rows, cols, NULL, 0};
    chk_job ref, got;
    jobs_init(&ref, &got, cpu, &c, x);
    /* Every row differs from the next: a row read at the wrong offset cannot pass. */
    for (size_t r = 1; r < rows; r++)
        cr_assert(memcmp(&ref.out[1][r], &ref.out[1][r - 1], sizeof(double)) != 0,
                  "rows %zu and %zu have the same mean", r - 1, r);
    host_and_resident_runs(gpu, &ref, &got, 8.0 * elements, "2^31+ elements");
    jobs_free(&ref, &got);
    free(x);
    close_runtimes(cpu, gpu);
}

/* More work items in one launch than 65,535 blocks of 256 threads hold, so every thread's
 * grid-stride loop runs more than once: bootstrap's means, one thread per replicate, with
 * the outputs resident on the GPU (written in place, so a chunk is bounded only by its tile
 * partials: eight chunks of 20 million replicates). */
Test(gpu, grids_past_65535_blocks_give_the_cpu_bits, .timeout = 900) {
    const size_t replicates = 160000000, one_grid = (size_t)65535 * 256;
    skip_unless_host_has(3 * 8.0 * (double)replicates, "160 million bootstrap replicates");
    /* One GPU, so that it gets every replicate and the chunks below are its own. */
    apo_runtime *cpu, *gpu;
    open_runtimes(&cpu, &gpu, "cuda:0", 0);
    double x[2] = {100.0, 100.5};
    const apo_param param = {"replicates", (double)replicates};
    chk_job ref, got;
    jobs_init_params(&ref, &got, cpu, "bootstrap", 1, 2, x, &param, 1);
    const size_t g = first_gpu(gpu);
    if (gpu_free_bytes(gpu, g) < 2.5 * 8.0 * (double)replicates)
        cr_skip_test("the GPU lacks room for 160 million means");
    const chk_placement at = {g, 1, 1, NULL, 0, 0, 0};
    const run_how resident = {.at = &at, .then = chk_gpus_worked};
    const chk_verdict v =
        assert_run(gpu, &ref, &got, &resident, NULL, "resident, 160 million replicates");
    /* The check must have crossed the grid: the average chunk holds more items than one
     * grid of threads covers. */
    cr_assert_gt(v.chunks, 0);
    cr_assert_gt(replicates / (size_t)v.chunks, one_grid,
                 "%lld chunks of %zu replicates: no launch needed more than 65,535 blocks",
                 (long long)v.chunks, replicates / (size_t)v.chunks);
    jobs_free(&ref, &got);
    close_runtimes(cpu, gpu);
}

/* Device-resident calls cut into several chunks by a small budget: one side in GPU memory,
 * the other staged (and, for the outputs, partials staged too). */
Test(gpu, device_resident_calls_of_several_chunks_give_the_cpu_bits, .timeout = 600) {
    apo_runtime *cpu, *small;
    open_runtimes(&cpu, &small, "cuda:0", 8);
    const size_t g = first_gpu(small);
    const gcase chunked[] = {{"bollinger", 1, 3 * 1048576 + 77, NULL, 0},
                             {"macd", 4, 900001, NULL, 0},
                             {"returns_stats", 2, 2000003, NULL, 0}};
    for (size_t ci = 0; ci < sizeof chunked / sizeof chunked[0]; ci++) {
        const gcase *c = &chunked[ci];
        case_jobs cj;
        case_jobs_open(&cj, cpu, c, 4000 + ci);
        const int placements[][2] = {{1, 0}, {0, 1}};
        for (size_t p = 0; p < 2; p++) {
            /* returns_stats writes no array on the GPU: only its input side can be resident. */
            if (c->kernel[0] == 'r' && placements[p][0] == 0)
                continue;
            const chk_placement at = {g, placements[p][0], placements[p][1], NULL, 0, 0, 0};
            /* With its input resident, a returns_stats chunk stages only its tiles' partials
             * (slot_outputs() is 0 for it): a thousand of them fit one slot under any budget,
             * so one chunk is right there (seen on the simulated GPUs, docs/cuda.md). */
            const run_how how = {.at = &at,
                                 .then = c->kernel[0] != 'r' ? gpus_worked_in_8_mib_chunks
                                                             : chk_gpus_worked};
            assert_run(small, &cj.ref, &cj.got, &how, NULL, "8 MiB budget, inputs %s, outputs %s",
                       placements[p][0] ? "gpu" : "host", placements[p][1] ? "gpu" : "host");
        }
        case_jobs_close(&cj);
    }
    close_runtimes(cpu, small);
}

/* Samples near the top of the double range, where sums and M2 overflow: bollinger with nbdev 0
 * makes 0 * inf, returns_stats merges infinite partials, macd's EMAs overflow. The NaNs that
 * arithmetic makes must have the CPU's bits (kernels/common/apo_hd.h canonicalises them). */
Test(gpu, huge_magnitudes_and_nbdev_0_give_the_cpu_bits, .timeout = 300) {
    walk_case w;
    walk_case_open(&w, 3, 3 * 8192 + 5, 777);
    for (size_t t = 0; t < w.cols; t++) {
        w.x[t] = (t % 2 == 0 ? 1e300 : -1e300) * (1.0 + (double)(t % 7) * 1e-3);
        w.x[w.cols + t] = (t % 2 == 0 ? 1.5e308 : 1.6e308);
    }
    /* Row 2: a walk with two returns of 1.5e308 in its first returns_stats tile (their sum,
     * and so the tile's mean, overflow to +inf) and two of -1.5e308 in its second (-inf):
     * the merge of the two is inf - inf. */
    double *row2 = w.x + 2 * w.cols;
    row2[9] = row2[11] = row2[8192 + 9] = row2[8192 + 11] = 1.0;
    row2[10] = row2[12] = 1.5e308;
    row2[8192 + 10] = row2[8192 + 12] = -1.5e308;
    const apo_param zero[3] = {{"period", 20}, {"nbdev_up", 0}, {"nbdev_dn", 0}};
    const apo_param boot[1] = {{"replicates", 64}};
    struct {
        const char *kernel;
        const apo_param *params;
        size_t n_params;
    } runs[] = {{"bollinger", zero, 3},
                {"bollinger", NULL, 0},
                {"macd", NULL, 0},
                {"returns_stats", NULL, 0},
                {"bootstrap", boot, 1}};
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        chk_job ref, got;
        jobs_init_params(&ref, &got, w.cpu, runs[i].kernel, w.rows, w.cols, w.x, runs[i].params,
                         runs[i].n_params);
        if (i == 0) {
            /* The case is about NaNs made by arithmetic: there must be some. */
            size_t nans = 0;
            for (size_t t = 19; t < ref.len[0]; t++)
                nans += isnan(ref.out[0][t]);
            cr_assert_gt(nans, 0, "bollinger with nbdev 0 made no NaN");
        }
        char what[64];
        snprintf(what, sizeof what, "huge magnitudes, %s", runs[i].kernel);
        host_and_resident_runs(w.gpu, &ref, &got, 4 * 8.0 * (double)(w.rows * w.cols), what);
        jobs_free(&ref, &got);
    }
    walk_case_close(&w);
}

/* Two GPUs or more: host arrays split between them, and device arrays with the inputs on one
 * GPU and the outputs on another (the other GPU's slices arrive and leave by peer copies). */
Test(gpu, two_gpus_split_host_and_device_arrays_alike, .timeout = 900) {
    apo_runtime *gpu = gpu_runtime_or_skip();
    size_t gpus = 0;
    apo_gpu_count(gpu, &gpus);
    if (gpus < 2) {
        apo_runtime_destroy(gpu);
        cr_skip_test("%zu GPU: this case needs two or more", gpus);
    }
    apo_runtime *cpu = runtime_on("cpu", 0);
    double ratios[APO_MAX_DEVICES];
    for (size_t i = 0; i < APO_MAX_DEVICES; i++)
        ratios[i] = 1.0;
    const size_t last = device_count(gpu) - 1;
    for (size_t ci = 0; ci < N_CASES; ci++) {
        case_jobs cj;
        case_jobs_open(&cj, cpu, &cases[ci], 2200 + ci);
        const run_how host = {ratios, gpus, APO_SPLIT_TIME, NULL, chk_gpus_worked};
        assert_run(gpu, &cj.ref, &cj.got, &host, NULL, "host arrays over every GPU");
        const size_t ends[2][2] = {{0, last}, {last, 0}};
        for (size_t e = 0; e < 2; e++) {
            const chk_placement at = {ends[e][0], 1, 1, ratios, gpus, 1, ends[e][1]};
            const run_how resident = {.at = &at, .then = chk_gpus_worked};
            assert_run(gpu, &cj.ref, &cj.got, &resident, NULL,
                       "inputs on GPU %zu, outputs on GPU %zu", ends[e][0], ends[e][1]);
        }
        case_jobs_close(&cj);
    }
    close_runtimes(cpu, gpu);
}

/* Host arrays pinned with apo_cuda_host_register are copied straight: no staging copy is
 * made (host_copy_ms is 0 for bollinger, which has no partials), and the bits are the same.
 * Released, the same arrays are staged again. */
Test(gpu, registered_host_arrays_are_copied_straight, .timeout = 300) {
    apo_runtime *cpu, *one;
    open_runtimes(&cpu, &one, "cuda:0", 0);
    const gcase c = {"bollinger", 2, 3 * 1048576 + 77, NULL, 0};
    double *x = walk(c.rows, c.cols, 5150);
    chk_job ref, got;
    jobs_init(&ref, &got, cpu, &c, x);
    void *ranges[1 + APO_MAX_IO];
    size_t bytes[1 + APO_MAX_IO], n = 0;
    ranges[n] = x;
    bytes[n++] = c.rows * c.cols * sizeof(double);
    for (size_t o = 0; o < got.w.n_outputs; o++) {
        ranges[n] = got.out[o];
        bytes[n++] = got.len[o] * sizeof(double);
    }
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(apo_cuda_host_register(one, ranges[i], bytes[i]), APO_OK, "%s",
                     apo_last_error());
    /* The same range again is a no-op; a range overlapping one is refused. */
    cr_assert_eq(apo_cuda_host_register(one, ranges[0], bytes[0]), APO_OK);
    cr_assert_eq(apo_cuda_host_register(one, (char *)ranges[0] + 8, 64), APO_ERR_INVALID_ARGUMENT);
    cr_assert_eq(apo_cuda_host_register(one, ranges[0], 0), APO_ERR_INVALID_ARGUMENT);
    cr_assert_eq(apo_cuda_host_register(one, NULL, 8), APO_ERR_NULL);
    const run_how all_on_the_gpu = {.split = APO_SPLIT_AUTO, .then = chk_gpu_computed_all};
    apo_report rep;
    assert_run(one, &ref, &got, &all_on_the_gpu, &rep, "pinned host arrays");
    cr_assert_eq(rep.devices[first_gpu(one)].host_copy_ms, 0.0,
                 "pinned arrays were staged: %g ms of host copies",
                 rep.devices[first_gpu(one)].host_copy_ms);
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(apo_cuda_host_unregister(one, ranges[i]), APO_OK, "%s", apo_last_error());
    cr_assert_eq(apo_cuda_host_unregister(one, ranges[0]), APO_ERR_NOT_FOUND);
    assert_run(one, &ref, &got, &all_on_the_gpu, &rep, "the same arrays, staged");
    cr_assert_gt(rep.devices[first_gpu(one)].host_copy_ms, 0.0, "staged, yet no host copy");
    /* A range left registered is released with the runtime. */
    cr_assert_eq(apo_cuda_host_register(one, ranges[0], bytes[0]), APO_OK);
    apo_runtime_destroy(one);
    jobs_free(&ref, &got);
    free(x);
    apo_runtime_destroy(cpu);
}
