/*
 * The GPU checks, written once for their two callers: `apportion selftest` (cli/cmd_selftest.c),
 * which prints each verdict as a row of its table or JSON, and the gpu suite
 * (tests/gpu/test_gpu.c), which turns each verdict into a Criterion assertion or skip.
 *
 * A check runs a workload through the public API (include/apportion.h,
 * include/apportion_cuda.h; nothing of runtime/ or kernels/) and judges it against an
 * independent reference: the same workload run on a runtime on the "cpu" device alone,
 * compared bit for bit (memcmp of every output value; docs/determinism.md). The callers own
 * the workloads (shapes, parameters, inputs, seeds) and the plan of which checks run where;
 * this module owns how a workload is run, compared and judged.
 *
 * A check never prints, asserts or exits: it fills a chk_verdict. Checks that judge a
 * finished run (chk_gpus_worked, chk_gpu_computed_all, chk_staged_in_chunks, chk_gather,
 * chk_no_device_failed) go on from a passed verdict and leave a failed or skipped one as it
 * is, so a run and its judgements chain and the first failure decides.
 */
#ifndef APO_CHECKS_GPU_CHECKS_H
#define APO_CHECKS_GPU_CHECKS_H

#include <apportion.h>
#include <apportion_cuda.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define CHK_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define CHK_PRINTF(a, b)
#endif

/* ---- verdicts ---------------------------------------------------------------------------- */

typedef enum chk_result {
    CHK_PASS = 0,
    CHK_FAIL = 1,
    CHK_WARN = 2, /* not a failure: a timing that fell short (chk_overlap) */
    CHK_SKIP = 3
} chk_result;

typedef struct chk_verdict {
    chk_result result;
    char message[512]; /* what passed, why it failed, or why it was skipped */
    int64_t compared;  /* output values compared bitwise; -1 when nothing was compared */
    int64_t differ;    /* of them, values whose bits differ; -1 likewise */
    int64_t chunks;    /* pieces the GPU staged its work in; -1 when not known */
    double overlap;    /* (h2d + kernel + d2h) / wall of the GPU; NaN when not measured */
} chk_verdict;

/* A passed verdict with no message and no figures. */
void chk_verdict_init(chk_verdict *v);
/* Sets the result and replaces the message. */
void chk_verdict_set(chk_verdict *v, chk_result result, const char *fmt, ...) CHK_PRINTF(3, 4);
/* Appends to the message (truncated at its size). */
void chk_verdict_append(chk_verdict *v, const char *fmt, ...) CHK_PRINTF(2, 3);

/* "<apo_last_error()> (APO_ERR_...)", or the status's message when there is no detail. */
void chk_status_text(apo_status status, char *out, size_t size);

/* ---- runtimes ---------------------------------------------------------------------------- */

/* A runtime on `devices` (NULL: APPORTION_DEVICES, else auto) with profiles and learning off:
 * a check must not change the stored models. `gpu_mb` is the staging budget (0: the
 * default); use_gpu and nccl UNSET take the environment. Returns apo_runtime_create()'s
 * status; *rt is NULL on failure. */
apo_status chk_runtime(const char *devices, apo_use_gpu use_gpu, size_t gpu_mb, apo_switch nccl,
                       apo_runtime **rt);

/* The device index of the first GPU of rt, or -1 when it has none. */
long chk_first_gpu(const apo_runtime *rt);

/* ---- jobs: one workload with its host outputs -------------------------------------------- */

typedef struct chk_job {
    apo_workload w; /* its inputs, outputs and params point into this struct: never copy it */
    const double *inputs[1];
    double *out[APO_MAX_IO];
    size_t len[APO_MAX_IO]; /* values in each output */
    apo_param params[APO_MAX_PARAMS];
    const char *output_names[APO_MAX_IO];
} chk_job;

/* A job of `kernel` on the rows x cols input x (kept by pointer) with the given parameters
 * and seed, outputs shaped by apo_output_shape() on rt. Fails (v) on an unknown kernel, an
 * invalid workload or no memory; the job can be freed either way. */
void chk_job_init(chk_job *j, apo_runtime *rt, const char *kernel, size_t rows, size_t cols,
                  const double *x, const apo_param *params, size_t n_params, uint64_t seed,
                  chk_verdict *v);
/* A job for the side under test: the workload and output lengths of `like`, outputs of its
 * own. Fails (v) when out of memory; the job can be freed either way. */
void chk_job_init_like(chk_job *j, const chk_job *like, chk_verdict *v);
/* Frees the outputs; a zeroed job is fine. */
void chk_job_free(chk_job *j);

/* Runs the job on `cpu` (a runtime on the device "cpu" alone) into its outputs, which are
 * first filled with a poison that differs from the side under test's: a value that neither
 * side writes cannot compare equal. Fails (v) when the run fails. */
void chk_reference(chk_job *ref, apo_runtime *cpu, chk_verdict *v);

/* ---- runs compared with the reference ---------------------------------------------------- */

/* Runs `got` (chk_job_init_like(ref)) on rt with host arrays, explicit ratios when n_ratios
 * is not 0, split along `split`, and compares every output value bitwise with `ref`. *rep
 * gets the run's report. Fails when the run fails ("the run failed: ...") or a value differs
 * (the count, the first differing output, position, values and bits, and "(never written)"
 * when the poison is still there); passes with "bitwise equal (N values)". */
void chk_host_run(apo_runtime *rt, const chk_job *ref, chk_job *got, const double *ratios,
                  size_t n_ratios, apo_split split, apo_report *rep, chk_verdict *v);

