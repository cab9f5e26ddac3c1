/*
 * The gpu suite: the determinism contract and the kernels' accuracy on the CUDA backend.
 *
 * Every built-in kernel runs on "cuda" alone and on "cuda,cpu" with several explicit ratios
 * (both split axes, odd sizes, rows > 1), twice each, and must give the bits of the run on
 * "cpu" alone (guarantees 1 to 3 of docs/determinism.md). Bollinger and MACD computed on
 * the GPU are also checked against the long-double references of tests/common/reference.h within
 * the tolerances of the CPU suite (tests/kernels/test_kernels.c) and against TA-Lib's regression
 * values. Device-resident inputs and outputs (apportion_cuda.h) must give the bits of host
 * arrays, and a tiny GPU memory budget must give the same bits in several chunks.
 *
 * The runs and their judgements are the GPU checks of checks/gpu_checks.h, which
 * `apportion selftest` runs too; each case here sets up its workloads, calls the checks and
 * asserts on their verdicts. The accuracy references and TA-Lib's values stay here.
 *
 * Sweeps and ragged rows on cuda,cpu give the bits of the cpu alone.
 *
 * Beyond those: a series of 1e8 samples, a batch of rows past 2^31 elements, a launch of
 * more than 65,535 blocks, device-resident calls of several chunks, samples whose sums
 * overflow (and bollinger with nbdev 0), two GPUs where present, host arrays pinned with
 * apo_cuda_host_register; and, acting as a CUDA caller (APO_TEST_CUDA_RUNTIME, builds with
 * the backend), a call ordered after the caller's stream, event or default stream,
 * apo_cuda_memcpy complete on return, and the caller's current device left alone.
 *
 * Only the public headers are used, plus the test references, the checks and, for the cases
 * that act as a CUDA caller, the CUDA runtime's. Without a usable GPU the executable exits
 * 77 before Criterion starts, which meson reports as SKIP, unless a GPU is required
 * (APPORTION_USE_GPU=yes): then it fails with exit 1. Every case also skips on its own when
 * the runtime finds no GPU, so a case run alone behaves too.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef APO_TEST_CUDA_RUNTIME
#include <cuda_runtime_api.h>
#endif

#include "apportion.h"
#include "apportion_cuda.h"
#include "gpu_checks.h"
#include "reference.h"

/* ---- runtimes --------------------------------------------------------------------------- */

/* Usable GPUs as a runtime on "cuda" (use_gpu AUTO) sees them; `why` gets the runtime's
 * warnings when there is none. Returns (size_t)-1 when the runtime cannot be created. */
static size_t probe_gpus(char *why, size_t why_size) {
    apo_runtime *rt = NULL;
    why[0] = '\0';
    apo_status st = chk_runtime("cuda", APO_USE_GPU_AUTO, 0, APO_SWITCH_UNSET, &rt);
    if (st != APO_OK) {
        snprintf(why, why_size, "%s: %s", apo_status_name(st), apo_last_error());
        return (size_t)-1;
    }
    size_t gpus = 0, n_warn = 0, o = 0;
    apo_gpu_count(rt, &gpus);
    apo_runtime_warning_count(rt, &n_warn);
    for (size_t i = 0; i < n_warn && o < why_size; i++) {
        const char *w = NULL;
        if (apo_runtime_warning(rt, i, &w) == APO_OK && w != NULL) {
            int n = snprintf(why + o, why_size - o, "%s%s", o ? "; " : "", w);
            o = n < 0 ? why_size : o + (size_t)n;
        }
    }
    apo_runtime_destroy(rt);
    return gpus;
}

/* The start of every case: the GPU runtime ("cuda", use_gpu AUTO), or a skip. */
static apo_runtime *gpu_runtime_or_skip(void) {
    apo_runtime *rt = NULL;
    apo_status st = chk_runtime("cuda", APO_USE_GPU_AUTO, 0, APO_SWITCH_UNSET, &rt);
    cr_assert_eq(st, APO_OK, "runtime on cuda: %s", apo_last_error());
    size_t gpus = 0;
    cr_assert_eq(apo_gpu_count(rt, &gpus), APO_OK);
    if (gpus == 0) {
        apo_runtime_destroy(rt);
        cr_skip_test("no usable GPU");
    }
    return rt;
}

static apo_runtime *runtime_on(const char *devices, size_t gpu_mb) {
    apo_runtime *rt = NULL;
    apo_status st =
        chk_runtime(devices, strcmp(devices, "cpu") == 0 ? APO_USE_GPU_NO : APO_USE_GPU_YES, gpu_mb,
                    APO_SWITCH_UNSET, &rt);
    cr_assert_eq(st, APO_OK, "runtime on %s: %s: %s", devices, apo_status_name(st),
                 apo_last_error());
    return rt;
}

static size_t device_count(const apo_runtime *rt) {
    size_t n = 0;
    cr_assert_eq(apo_device_count(rt, &n), APO_OK);
    return n;
}

static apo_device_kind device_kind(const apo_runtime *rt, size_t i) {
    apo_device_info info = APO_DEVICE_INFO_INIT;
    cr_assert_eq(apo_device_get(rt, i, &info), APO_OK);
    return info.kind;
}

/* Index of the first GPU of rt. */
static size_t first_gpu(const apo_runtime *rt) {
    const long g = chk_first_gpu(rt);
    cr_assert_geq(g, 0, "the runtime has no GPU");
    return (size_t)g;
}

/* ---- workloads -------------------------------------------------------------------------- */

typedef struct gcase {
    const char *kernel;
    size_t rows, cols;
    const char *param; /* NULL: defaults */
    double value;
} gcase;

/* Shapes with several tiles per row, ragged last tiles, sizes just off the tile, rows > 1,
 * and the smallest series each kernel accepts. */
static const gcase cases[] = {
    {"bollinger", 1, 2, "period", 2},
    {"bollinger", 1, 4095, NULL, 0},
    {"bollinger", 1, 4097, NULL, 0},
    {"bollinger", 1, 3 * 4096 + 123, "period", 20},
    {"bollinger", 3, 9001, "period", 2},
    {"bollinger", 40, 700, "period", 700},
    {"bollinger", 1, 1000003, NULL, 0},
    {"macd", 1, 1, NULL, 0},
    {"macd", 1, 2 * 16384 + 77, NULL, 0},
    {"macd", 5, 20000, "signal", 1},
    {"macd", 3, 50001, NULL, 0},
    {"macd", 1, 1000003, NULL, 0},
    {"returns_stats", 1, 1, NULL, 0},
    {"returns_stats", 1, 5 * 8192 + 5, NULL, 0},
    {"returns_stats", 37, 3000, NULL, 0},
    {"returns_stats", 1, 1000003, NULL, 0},
    {"bootstrap", 1, 3000, "replicates", 203},
    {"bootstrap", 3, 500, "replicates", 64},
    {"bootstrap", 2, 100003, "replicates", 24},
};
#define N_CASES (sizeof cases / sizeof cases[0])

static double *walk(size_t rows, size_t cols, uint64_t seed) {
    double *x = malloc(rows * cols * sizeof *x);
    cr_assert_not_null(x);
    for (size_t r = 0; r < rows; r++)
        apo__test_random_walk(seed + r, cols, 100.0, 1.0, x + r * cols);
    return x;
}

/* ---- verdicts to Criterion -------------------------------------------------------------- */

/* Fails the case with the verdict's message, naming the job and `what`, or skips it; a pass
 * or a warning goes on (no check these cases call warns). */
