/*
 * test_kernels.c: the CPU kernels against independent long-double references, TA-Lib's
 * regression values, Random123's known answers, and the tile-order determinism contract.
 *
 * Inputs are seeded random walks (tests/common/reference.h), so every case is reproducible.
 * Measured worst errors are printed on stderr; docs/kernels.md quotes them.
 *
 * Bootstrap, Philox and the seeded walk are in test_kernels_bootstrap.c; what both files
 * share is in kernels_fixtures.c.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"
#include "reference.h"

/* ---- Helpers ------------------------------------------------------------------------ */

#include "kernels_fixtures.h"

static void fill_nan(double *p, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        p[i] = NAN;
    }
}

static double *read_talib_close(size_t *n) {
    const char *path = APO_TEST_DATA_DIR "/talib_close252.f64";
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot open %s", path);
    double *x = alloc_doubles(252);
    /* The file is raw little-endian float64; the tests run on little-endian hosts. */
    size_t got = fread(x, sizeof(double), 252, f);
    fclose(f);
    cr_assert_eq(got, 252, "short read of %s", path);
    *n = got;
    return x;
}

static void run_bollinger(const double *x, size_t n, size_t period, double up, double dn, int order,
                          double *upper, double *middle, double *lower) {
    const size_t len = apo__bollinger_tile_len(period);
    const size_t count = tile_count(n, len);
    for (size_t i = 0; i < count; ++i) {
        const size_t tile = tile_at(i, count, order);
        const size_t b = tile * len, e = b + len < n ? b + len : n;
        apo__cpu_bollinger_tile(x, n, b, e, period, up, dn, upper, middle, lower);
    }
}

static void run_macd(const double *x, size_t n, size_t fast, size_t slow, size_t signal, int order,
                     double *macd, double *sig, double *hist) {
    const size_t len = apo__macd_tile_len(fast, slow, signal);
    const size_t count = tile_count(n, len);
    for (size_t i = 0; i < count; ++i) {
        const size_t tile = tile_at(i, count, order);
        const size_t b = tile * len, e = b + len < n ? b + len : n;
        apo__cpu_macd_tile(x, n, b, e, fast, slow, signal, macd, sig, hist);
    }
}

static apo__moments run_returns_stats(const double *x, size_t n, int order) {
    const size_t len = apo__returns_stats_tile_len();
    const size_t count = tile_count(n, len);
    apo__moments *parts = malloc(count * sizeof *parts);
    cr_assert_not_null(parts);
    for (size_t i = 0; i < count; ++i) {
        const size_t tile = tile_at(i, count, order);
        const size_t b = tile * len, e = b + len < n ? b + len : n;
        apo__cpu_returns_stats_tile(x, n, b, e, &parts[tile]);
    }
    apo__moments root = merge_tree(parts, 0, count);
    free(parts);
    return root;
}

/* Both NaN, or both the same infinity, or both finite. */
static void assert_same_class(double got, double want, const char *what, size_t t) {
    if (isnan(want)) {
        cr_assert(isnan(got), "%s[%zu]: want NaN, got %.17g", what, t, got);
    } else if (isinf(want)) {
        cr_assert(got == want, "%s[%zu]: want %g, got %.17g", what, t, want, got);
    } else {
        cr_assert(isfinite(got), "%s[%zu]: want %.17g, got %.17g", what, t, want, got);
    }
}

/* The three outputs of bollinger or macd against their references at bar t: each of the same
 * class (assert_same_class, named by names[k]); then, where the first reference is finite, the
 * largest absolute error of the three, else NaN (a bar the caller skips). */
static double three_outputs_error(const double *const got[3], const double *const want[3],
                                  const char *const names[3], size_t t) {
    for (int k = 0; k < 3; k++)
        assert_same_class(got[k][t], want[k][t], names[k], t);
    if (!isfinite(want[0][t]))
        return NAN;
    return fmax(fabs(got[0][t] - want[0][t]),
                fmax(fabs(got[1][t] - want[1][t]), fabs(got[2][t] - want[2][t])));
}

/* A kernel's three outputs (got; the first filled with NaN before the kernel runs, so that a
 * bar it leaves unwritten shows) beside its reference's (want), n bars each, and the names of
 * the outputs: what the accuracy checks of bollinger and macd share. */
typedef struct three_outputs {
    double *got[3], *want[3];
    const char *const *names;
} three_outputs;

static three_outputs three_outputs_alloc(size_t n, const char *const names[3]) {
    three_outputs o = {.names = names};
    for (int k = 0; k < 3; k++) {
        o.got[k] = alloc_doubles(n);
        o.want[k] = alloc_doubles(n);
    }
    fill_nan(o.got[0], n);
    return o;
}

static void three_outputs_free(three_outputs *o) {
    for (int k = 0; k < 3; k++) {
        free(o->got[k]);
        free(o->want[k]);
    }
}

/* Every bar of o (three_outputs_error): its error over scale[t] (1 where scale is NULL or
 * scale[t] is not above 0) at most tol. Returns the largest such error; `what` names the case
 * in messages. */
