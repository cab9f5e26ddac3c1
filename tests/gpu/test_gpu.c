/*
 * The gpu suite, host arrays: the determinism contract and the kernels' accuracy on the CUDA
 * backend.
 *
 * Every built-in kernel, and rsi and dema (catalog recurrences whose tiles the GPU cuts into
 * pieces: kernels/cuda/cut.cu), runs on "cuda" alone and on "cuda,cpu" with several explicit ratios
 * (both split axes, odd sizes, rows > 1), twice each, and must give the bits of the run on
 * "cpu" alone (guarantees 1 to 3 of docs/determinism.md). Sweeps and ragged rows on cuda,cpu
 * give the bits of the cpu alone, and so do non-finite and constant inputs. Bollinger and
 * MACD computed on the GPU are also checked against the long-double references of
 * tests/common/reference.h within the tolerances of the CPU suite
 * (tests/kernels/test_kernels.c) and against TA-Lib's regression values.
 *
 * The runs and their judgements are the GPU checks of checks/gpu_checks.h, which
 * `apportion selftest` runs too; each case here sets up its workloads, calls the checks and
 * asserts on their verdicts. The accuracy references and TA-Lib's values stay here.
 *
 * The other files of the suite: test_gpu_resident.c (device-resident arrays, several GPUs,
 * memory budgets and large workloads) and test_gpu_caller.c (acting as a CUDA caller). Only
 * the public headers are used, plus the test references and the checks; the shared setup
 * and main are in gpu_fixtures.c: without a usable GPU the executable exits 77 (SKIP)
 * before Criterion starts, unless a GPU is required (APPORTION_USE_GPU=yes): then it fails.
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
#include "helpers.h"
#include "reference.h"

/* ---- guarantees 1 to 3 ------------------------------------------------------------------ */

Test(gpu, every_kernel_on_cuda_alone_is_bitwise_the_cpu, .timeout = 600) {
    apo_runtime *cpu, *gpu;
    open_runtimes(&cpu, &gpu, NULL, 0);
    for (size_t ci = 0; ci < N_CASES; ci++) {
        case_jobs cj;
        case_jobs_open(&cj, cpu, &cases[ci], 7 + ci);
        const apo_split splits[] = {APO_SPLIT_AUTO, APO_SPLIT_ROWS, APO_SPLIT_TIME};
        for (size_t si = 0; si < 3; si++) {
            for (int repeat = 0; repeat < 2; repeat++) {
                const run_how how = {.split = splits[si], .then = chk_gpus_worked};
                assert_run(gpu, &cj.ref, &cj.got, &how, NULL, "cuda alone, split %s, run %d",
                           apo_split_name(splits[si]), repeat + 1);
            }
        }
        case_jobs_close(&cj);
    }
    close_runtimes(cpu, gpu);
}

/* Ratios {gpu share, cpu share}; several GPUs divide the GPU share equally. */
static const double ratio_sets[][2] = {{1, 0}, {0, 1}, {0.3, 0.7}, {0.9, 0.1}, {0.5, 0.5}};

Test(gpu, cuda_and_cpu_with_explicit_ratios_give_the_cpu_bits, .timeout = 600) {
    apo_runtime *cpu, *mixed;
    open_runtimes(&cpu, &mixed, "cuda,cpu", 0);
    const size_t n = device_count(mixed);
    size_t gpus = 0;
    cr_assert_eq(apo_gpu_count(mixed, &gpus), APO_OK);
    cr_assert_gt(gpus, 0);
    for (size_t ci = 0; ci < N_CASES; ci++) {
        case_jobs cj;
        case_jobs_open(&cj, cpu, &cases[ci], 100 + ci);
        for (size_t ri = 0; ri < sizeof ratio_sets / sizeof ratio_sets[0]; ri++) {
            double ratios[APO_MAX_DEVICES];
            ratios_by_kind(mixed, ratio_sets[ri][0] / (double)gpus, ratio_sets[ri][1], ratios);
            const apo_split splits[] = {APO_SPLIT_ROWS, APO_SPLIT_TIME};
            for (size_t si = 0; si < 2; si++) {
                for (int repeat = 0; repeat < 2; repeat++) {
                    const run_how how = {ratios, n, splits[si], NULL, chk_no_device_failed};
                    assert_run(mixed, &cj.ref, &cj.got, &how, NULL,
                               "cuda,cpu ratios %g/%g, split %s, run %d", ratio_sets[ri][0],
                               ratio_sets[ri][1], apo_split_name(splits[si]), repeat + 1);
                }
            }
        }
        /* And the runtime's own planning (equal shares before any model). */
        const run_how planned = {.split = APO_SPLIT_AUTO};
        assert_run(mixed, &cj.ref, &cj.got, &planned, NULL, "cuda,cpu planned");
        case_jobs_close(&cj);
    }
    close_runtimes(cpu, mixed);
}