static void assert_verdict(const chk_verdict *v, const chk_job *j, const char *what) {
    if (v->result == CHK_SKIP)
        cr_skip_test("%s: %s", what, v->message);
    if (j != NULL)
        cr_assert(v->result != CHK_FAIL, "%s %zux%zu %s: %s", j->w.kernel, j->w.rows, j->w.cols,
                  what, v->message);
    else
        cr_assert(v->result != CHK_FAIL, "%s: %s", what, v->message);
}

/* The reference of case c on input x, run on `cpu`, and a job for the side under test. */
static void jobs_init(chk_job *ref, chk_job *got, apo_runtime *cpu, const gcase *c,
                      const double *x) {
    const apo_param param = {c->param, c->value};
    chk_verdict v;
    chk_job_init(ref, cpu, c->kernel, c->rows, c->cols, x, &param, c->param != NULL ? 1 : 0, 42,
                 &v);
    assert_verdict(&v, ref, "job");
    chk_reference(ref, cpu, &v);
    assert_verdict(&v, ref, "cpu reference");
    chk_job_init_like(got, ref, &v);
    assert_verdict(&v, got, "job");
}

static void jobs_free(chk_job *ref, chk_job *got) {
    chk_job_free(ref);
    chk_job_free(got);
}

/* ---- guarantees 1 to 3 ------------------------------------------------------------------ */

Test(gpu, every_kernel_on_cuda_alone_is_bitwise_the_cpu, .timeout = 600) {
    apo_runtime *gpu = gpu_runtime_or_skip();
    apo_runtime *cpu = runtime_on("cpu", 0);
    for (size_t ci = 0; ci < N_CASES; ci++) {
        const gcase *c = &cases[ci];
        double *x = walk(c->rows, c->cols, 7 + ci);
        chk_job ref, got;
        jobs_init(&ref, &got, cpu, c, x);
        const apo_split splits[] = {APO_SPLIT_AUTO, APO_SPLIT_ROWS, APO_SPLIT_TIME};
        for (size_t si = 0; si < 3; si++) {
            for (int repeat = 0; repeat < 2; repeat++) {
                apo_report rep;
                chk_verdict v;
                char what[96];
                snprintf(what, sizeof what, "cuda alone, split %s, run %d",
                         apo_split_name(splits[si]), repeat + 1);
                chk_host_run(gpu, &ref, &got, NULL, 0, splits[si], &rep, &v);
                chk_gpus_worked(&rep, &v);
                assert_verdict(&v, &got, what);
            }
        }
        jobs_free(&ref, &got);
        free(x);
    }
    apo_runtime_destroy(cpu);
    apo_runtime_destroy(gpu);
}

/* Ratios {gpu share, cpu share}; several GPUs divide the GPU share equally. */
static const double ratio_sets[][2] = {{1, 0}, {0, 1}, {0.3, 0.7}, {0.9, 0.1}, {0.5, 0.5}};

Test(gpu, cuda_and_cpu_with_explicit_ratios_give_the_cpu_bits, .timeout = 600) {
    apo_runtime *probe = gpu_runtime_or_skip();
    apo_runtime_destroy(probe);
    apo_runtime *cpu = runtime_on("cpu", 0);
    apo_runtime *mixed = runtime_on("cuda,cpu", 0);
    const size_t n = device_count(mixed);
    size_t gpus = 0;
    cr_assert_eq(apo_gpu_count(mixed, &gpus), APO_OK);
    cr_assert_gt(gpus, 0);
    for (size_t ci = 0; ci < N_CASES; ci++) {
        const gcase *c = &cases[ci];
        double *x = walk(c->rows, c->cols, 100 + ci);
        chk_job ref, got;
        jobs_init(&ref, &got, cpu, c, x);
        for (size_t ri = 0; ri < sizeof ratio_sets / sizeof ratio_sets[0]; ri++) {
            double ratios[APO_MAX_DEVICES];
            for (size_t i = 0; i < n; i++)
                ratios[i] = device_kind(mixed, i) == APO_DEVICE_CUDA
                                ? ratio_sets[ri][0] / (double)gpus
                                : ratio_sets[ri][1];
            const apo_split splits[] = {APO_SPLIT_ROWS, APO_SPLIT_TIME};
            for (size_t si = 0; si < 2; si++) {
                for (int repeat = 0; repeat < 2; repeat++) {
                    apo_report rep;
                    chk_verdict v;
                    char what[128];
                    snprintf(what, sizeof what, "cuda,cpu ratios %g/%g, split %s, run %d",
                             ratio_sets[ri][0], ratio_sets[ri][1], apo_split_name(splits[si]),
                             repeat + 1);
                    chk_host_run(mixed, &ref, &got, ratios, n, splits[si], &rep, &v);
                    chk_no_device_failed(&rep, &v);
                    assert_verdict(&v, &got, what);
                }
            }
        }
        /* And the runtime's own planning (equal shares before any model). */
        apo_report rep;
        chk_verdict v;
        chk_host_run(mixed, &ref, &got, NULL, 0, APO_SPLIT_AUTO, &rep, &v);
        assert_verdict(&v, &got, "cuda,cpu planned");
        jobs_free(&ref, &got);
        free(x);
    }
    apo_runtime_destroy(mixed);
    apo_runtime_destroy(cpu);
}

/* ---- sweeps and ragged rows ------------------------------------------------------------- */

/* Runs `kernel` over rows x cols input x on rt with a sweep and/or row lengths (either may be
 * NULL) and the given ratios (NULL: the runtime's), into freshly poisoned outputs. */
static void run_pieces(apo_runtime *rt, const char *kernel, const double *x, size_t rows,
                       size_t cols, const apo_sweep *sweep, const size_t *lengths,
                       const double *ratios, size_t n_ratios, double *out[3], size_t len[3]) {
    apo_workload w = APO_WORKLOAD_INIT;
    const double *inputs[1] = {x};
    w.kernel = kernel;
    w.rows = rows;
    w.cols = cols;
    w.inputs = inputs;
    w.n_inputs = 1;
    w.sweep = sweep;
    w.row_lengths = lengths;
    w.ratios = ratios;
    w.n_ratios = n_ratios;
    w.outputs = out;
    w.n_outputs = 3;
    for (size_t o = 0; o < 3; o++) {
        size_t r = 0, c = 0;
        cr_assert_eq(apo_output_shape(rt, &w, o, &r, &c), APO_OK, "%s", apo_last_error());
        len[o] = r * c;
        out[o] = malloc(len[o] * sizeof(double));
        cr_assert_not_null(out[o]);
        for (size_t i = 0; i < len[o]; i++)
            out[o][i] = -12345.678;
    }
    apo_report rep = APO_REPORT_INIT;
    cr_assert_eq(apo_distribute_workload(rt, &w, &rep), APO_OK, "%s: %s", kernel, apo_last_error());
}

/* A sweep's sets and ragged rows reach a GPU as calls of one set or one row (worker_pool.c);
 * whatever share the GPU takes, every output is the bits of the cpu alone, which
 * test_sweep.c and test_ragged.c tie to the per-set and per-series calls. */