static double assert_three_outputs_within(const three_outputs *o, size_t n, const double *scale,
                                          double tol, const char *what) {
    const double *const got[3] = {o->got[0], o->got[1], o->got[2]};
    const double *const want[3] = {o->want[0], o->want[1], o->want[2]};
    double worst = 0.0;
    for (size_t t = 0; t < n; ++t) {
        const double d = three_outputs_error(got, want, o->names, t);
        if (isnan(d)) {
            continue;
        }
        const double e = d / (scale != NULL && scale[t] > 0.0 ? scale[t] : 1.0);
        worst = fmax(worst, e);
        cr_assert(e <= tol, "%s t %zu: error %.3g > %.3g (%s %.17g/%.17g, %s %.17g/%.17g)", what, t,
                  e, tol, o->names[0], got[0][t], want[0][t], o->names[1], got[1][t], want[1][t]);
    }
    return worst;
}

/* TA-Lib's published values of a kernel's three outputs on its 252 closes
 * (read_talib_close): NaN at bar first - 1, and `want` within 0.01 at bar first. */
static void assert_talib_bar(const three_outputs *o, size_t first, const double want[3]) {
    for (int k = 0; k < 3; k++) {
        const double v = o->got[k][first];
        cr_assert(isnan(o->got[k][first - 1]), "%s[%zu] must be NaN", o->names[k], first - 1);
        cr_assert(fabs(v - want[k]) <= 0.01, "%s[%zu] = %.6f, TA-Lib %.4f", o->names[k], first, v,
                  want[k]);
    }
}

/* ---- Bollinger ---------------------------------------------------------------------- */

/* Worst errors seen across the accuracy cases, reported once at the end of each case. */
typedef struct boll_errs {
    double sd, band;
} boll_errs;

static const char *const bollinger_names[3] = {"upper", "middle", "lower"};

/*
 * Checks the tiled kernel against the long-double reference on x: bands within 1e-13
 * relative, and sd within 1e-10 relative, recovered exactly enough from a second run with
 * nbdev = 2^20 (the band minus the middle then carries the sd with 2^-20 of the band's
 * rounding).
 */
static void check_bollinger(const double *x, size_t n, size_t period, boll_errs *errs) {
    three_outputs o = three_outputs_alloc(n, bollinger_names);
    double *const u = o.got[0], *const m = o.got[1], *const l = o.got[2];
    double *rsd = alloc_doubles(n), *scale = alloc_doubles(n);
    run_bollinger(x, n, period, 2.0, 2.0, 0, u, m, l);
    apo__ref_bollinger(x, n, period, 2.0, 2.0, o.want[0], o.want[1], o.want[2]);
    apo__ref_bollinger_sd(x, n, period, rsd);
    /* Relative to the scale of the terms, |middle| + 2 sd: a band near zero (middle close to
     * 2 sd) is ill-conditioned and no formula gets it to 1e-13 of itself. On the random walks
     * here the scale is within a few percent of |band|. */
    for (size_t t = 0; t < n; ++t)
        scale[t] = fabs(o.want[1][t]) + 2.0 * rsd[t];
    char what[64];
    snprintf(what, sizeof what, "n %zu period %zu: band", n, period);
    errs->band = fmax(errs->band, assert_three_outputs_within(&o, n, scale, 1e-13, what));

    const double big = 1048576.0;
    run_bollinger(x, n, period, big, big, 0, u, m, l);
    for (size_t t = 0; t < n; ++t) {
        if (!isfinite(rsd[t])) {
            continue;
        }
        const double sd = (u[t] - m[t]) / big;
        const double e = rel_err(sd, rsd[t]);
        errs->sd = fmax(errs->sd, e);
        cr_assert(e <= 1e-10, "n %zu period %zu t %zu: sd %.17g, want %.17g (rel %.3g)", n, period,
                  t, sd, rsd[t], e);
    }
    three_outputs_free(&o);
    free(rsd), free(scale);
}

Test(kernels, bollinger_talib_regression, .timeout = 60) {
    size_t n;
    double *x = read_talib_close(&n);
    three_outputs o = three_outputs_alloc(n, bollinger_names);
    run_bollinger(x, n, 20, 2.0, 2.0, 0, o.got[0], o.got[1], o.got[2]);
    assert_talib_bar(&o, 19, (const double[3]){98.0734, 92.8910, 87.7086});
    boll_errs errs = {0, 0};
    check_bollinger(x, n, 20, &errs);
    three_outputs_free(&o);
    free(x);
}

Test(kernels, bollinger_matches_two_pass_reference, .timeout = 60) {
    const size_t periods[] = {2, 20, 50};
    boll_errs errs = {0, 0};
    for (size_t pi = 0; pi < sizeof periods / sizeof *periods; ++pi) {
        const size_t p = periods[pi];
        const size_t tile = apo__bollinger_tile_len(p);
        const size_t lengths[] = {1,    2,        p - 1,         p,     p + 1, tile - 1,
                                  tile, tile + 1, 3 * tile + 17, 100000};
        for (size_t li = 0; li < sizeof lengths / sizeof *lengths; ++li) {
            const size_t n = lengths[li];
            if (n == 0) {
                continue;
            }
            double *x = alloc_doubles(n);
            apo__test_random_walk(1000 + p, n, 100.0, 0.1, x);
            check_bollinger(x, n, p, &errs);
            free(x);
        }
    }
    fprintf(stderr, "bollinger p=2/20/50 up to 1e5: max sd rel err %.3g, max band rel err %.3g\n",
            errs.sd, errs.band);
}