/* Where chk_resident() puts the arrays. */
typedef struct chk_placement {
    size_t gpu;           /* device index of the GPU whose memory holds them */
    int inputs_on_gpu;    /* the input in its memory (else host memory) */
    int outputs_on_gpu;   /* the outputs in its memory (else host memory) */
    const double *ratios; /* explicit ratios, or NULL */
    size_t n_ratios;
    int outputs_elsewhere; /* the outputs on GPU outputs_gpu instead (with outputs_on_gpu) */
    size_t outputs_gpu;
} chk_placement;

/* Runs `got` through apo_distribute_workload_cuda() with the arrays placed as `at` says:
 * device arrays are allocated with apo_cuda_malloc, the input copied in, the outputs
 * poisoned there too and copied back after the run, all freed (apo_cuda_free must
 * succeed). Then compares as chk_host_run() does, and takes the GPU's chunks and overlap
 * from the report. Fails with the call that failed ("apo_cuda_malloc (input): ..."). */
void chk_resident(apo_runtime *rt, const chk_job *ref, chk_job *got, const chk_placement *at,
                  apo_report *rep, chk_verdict *v);

/* ---- judgements of a finished run's report ----------------------------------------------- */

/* No device of the report failed. */
void chk_no_device_failed(const apo_report *rep, chk_verdict *v);

/* The GPUs worked: no device failed, the GPUs computed some elements, and each GPU that
 * computed reports at least one chunk and no negative time. */
void chk_gpus_worked(const apo_report *rep, chk_verdict *v);

/* The first GPU of the report computed every element without failing (a runtime on one
 * GPU). Takes its chunks and overlap; the message becomes "bitwise equal (N values); C
 * chunk(s), wall T ms". Follows a passed chk_host_run(). */
void chk_gpu_computed_all(const apo_report *rep, chk_verdict *v);

/* The first GPU of the report staged its work in more than one chunk: a memory budget of
 * budget_mb MiB was applied to the run's rows x cols of input. Follows a passed
 * chk_host_run(). */
void chk_staged_in_chunks(const apo_report *rep, size_t budget_mb, chk_verdict *v);

/* The outputs were gathered onto GPU `dest` by `expected` (NCCL or peer copies) when another
 * device computed some of them, and not at all (APO_GATHER_NONE) otherwise. Appends what
 * computed and how it was gathered. Follows a passed chk_resident(). */
void chk_gather(const apo_report *rep, size_t dest, apo_gather expected, chk_verdict *v);

/* ---- checks of their own ----------------------------------------------------------------- */

/* Chunks a run needs before the overlap check fails without overlap: with fewer, the
 * pipeline has little or nothing to overlap (one chunk: nothing at all). */
#define CHK_OVERLAP_MIN_CHUNKS 3
/* Above this the phases overlapped: (host copies + h2d + kernel + d2h) / their union is 1
 * exactly when no two ran at once, so this only allows for the clocks' rounding. */
#define CHK_OVERLAP_MIN 1.01

/* The overlap of a passed run (its verdict's overlap and chunks, from the GPU's report,
 * computed from the phases' intervals): a pass above CHK_OVERLAP_MIN; a failure at or below
 * it when the run had CHK_OVERLAP_MIN_CHUNKS chunks or more (a pipeline that overlaps
 * nothing is broken); a warning with fewer chunks, or without the figure. */
void chk_overlap(const chk_verdict *run, chk_verdict *v);

/* apo_device_info of a GPU reads sanely: a GPU-<uuid> id, a compute capability,
 * multiprocessors, memory (free no more than total). The message describes the GPU. */
void chk_discovery(const apo_device_info *info, chk_verdict *v);

/* Device memory round trip on GPU `gpu` of rt: apo_cuda_malloc of `bytes`, `pattern` (bytes
 * long) copied in, through a second allocation by a device-to-device copy when
 * `via_second_buffer`, copied back out equal, apo_cuda_free. Skipped when the GPU has less
 * than twice `bytes` free. */
void chk_round_trip(apo_runtime *rt, size_t gpu, const void *pattern, size_t bytes,
                    int via_second_buffer, chk_verdict *v);

/* ---- the overall verdict ------------------------------------------------------------------ */

typedef struct chk_counts {
    size_t pass, fail, warn, skip;
} chk_counts;

/* Adds one verdict's result to the counts. */
void chk_count(chk_counts *c, chk_result result);

typedef enum chk_overall {
    CHK_OVERALL_PASSED = 0,        /* nothing failed, and GPUs were there and passed checks */
    CHK_OVERALL_FAILED = 1,        /* a check failed */
    CHK_OVERALL_NO_GPU = 2,        /* nothing failed, and there was no GPU to check */
    CHK_OVERALL_GPU_UNCHECKED = 3, /* nothing failed, but a GPU was there and not one of its
                                      checks passed (every one skipped or warned) */
    CHK_OVERALL_NOTHING_PASSED = 4 /* nothing failed, and no check passed at all */
} chk_overall;

/* The verdict of a run of checks: `all` counts every check, `gpus` says how many GPUs there
 * were and `gpus_passed` how many of them passed at least one check of their own. A run
 * never passes with a GPU whose checks all skipped. */
chk_overall chk_overall_verdict(const chk_counts *all, size_t gpus, size_t gpus_passed);

/* The exit status of a verdict: 0 for PASSED and NO_GPU, 1 otherwise. */
int chk_overall_exit(chk_overall verdict);

/* "passed", "failed", "no-gpu", "gpu-unchecked" or "nothing-passed". */
const char *chk_overall_name(chk_overall verdict);

#endif