Test(gpu, sweeps_and_ragged_rows_give_the_cpu_bits, .timeout = 600) {
    apo_runtime *probe = gpu_runtime_or_skip();
    apo_runtime_destroy(probe);
    apo_runtime *cpu = runtime_on("cpu", 0);
    apo_runtime *mixed = runtime_on("cuda,cpu", 0);
    const size_t n = device_count(mixed);
    const double periods[] = {5, 20, 61}, widths[] = {1, 2.5}, signals[] = {3, 9};
    const apo_sweep_param bands[] = {{"period", periods, 3}, {"nbdev_up", widths, 2}};
    const apo_sweep_param macd_grid[] = {{"signal", signals, 2}};
    apo_sweep bollinger_sweep = APO_SWEEP_INIT, macd_sweep = APO_SWEEP_INIT;
    bollinger_sweep.grid = bands;
    bollinger_sweep.n_grid = 2;
    macd_sweep.grid = macd_grid;
    macd_sweep.n_grid = 1;
    const size_t rows = 4, cols = 50001;
    const size_t lengths[4] = {50001, 61, 30000, 8193};
    double *x = walk(rows, cols, 77);
    const struct {
        const char *kernel;
        const apo_sweep *sweep;
        const size_t *lengths;
    } cases_[] = {{"bollinger", &bollinger_sweep, NULL},
                  {"macd", &macd_sweep, NULL},
                  {"bollinger", NULL, lengths},
                  {"macd", &macd_sweep, lengths}};
    for (size_t c = 0; c < sizeof cases_ / sizeof cases_[0]; c++) {
        double *ref[3], *got[3];
        size_t ref_len[3], got_len[3];
        run_pieces(cpu, cases_[c].kernel, x, rows, cols, cases_[c].sweep, cases_[c].lengths, NULL,
                   0, ref, ref_len);
        for (size_t ri = 0; ri < sizeof ratio_sets / sizeof ratio_sets[0]; ri++) {
            double ratios[APO_MAX_DEVICES];
            for (size_t i = 0; i < n; i++)
                ratios[i] = device_kind(mixed, i) == APO_DEVICE_CUDA ? ratio_sets[ri][0]
                                                                     : ratio_sets[ri][1];
            run_pieces(mixed, cases_[c].kernel, x, rows, cols, cases_[c].sweep, cases_[c].lengths,
                       ratios, n, got, got_len);
            for (size_t o = 0; o < 3; o++) {
                cr_assert_eq(got_len[o], ref_len[o]);
                cr_assert_eq(memcmp(got[o], ref[o], ref_len[o] * sizeof(double)), 0,
                             "case %zu (%s), ratios %g/%g: output %zu differs from the cpu's", c,
                             cases_[c].kernel, ratio_sets[ri][0], ratio_sets[ri][1], o);
                free(got[o]);
            }
        }
        for (size_t o = 0; o < 3; o++)
            free(ref[o]);
    }
    free(x);
    apo_runtime_destroy(mixed);
    apo_runtime_destroy(cpu);
}

/* Inputs with NaN, infinities and constant stretches: the non-finite policies and the
 * exact constant windows of the CPU kernels (tested in test_kernels.c) hold on the GPU
 * because the bits are the same. */
Test(gpu, nonfinite_and_constant_inputs_give_the_cpu_bits, .timeout = 300) {
    apo_runtime *gpu = gpu_runtime_or_skip();
    apo_runtime *cpu = runtime_on("cpu", 0);
    const size_t rows = 2, cols = 3 * 16384 + 11;
    double *x = walk(rows, cols, 555);
    x[17] = NAN;
    x[4096] = INFINITY;
    x[4100] = -INFINITY;
    x[9000] = NAN;
    for (size_t t = 20000; t < 20500; t++)
        x[t] = 0.1;
    x[cols + 5] = -INFINITY;
    for (size_t t = cols + 30000; t < cols + 30100; t++)
        x[t] = 123.25;
    const char *kernels[] = {"bollinger", "macd", "returns_stats", "bootstrap"};
    for (size_t k = 0; k < 4; k++) {
        gcase c = {kernels[k], rows, cols, NULL, 0};
        if (strcmp(kernels[k], "bootstrap") == 0) {
            c.param = "replicates";
            c.value = 16;
        }
        chk_job ref, got;
        jobs_init(&ref, &got, cpu, &c, x);
        apo_report rep;
        chk_verdict v;
        chk_host_run(gpu, &ref, &got, NULL, 0, APO_SPLIT_TIME, &rep, &v);
        assert_verdict(&v, &got, "non-finite input");
        jobs_free(&ref, &got);
    }
    free(x);
    apo_runtime_destroy(cpu);
    apo_runtime_destroy(gpu);
}

/* ---- accuracy against the long-double references ---------------------------------------- */

static double *read_talib_close(size_t *n) {
    /* The environment may move the data (scripts/gpu-check.sh runs a copy of this program
     * on another machine, beside its own copy of tests/data). */
    const char *dir = getenv("APO_TEST_DATA_DIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/talib_close252.f64",
             dir != NULL && dir[0] != '\0' ? dir : APO_TEST_DATA_DIR);
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot open %s", path);
    double *x = malloc(252 * sizeof *x);
    cr_assert_not_null(x);
    /* Raw little-endian float64; the tests run on little-endian hosts. */
    *n = fread(x, sizeof(double), 252, f);
    fclose(f);
    cr_assert_eq(*n, 252, "short read of %s", path);
    return x;
}

/* Runs a three-output indicator with three parameters on the GPU runtime over one series;
 * the GPU must have computed part of it. */
static void gpu_indicator(apo_runtime *gpu, const char *kernel, const apo_param params[3],
                          const double *x, size_t n, double *o0, double *o1, double *o2) {
    const double *in[1] = {x};
    double *out[3] = {o0, o1, o2};
    apo_workload w = APO_WORKLOAD_INIT;
    w.kernel = kernel;
    w.rows = 1;
    w.cols = n;
    w.inputs = in;
    w.n_inputs = 1;
    w.outputs = out;
    w.n_outputs = 3;
    w.params = params;
    w.n_params = 3;
    apo_report rep = APO_REPORT_INIT;
    cr_assert_eq(apo_distribute_workload(gpu, &w, &rep), APO_OK, "%s", apo_last_error());
    chk_verdict v;
    chk_verdict_init(&v);
    chk_gpus_worked(&rep, &v);
    assert_verdict(&v, NULL, kernel);
}

static void gpu_bollinger(apo_runtime *gpu, const double *x, size_t n, size_t period, double up,
                          double dn, double *u, double *m, double *l) {
    const apo_param params[] = {{"period", (double)period}, {"nbdev_up", up}, {"nbdev_dn", dn}};
    gpu_indicator(gpu, "bollinger", params, x, n, u, m, l);
}

static void gpu_macd(apo_runtime *gpu, const double *x, size_t n, size_t fast, size_t slow,
                     size_t signal, double *a, double *b, double *c) {
    const apo_param params[] = {
        {"fast", (double)fast}, {"slow", (double)slow}, {"signal", (double)signal}};
    gpu_indicator(gpu, "macd", params, x, n, a, b, c);
}

/* Both NaN, or the same infinity, or both finite. */
static void assert_same_class(double got, double want, const char *what, size_t t) {
    if (isnan(want))
        cr_assert(isnan(got), "%s[%zu]: want NaN, got %.17g", what, t, got);
    else if (isinf(want))
        cr_assert(got == want, "%s[%zu]: want %g, got %.17g", what, t, want, got);
    else
        cr_assert(isfinite(got), "%s[%zu]: want %.17g, got %.17g", what, t, want, got);
}

static double rel_err(double got, double want) {
    const double d = fabs(got - want);
    return want != 0.0 ? d / fabs(want) : d;
}

/* The tolerances of test_kernels.c: bands within 1e-13 of |middle| + 2 sd, and sd within
 * 1e-10 relative, recovered from a second run with nbdev = 2^20. */