Test(kernels, bollinger_one_million_samples, .timeout = 60) {
    const size_t n = 1000000;
    double *x = alloc_doubles(n);
    apo__test_random_walk(7, n, 100.0, 0.05, x);
    boll_errs errs = {0, 0};
    check_bollinger(x, n, 20, &errs);
    fprintf(stderr, "bollinger p=20 n=1e6: max sd rel err %.3g, max band rel err %.3g\n", errs.sd,
            errs.band);
    free(x);
}

Test(kernels, bollinger_period_equals_length, .timeout = 60) {
    const size_t lengths[] = {2, 20, 5000, 100000};
    boll_errs errs = {0, 0};
    for (size_t li = 0; li < sizeof lengths / sizeof *lengths; ++li) {
        const size_t n = lengths[li];
        double *x = alloc_doubles(n);
        apo__test_random_walk(31, n, 100.0, 0.3, x);
        check_bollinger(x, n, n, &errs);
        free(x);
    }
}

Test(kernels, bollinger_short_series_is_all_nan, .timeout = 60) {
    double x[3] = {1.0, 2.0, 3.0};
    double u[3], m[3], l[3];
    for (size_t n = 1; n <= 3; ++n) {
        apo__cpu_bollinger_tile(x, n, 0, n, 20, 2.0, 2.0, u, m, l);
        for (size_t t = 0; t < n; ++t) {
            cr_assert(isnan(u[t]) && isnan(m[t]) && isnan(l[t]), "n %zu t %zu", n, t);
        }
    }
}

Test(kernels, bollinger_tile_order_gives_identical_bits, .timeout = 60) {
    const size_t n = 50000, p = 20;
    double *x = alloc_doubles(n);
    apo__test_random_walk(99, n, 100.0, 0.2, x);
    x[9000] = NAN;
    x[21000] = INFINITY;
    double *out[3][3];
    for (int o = 0; o < 3; ++o) {
        for (int k = 0; k < 3; ++k) {
            out[o][k] = alloc_doubles(n);
            fill_nan(out[o][k], n);
        }
        run_bollinger(x, n, p, 2.0, 1.5, o, out[o][0], out[o][1], out[o][2]);
    }
    for (int o = 1; o < 3; ++o) {
        for (int k = 0; k < 3; ++k) {
            cr_assert(memcmp(out[0][k], out[o][k], n * sizeof(double)) == 0,
                      "order %d output %d differs from forward", o, k);
        }
    }
    /* Running it again is bitwise the same too. */
    double *again = alloc_doubles(n), *m2 = alloc_doubles(n), *l2 = alloc_doubles(n);
    run_bollinger(x, n, p, 2.0, 1.5, 0, again, m2, l2);
    cr_assert(memcmp(again, out[0][0], n * sizeof(double)) == 0);
    for (int o = 0; o < 3; ++o) {
        for (int k = 0; k < 3; ++k) {
            free(out[o][k]);
        }
    }
    free(again), free(m2), free(l2), free(x);
}

Test(kernels, bollinger_constant_series_is_exact, .timeout = 60) {
    const double values[] = {0.1, 1e300, -3.7, 0.0, 5e-324};
    const size_t n = 10000;
    double *x = alloc_doubles(n), *u = alloc_doubles(n), *m = alloc_doubles(n),
           *l = alloc_doubles(n);
    for (size_t vi = 0; vi < sizeof values / sizeof *values; ++vi) {
        const size_t periods[] = {2, 20, 50, 4096};
        for (size_t pi = 0; pi < sizeof periods / sizeof *periods; ++pi) {
            const size_t p = periods[pi];
            for (size_t t = 0; t < n; ++t) {
                x[t] = values[vi];
            }
            run_bollinger(x, n, p, 2.0, 2.0, 0, u, m, l);
            for (size_t t = p - 1; t < n; ++t) {
                cr_assert(m[t] == values[vi] && u[t] == values[vi] && l[t] == values[vi],
                          "value %g period %zu t %zu: %.17g %.17g %.17g", values[vi], p, t, u[t],
                          m[t], l[t]);
            }
        }
    }
    free(x), free(u), free(m), free(l);
}

Test(kernels, bollinger_constant_stretches_inside_a_walk, .timeout = 60) {
    /* A walk with flat stretches: constant windows are exact, and the windows after a flat
     * stretch (which restart from an exact evaluation) still meet the accuracy targets. */
    const size_t n = 30000, p = 20;
    double *x = alloc_doubles(n), *u = alloc_doubles(n), *m = alloc_doubles(n),
           *l = alloc_doubles(n);
    apo__test_random_walk(5, n, 100.0, 0.1, x);
    for (size_t t = 1000; t < 1100; ++t) {
        x[t] = 0.1;
    }
    for (size_t t = 9000; t < 9030; ++t) {
        x[t] = x[8999];
    }
    run_bollinger(x, n, p, 2.0, 2.0, 0, u, m, l);
    for (size_t t = 1000 + p - 1; t < 1100; ++t) {
        cr_assert(m[t] == 0.1 && u[t] == 0.1 && l[t] == 0.1, "t %zu: %.17g", t, m[t]);
    }
    for (size_t t = 9000 + p - 1; t < 9030; ++t) {
        cr_assert(m[t] == x[8999] && u[t] == x[8999], "t %zu", t);
    }
    boll_errs errs = {0, 0};
    check_bollinger(x, n, p, &errs);
    free(x), free(u), free(m), free(l);
}

