/*
 * gpu.h: the GPU sections of apo-bench-kernels and the helpers they share (gpu.c has the
 * helpers and the section of bollinger and macd, gpu_catalog.c the catalog's). Only
 * apo-bench-kernels compiles them; bench.h is every bench's. Public headers only.
 */
#ifndef APO_BENCH_GPU_H
#define APO_BENCH_GPU_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "apportion.h"

#define BENCH_GPU_MAX_SIZES 16

/* The GPU section (gpu.c): returns its JSON object; adds wrong values to *wrong and sets
 * *failed when an API call failed. */
json_t *bench_gpu(const double *sizes, size_t n_sizes, double max_size, int reps, int warmup,
                  const char *kernels, long *wrong, int *failed);

typedef struct bench_gpu_catalog_options {
    const double *sizes; /* samples of the one series of each device-resident row */
    size_t n_sizes;      /* 1 .. BENCH_GPU_MAX_SIZES */
    int reps;            /* timed calls a row; 0: bench_gpu_reps()' rule */
    const char *kernels; /* comma list of kernel names; NULL or "catalog" in it: every one */
    double seconds;      /* the section's time limit (0: none): rows not started by then
                            are listed as out of time */
    double call_limit_s; /* a row whose one call is predicted to take longer is skipped */
    size_t sweep_rows;   /* the scored sweeps' series (0: no scored sweeps) */
    size_t sweep_bars;   /* and their bars */
} bench_gpu_catalog_options;

/* The GPU catalog section (gpu_catalog.c): per GPU, a device-resident row for every kernel
 * of the library's list, then scored sweeps on the GPU alone. Returns its JSON object; adds
 * wrong values to *wrong and sets *failed when an API call failed or a name in o->kernels is
 * no kernel's. */
json_t *bench_gpu_catalog(const bench_gpu_catalog_options *o, long *wrong, int *failed);

/* ---- helpers (gpu.c) ------------------------------------------------------------------ */

/* A runtime on `devices` with use_gpu; profiles and learning off unless `profiles`. */
apo_status bench_gpu_runtime(const char *devices, apo_use_gpu use_gpu, int profiles,
                             apo_runtime **rt);

/* The runtime "cuda" with its GPU count; when it has none (or failed), NULL, with why in
 * `why` (the runtime's warnings that name a GPU). */
apo_runtime *bench_gpu_probe(size_t *gpus, char *why, size_t size);

/* The next GPU of rt at device *i or after it: its description in *info, and *i moved past
 * it. Returns 0 when rt has no GPU left (a device it cannot describe is passed over). */
int bench_gpu_next(apo_runtime *rt, size_t *i, apo_device_info *info);

/* The index of rt's first GPU and its free memory; APO_ERR_NO_DEVICE when it has none. */
apo_status bench_gpu_index(apo_runtime *rt, size_t *gi, uint64_t *free_bytes);

/* Timed calls for `samples`: `reps` when above 0, else clamp(2e8 / samples, 3, 100). */
int bench_gpu_reps(int reps, double samples);

/* Free host memory in bytes (INFINITY when unknown). */
double bench_host_available_bytes(void);

/* A JSON real, or null for NaN and infinities. */
json_t *bench_gpu_num(double v);

/* A timed row's "reps", "time_ms_median", "time_ms_min" and "gb_s", in that order: every
 * bandwidth row of the GPU sections names its timing alike. */
void bench_gpu_set_rate(json_t *row, int reps, double med_ms, double min_ms, double gb_s);

/* The kernel variant the runtime reads (APPORTION_CUDA_KERNELS): "simple" or "staged". */
const char *bench_gpu_variant(void);

#endif /* APO_BENCH_GPU_H */