static void check_bollinger(apo_runtime *gpu, const double *x, size_t n, size_t period) {
    double *u = malloc(n * sizeof *u), *m = malloc(n * sizeof *m), *l = malloc(n * sizeof *l);
    double *ru = malloc(n * sizeof *ru), *rm = malloc(n * sizeof *rm), *rl = malloc(n * sizeof *rl);
    double *rsd = malloc(n * sizeof *rsd);
    cr_assert(u && m && l && ru && rm && rl && rsd);
    gpu_bollinger(gpu, x, n, period, 2.0, 2.0, u, m, l);
    apo__ref_bollinger(x, n, period, 2.0, 2.0, ru, rm, rl);
    apo__ref_bollinger_sd(x, n, period, rsd);
    double worst = 0.0;
    for (size_t t = 0; t < n; t++) {
        assert_same_class(u[t], ru[t], "upper", t);
        assert_same_class(m[t], rm[t], "middle", t);
        assert_same_class(l[t], rl[t], "lower", t);
        if (!isfinite(ru[t]))
            continue;
        const double scale = fabs(rm[t]) + 2.0 * rsd[t];
        const double e = fmax(fabs(u[t] - ru[t]), fmax(fabs(m[t] - rm[t]), fabs(l[t] - rl[t]))) /
                         (scale > 0.0 ? scale : 1.0);
        worst = fmax(worst, e);
        cr_assert(e <= 1e-13, "gpu bollinger n %zu period %zu t %zu: band error %.3g", n, period, t,
                  e);
    }
    const double big = 1048576.0;
    gpu_bollinger(gpu, x, n, period, big, big, u, m, l);
    for (size_t t = 0; t < n; t++) {
        if (!isfinite(rsd[t]))
            continue;
        const double sd = (u[t] - m[t]) / big;
        cr_assert(rel_err(sd, rsd[t]) <= 1e-10,
                  "gpu bollinger n %zu period %zu t %zu: sd %.17g, want %.17g", n, period, t, sd,
                  rsd[t]);
    }
    fprintf(stderr, "gpu bollinger n=%zu p=%zu: max band rel err %.3g\n", n, period, worst);
    free(u), free(m), free(l), free(ru), free(rm), free(rl), free(rsd);
}

/* The tolerance of test_kernels.c: 1e-11 of the largest |x|. */
static void check_macd(apo_runtime *gpu, const double *x, size_t n, size_t fast, size_t slow,
                       size_t signal) {
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    double *ra = malloc(n * sizeof *ra), *rb = malloc(n * sizeof *rb), *rc = malloc(n * sizeof *rc);
    cr_assert(a && b && c && ra && rb && rc);
    gpu_macd(gpu, x, n, fast, slow, signal, a, b, c);
    apo__ref_macd(x, n, fast, slow, signal, ra, rb, rc);
    double scale = 0.0;
    for (size_t t = 0; t < n; t++)
        if (isfinite(x[t]))
            scale = fmax(scale, fabs(x[t]));
    const double tol = 1e-11 * scale;
    for (size_t t = 0; t < n; t++) {
        assert_same_class(a[t], ra[t], "macd", t);
        assert_same_class(b[t], rb[t], "signal", t);
        assert_same_class(c[t], rc[t], "hist", t);
        if (!isfinite(ra[t]))
            continue;
        const double e = fmax(fabs(a[t] - ra[t]), fmax(fabs(b[t] - rb[t]), fabs(c[t] - rc[t])));
        cr_assert(e <= tol, "gpu macd %zu/%zu/%zu n %zu t %zu: error %.3g > %.3g", fast, slow,
                  signal, n, t, e, tol);
    }
    free(a), free(b), free(c), free(ra), free(rb), free(rc);
}

Test(gpu, bollinger_matches_talib_and_the_long_double_reference, .timeout = 300) {
    apo_runtime *gpu = gpu_runtime_or_skip();
    size_t n;
    double *x = read_talib_close(&n);
    double *u = malloc(n * sizeof *u), *m = malloc(n * sizeof *m), *l = malloc(n * sizeof *l);
    cr_assert(u && m && l);
    gpu_bollinger(gpu, x, n, 20, 2.0, 2.0, u, m, l);
    cr_assert(isnan(u[18]) && isnan(m[18]) && isnan(l[18]), "index 18 must be NaN");
    cr_assert(fabs(u[19] - 98.0734) <= 0.01, "upper[19] = %.6f", u[19]);
    cr_assert(fabs(m[19] - 92.8910) <= 0.01, "middle[19] = %.6f", m[19]);
    cr_assert(fabs(l[19] - 87.7086) <= 0.01, "lower[19] = %.6f", l[19]);
    check_bollinger(gpu, x, n, 20);
    free(u), free(m), free(l), free(x);

    const size_t periods[] = {2, 20, 50, 1000};
    const size_t lengths[] = {4095, 4097, 3 * 16000 + 17, 100003};
    for (size_t pi = 0; pi < 4; pi++) {
        for (size_t li = 0; li < 4; li++) {
            if (periods[pi] > lengths[li])
                continue;
            double *w = malloc(lengths[li] * sizeof *w);
            cr_assert_not_null(w);
            apo__test_random_walk(1000 + periods[pi], lengths[li], 100.0, 0.1, w);
            check_bollinger(gpu, w, lengths[li], periods[pi]);
            free(w);
        }
    }
    apo_runtime_destroy(gpu);
}

Test(gpu, macd_matches_talib_and_the_long_double_reference, .timeout = 300) {
    apo_runtime *gpu = gpu_runtime_or_skip();
    size_t n;
    double *x = read_talib_close(&n);
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    cr_assert(a && b && c);
    gpu_macd(gpu, x, n, 12, 26, 9, a, b, c);
    cr_assert(isnan(a[32]) && isnan(b[32]) && isnan(c[32]), "index 32 must be NaN");
    cr_assert(fabs(a[33] - -1.9738) <= 0.01, "macd[33] = %.6f", a[33]);
    cr_assert(fabs(b[33] - -2.7071) <= 0.01, "signal[33] = %.6f", b[33]);
    cr_assert(fabs(c[33] - 0.7333) <= 0.01, "hist[33] = %.6f", c[33]);
    check_macd(gpu, x, n, 12, 26, 9);
    free(a), free(b), free(c), free(x);

    const size_t params[][3] = {{12, 26, 9}, {2, 3, 1}, {26, 12, 9}, {5, 35, 1}, {3, 10, 16}};
    const size_t lengths[] = {1, 40, 16383, 16385, 4 * 16384 + 3, 100003};
    for (size_t pi = 0; pi < 5; pi++) {
        for (size_t li = 0; li < 6; li++) {
            double *w = malloc(lengths[li] * sizeof *w);
            cr_assert_not_null(w);
            apo__test_random_walk(500 + pi, lengths[li], 100.0, 0.5, w);
            check_macd(gpu, w, lengths[li], params[pi][0], params[pi][1], params[pi][2]);
            free(w);
        }
    }
    apo_runtime_destroy(gpu);
}

/* ---- device-resident arrays ------------------------------------------------------------- */

