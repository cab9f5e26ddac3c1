/*
 * apo-bench-host: what the host's memory gives the devices that share it, the figures the
 * balancer's replayed GPU takes as given (docs/scheduling.md, "A replayed H100") and the next
 * GPU run must measure (docs/cuda.md, "Checking a GPU", step host-memory):
 *
 * - host-to-host copy rate with 1, 4, 8 and all threads (each thread copies its own part of a
 *   buffer, as the GPU pipeline's staging copies do), in bytes copied per second and in bytes
 *   of memory traffic (read + write);
 * - with a GPU: the cost of pinning resident host memory (apo_cuda_host_register) at 16 MiB,
 *   128 MiB and 1 GiB, in ms per MiB; and bollinger over one series of --samples samples on
 *   `cuda` from pageable arrays and from registered ones (warm calls, medians), against the
 *   cpu alone.
 *
 * Medians of --runs runs; --json FILE writes them. Without a GPU the GPU rows say so and are
 * skipped. Only the public headers (apportion.h, apportion_cuda.h), libc and OpenMP.
 *
 *   apo-bench-host [--runs N] [--bytes N] [--samples N] [--json FILE]
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apportion_cuda.h"
#include "bench.h"
#include "options.h"

const char bench_prog[] = "apo-bench-host";

#define MIB (1024.0 * 1024.0)

/* Median seconds of `runs` copies of `bytes` from src to dst on `threads` threads, each its
 * own contiguous part (a warm-up first). */
static double copy_seconds(char *dst, const char *src, size_t bytes, int threads, int runs) {
    double t[64];
    runs = runs > 64 ? 64 : runs;
    for (int r = -1; r < runs; r++) {
        const double t0 = bench_now();
#pragma omp parallel num_threads(threads)
        {
            const size_t n = (size_t)omp_get_num_threads(), i = (size_t)omp_get_thread_num();
            const size_t part = bytes / n, lo = i * part, hi = i + 1 == n ? bytes : lo + part;
            memcpy(dst + lo, src + lo, hi - lo);
        }
        if (r >= 0)
            t[r] = bench_now() - t0;
    }
    return bench_median(t, (size_t)runs);
}

/* The median ms of `runs` warm calls of bollinger on rt with the given arrays. */
static double bollinger_ms(apo_runtime *rt, const double *x, double **out, size_t n, int runs) {
    const double *in[] = {x};
    apo_workload w = bench_workload("bollinger", 1, n, in, 1);
    w.outputs = out;
    w.n_outputs = 3;
    w.learn = APO_SWITCH_OFF;
    double t[64];
    runs = runs > 64 ? 64 : runs;
    for (int r = -1; r < runs; r++) {
        apo_report rep = APO_REPORT_INIT;
        if (bench_check(apo_distribute_workload(rt, &w, &rep), "bollinger"))
            return -1;
        if (r >= 0)
            t[r] = rep.makespan_ms;
    }
    return bench_median(t, (size_t)runs);
}

static apo_runtime *runtime_on(const char *devices) {
    apo_runtime *rt = NULL;
    return bench_runtime(devices, &rt) == APO_OK ? rt : NULL;
}

/* Pinning: ms per MiB to register `bytes` of resident memory (touched first), median of runs. */
static double pin_ms_per_mib(apo_runtime *rt, size_t bytes, int runs) {
    char *buf = aligned_alloc(4096, bytes);
    if (buf == NULL)
        return -1;
    memset(buf, 1, bytes);
    double t[64];
    runs = runs > 64 ? 64 : runs;
    int done = 0;
    for (int r = 0; r < runs; r++) {
        const double t0 = bench_now();
        if (apo_cuda_host_register(rt, buf, bytes) != APO_OK)
            break;
        t[done++] = (bench_now() - t0) * 1e3 / ((double)bytes / MIB);
        apo_cuda_host_unregister(rt, buf);
    }
    free(buf);
    return done > 0 ? bench_median(t, (size_t)done) : -1;
}

/* The host's copy rate at 1, 4, 8, 16 and all threads, bytes copied and memory traffic.
 * Returns 0, or -1 when the buffers cannot be allocated (after the message). */
static int host_copies(json_t *root, size_t bytes, int runs, int cores) {
    char *src = malloc(bytes), *dst = malloc(bytes);
    if (src == NULL || dst == NULL) {
        fprintf(stderr, "%s: no memory for 2 x %zu bytes\n", bench_prog, bytes);
        free(src);
        free(dst);
        return -1;
    }
    memset(src, 1, bytes);
    memset(dst, 2, bytes);
    json_t *copies = json_array();
    printf("\n%-8s %12s %14s %16s\n", "threads", "ms", "copy_GB/s", "traffic_GB/s");
    const int counts[] = {1, 4, 8, 16, cores};
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
        const int t = counts[k] < cores ? counts[k] : cores;
        if (k > 0 && t <= (counts[k - 1] < cores ? counts[k - 1] : cores))
            continue;
        const double s = copy_seconds(dst, src, bytes, t, runs);
        printf("%-8d %12.3f %14.2f %16.2f\n", t, s * 1e3, (double)bytes / s / 1e9,
               2.0 * (double)bytes / s / 1e9);
        json_t *row = json_object();
        json_object_set_new(row, "threads", json_integer(t));
        json_object_set_new(row, "ms", json_real(s * 1e3));
        json_object_set_new(row, "copy_gbs", json_real((double)bytes / s / 1e9));
        json_array_append_new(copies, row);
    }
    free(src);
    free(dst);
    json_object_set_new(root, "copies", copies);
    return 0;
}