Test(kernels, bollinger_nonfinite_policy, .timeout = 60) {
    const size_t n = 12000, p = 20;
    double *x = alloc_doubles(n), *u = alloc_doubles(n), *m = alloc_doubles(n),
           *l = alloc_doubles(n);
    apo__test_random_walk(11, n, 100.0, 0.1, x);
    x[100] = NAN;        /* windows 100 .. 119 */
    x[500] = INFINITY;   /* windows 500 .. 519 */
    x[1000] = -INFINITY; /* windows 1000 .. 1019 */
    x[2000] = INFINITY;  /* windows 2000 .. 2019 */
    x[2010] = -INFINITY; /* windows 2010 .. 2029 */
    x[4095] = NAN;       /* straddles the tile boundary at 4096 */
    x[5000] = NAN;
    x[5005] = NAN; /* two NaN in one window */
    run_bollinger(x, n, p, 2.0, 2.0, 0, u, m, l);
    for (size_t t = 100; t < 120; ++t) {
        cr_assert(isnan(m[t]) && isnan(u[t]) && isnan(l[t]), "NaN window %zu", t);
    }
    cr_assert(isfinite(m[99]) && isfinite(m[120]) && isfinite(u[120]));
    for (size_t t = 500; t < 520; ++t) {
        cr_assert(m[t] == INFINITY && isnan(u[t]) && isnan(l[t]), "+inf window %zu", t);
    }
    for (size_t t = 1000; t < 1020; ++t) {
        cr_assert(m[t] == -INFINITY && isnan(u[t]) && isnan(l[t]), "-inf window %zu", t);
    }
    for (size_t t = 2000; t < 2030; ++t) {
        const double want = t < 2010 ? INFINITY : (t < 2020 ? NAN : -INFINITY);
        assert_same_class(m[t], want, "middle", t);
        cr_assert(isnan(u[t]) && isnan(l[t]), "mixed window %zu", t);
    }
    for (size_t t = 4095; t < 4115; ++t) {
        cr_assert(isnan(m[t]), "straddling NaN window %zu", t);
    }
    cr_assert(isfinite(m[4115]) && isfinite(m[5025]) && isnan(m[5024]));
    /* Everywhere else the bands are as accurate as on clean data, including right after
     * each non-finite stretch, where the kernel re-evaluates exactly. */
    boll_errs errs = {0, 0};
    check_bollinger(x, n, p, &errs);
    free(x), free(u), free(m), free(l);
}

/* ---- MACD --------------------------------------------------------------------------- */

typedef struct macd_params {
    size_t fast, slow, signal;
} macd_params;

static const char *const macd_names[3] = {"macd", "signal", "hist"};

static double check_macd(const double *x, size_t n, macd_params mp) {
    three_outputs o = three_outputs_alloc(n, macd_names);
    run_macd(x, n, mp.fast, mp.slow, mp.signal, 0, o.got[0], o.got[1], o.got[2]);
    apo__ref_macd(x, n, mp.fast, mp.slow, mp.signal, o.want[0], o.want[1], o.want[2]);
    double scale = 0.0;
    for (size_t t = 0; t < n; ++t) {
        if (isfinite(x[t])) {
            scale = fmax(scale, fabs(x[t]));
        }
    }
    char what[64];
    snprintf(what, sizeof what, "%zu/%zu/%zu n %zu", mp.fast, mp.slow, mp.signal, n);
    const double worst = assert_three_outputs_within(&o, n, NULL, 1e-11 * scale, what);
    three_outputs_free(&o);
    return scale > 0.0 ? worst / scale : 0.0;
}

Test(kernels, macd_talib_regression, .timeout = 60) {
    size_t n;
    double *x = read_talib_close(&n);
    three_outputs o = three_outputs_alloc(n, macd_names);
    run_macd(x, n, 12, 26, 9, 0, o.got[0], o.got[1], o.got[2]);
    assert_talib_bar(&o, 33, (const double[3]){-1.9738, -2.7071, 0.7333});
    check_macd(x, n, (macd_params){12, 26, 9});
    three_outputs_free(&o);
    free(x);
}

Test(kernels, macd_warmup_and_tile_length, .timeout = 60) {
    /* D(26) = ceil(64 ln 2 / -ln(25/27)) = 577 and D(9) = ceil(64 ln 2 / -ln(0.8)) = 199. */
    cr_assert_eq(apo__macd_warmup(12, 26, 9), 25 + 8 + 577 + 199);
    cr_assert_eq(apo__macd_warmup(26, 12, 9), apo__macd_warmup(12, 26, 9));
    cr_assert_eq(apo__macd_tile_len(12, 26, 9), 16384);
    cr_assert_eq(apo__macd_tile_len(12, 260, 9), 16 * apo__macd_warmup(12, 260, 9));
    cr_assert_eq(apo__bollinger_tile_len(20), 4096);
    cr_assert_eq(apo__bollinger_tile_len(1000), 16000);
}