Test(gpu, device_resident_arrays_give_the_bits_of_host_arrays, .timeout = 600) {
    apo_runtime *gpu = gpu_runtime_or_skip();
    apo_runtime *cpu = runtime_on("cpu", 0);
    const size_t g = first_gpu(gpu);
    /* Placements: both on the GPU, then each side alone. */
    const int placements[][2] = {{1, 1}, {1, 0}, {0, 1}};
    for (size_t ci = 0; ci < N_CASES; ci++) {
        const gcase *c = &cases[ci];
        double *x = walk(c->rows, c->cols, 900 + ci);
        chk_job ref, got;
        jobs_init(&ref, &got, cpu, c, x);
        for (size_t p = 0; p < 3; p++) {
            for (int repeat = 0; repeat < 2; repeat++) {
                const chk_placement at = {g, placements[p][0], placements[p][1], NULL, 0, 0, 0};
                apo_report rep;
                chk_verdict v;
                chk_resident(gpu, &ref, &got, &at, &rep, &v);
                chk_gpus_worked(&rep, &v);
                char what[96];
                snprintf(what, sizeof what, "resident (inputs %s, outputs %s), run %d",
                         placements[p][0] ? "gpu" : "host", placements[p][1] ? "gpu" : "host",
                         repeat + 1);
                assert_verdict(&v, &got, what);
            }
        }
        jobs_free(&ref, &got);
        free(x);
    }
    apo_runtime_destroy(cpu);
    apo_runtime_destroy(gpu);
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
    const apo_gather expect[2] = {APO_GATHER_NCCL, APO_GATHER_PEER};
    apo_runtime *cpu = runtime_on("cpu", 0);
    double ratios[APO_MAX_DEVICES];
    for (size_t i = 0; i < gpus; i++)
        ratios[i] = 1.0;
    const size_t dests[2] = {0, gpus - 1};
    for (size_t ci = 0; ci < N_CASES; ci++) {
        const gcase *c = &cases[ci];
        double *x = walk(c->rows, c->cols, 1300 + ci);
        chk_job ref, got;
        jobs_init(&ref, &got, cpu, c, x);
        for (size_t d = 0; d < 2; d++) {
            for (size_t path = 0; path < 2; path++) {
                const chk_placement at = {dests[d], 0, 1, ratios, gpus, 0, 0};
                apo_report rep;
                chk_verdict v;
                chk_resident(rts[path], &ref, &got, &at, &rep, &v);
                chk_gpus_worked(&rep, &v);
                chk_gather(&rep, dests[d], expect[path], &v);
                char what[96];
                snprintf(what, sizeof what, "outputs on GPU %zu, gather %s", dests[d],
                         path == 0 ? "by NCCL" : "by peer copies");
                assert_verdict(&v, &got, what);
            }
        }
        jobs_free(&ref, &got);
        free(x);
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

/* ---- the memory guard ------------------------------------------------------------------- */

Test(gpu, a_tiny_memory_budget_gives_the_same_bits_in_chunks, .timeout = 600) {
    apo_runtime *probe = gpu_runtime_or_skip();
    apo_runtime_destroy(probe);
    apo_runtime *cpu = runtime_on("cpu", 0);
    /* One GPU, 8 MiB of staging, and workloads of 24 MiB and more of input. */
    apo_runtime *small = runtime_on("cuda:0", 8);
    const gcase guard_cases[] = {
        {"bollinger", 1, 3 * 1048576 + 77, NULL, 0}, {"bollinger", 3, 1000003, "period", 500},
        {"macd", 1, 3 * 1048576 + 77, NULL, 0},      {"macd", 4, 900001, NULL, 0},
        {"returns_stats", 2, 2000003, NULL, 0},
    };
    for (size_t ci = 0; ci < sizeof guard_cases / sizeof guard_cases[0]; ci++) {
        const gcase *c = &guard_cases[ci];
        double *x = walk(c->rows, c->cols, 300 + ci);
        chk_job ref, got;
        jobs_init(&ref, &got, cpu, c, x);
        for (int repeat = 0; repeat < 2; repeat++) {
            apo_report rep;
            chk_verdict v;
            chk_host_run(small, &ref, &got, NULL, 0, APO_SPLIT_AUTO, &rep, &v);
            chk_gpus_worked(&rep, &v);
            chk_staged_in_chunks(&rep, 8, &v);
            assert_verdict(&v, &got, "8 MiB budget");
        }
        /* Device-resident under the same budget. */
        const chk_placement at = {first_gpu(small), 1, 1, NULL, 0, 0, 0};
        apo_report rep;
        chk_verdict v;
        chk_resident(small, &ref, &got, &at, &rep, &v);
        assert_verdict(&v, &got, "8 MiB budget, resident");
        jobs_free(&ref, &got);
        free(x);
    }
    apo_runtime_destroy(small);
    apo_runtime_destroy(cpu);
}

/* ---- large and hostile workloads ------------------------------------------------------- */

/* Host memory this process can still have, in bytes. */
static double host_available_bytes(void) {
    const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (double)pages * (double)page : 0.0;
}

/* Free memory of runtime device g (a GPU), as discovery saw it. */
static double gpu_free_bytes(const apo_runtime *rt, size_t g) {
    apo_device_info info = APO_DEVICE_INFO_INIT;
    cr_assert_eq(apo_device_get(rt, g, &info), APO_OK);
    return (double)info.memory_free_bytes;
}

static void skip_unless_host_has(double bytes, const char *what) {
    const double have = host_available_bytes();
    if (have < bytes)
        cr_skip_test("%s needs %.1f GB of host memory, %.1f GB available", what, bytes * 1e-9,
                     have * 1e-9);
}

/* A job of `kernel` with up to three parameters on input x, its cpu reference, and a job for
 * the side under test. */
static void jobs_with_params(chk_job *ref, chk_job *got, apo_runtime *cpu, const char *kernel,
                             size_t rows, size_t cols, const double *x, const apo_param *params,
                             size_t n_params) {
    chk_verdict v;
    chk_job_init(ref, cpu, kernel, rows, cols, x, params, n_params, 42, &v);
    assert_verdict(&v, ref, "job");
    chk_reference(ref, cpu, &v);
    assert_verdict(&v, ref, "cpu reference");
    chk_job_init_like(got, ref, &v);
    assert_verdict(&v, got, "job");
}

/* Host arrays on the GPU runtime, then arrays in the first GPU's memory (input, outputs, and
 * both) when it has room for them: every run bitwise the cpu's. */
static void host_and_resident_runs(apo_runtime *gpu, const chk_job *ref, chk_job *got,
                                   double device_bytes, const char *what) {
    apo_report rep;
    chk_verdict v;
    char label[160];
    chk_host_run(gpu, ref, got, NULL, 0, APO_SPLIT_AUTO, &rep, &v);
    chk_gpus_worked(&rep, &v);
    snprintf(label, sizeof label, "%s, host arrays", what);
    assert_verdict(&v, got, label);
    const size_t g = first_gpu(gpu);
    if (gpu_free_bytes(gpu, g) < 1.2 * device_bytes) {
        fprintf(stderr, "%s: device-resident runs left out: %.1f GB needed on the GPU\n", what,
                device_bytes * 1e-9);
        return;
    }
    const int placements[][2] = {{1, 1}, {1, 0}, {0, 1}};
    for (size_t p = 0; p < 3; p++) {
        const chk_placement at = {g, placements[p][0], placements[p][1], NULL, 0, 0, 0};
        chk_resident(gpu, ref, got, &at, &rep, &v);
        chk_gpus_worked(&rep, &v);
        snprintf(label, sizeof label, "%s, inputs %s, outputs %s", what,
                 placements[p][0] ? "gpu" : "host", placements[p][1] ? "gpu" : "host");
        assert_verdict(&v, got, label);
    }
}

Test(gpu, a_series_of_1e8_samples_gives_the_cpu_bits, .timeout = 900) {
    const size_t n = 100000000;
    skip_unless_host_has(7 * 8.0 * (double)n, "1e8 samples of bollinger");
    apo_runtime *gpu = gpu_runtime_or_skip();
    apo_runtime *cpu = runtime_on("cpu", 0);
    apo_runtime *mixed = runtime_on("cuda,cpu", 0);
    double *x = walk(1, n, 1e8);
    const char *kernels[] = {"bollinger", "returns_stats"};
    for (size_t k = 0; k < 2; k++) {
        const gcase c = {kernels[k], 1, n, NULL, 0};
        chk_job ref, got;
        jobs_init(&ref, &got, cpu, &c, x);
        const double out_bytes = k == 0 ? 3 * 8.0 * (double)n : 0.0;
        host_and_resident_runs(gpu, &ref, &got, 8.0 * (double)n + out_bytes, kernels[k]);
        /* The GPU beside the cpu, with an uneven split. */
        const size_t nd = device_count(mixed);
        double ratios[APO_MAX_DEVICES];
        for (size_t i = 0; i < nd; i++)
            ratios[i] = device_kind(mixed, i) == APO_DEVICE_CUDA ? 0.7 : 0.3;
        apo_report rep;
        chk_verdict v;
        chk_host_run(mixed, &ref, &got, ratios, nd, APO_SPLIT_TIME, &rep, &v);
        chk_gpus_worked(&rep, &v);
        assert_verdict(&v, &got, "cuda,cpu 0.7/0.3");
        jobs_free(&ref, &got);
    }
    free(x);
    apo_runtime_destroy(mixed);
    apo_runtime_destroy(cpu);
    apo_runtime_destroy(gpu);
}

/* A batch of rows whose element offsets pass 2^31: 520 rows of 4.2 million samples
 * (2.18e9 elements, 17.5 GB). returns_stats keeps the outputs small (five per row), so the
 * host holds the input once. Each row is a different stretch of one walk. */
Test(gpu, element_offsets_past_2_to_the_31_give_the_cpu_bits, .timeout = 900) {
    const size_t rows = 520, cols = 4200000;
    const double elements = (double)rows * (double)cols;
    cr_assert_gt(elements, 2147483648.0);
    skip_unless_host_has(1.1 * 8.0 * elements, "a batch past 2^31 elements");
    apo_runtime *gpu = gpu_runtime_or_skip();
    apo_runtime *cpu = runtime_on("cpu", 0);
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
    apo_runtime_destroy(cpu);
    apo_runtime_destroy(gpu);
}

/* More work items in one launch than 65,535 blocks of 256 threads hold, so every thread's
 * grid-stride loop runs more than once: bootstrap's means, one thread per replicate, with
 * the outputs resident on the GPU (written in place, so a chunk is bounded only by its tile
 * partials: eight chunks of 20 million replicates). */
Test(gpu, grids_past_65535_blocks_give_the_cpu_bits, .timeout = 900) {
    const size_t replicates = 160000000, one_grid = (size_t)65535 * 256;
    skip_unless_host_has(3 * 8.0 * (double)replicates, "160 million bootstrap replicates");
    apo_runtime *probe = gpu_runtime_or_skip();
    apo_runtime_destroy(probe);
    /* One GPU, so that it gets every replicate and the chunks below are its own. */
    apo_runtime *gpu = runtime_on("cuda:0", 0);
    apo_runtime *cpu = runtime_on("cpu", 0);
    double x[2] = {100.0, 100.5};
    const apo_param param = {"replicates", (double)replicates};
    chk_job ref, got;
    jobs_with_params(&ref, &got, cpu, "bootstrap", 1, 2, x, &param, 1);
    const size_t g = first_gpu(gpu);
    if (gpu_free_bytes(gpu, g) < 2.5 * 8.0 * (double)replicates)
        cr_skip_test("the GPU lacks room for 160 million means");
    const chk_placement at = {g, 1, 1, NULL, 0, 0, 0};
    apo_report rep;
    chk_verdict v;
    chk_resident(gpu, &ref, &got, &at, &rep, &v);
    chk_gpus_worked(&rep, &v);
    assert_verdict(&v, &got, "resident, 160 million replicates");
    /* The check must have crossed the grid: the average chunk holds more items than one
     * grid of threads covers. */
    cr_assert_gt(v.chunks, 0);
    cr_assert_gt(replicates / (size_t)v.chunks, one_grid,
                 "%lld chunks of %zu replicates: no launch needed more than 65,535 blocks",
                 (long long)v.chunks, replicates / (size_t)v.chunks);
    jobs_free(&ref, &got);
    apo_runtime_destroy(cpu);
    apo_runtime_destroy(gpu);
}

/* Device-resident calls cut into several chunks by a small budget: one side in GPU memory,
 * the other staged (and, for the outputs, partials staged too). */
Test(gpu, device_resident_calls_of_several_chunks_give_the_cpu_bits, .timeout = 600) {
    apo_runtime *probe = gpu_runtime_or_skip();
    apo_runtime_destroy(probe);
    apo_runtime *cpu = runtime_on("cpu", 0);
    apo_runtime *small = runtime_on("cuda:0", 8);
    const size_t g = first_gpu(small);
    const gcase chunked[] = {{"bollinger", 1, 3 * 1048576 + 77, NULL, 0},
                             {"macd", 4, 900001, NULL, 0},
                             {"returns_stats", 2, 2000003, NULL, 0}};
    for (size_t ci = 0; ci < sizeof chunked / sizeof chunked[0]; ci++) {
        const gcase *c = &chunked[ci];
        double *x = walk(c->rows, c->cols, 4000 + ci);
        chk_job ref, got;
        jobs_init(&ref, &got, cpu, c, x);
        const int placements[][2] = {{1, 0}, {0, 1}};
        for (size_t p = 0; p < 2; p++) {
            /* returns_stats writes no array on the GPU: only its input side can be resident. */
            if (c->kernel[0] == 'r' && placements[p][0] == 0)
                continue;
            const chk_placement at = {g, placements[p][0], placements[p][1], NULL, 0, 0, 0};
            apo_report rep;
            chk_verdict v;
            chk_resident(small, &ref, &got, &at, &rep, &v);
            chk_gpus_worked(&rep, &v);
            chk_staged_in_chunks(&rep, 8, &v);
            char what[96];
            snprintf(what, sizeof what, "8 MiB budget, inputs %s, outputs %s",
                     placements[p][0] ? "gpu" : "host", placements[p][1] ? "gpu" : "host");
            assert_verdict(&v, &got, what);
        }
        jobs_free(&ref, &got);
        free(x);
    }
    apo_runtime_destroy(small);
    apo_runtime_destroy(cpu);
}

/* Samples near the top of the double range, where sums and M2 overflow: bollinger with nbdev 0
 * makes 0 * inf, returns_stats merges infinite partials, macd's EMAs overflow. The NaNs that
 * arithmetic makes must have the CPU's bits (kernels/common/apo_hd.h canonicalises them). */
Test(gpu, huge_magnitudes_and_nbdev_0_give_the_cpu_bits, .timeout = 300) {
    apo_runtime *gpu = gpu_runtime_or_skip();
    apo_runtime *cpu = runtime_on("cpu", 0);
    const size_t rows = 3, cols = 3 * 8192 + 5;
    double *x = walk(rows, cols, 777);
    for (size_t t = 0; t < cols; t++) {
        x[t] = (t % 2 == 0 ? 1e300 : -1e300) * (1.0 + (double)(t % 7) * 1e-3);
        x[cols + t] = (t % 2 == 0 ? 1.5e308 : 1.6e308);
    }
    /* Row 2: a walk with two returns of 1.5e308 in its first returns_stats tile (their sum,
     * and so the tile's mean, overflow to +inf) and two of -1.5e308 in its second (-inf):
     * the merge of the two is inf - inf. */
    double *row2 = x + 2 * cols;
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
        jobs_with_params(&ref, &got, cpu, runs[i].kernel, rows, cols, x, runs[i].params,
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
        host_and_resident_runs(gpu, &ref, &got, 4 * 8.0 * (double)(rows * cols), what);
        jobs_free(&ref, &got);
    }
    free(x);
    apo_runtime_destroy(cpu);
    apo_runtime_destroy(gpu);
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
        const gcase *c = &cases[ci];
        double *x = walk(c->rows, c->cols, 2200 + ci);
        chk_job ref, got;
        jobs_init(&ref, &got, cpu, c, x);
        apo_report rep;
        chk_verdict v;
        chk_host_run(gpu, &ref, &got, ratios, gpus, APO_SPLIT_TIME, &rep, &v);
        chk_gpus_worked(&rep, &v);
        assert_verdict(&v, &got, "host arrays over every GPU");
        const size_t ends[2][2] = {{0, last}, {last, 0}};
        for (size_t e = 0; e < 2; e++) {
            const chk_placement at = {ends[e][0], 1, 1, ratios, gpus, 1, ends[e][1]};
            chk_resident(gpu, &ref, &got, &at, &rep, &v);
            chk_gpus_worked(&rep, &v);
            char what[96];
            snprintf(what, sizeof what, "inputs on GPU %zu, outputs on GPU %zu", ends[e][0],
                     ends[e][1]);
            assert_verdict(&v, &got, what);
        }
        jobs_free(&ref, &got);
        free(x);
    }
    apo_runtime_destroy(cpu);
    apo_runtime_destroy(gpu);
}

/* Host arrays pinned with apo_cuda_host_register are copied straight: no staging copy is
 * made (host_copy_ms is 0 for bollinger, which has no partials), and the bits are the same.
 * Released, the same arrays are staged again. */
Test(gpu, registered_host_arrays_are_copied_straight, .timeout = 300) {
    apo_runtime *probe = gpu_runtime_or_skip();
    apo_runtime_destroy(probe);
    apo_runtime *cpu = runtime_on("cpu", 0);
    apo_runtime *one = runtime_on("cuda:0", 0);
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
    apo_report rep;
    chk_verdict v;
    chk_host_run(one, &ref, &got, NULL, 0, APO_SPLIT_AUTO, &rep, &v);
    chk_gpu_computed_all(&rep, &v);
    assert_verdict(&v, &got, "pinned host arrays");
    cr_assert_eq(rep.devices[first_gpu(one)].host_copy_ms, 0.0,
                 "pinned arrays were staged: %g ms of host copies",
                 rep.devices[first_gpu(one)].host_copy_ms);
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(apo_cuda_host_unregister(one, ranges[i]), APO_OK, "%s", apo_last_error());
    cr_assert_eq(apo_cuda_host_unregister(one, ranges[0]), APO_ERR_NOT_FOUND);
    chk_host_run(one, &ref, &got, NULL, 0, APO_SPLIT_AUTO, &rep, &v);
    chk_gpu_computed_all(&rep, &v);
    assert_verdict(&v, &got, "the same arrays, staged");
    cr_assert_gt(rep.devices[first_gpu(one)].host_copy_ms, 0.0, "staged, yet no host copy");
    /* A range left registered is released with the runtime. */
    cr_assert_eq(apo_cuda_host_register(one, ranges[0], bytes[0]), APO_OK);
    apo_runtime_destroy(one);
    jobs_free(&ref, &got);
    free(x);
    apo_runtime_destroy(cpu);
}

#ifdef APO_TEST_CUDA_RUNTIME
/* ---- as a CUDA caller: ordering and the current device --------------------------------- */

/* The CUDA ordinal of a GPU of the runtime, found by its UUID (the runtime may number GPUs
 * by PCI bus id, CUDA fastest first). */
static int cuda_ordinal_of(const apo_runtime *rt, size_t g) {
    apo_device_info info = APO_DEVICE_INFO_INIT;
    cr_assert_eq(apo_device_get(rt, g, &info), APO_OK);
    int count = 0;
    cr_assert_eq(cudaGetDeviceCount(&count), cudaSuccess);
    for (int i = 0; i < count; i++) {
        struct cudaDeviceProp prop;
        cr_assert_eq(cudaGetDeviceProperties(&prop, i), cudaSuccess);
        const unsigned char *u = (const unsigned char *)prop.uuid.bytes;
        char id[64];
        snprintf(id, sizeof id,
                 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0],
                 u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13],
                 u[14], u[15]);
        if (strcmp(id, info.id) == 0)
            return i;
    }
    cr_assert_fail("GPU %s not found by CUDA", info.id);
    return -1;
}

