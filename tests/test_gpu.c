/*
 * The gpu suite: the determinism contract and the kernels' accuracy on the CUDA backend.
 *
 * Every built-in kernel runs on "cuda" alone and on "cuda,cpu" with several explicit ratios
 * (both split axes, odd sizes, rows > 1), twice each, and must give the bits of the run on
 * "cpu" alone (guarantees 1 to 3 of docs/determinism.md). Bollinger and MACD computed on
 * the GPU are also checked against the long-double references of tests/reference.h within
 * the tolerances of the CPU suite (tests/test_kernels.c) and against TA-Lib's regression
 * values. Device-resident inputs and outputs (apportion_cuda.h) must give the bits of host
 * arrays, and a tiny GPU memory budget must give the same bits in several chunks.
 *
 * The runs and their judgements are the GPU checks of checks/gpu_checks.h, which
 * `apportion selftest` runs too; each case here sets up its workloads, calls the checks and
 * asserts on their verdicts. The accuracy references and TA-Lib's values stay here.
 *
 * Only the public headers are used, plus the test references and the checks. Without a
 * usable GPU the executable exits 77 before Criterion starts, which meson reports as SKIP;
 * every case also skips on its own when the runtime finds no GPU, so a case run alone
 * behaves too.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    const char *path = APO_TEST_DATA_DIR "/talib_close252.f64";
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
                const chk_placement at = {g, placements[p][0], placements[p][1], NULL, 0};
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
                const chk_placement at = {dests[d], 0, 1, ratios, gpus};
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
        const chk_placement at = {first_gpu(small), 1, 1, NULL, 0};
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