Test(kernels, macd_matches_sequential_reference, .timeout = 60) {
    const macd_params params[] = {{12, 26, 9}, {2, 3, 1}, {26, 12, 9},
                                  {5, 35, 1},  {1, 1, 1}, {3, 10, 16}};
    double worst = 0.0;
    for (size_t pi = 0; pi < sizeof params / sizeof *params; ++pi) {
        const macd_params mp = params[pi];
        const size_t slow = mp.fast > mp.slow ? mp.fast : mp.slow;
        const size_t first = (slow - 1) + (mp.signal - 1);
        const size_t tile = apo__macd_tile_len(mp.fast, mp.slow, mp.signal);
        const size_t lengths[] = {1,
                                  2,
                                  slow - 1 > 0 ? slow - 1 : 1,
                                  slow,
                                  first,
                                  first + 1,
                                  first + 2,
                                  tile - 1,
                                  tile + 1,
                                  4 * tile + 3,
                                  100000};
        for (size_t li = 0; li < sizeof lengths / sizeof *lengths; ++li) {
            const size_t n = lengths[li];
            double *x = alloc_doubles(n);
            apo__test_random_walk(500 + pi, n, 100.0, 0.5, x);
            worst = fmax(worst, check_macd(x, n, mp));
            free(x);
        }
    }
    fprintf(stderr, "macd: max abs error / max|x| = %.3g\n", worst);
}

Test(kernels, macd_swapped_parameters_give_identical_bits, .timeout = 60) {
    const size_t n = 40000;
    double *x = alloc_doubles(n);
    apo__test_random_walk(3, n, 100.0, 0.5, x);
    double *a[2][3];
    for (int s = 0; s < 2; ++s) {
        for (int k = 0; k < 3; ++k) {
            a[s][k] = alloc_doubles(n);
        }
    }
    run_macd(x, n, 12, 26, 9, 0, a[0][0], a[0][1], a[0][2]);
    run_macd(x, n, 26, 12, 9, 0, a[1][0], a[1][1], a[1][2]);
    for (int k = 0; k < 3; ++k) {
        cr_assert(memcmp(a[0][k], a[1][k], n * sizeof(double)) == 0, "output %d", k);
        free(a[0][k]), free(a[1][k]);
    }
    free(x);
}

Test(kernels, macd_tile_order_gives_identical_bits, .timeout = 60) {
    const size_t n = 100000;
    double *x = alloc_doubles(n);
    apo__test_random_walk(17, n, 100.0, 0.5, x);
    x[20000] = NAN;
    x[16384] = -INFINITY;
    double *out[3][3];
    for (int o = 0; o < 3; ++o) {
        for (int k = 0; k < 3; ++k) {
            out[o][k] = alloc_doubles(n);
            fill_nan(out[o][k], n);
        }
        run_macd(x, n, 12, 26, 9, o, out[o][0], out[o][1], out[o][2]);
    }
    for (int o = 1; o < 3; ++o) {
        for (int k = 0; k < 3; ++k) {
            cr_assert(memcmp(out[0][k], out[o][k], n * sizeof(double)) == 0,
                      "order %d output %d differs from forward", o, k);
        }
    }
    for (int o = 0; o < 3; ++o) {
        for (int k = 0; k < 3; ++k) {
            free(out[o][k]);
        }
    }
    free(x);
}

Test(kernels, macd_gaps_do_not_poison_the_series, .timeout = 60) {
    const size_t n = 40000;
    double *x = alloc_doubles(n), *a = alloc_doubles(n), *b = alloc_doubles(n),
           *c = alloc_doubles(n);
    apo__test_random_walk(23, n, 100.0, 0.5, x);
    const size_t gaps[] = {5, 30, 33, 200, 16383, 16384, 17000};
    x[gaps[0]] = NAN;
    x[gaps[1]] = INFINITY;
    x[gaps[2]] = NAN;
    x[gaps[3]] = -INFINITY;
    x[gaps[4]] = NAN;
    x[gaps[5]] = NAN;
    x[gaps[6]] = INFINITY;
    run_macd(x, n, 12, 26, 9, 0, a, b, c);
    for (size_t g = 0; g < sizeof gaps / sizeof *gaps; ++g) {
        const size_t t = gaps[g];
        cr_assert(isnan(a[t]) && isnan(b[t]) && isnan(c[t]), "gap %zu must be NaN", t);
    }
    /* Three gaps before the signal seed move the first valid output three samples later. */
    cr_assert(isnan(a[35]) && isfinite(a[36]), "first valid output %g %g", a[35], a[36]);
    size_t finite = 0;
    for (size_t t = 36; t < n; ++t) {
        finite += isfinite(a[t]) && isfinite(b[t]) && isfinite(c[t]);
    }
    cr_assert_eq(finite, n - 36 - 4, "every non-gap output after the seed is finite");
    check_macd(x, n, (macd_params){12, 26, 9});
    free(x), free(a), free(b), free(c);
}

/* ---- Moments and returns ------------------------------------------------------------ */

static void assert_moments_close(const apo__moments *got, const apo__ref_moments *want, double tol,
                                 const char *what) {
    cr_assert(got->count == (double)want->count, "%s: count %g vs %Lg", what, got->count,
              want->count);
    const double em = fabs(got->mean - (double)want->mean) /
                      fmax(fabs((double)want->mean), sqrt((double)(want->m2 / want->count)));
    const double e2 = rel_err(got->m2, (double)want->m2);
    cr_assert(em <= tol, "%s: mean %.17g vs %.17Lg (%.3g)", what, got->mean, want->mean, em);
    cr_assert(e2 <= tol, "%s: m2 %.17g vs %.17Lg (%.3g)", what, got->m2, want->m2, e2);
    cr_assert(got->min == (double)want->min && got->max == (double)want->max,
              "%s: min/max %.17g %.17g vs %.17Lg %.17Lg", what, got->min, got->max, want->min,
              want->max);
}