/* Holds a stream for a fifth of a second: the work queued behind it runs late. */
static void CUDART_CB hold_stream(void *unused) {
    (void)unused;
    const struct timespec t = {0, 200000000};
    nanosleep(&t, NULL);
}

enum { ORDER_STREAM, ORDER_EVENT, ORDER_DEFAULT_STREAM };

/* The input reaches the GPU on the caller's stream, behind a fifth of a second of other
 * work; the call must read it only after that: on the caller's stream, after the caller's
 * event, or, with neither, after the legacy default stream (the caller's stream is then a
 * blocking one, which the default stream waits for). A call that read too early reads the
 * poison left in the input and cannot give the cpu's bits. */
Test(gpu, a_call_comes_after_the_callers_work_on_its_arrays, .timeout = 300) {
    apo_runtime *gpu = gpu_runtime_or_skip();
    apo_runtime *cpu = runtime_on("cpu", 0);
    const size_t g = first_gpu(gpu);
    const int ordinal = cuda_ordinal_of(gpu, g);
    const gcase c = {"bollinger", 1, 2000003, NULL, 0};
    double *x = walk(c.rows, c.cols, 6060);
    chk_job ref, got;
    jobs_init(&ref, &got, cpu, &c, x);
    const size_t bytes = c.cols * sizeof(double);
    double *pinned = NULL, *dev_in = NULL;
    cr_assert_eq(cudaSetDevice(ordinal), cudaSuccess);
    cr_assert_eq(cudaMallocHost((void **)&pinned, bytes), cudaSuccess);
    memcpy(pinned, x, bytes);
    cr_assert_eq(apo_cuda_malloc(gpu, g, bytes, (void **)&dev_in), APO_OK);
    for (int mode = ORDER_STREAM; mode <= ORDER_DEFAULT_STREAM; mode++) {
        cudaStream_t stream = NULL;
        cudaEvent_t event = NULL;
        cr_assert_eq(cudaSetDevice(ordinal), cudaSuccess);
        cr_assert_eq(cudaMemset(dev_in, 0xff, bytes), cudaSuccess); /* NaN poison */
        cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
        cr_assert_eq(cudaStreamCreateWithFlags(&stream, mode == ORDER_DEFAULT_STREAM
                                                            ? cudaStreamDefault
                                                            : cudaStreamNonBlocking),
                     cudaSuccess);
        cr_assert_eq(cudaLaunchHostFunc(stream, hold_stream, NULL), cudaSuccess);
        cr_assert_eq(cudaMemcpyAsync(dev_in, pinned, bytes, cudaMemcpyHostToDevice, stream),
                     cudaSuccess);
        apo_cuda_placement where = APO_CUDA_PLACEMENT_INIT;
        where.inputs_device = (int)g;
        if (mode == ORDER_STREAM)
            where.stream = stream;
        if (mode == ORDER_EVENT) {
            cr_assert_eq(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), cudaSuccess);
            cr_assert_eq(cudaEventRecord(event, stream), cudaSuccess);
            where.wait_event = event;
        }
        for (size_t o = 0; o < got.w.n_outputs; o++)
            memset(got.out[o], 0xff, got.len[o] * sizeof(double)); /* unwritten: no match */
        const double *in[1] = {dev_in};
        apo_workload w = got.w;
        w.inputs = in;
        apo_report rep = APO_REPORT_INIT;
        cr_assert_eq(apo_distribute_workload_cuda(gpu, &w, &where, &rep), APO_OK, "%s",
                     apo_last_error());
        chk_verdict v;
        chk_verdict_init(&v);
        for (size_t o = 0; o < ref.w.n_outputs && v.result == CHK_PASS; o++)
            if (memcmp(ref.out[o], got.out[o], ref.len[o] * sizeof(double)) != 0)
                chk_verdict_set(&v, CHK_FAIL, "output %zu differs: the call read the input early",
                                o);
        const char *names[] = {"the caller's stream", "the caller's event",
                               "the legacy default stream"};
        assert_verdict(&v, &got, names[mode]);
        cr_assert_eq(cudaStreamSynchronize(stream), cudaSuccess);
        cr_assert_eq(cudaStreamDestroy(stream), cudaSuccess);
        if (event != NULL)
            cr_assert_eq(cudaEventDestroy(event), cudaSuccess);
    }
    cr_assert_eq(apo_cuda_free(gpu, g, dev_in), APO_OK);
    cr_assert_eq(cudaFreeHost(pinned), cudaSuccess);
    jobs_free(&ref, &got);
    free(x);
    apo_runtime_destroy(cpu);
    apo_runtime_destroy(gpu);
}