/* ---- sweeps and ragged rows ------------------------------------------------------------- */

/* Runs w, a call of the sweep, ragged and scored cases (test_workload() with its sweep,
 * row lengths, rule and ratios), on rt into n_out freshly poisoned outputs (their lengths in
 * len); returns the tiles its GPUs computed. */
static uint64_t run_pieces(apo_runtime *rt, apo_workload w, size_t n_out, double **out,
                           size_t *len) {
    w.outputs = out;
    w.n_outputs = n_out;
    for (size_t o = 0; o < n_out; o++)
        out[o] = poisoned_output(rt, &w, o, &len[o]);
    apo_report rep = APO_REPORT_INIT;
    cr_assert_eq(apo_distribute_workload(rt, &w, &rep), APO_OK, "%s: %s", w.kernel,
                 apo_last_error());
    return gpu_tiles_of(&rep);
}

/* A sweep's sets and ragged rows reach a GPU as calls of one set or one row (worker_pool.c);
 * whatever share the GPU takes, every output is the bits of the cpu alone, which
 * test_sweep.c and test_ragged.c tie to the per-set and per-series calls. */
Test(gpu, sweeps_and_ragged_rows_give_the_cpu_bits, .timeout = 600) {
    apo_runtime *cpu, *mixed;
    open_runtimes(&cpu, &mixed, "cuda,cpu", 0);
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
    const double *in[1] = {x};
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
        apo_workload w = test_workload(cases_[c].kernel, rows, cols, in, 1, NULL, 0);
        w.sweep = cases_[c].sweep;
        w.row_lengths = cases_[c].lengths;
        (void)run_pieces(cpu, w, 3, ref, ref_len);
        for (size_t ri = 0; ri < sizeof ratio_sets / sizeof ratio_sets[0]; ri++) {
            double ratios[APO_MAX_DEVICES];
            ratios_by_kind(mixed, ratio_sets[ri][0], ratio_sets[ri][1], ratios);
            w.ratios = ratios;
            w.n_ratios = n;
            (void)run_pieces(mixed, w, 3, got, got_len);
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
    close_runtimes(cpu, mixed);
}

/* ---- scored sweeps ------------------------------------------------------------------------ */

/* A user's rule: long above bollinger's middle band, short below it. */
static int user_rule_long_above_middle(const double *inputs, const double *outputs, int prev,
                                       void *user) {
    (void)prev, (void)user;
    return inputs[0] > outputs[1] ? 1 : -1;
}

/* A scored sweep's consecutive sets reach a GPU as one task whatever their passes, in one
 * launch (worker_pool.c, cuda_pipeline.c, apo__cuda_scored_mixed); the GPU scores each series
 * from its samples with the CPU's tile bodies and fold (kernels/scores/scored.cu), every set of
 * a group from one copy of the inputs, and only the scores come back: whatever share it takes,
 * and when it takes all, the scores are the cpu's bits. Every sweep here has sets of two
 * periods (macd's: fast ones), so its group holds two passes; the last has six sets (three
 * widths by two costs) for each period and twelve in all, so a GPU's share may cut a group:
 * its sets then run alone. A user's rule is the process's function: the GPU takes none of it.
 * (That a group's inputs go over once is test_gpu_faults.c's, where the simulated runtime
 * counts the bytes.) */
Test(gpu, scored_sweeps_give_the_cpu_scores_with_a_gpu_share, .timeout = 900) {
    apo_runtime *cpu, *mixed;
    open_runtimes(&cpu, &mixed, "cuda,cpu", 0);
    const size_t n = device_count(mixed);
    const size_t rows = 3, cols = 20011;
    double *x = walk(rows, cols, 901);
    for (size_t t = 9000; t < 9030; t++)
        x[cols + t] = NAN;
    x[2 * cols + 777] = NAN;
    const double *in[1] = {x};
    const double periods[] = {5, 20}, widths[] = {1, 2.5}, rsi_periods[] = {7, 14},
                 costs[] = {0, 0.001}, fasts[] = {12, 40}, three_widths[] = {1, 1.5, 2.5};
    const apo_sweep_param bands[] = {{"period", periods, 2}, {"nbdev_up", widths, 2}};
    const apo_sweep_param rsi_grid[] = {{"timeperiod", rsi_periods, 2}, {"cost", costs, 2}};
    const apo_sweep_param macd_grid[] = {{"fast", fasts, 2}};
    const apo_sweep_param sma_grid[] = {{"timeperiod", periods, 2}};
    const apo_sweep_param shared_grid[] = {
        {"period", periods, 2}, {"nbdev_up", three_widths, 3}, {"cost", costs, 2}};
    apo_sweep sweeps[5] = {APO_SWEEP_INIT, APO_SWEEP_INIT, APO_SWEEP_INIT, APO_SWEEP_INIT,
                           APO_SWEEP_INIT};
    sweeps[0].grid = bands;
    sweeps[0].n_grid = 2;
    sweeps[1].grid = rsi_grid;
    sweeps[1].n_grid = 2;
    sweeps[2].grid = macd_grid;
    sweeps[2].n_grid = 1;
    sweeps[3].grid = sma_grid;
    sweeps[3].n_grid = 1;
    sweeps[4].grid = shared_grid;
    sweeps[4].n_grid = 3;
    const struct {
        const char *kernel, *rule;
        const apo_sweep *sweep;
    } cases_[] = {{"bollinger", "bands_revert", &sweeps[0]},
                  {"rsi", "rsi_zone", &sweeps[1]},
                  {"macd", "macd_cross", &sweeps[2]},
                  {"sma", "price_cross", &sweeps[3]},
                  {"bollinger", "bands_zone", &sweeps[4]}};
    /* GPU shares: all of it, and parts beside the cpu (0.3 cuts a group of the last sweep). */
    const double gpu_shares[] = {1.0, 0.5, 0.3};
    for (size_t c = 0; c < sizeof cases_ / sizeof cases_[0]; c++) {
        double *ref[APO_N_SCORES], *got[APO_N_SCORES];
        size_t len[APO_N_SCORES], got_len[APO_N_SCORES];
        apo_workload w = test_workload(cases_[c].kernel, rows, cols, in, 1, NULL, 0);
        w.score = cases_[c].rule;
        w.sweep = cases_[c].sweep;
        (void)run_pieces(cpu, w, APO_N_SCORES, ref, len);
        for (size_t si = 0; si < sizeof gpu_shares / sizeof gpu_shares[0]; si++) {
            double ratios[APO_MAX_DEVICES];
            ratios_by_kind(mixed, gpu_shares[si], 1.0 - gpu_shares[si], ratios);
            w.ratios = ratios;
            w.n_ratios = n;
            const uint64_t gpu_tiles = run_pieces(mixed, w, APO_N_SCORES, got, got_len);
            cr_expect(gpu_tiles > 0, "%s:%s, GPU share %g: the GPU scored no series",
                      cases_[c].kernel, cases_[c].rule, gpu_shares[si]);
            for (size_t k = 0; k < APO_N_SCORES; k++) {
                cr_assert_eq(got_len[k], len[k]);
                cr_expect_eq(memcmp(got[k], ref[k], len[k] * sizeof(double)), 0,
                             "%s:%s, GPU share %g: score %zu differs from the cpu's",
                             cases_[c].kernel, cases_[c].rule, gpu_shares[si], k);
                free(got[k]);
            }
        }
        for (size_t k = 0; k < APO_N_SCORES; k++)
            free(ref[k]);
    }

    /* A user's rule: planned by the runtime on cuda,cpu, the cpu scores every series. */
    apo_rule_desc d = APO_RULE_DESC_INIT;
    d.name = "above_middle";
    d.kernel = "bollinger";
    d.fn = user_rule_long_above_middle;
    cr_assert_eq(apo_rule_register(mixed, &d), APO_OK, "%s", apo_last_error());
    double *scores[APO_N_SCORES];
    size_t len[APO_N_SCORES];
    apo_workload user = test_workload("bollinger", rows, cols, in, 1, NULL, 0);
    user.score = "above_middle";
    user.sweep = &sweeps[0];
    cr_expect_eq(run_pieces(mixed, user, APO_N_SCORES, scores, len), 0,
                 "the GPU scored series of a user's rule");
    for (size_t k = 0; k < APO_N_SCORES; k++)
        free(scores[k]);
    free(x);
    close_runtimes(cpu, mixed);
}

/* Inputs with NaN, infinities and constant stretches: the non-finite policies and the
 * exact constant windows of the CPU kernels (tested in test_kernels.c) hold on the GPU
 * because the bits are the same. */
Test(gpu, nonfinite_and_constant_inputs_give_the_cpu_bits, .timeout = 300) {
    walk_case w;
    walk_case_open(&w, 2, 3 * 16384 + 11, 555);
    w.x[17] = NAN;
    w.x[4096] = INFINITY;
    w.x[4100] = -INFINITY;
    w.x[9000] = NAN;
    for (size_t t = 20000; t < 20500; t++)
        w.x[t] = 0.1;
    w.x[w.cols + 5] = -INFINITY;
    for (size_t t = w.cols + 30000; t < w.cols + 30100; t++)
        w.x[t] = 123.25;
    const char *kernels[] = {"bollinger", "macd", "returns_stats", "bootstrap"};
    for (size_t k = 0; k < 4; k++) {
        gcase c = {kernels[k], w.rows, w.cols, NULL, 0};
        if (strcmp(kernels[k], "bootstrap") == 0) {
            c.param = "replicates";
            c.value = 16;
        }
        chk_job ref, got;
        jobs_init(&ref, &got, w.cpu, &c, w.x);
        const run_how how = {.split = APO_SPLIT_TIME};
        assert_run(w.gpu, &ref, &got, &how, NULL, "non-finite input");
        jobs_free(&ref, &got);
    }
    walk_case_close(&w);
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
    double *const out[3] = {o0, o1, o2};
    apo_workload w = test_workload(kernel, 1, n, in, 1, out, 3);
    w.params = params;
    w.n_params = 3;
    apo_report rep = APO_REPORT_INIT;
    cr_assert_eq(apo_distribute_workload(gpu, &w, &rep), APO_OK, "%s", apo_last_error());
    chk_verdict v;
    chk_verdict_init(&v);
    chk_gpus_worked(&rep, &v);
    assert_verdict(&v, NULL, kernel);
}

/* TA-Lib's regression values of a three-output indicator on its 252 closes x: every output NaN
 * at index nan_at, and want[k] (to 0.01) for output k, named names[k], at the next index. */
static void assert_talib_values(apo_runtime *gpu, const char *kernel, const apo_param params[3],
                                const double *x, size_t n, size_t nan_at,
                                const char *const names[3], const double want[3]) {
    double *out = malloc(3 * n * sizeof *out);
    cr_assert_not_null(out);
    gpu_indicator(gpu, kernel, params, x, n, out, out + n, out + 2 * n);
    cr_assert(isnan(out[nan_at]) && isnan(out[n + nan_at]) && isnan(out[2 * n + nan_at]),
              "index %zu must be NaN", nan_at);
    for (size_t k = 0; k < 3; k++)
        cr_assert(fabs(out[k * n + nan_at + 1] - want[k]) <= 0.01, "%s[%zu] = %.6f", names[k],
                  nan_at + 1, out[k * n + nan_at + 1]);
    free(out);
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

/* A seeded walk of n samples from 100 by steps of `step`: the accuracy cases' inputs. */
static double *accuracy_walk(uint64_t seed, size_t n, double step) {
    double *w = malloc(n * sizeof *w);
    cr_assert_not_null(w);
    apo__test_random_walk(seed, n, 100.0, step, w);
    return w;
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
    const apo_param talib_params[] = {{"period", 20}, {"nbdev_up", 2.0}, {"nbdev_dn", 2.0}};
    const char *const names[] = {"upper", "middle", "lower"};
    const double want[] = {98.0734, 92.8910, 87.7086};
    assert_talib_values(gpu, "bollinger", talib_params, x, n, 18, names, want);
    check_bollinger(gpu, x, n, 20);
    free(x);

    const size_t periods[] = {2, 20, 50, 1000};
    const size_t lengths[] = {4095, 4097, 3 * 16000 + 17, 100003};
    for (size_t pi = 0; pi < 4; pi++) {
        for (size_t li = 0; li < 4; li++) {
            if (periods[pi] > lengths[li])
                continue;
            double *w = accuracy_walk(1000 + periods[pi], lengths[li], 0.1);
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
    const apo_param talib_params[] = {{"fast", 12}, {"slow", 26}, {"signal", 9}};
    const char *const names[] = {"macd", "signal", "hist"};
    const double want[] = {-1.9738, -2.7071, 0.7333};
    assert_talib_values(gpu, "macd", talib_params, x, n, 32, names, want);
    check_macd(gpu, x, n, 12, 26, 9);
    free(x);

    const size_t params[][3] = {{12, 26, 9}, {2, 3, 1}, {26, 12, 9}, {5, 35, 1}, {3, 10, 16}};
    const size_t lengths[] = {1, 40, 16383, 16385, 4 * 16384 + 3, 100003};
    for (size_t pi = 0; pi < 5; pi++) {
        for (size_t li = 0; li < 6; li++) {
            double *w = accuracy_walk(500 + pi, lengths[li], 0.5);
            check_macd(gpu, w, lengths[li], params[pi][0], params[pi][1], params[pi][2]);
            free(w);
        }
    }
    apo_runtime_destroy(gpu);
}