static apo__moments moments_of(const double *v, size_t n) {
    /* Leaf partials for the merge test: a long-double two-pass, rounded, so that the test
     * measures the merge and not the leaves. */
    apo__ref_moments r;
    apo__ref_moments_of(v, n, 0, &r);
    apo__moments m;
    if (n == 0) {
        apo__cpu_moments_empty(&m);
        return m;
    }
    m.count = (double)r.count;
    m.mean = (double)r.mean;
    m.m2 = (double)r.m2;
    m.min = (double)r.min;
    m.max = (double)r.max;
    return m;
}

Test(kernels, moments_merge_matches_two_pass_of_concatenation, .timeout = 60) {
    const size_t n = 20000;
    double *v = alloc_doubles(n);
    apo__test_random_walk(41, n, 1000.0, 3.0, v);
    /* Uneven chunks, including empty ones, merged by a pairwise tree and by a left fold. */
    const size_t cuts[] = {0, 0, 1, 7, 7, 1000, 1001, 5000, 12345, 19999, 20000, 20000};
    const size_t nparts = sizeof cuts / sizeof *cuts - 1;
    apo__moments parts[sizeof cuts / sizeof *cuts - 1];
    for (size_t i = 0; i < nparts; ++i) {
        parts[i] = moments_of(v + cuts[i], cuts[i + 1] - cuts[i]);
    }
    apo__ref_moments want;
    apo__ref_moments_of(v, n, 0, &want);
    apo__moments tree = merge_tree(parts, 0, nparts);
    assert_moments_close(&tree, &want, 1e-13, "tree");
    apo__moments fold;
    apo__cpu_moments_empty(&fold);
    for (size_t i = 0; i < nparts; ++i) {
        apo__cpu_moments_merge(&fold, &parts[i], &fold); /* out aliases a */
    }
    assert_moments_close(&fold, &want, 1e-13, "fold");
    apo__moments back = parts[nparts - 1];
    for (size_t i = nparts - 1; i-- > 0;) {
        apo__cpu_moments_merge(&parts[i], &back, &back); /* out aliases b */
    }
    assert_moments_close(&back, &want, 1e-13, "right fold");

    /* Empty on either side returns the other side's bits exactly. */
    apo__moments e, out;
    apo__cpu_moments_empty(&e);
    cr_assert(e.count == 0.0 && e.mean == 0.0 && e.m2 == 0.0 && e.min == INFINITY &&
              e.max == -INFINITY);
    apo__cpu_moments_merge(&e, &parts[5], &out);
    cr_assert(memcmp(&out, &parts[5], sizeof out) == 0);
    apo__cpu_moments_merge(&parts[5], &e, &out);
    cr_assert(memcmp(&out, &parts[5], sizeof out) == 0);
    apo__cpu_moments_merge(&e, &e, &out);
    cr_assert(out.count == 0.0 && out.min == INFINITY && out.max == -INFINITY);
    cr_assert_eq(sizeof(apo__moments), 5 * sizeof(double));
    free(v);
}

Test(kernels, returns_stats_match_reference, .timeout = 60) {
    const size_t tile = apo__returns_stats_tile_len();
    cr_assert_eq(tile, 8192);
    const size_t lengths[] = {2, 3, tile - 1, tile, tile + 1, tile + 2, 5 * tile + 9, 100000};
    for (size_t li = 0; li < sizeof lengths / sizeof *lengths; ++li) {
        const size_t n = lengths[li];
        double *x = alloc_doubles(n), *r = alloc_doubles(n);
        apo__test_random_walk(60 + li, n, 100.0, 0.2, x);
        if (n > 1000) {
            /* A NaN price spoils two returns; an infinite price and a zero price one each
             * (x/inf - 1 = 0/x - 1 = -1 is finite, inf/x and x/0 are infinite). */
            x[100] = NAN;
            x[500] = INFINITY;
            x[900] = 0.0;
        }
        apo__ref_returns(x, n, r);
        apo__ref_moments want;
        apo__ref_moments_of(r, n - 1, 1, &want);
        apo__moments got = run_returns_stats(x, n, 0);
        assert_moments_close(&got, &want, 1e-12, "returns");
        apo__moments got_back = run_returns_stats(x, n, 1);
        cr_assert(memcmp(&got, &got_back, sizeof got) == 0, "tile order changed the bits");

        double count, mean, var, mn, mx;
        apo__returns_stats_finalize(&got, &count, &mean, &var, &mn, &mx);
        cr_assert(count == (double)want.count);
        if (n > 1000) {
            cr_assert(count == (double)(n - 1 - 4), "count %g", count);
        }
        if (count >= 2) {
            const long double wv = want.m2 / (want.count - 1.0L);
            cr_assert(rel_err(var, (double)wv) <= 1e-12, "variance %.17g vs %.17Lg", var, wv);
        } else {
            cr_assert(isnan(var));
        }
        free(x), free(r);
    }
}