/* apo_cuda_memcpy returns once the bytes have landed, even for a device-to-device copy, which
 * cudaMemcpy alone does not wait for: a read on a stream that does not synchronise with the
 * default stream must see them all. */
Test(gpu, apo_cuda_memcpy_has_landed_when_it_returns, .timeout = 120) {
    apo_runtime *gpu = gpu_runtime_or_skip();
    const size_t g = first_gpu(gpu);
    const int ordinal = cuda_ordinal_of(gpu, g);
    const size_t bytes = (size_t)1 << 30;
    if (gpu_free_bytes(gpu, g) < 3.0 * (double)bytes)
        cr_skip_test("the GPU lacks 3 GiB");
    unsigned char *host = NULL;
    void *a = NULL, *b = NULL;
    cr_assert_eq(cudaSetDevice(ordinal), cudaSuccess);
    cr_assert_eq(cudaMallocHost((void **)&host, bytes), cudaSuccess);
    cr_assert_eq(apo_cuda_malloc(gpu, g, bytes, &a), APO_OK);
    cr_assert_eq(apo_cuda_malloc(gpu, g, bytes, &b), APO_OK);
    for (int round = 0; round < 3; round++) {
        const int fill = 0x11 * (round + 1);
        cr_assert_eq(cudaMemset(a, fill, bytes), cudaSuccess);
        cr_assert_eq(cudaMemset(b, 0, bytes), cudaSuccess);
        cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
        cr_assert_eq(apo_cuda_memcpy(gpu, g, b, a, bytes, APO_COPY_DEVICE_TO_DEVICE), APO_OK);
        cudaStream_t s;
        cr_assert_eq(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
        cr_assert_eq(cudaMemcpyAsync(host, b, bytes, cudaMemcpyDeviceToHost, s), cudaSuccess);
        cr_assert_eq(cudaStreamSynchronize(s), cudaSuccess);
        cr_assert_eq(cudaStreamDestroy(s), cudaSuccess);
        for (size_t i = 0; i < bytes; i += 4093)
            cr_assert_eq(host[i], fill, "round %d byte %zu: %d, not %d", round, i, host[i], fill);
    }
    cr_assert_eq(apo_cuda_free(gpu, g, a), APO_OK);
    cr_assert_eq(apo_cuda_free(gpu, g, b), APO_OK);
    cr_assert_eq(cudaFreeHost(host), cudaSuccess);
    apo_runtime_destroy(gpu);
}

static void assert_current_device(int want, const char *after) {
    int now = -1;
    cr_assert_eq(cudaGetDevice(&now), cudaSuccess);
    cr_assert_eq(now, want, "after %s the current device is %d, not the caller's %d", after, now,
                 want);
}

/* apportion_cuda.h: no call changes the calling thread's current CUDA device. With the last
 * GPU current (never the one discovery or a call would leave current by accident): runtime
 * creation (discovery), host and resident calls, the gather, the interop calls, destruction. */
Test(gpu, no_call_changes_the_calling_threads_current_device, .timeout = 600) {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count < 2)
        cr_skip_test("%d GPU(s): the current device can only be seen to change with two", count);
    const int mine = count - 1;
    cr_assert_eq(cudaSetDevice(mine), cudaSuccess);
    apo_runtime *gpu = NULL;
    cr_assert_eq(chk_runtime("cuda", APO_USE_GPU_YES, 0, APO_SWITCH_UNSET, &gpu), APO_OK);
    assert_current_device(mine, "apo_runtime_create");
    apo_runtime *cpu = runtime_on("cpu", 0);
    size_t gpus = 0;
    apo_gpu_count(gpu, &gpus);
    double ratios[APO_MAX_DEVICES];
    for (size_t i = 0; i < APO_MAX_DEVICES; i++)
        ratios[i] = 1.0;
    const gcase c = {"returns_stats", 3, 50001, NULL, 0};
    double *x = walk(c.rows, c.cols, 31);
    chk_job ref, got;
    jobs_init(&ref, &got, cpu, &c, x);
    apo_report rep;
    chk_verdict v;
    chk_host_run(gpu, &ref, &got, ratios, gpus, APO_SPLIT_TIME, &rep, &v);
    assert_verdict(&v, &got, "host arrays");
    assert_current_device(mine, "a call on host arrays");
    const gcase b = {"bollinger", 3, 50001, NULL, 0};
    chk_job bref, bgot;
    jobs_init(&bref, &bgot, cpu, &b, x);
    const chk_placement at = {0, 1, 1, ratios, gpus, 0, 0};
    chk_resident(gpu, &bref, &bgot, &at, &rep, &v);
    assert_verdict(&v, &bgot, "resident, gathered on the first GPU");
    assert_current_device(mine, "a resident call, its gather and the interop calls");
    apo_runtime_destroy(gpu);
    assert_current_device(mine, "apo_runtime_destroy");
    jobs_free(&ref, &got);
    jobs_free(&bref, &bgot);
    free(x);
    apo_runtime_destroy(cpu);
}
#endif

