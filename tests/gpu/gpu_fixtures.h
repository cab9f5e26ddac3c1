/*
 * What the gpu suite's files share (gpu_fixtures.c): runtimes on "cuda" and "cpu" (a case's
 * pair of them: open_runtimes), the seeded workloads of every built-in kernel, poisoned
 * outputs of a call, the GPU checks' verdicts turned into Criterion assertions (a
 * case's jobs, case_jobs, and its runs asserted, assert_run), and the main of every gpu
 * executable, which exits 77 (SKIP) before Criterion starts without a usable GPU, or 1 when a
 * GPU is required (APPORTION_USE_GPU=yes).
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
/* The two runtimes of a case that compares a side under test with the cpu: *cpu on the device
 * "cpu" alone, and *test on `devices` with a GPU memory budget of gpu_mb MiB, or the runtime
 * of gpu_runtime_or_skip() when devices is NULL. Skips the case without a usable GPU. */
void open_runtimes(apo_runtime **cpu, apo_runtime **test, const char *devices, size_t gpu_mb);
void close_runtimes(apo_runtime *cpu, apo_runtime *test);
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
 * and the smallest series each kernel accepts, and two catalog recurrences whose tiles the GPU
 * cuts into pieces (rsi, dema); N_CASES of them. */
extern const gcase cases[];
extern const size_t n_gpu_cases;
#define N_CASES n_gpu_cases

/* rows seeded random walks of cols samples (seeds seed, seed + 1, ...), row after row. */
double *walk(size_t rows, size_t cols, uint64_t seed);

/* A case on one input of its own: the runtimes of open_runtimes(&cpu, &gpu, NULL, 0) and rows
 * seeded walks of cols samples (walk()), which the case may damage before its runs; closed
 * with both runtimes and the input. */
typedef struct walk_case {
    apo_runtime *cpu, *gpu;
    size_t rows, cols;
    double *x;
} walk_case;
void walk_case_open(walk_case *w, size_t rows, size_t cols, uint64_t seed);
void walk_case_close(walk_case *w);

/* ---- a call's outputs --------------------------------------------------------------------- */

/* Output o of w, allocated as apo_output_shape() on rt sizes it and filled with a poison no
 * kernel writes (an element a call leaves unwritten cannot match); its length in *len. */
double *poisoned_output(apo_runtime *rt, const apo_workload *w, size_t o, size_t *len);

/* ---- verdicts to Criterion -------------------------------------------------------------- */

/* Fails the case with the verdict's message, naming the job and `what`, or skips it; a pass
 * or a warning goes on (no check these cases call warns). */
void assert_verdict(const chk_verdict *v, const chk_job *j, const char *what);
/* A job of `kernel` with n_params parameters on input x, its reference run on `cpu`, and a job
 * for the side under test (seed 42 for the kernels that draw). */
void jobs_init_params(chk_job *ref, chk_job *got, apo_runtime *cpu, const char *kernel, size_t rows,
                      size_t cols, const double *x, const apo_param *params, size_t n_params);
/* The same of case c. */
void jobs_init(chk_job *ref, chk_job *got, apo_runtime *cpu, const gcase *c, const double *x);
void jobs_free(chk_job *ref, chk_job *got);

/* A case's input (rows seeded walks, walk()), its cpu reference and the job under test: what
 * every case of a table sets up before its runs and frees after them. Opened in place (the
 * jobs' workloads point into themselves), so never copied. */
typedef struct case_jobs {
    double *x;
    chk_job ref, got;
} case_jobs;
void case_jobs_open(case_jobs *cj, apo_runtime *cpu, const gcase *c, uint64_t seed);
void case_jobs_close(case_jobs *cj);

/* A judgement of a finished run's report: chk_gpus_worked, chk_no_device_failed, ... */
typedef void (*report_check)(const apo_report *rep, chk_verdict *v);

/* How a job runs on the side under test: host arrays (chk_host_run) with `ratios` (NULL: the
 * runtime's plan) along `split`, or, when `at` is set, arrays placed as it says
 * (chk_resident); then `then` judges the report (NULL: the bits alone). */
typedef struct run_how {
    const double *ratios;
    size_t n_ratios;
    apo_split split;
    const chk_placement *at;
    report_check then;
} run_how;

/* Runs `got` against `ref` on rt as `how` says and asserts the verdict (assert_verdict),
 * naming what the format says; returns the passed verdict, its report in *rep unless rep is
 * NULL. */
chk_verdict assert_run(apo_runtime *rt, const chk_job *ref, chk_job *got, const run_how *how,
                       apo_report *rep, const char *fmt, ...) CHK_PRINTF(6, 7);

#endif