Test(kernels, returns_stats_degenerate_cases, .timeout = 60) {
    double count, mean, var, mn, mx;
    apo__moments m;
    const double one[1] = {5.0};
    apo__cpu_returns_stats_tile(one, 1, 0, 1, &m);
    apo__returns_stats_finalize(&m, &count, &mean, &var, &mn, &mx);
    cr_assert(count == 0.0 && isnan(mean) && isnan(var) && isnan(mn) && isnan(mx));

    const double two[2] = {4.0, 5.0};
    apo__cpu_returns_stats_tile(two, 2, 0, 2, &m);
    apo__returns_stats_finalize(&m, &count, &mean, &var, &mn, &mx);
    cr_assert(count == 1.0 && mean == 0.25 && isnan(var) && mn == 0.25 && mx == 0.25);

    /* A tile starting at 1 reads x[0]; a tile [1, 2) holds the single return r_1. */
    apo__cpu_returns_stats_tile(two, 2, 1, 2, &m);
    cr_assert(m.count == 1.0 && m.mean == 0.25 && m.m2 == 0.0);

    const double bad[4] = {NAN, 1.0, INFINITY, NAN};
    apo__cpu_returns_stats_tile(bad, 4, 0, 4, &m);
    apo__returns_stats_finalize(&m, &count, &mean, &var, &mn, &mx);
    cr_assert(count == 0.0 && isnan(mean) && isnan(mn));

    const double exact[4] = {1.0, 2.0, 1.0, 1.5};
    apo__cpu_returns_stats_tile(exact, 4, 0, 4, &m);
    apo__returns_stats_finalize(&m, &count, &mean, &var, &mn, &mx);
    /* Returns 1, -0.5, 0.5: mean 1/3, sample variance 0.5833... */
    cr_assert(count == 3.0 && mn == -0.5 && mx == 1.0);
    cr_assert(fabs(mean - 1.0 / 3.0) <= 1e-16 && fabs(var - 0.58333333333333333) <= 1e-15,
              "mean %.17g var %.17g", mean, var);
}

/* ---- NaN canonicalisation ------------------------------------------------------------ */

/* The one NaN the kernels store for a NaN made by arithmetic: the NAN constant, a positive
 * quiet NaN with no payload, which gcc and nvcc both give it (kernels/common/apo_hd.h). x86's own
 * default NaN (0 * inf, inf - inf) is 0xfff8000000000000, so a value that was not
 * canonicalised fails these checks. */
static const uint64_t canonical_nan_bits = 0x7ff8000000000000ull;

static uint64_t bits_of(double v) {
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    return b;
}

static void assert_canonical_nan(double v, const char *what, size_t t) {
    cr_assert_eq(bits_of(v), canonical_nan_bits, "%s[%zu]: 0x%016llx, not the canonical NaN", what,
                 t, (unsigned long long)bits_of(v));
}

Test(kernels, bollinger_nbdev_zero_with_an_overflowing_sd_stores_the_canonical_nan, .timeout = 60) {
    /* Windows of +-1e300: the mean is 0 exactly, each squared deviation overflows, so sd is
     * +inf and the bands are 0 + 0 * inf: NaN by arithmetic. */
    enum { n = 40, period = 4 };
    double x[n], upper[n], middle[n], lower[n];
    for (size_t t = 0; t < n; t++)
        x[t] = t % 2 == 0 ? 1e300 : -1e300;
    apo__cpu_bollinger_tile(x, n, 0, n, period, 0.0, 0.0, upper, middle, lower);
    for (size_t t = period - 1; t < n; t++) {
        assert_canonical_nan(upper[t], "upper", t);
        assert_canonical_nan(lower[t], "lower", t);
        cr_assert(middle[t] == 0.0, "middle[%zu] = %g", t, middle[t]);
    }
    /* With nbdev 2 the same windows give infinite bands, not NaN. */
    apo__cpu_bollinger_tile(x, n, 0, n, period, 2.0, 2.0, upper, middle, lower);
    for (size_t t = period - 1; t < n; t++)
        cr_assert(upper[t] == INFINITY && lower[t] == -INFINITY, "t %zu: %g %g", t, upper[t],
                  lower[t]);
    /* Windows whose sum overflows: the mean itself is a NaN by arithmetic. */
    for (size_t t = 0; t < n; t++)
        x[t] = t % 2 == 0 ? 1.5e308 : 1.6e308;
    apo__cpu_bollinger_tile(x, n, 0, n, period, 0.0, 0.0, upper, middle, lower);
    for (size_t t = period - 1; t < n; t++) {
        cr_assert(isnan(middle[t]), "middle[%zu] = %g", t, middle[t]);
        assert_canonical_nan(middle[t], "middle", t);
        assert_canonical_nan(upper[t], "upper", t);
        assert_canonical_nan(lower[t], "lower", t);
    }
}

