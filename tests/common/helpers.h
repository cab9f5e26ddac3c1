/*
 * Helpers shared by the runtime tests: runtimes over a given device list, workloads with
 * their buffers, and bitwise comparison.
 */
#ifndef APO_TEST_HELPERS_H
#define APO_TEST_HELPERS_H

#include <stddef.h>
#include <stdint.h>

#include "apportion.h"

/* The configuration of a runtime on `devices` (virtual sim clock) with profiles off. */
apo_config test_config(const char *devices);

/* Creates a runtime of test_config(devices); fails the test on error. */
apo_runtime *test_runtime(const char *devices);

/* Calls check(rt, path, arg) on a "cpu" runtime (test_runtime) made under the runtime's own
 * choice of host vector path (path 0), then under each path this CPU has, named by
 * APPORTION_CPU_ISA (1 sse2, 2 avx2, 3 avx512), the variable unset after: the tests that hold
 * every path to the same bits. */
void test_each_host_path(void (*check)(apo_runtime *rt, size_t path, void *arg), void *arg);

/* test_config(devices) with profiles on, read from and written to the two files given;
 * learning and the persist interval are left to the caller. The paths are the caller's,
 * kept until apo_runtime_create() returns. */
apo_config test_profiled_config(const char *devices, const char *multigpu_path,
                                const char *thresholds_path);

/* The two profile files of a folder, as the profile tests name them. */
typedef struct test_profile_paths {
    char multigpu[512];   /* DIR/multigpu.json */
    char thresholds[512]; /* DIR/thresholds.json */
} test_profile_paths;
test_profile_paths test_profile_paths_in(const char *dir);

/* Makes the two profile files readable by all and their lock files (PATH.lock, which must
 * exist) writable by all, so that another user's write gets as far as its temporary file;
 * fails the test when a chmod() does. */
void test_open_profiles_to_all(const char *multigpu_path, const char *thresholds_path);

/* Registers "msum" on rt: a user kernel with one parameter `k` (default 4), the sum of the
 * last k samples (fewer at the start), halo 63, tiles of 1000. */
void test_register_moving_sum(apo_runtime *rt);

/* Registers the user rule `name` on `kernel` (apo_rule_register, fn called with `user`);
 * fails the test, naming the rule, on error. */
void test_register_rule(apo_runtime *rt, const char *name, const char *kernel, apo_rule_fn fn,
                        void *user);

/* A workload of `kernel` over rows x cols of the n_inputs arrays `inputs` into the n_outputs
 * arrays `outputs` (NULL and 0 where the caller sets them later), everything else as
 * APO_WORKLOAD_INIT gives it: the start of the tests' calls. Inline, so that test_mpi.c, a
 * plain program without Criterion, shares it. */
static inline apo_workload test_workload(const char *kernel, size_t rows, size_t cols,
                                         const double *const *inputs, size_t n_inputs,
                                         double *const *outputs, size_t n_outputs) {
    apo_workload w = APO_WORKLOAD_INIT;
    w.kernel = kernel;
    w.rows = rows;
    w.cols = cols;
    w.inputs = inputs;
    w.n_inputs = n_inputs;
    w.outputs = outputs;
    w.n_outputs = n_outputs;
    return w;
}

/* Fails the test unless the kernel's first n parameters are named names[i] and default to
 * defaults[i] (defaults NULL: the names only), or its first n outputs are named names[i];
 * each failure names the kernel and the index. */
void test_assert_params(const apo_kernel_info *info, const char *const *names,
                        const double *defaults, size_t n);
void test_assert_outputs(const apo_kernel_info *info, const char *const *names, size_t n);

/* Fails the test unless a call returned `want` and apo_last_error() contains `fragment`. */
void test_assert_refused(apo_status got, apo_status want, const char *fragment);

/* Fails the test unless the report's devices' elements add up to the call's elements. */
void test_assert_elements_add_up(const apo_report *report, const char *what);

/* A workload and the buffers it owns. */
typedef struct test_job {
    apo_workload w;
    double *input;
    const double *inputs[1];
    double *outputs[APO_MAX_IO];
    size_t output_len[APO_MAX_IO];
    apo_param params[APO_MAX_PARAMS];
} test_job;

/* Sets up `kernel` on a random walk of rows x cols (seed `data_seed`), with outputs sized
 * through apo_output_shape() on `rt` and pre-filled with a poison value. */
void test_job_init(test_job *job, apo_runtime *rt, const char *kernel, size_t rows, size_t cols,
                   uint64_t data_seed);
void test_job_param(test_job *job, const char *name, double value);
void test_job_free(test_job *job);

/* test_job_init() of *job on rt, returning rt; test_job_close() frees the job and destroys its
 * runtime, the end of most cases of one job. */
apo_runtime *test_job_on(test_job *job, apo_runtime *rt, const char *kernel, size_t rows,
                         size_t cols, uint64_t data_seed);
void test_job_close(test_job *job, apo_runtime *rt);

/* A built-in kernel's workload: its shape and at most one parameter (none where param is
 * NULL). */