/* Bollinger on `samples` on the GPU from pageable and from registered arrays, and on the cpu
 * alone. Destroys gpu, which releases the registrations before the arrays go. */
static void registered_bollinger(json_t *root, apo_runtime *gpu, size_t samples, int runs) {
    double *x = aligned_alloc(4096, samples * sizeof(double));
    double *o[3];
    for (int i = 0; i < 3; i++)
        o[i] = aligned_alloc(4096, samples * sizeof(double));
    if (x != NULL && o[0] != NULL && o[1] != NULL && o[2] != NULL) {
        bench_fill_walk(x, 1, samples, 7);
        apo_runtime *cpu = runtime_on("cpu");
        const double pageable = bollinger_ms(gpu, x, o, samples, runs);
        const double alone = cpu != NULL ? bollinger_ms(cpu, x, o, samples, runs) : -1;
        int registered = apo_cuda_host_register(gpu, x, samples * sizeof(double)) == APO_OK;
        for (int i = 0; i < 3 && registered; i++)
            registered = apo_cuda_host_register(gpu, o[i], samples * sizeof(double)) == APO_OK;
        const double pinned = registered ? bollinger_ms(gpu, x, o, samples, runs) : -1;
        printf("\nbollinger, 1 x %zu samples (ms): cuda pageable %.2f, cuda registered %.2f, "
               "cpu alone %.2f\n",
               samples, pageable, pinned, alone);
        json_object_set_new(root, "bollinger_samples", json_integer((json_int_t)samples));
        json_object_set_new(root, "bollinger_cuda_pageable_ms", json_real(pageable));
        json_object_set_new(root, "bollinger_cuda_registered_ms", json_real(pinned));
        json_object_set_new(root, "bollinger_cpu_ms", json_real(alone));
        apo_runtime_destroy(cpu);
    }
    apo_runtime_destroy(gpu);
    free(x);
    for (int i = 0; i < 3; i++)
        free(o[i]);
}

/* With a GPU: the cost of pinning resident memory, then bollinger from registered arrays. */
static void gpu_section(json_t *root, size_t samples, int runs) {
    apo_runtime *gpu = runtime_on("cuda");
    size_t gpus = 0;
    if (gpu != NULL)
        apo_device_count(gpu, &gpus);
    apo_device_info info = APO_DEVICE_INFO_INIT;
    if (gpu == NULL || gpus == 0 || apo_device_get(gpu, 0, &info) != APO_OK ||
        info.kind != APO_DEVICE_CUDA) {
        printf("\nno GPU: pinning and bollinger from registered arrays skipped\n");
        apo_runtime_destroy(gpu);
        return;
    }
    json_t *pins = json_array();
    printf("\n%-10s %12s   (apo_cuda_host_register of resident memory)\n", "pinned", "ms_per_MiB");
    const size_t sizes[] = {16u << 20, 128u << 20, (size_t)1 << 30};
    for (size_t k = 0; k < 3; k++) {
        const double ms = pin_ms_per_mib(gpu, sizes[k], runs);
        printf("%-10.0f %12.4f\n", (double)sizes[k] / MIB, ms);
        json_t *row = json_object();
        json_object_set_new(row, "mib", json_real((double)sizes[k] / MIB));
        json_object_set_new(row, "ms_per_mib", json_real(ms));
        json_array_append_new(pins, row);
    }
    json_object_set_new(root, "pinning", pins);
    registered_bollinger(root, gpu, samples, runs);
}

typedef struct options {
    int runs;
    size_t bytes, samples;
    const char *json;
} options;

#define OPT(...) BENCH_OPTION(options, __VA_ARGS__)

static const bench_option option_rows[] = {
    OPT("--runs", "1..64", INT, 1, 64, runs,
        "runs of each figure, their median printed (default 5)"),
    OPT("--bytes", "N", SIZE, 1 << 20, 1e11, bytes,
        "bytes of the host copies, at least 1 MiB (default 1 GiB)"),
    OPT("--samples", "N", SIZE, 1e3, 1e9, samples,
        "samples of the GPU's bollinger, at least 1e3 (default 1e8)"),
    OPT("--json", "FILE", TEXT, 0, 0, json, "writes the medians there, as JSON"),
};

#undef OPT

static const bench_option_table option_table = {
    "[--runs 1..64] [--bytes N] [--samples N] [--json FILE]", option_rows,
    sizeof option_rows / sizeof option_rows[0], 18};

int main(int argc, char **argv) {
    options opt = {.runs = 5, .bytes = (size_t)1 << 30, .samples = (size_t)1e8, .json = NULL};
    if (bench_options_parse(&option_table, argc, argv, &opt) != 0)
        return 2;
    const int runs = opt.runs;
    const char *json_path = opt.json;
    char load[64];
    bench_load_average(load, sizeof load);
    const int cores = omp_get_max_threads();
    printf("# %s: %d cores, load %s, %d runs (medians)\n", bench_prog, cores, load, runs);
    json_t *root = json_object();
    json_object_set_new(root, "cores", json_integer(cores));
    json_object_set_new(root, "load", json_string(load));
    if (host_copies(root, opt.bytes, runs, cores) != 0) {
        json_decref(root);
        return 1;
    }
    gpu_section(root, opt.samples, runs);
    int exit_code = 0;
    if (json_path != NULL && json_dump_file(root, json_path, JSON_INDENT(2)) != 0) {
        fprintf(stderr, "%s: cannot write %s\n", bench_prog, json_path);
        exit_code = 1;
    }
    json_decref(root);
    return exit_code;
}