Test(kernels, merging_infinite_returns_stats_partials_stores_the_canonical_nan, .timeout = 60) {
    /* Tile 0: returns of +1.5e308 twice, so its sum and mean overflow to +inf; tile 1: the
     * same with -1.5e308 prices, mean -inf. Their merge is inf - inf. */
    const size_t len = apo__returns_stats_tile_len();
    const size_t n = 2 * len;
    double *x = alloc_doubles(n);
    for (size_t t = 0; t < n; t++)
        x[t] = 1.0;
    x[1] = x[3] = 1.5e308;
    x[len + 1] = x[len + 3] = -1.5e308;
    apo__moments parts[2], root;
    apo__cpu_returns_stats_tile(x, n, 0, len, &parts[0]);
    apo__cpu_returns_stats_tile(x, n, len, n, &parts[1]);
    cr_assert(parts[0].mean == INFINITY && parts[1].mean == -INFINITY, "means %g %g", parts[0].mean,
              parts[1].mean);
    apo__cpu_moments_merge(&parts[0], &parts[1], &root);
    assert_canonical_nan(root.mean, "merged mean", 0);
    double count, mean, var, mn, mx;
    apo__returns_stats_finalize(&root, &count, &mean, &var, &mn, &mx);
    assert_canonical_nan(mean, "mean", 0);
    cr_assert(count == (double)(n - 1), "count %g", count);
    /* Two partials with the same infinite mean: inf - inf in the merge's delta, so the mean
     * and M2 are both NaN by arithmetic. */
    apo__cpu_moments_merge(&parts[0], &parts[0], &root);
    assert_canonical_nan(root.mean, "merged mean", 1);
    assert_canonical_nan(root.m2, "merged m2", 1);
    apo__returns_stats_finalize(&root, &count, &mean, &var, &mn, &mx);
    assert_canonical_nan(mean, "mean", 1);
    assert_canonical_nan(var, "variance", 1);
    free(x);
}

/* The pass a scored sweep shares between band widths (bollinger_pass.h): every window kind
 * (warm-up, sliding and exact runs, constant windows of 0, -0 and of a price, NaN and
 * infinite samples, a window whose sd overflows) and widths of every sign, 0 and huge give
 * the bands of apo__cpu_bollinger_tile bit for bit, tile by tile of its grid, from the
 * scalar pass and from every vector path's (its tiles in lanes). */
Test(kernels, bollinger_pass_gives_the_bands_of_every_width_bitwise, .timeout = 60) {
    const size_t n = 10000, p = 15;
    double *x = alloc_doubles(n), *u = alloc_doubles(n), *m = alloc_doubles(n),
           *l = alloc_doubles(n), *mean = alloc_doubles(n), *sd = alloc_doubles(n);
    apo__test_random_walk(12, n, 100.0, 0.1, x);
    for (size_t t = 300; t < 340; ++t)
        x[t] = -0.0;
    for (size_t t = 340; t < 380; ++t)
        x[t] = 0.0;
    for (size_t t = 600; t < 640; ++t)
        x[t] = 101.25;
    x[900] = NAN;
    x[1200] = INFINITY;
    x[1500] = -INFINITY;
    x[4100] = NAN; /* in the halo of the second tile */
    x[7000] = 1e306;
    x[7001] = -1e306; /* an M2 that overflows */
    const double widths[][2] = {{2.0, 2.0}, {0.0, 0.0}, {-1.5, 3.0}, {1e300, -1e300}, {0.5, 0.0}};
    const size_t tile = apo__bollinger_tile_len(p);
    apo__tile_span spans[8];
    size_t n_spans = 0;
    for (size_t b = 0; b < n; b += tile)
        spans[n_spans++] = (apo__tile_span){0, b, b + tile < n ? b + tile : n};
    /* The scalar pass tile by tile (AUTO below), then every vector path's, its tiles in the
     * lanes of a vector (apo__cpu_bollinger_pass_tiles). */
    for (int isa = APO_CPU_ISA_AUTO; isa <= APO_CPU_ISA_LAST; isa++) {
        if (isa != APO_CPU_ISA_AUTO && !apo__cpu_isa_supported((apo__cpu_isa)isa))
            continue;
        for (size_t t = 0; t < n; ++t)
            mean[t] = sd[t] = -12345.0; /* poison: a window never written shows */
        if (isa == APO_CPU_ISA_AUTO)
            for (size_t i = 0; i < n_spans; i++)
                apo__cpu_bollinger_pass_tile(x, n, spans[i].begin, spans[i].end, p, mean, sd);
        else
            apo__cpu_bollinger_pass_tiles(x, 1, n, spans, n_spans, p, mean, sd, (apo__cpu_isa)isa);
        size_t flat = 0;
        for (size_t w = 0; w < sizeof widths / sizeof widths[0]; ++w) {
            run_bollinger(x, n, p, widths[w][0], widths[w][1], 0, u, m, l);
            for (size_t t = 0; t < n; ++t) {
                double got[3];
                apo__bollinger_pass_bands(mean[t], sd[t], widths[w][0], widths[w][1], got);
                const double want[3] = {u[t], m[t], l[t]};
                cr_assert(memcmp(got, want, sizeof got) == 0,
                          "path %s widths %g/%g bar %zu: pass %.17g %.17g %.17g, tile %.17g %.17g "
                          "%.17g",
                          apo__cpu_isa_name((apo__cpu_isa)isa), widths[w][0], widths[w][1], t,
                          got[0], got[1], got[2], want[0], want[1], want[2]);
                flat += w == 0 && sd[t] == APO_BOLLINGER_PASS_FLAT;
            }
        }
        cr_assert_gt(flat, 60, "the constant windows are in the pass as such");
    }
    cr_assert(signbit(mean[330]) && signbit(u[330]), "a window of -0 keeps its sign");
    free(x);
    free(u);
    free(m);
    free(l);
    free(mean);
    free(sd);
}