typedef struct kernel_case {
    const char *kernel;
    size_t rows, cols;
    const char *param;
    double value;
} kernel_case;

/* test_job_init() of the case's kernel and shape, with its parameter set. */
void test_job_of_case(test_job *job, apo_runtime *rt, const kernel_case *c, uint64_t data_seed);

/* Sizes the outputs for the current parameters (poisoned, so that an element no tile
 * wrote cannot pass a comparison) and runs the job on `rt`. */
apo_status test_job_run(test_job *job, apo_runtime *rt, apo_report *report);

/* Number of elements of output `i` that differ bitwise between two jobs. */
size_t test_bitwise_diff(const test_job *a, const test_job *b, size_t i);

/* Random ratios for `n` devices, each in [0.05, 1), from a seed. */
void test_random_ratios(uint64_t seed, size_t n, double *ratios);

/* One placement of a call that must give the same bits however it is placed: on rt, with
 * `ratios` (NULL and 0: the planner's own) along `split`; `what` says "on DEVICES trial T split
 * S" for the failures' messages. */
typedef void (*test_placement_fn)(apo_runtime *rt, const double *ratios, size_t n_ratios,
                                  apo_split split, const char *what, void *ctx);

/* For each of the n_sets device lists (a runtime of each), `trials` trials (trial 0 without
 * ratios; trial t > 0 with test_random_ratios(seed + 10 * list + t)) and each split, rows then
 * time: place(). The determinism and catalog tests of bits on every device set share it. */
void test_each_placement(const char *const *device_sets, size_t n_sets, int trials, uint64_t seed,
                         test_placement_fn place, void *ctx);

/* The plan of a returns_stats workload of one series of n samples under `tag`, without
 * buffers; asserts that the plan places every element. */
apo_plan_info test_plan_returns_stats(apo_runtime *rt, const char *tag, size_t n);

/* The names in folder `dir` other than . and .., sorted, joined by spaces, into out[size]
 * (the first 16 names read). Returns 1, or 0 with out empty when the folder cannot be
 * opened (the caller decides whether that fails its test). */
int test_list_dir(const char *dir, char *out, size_t size);

/* Whether a test that loops over every catalog kernel runs the k-th one. Always in a plain
 * build, which so checks every kernel's bits, but:
 * - in the unit suite's copies of the stream tests whose loops cost the most
 *   (APO_TEST_KERNEL_STRIDE, set by tests/runtime/meson.build: one kernel in eight there, every
 *   kernel in their slow copies; tests/README.md, "The budget");
 * - under ThreadSanitizer (APO_TEST_TSAN, set by tests/meson.build), which ran these loops 20
 *   times slower while it instrumented the kernels too (it has not since 2026-11-29:
 *   kernels/meson.build; the runtime around them still is): one kernel in eight (26 of the
 *   catalog's 205, spread over its families).
 *   TSan looks at the threads around a kernel (the runtime's devices, the pool, a stream's
 *   state), which every kernel of a loop goes through alike.
 * AddressSanitizer runs every kernel: each kernel's stream state, kept windows and split
 * pieces have sizes of their own, which only its own run puts under ASan (one kernel in four
 * there for a day, 2026-11-28, while the CI ran past its hour; tests/README.md).
 * Each loop's own counts are still taken over all of them. The sanitizer builds leave the slow
 * copies of stream_revise and stream_peek_fork out, so their loops see one kernel in eight
 * there. One in four kept the TSan stage's streaming loops at 470 s of the CI's hour
 * (tests/README.md). */
#ifdef APO_TEST_TSAN
#define TEST_KERNEL_STRIDE 8
#elif defined(APO_TEST_KERNEL_STRIDE)
#define TEST_KERNEL_STRIDE APO_TEST_KERNEL_STRIDE
#else
#define TEST_KERNEL_STRIDE 1
#endif
static inline int test_kernel_sampled(size_t k) { return k % TEST_KERNEL_STRIDE == 0; }

/* The stream tests' loops over every kernel (stream_revise, stream_peek_fork, stream_refusals,
 * and stream_slow and stream_devices_slow through stream_check_each_per_bar_kernel):
 * as test_kernel_sampled (every kernel under ASan), but one kernel in 32 under ThreadSanitizer (7
 * of the catalog's 205): a stream's update, peek, revise and fork take the same threads whatever
 * its kernel, and at one in eight stream_revise and stream_peek_fork took 288 and 175 s of the TSan
 * stage's unit suite in a clean clone's CI of 2026-11-28, once the carried runs revised too.
 * catalog_simt keeps one in eight there: each of its kernels writes its own outputs from the CUDA
 * threads TSan sees. */
#ifdef APO_TEST_TSAN
#define TEST_STREAM_KERNEL_STRIDE 32
#else
#define TEST_STREAM_KERNEL_STRIDE TEST_KERNEL_STRIDE
#endif
static inline int test_stream_kernel_sampled(size_t k) {
    return k % TEST_STREAM_KERNEL_STRIDE == 0;
}

#endif
