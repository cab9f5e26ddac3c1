/*
 * What the gpu suite's files share (gpu_fixtures.c): runtimes on "cuda" and "cpu", the seeded
 * workloads of every built-in kernel, the GPU checks' verdicts turned into Criterion
 * assertions, and the main of every gpu executable, which exits 77 (SKIP) before Criterion
 * starts without a usable GPU, or 1 when a GPU is required (APPORTION_USE_GPU=yes).
 */
#ifndef APO_TEST_GPU_FIXTURES_H
#define APO_TEST_GPU_FIXTURES_H

#include <criterion/criterion.h>
#include <stddef.h>
#include <stdint.h>

#include "apportion.h"
#include "apportion_cuda.h"
#include "gpu_checks.h"

/* ---- runtimes --------------------------------------------------------------------------- */

/* The start of every case: the GPU runtime ("cuda", use_gpu AUTO), or a skip. */
apo_runtime *gpu_runtime_or_skip(void);
/* A runtime on `devices` (use_gpu NO for "cpu", YES otherwise), gpu_mb its memory budget. */
apo_runtime *runtime_on(const char *devices, size_t gpu_mb);
size_t device_count(const apo_runtime *rt);
apo_device_kind device_kind(const apo_runtime *rt, size_t i);
/* Index of the first GPU of rt. */
size_t first_gpu(const apo_runtime *rt);
/* Free memory of runtime device g (a GPU), as discovery saw it. */
double gpu_free_bytes(const apo_runtime *rt, size_t g);
/* Ratios for rt's devices: gpu_share for each GPU, cpu_share for each other device. Returns
 * how many it wrote (rt's device count). */
size_t ratios_by_kind(const apo_runtime *rt, double gpu_share, double cpu_share,
                      double ratios[APO_MAX_DEVICES]);
/* The tiles a call's GPUs computed, from its report. */
uint64_t gpu_tiles_of(const apo_report *rep);

/* ---- workloads -------------------------------------------------------------------------- */

typedef struct gcase {
    const char *kernel;
    size_t rows, cols;
    const char *param; /* NULL: defaults */
    double value;
} gcase;

/* Shapes with several tiles per row, ragged last tiles, sizes just off the tile, rows > 1,
 * and the smallest series each kernel accepts; N_CASES of them. */
extern const gcase cases[];
extern const size_t n_gpu_cases;
#define N_CASES n_gpu_cases

/* rows seeded random walks of cols samples (seeds seed, seed + 1, ...), row after row. */
double *walk(size_t rows, size_t cols, uint64_t seed);

/* ---- verdicts to Criterion -------------------------------------------------------------- */

/* Fails the case with the verdict's message, naming the job and `what`, or skips it; a pass
 * or a warning goes on (no check these cases call warns). */
void assert_verdict(const chk_verdict *v, const chk_job *j, const char *what);
/* The reference of case c on input x, run on `cpu`, and a job for the side under test. */
void jobs_init(chk_job *ref, chk_job *got, apo_runtime *cpu, const gcase *c, const double *x);
void jobs_free(chk_job *ref, chk_job *got);

#endif