/* ---- main: exit 77 (skip) without a GPU, 1 when one is required ----------------------- */

int main(int argc, char *argv[]) {
    /* A GPU required by the environment (APPORTION_USE_GPU=yes) must not be skipped: the
     * runtime refuses to start without one, and so does the suite. */
    apo_runtime *required = NULL;
    apo_status st = chk_runtime("cuda", APO_USE_GPU_UNSET, 0, APO_SWITCH_UNSET, &required);
    if (st == APO_ERR_GPU_REQUIRED) {
        fprintf(stderr, "test_gpu: FAILED: a GPU is required but none is usable: %s (%s)\n",
                apo_last_error(), apo_status_name(st));
        return 1;
    }
    apo_runtime_destroy(required);
    char why[1024];
    const size_t gpus = probe_gpus(why, sizeof why);
    if (gpus == (size_t)-1) {
        fprintf(stderr, "test_gpu: cannot create a runtime on \"cuda\": %s\n", why);
        return 1;
    }
    if (gpus == 0) {
        fprintf(stderr, "test_gpu: skipped: no usable GPU (%s)\n",
                why[0] != '\0' ? why : "no reason given");
        return 77;
    }
    struct criterion_test_set *tests = criterion_initialize();
    int result = 0;
    if (criterion_handle_args(argc, argv, true))
        result = !criterion_run_all_tests(tests);
    criterion_finalize(tests);
    return result;
}
