/*
 * test_catalog_more.c: the catalog kernels zscore, plus_di, minus_di,
 * adx, mfi, vwap, kama and adosc (kernels/common/catalog.h) against independent long-double
 * references (catalog_reference_more.c): parameters at their bounds, flat windows, vwap's
 * windows without volume, tile order and grid; the directional movement's and adosc's first
 * tiles bitwise against TA-Lib's recursion in double. The costliest cases (every kernel over
 * lengths 1 to 1e5, recurrences over several long tiles, the halo check) are the slow suite's,
 * in test_catalog_more_slow.c; catalog_more_fixtures.c holds the table and helpers both use.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "catalog_more_fixtures.h"
#include "cpu_isa.h"

/* The longest periods the parameters allow, on a series just long enough for them. */
Test(catalog_more, periods_at_their_upper_bound, .timeout = 900) {
    for (size_t ki = 0; ki < n_catalog_more_kernels; ki++) {
        const ref_kernel *k = &catalog_more_kernels[ki];
        series s;
        const double p[2] = {100000, k->second};
        series_make(&s, 7 + ki, apo__catalog_lookback(k->id, p) + 4, k->cols, 50.0, 0.25, 0);
        check_against_reference(k, &s, p, 1e-12, "period 100000");
        series_free(&s);
    }
}

/* Constant and zero inputs: the definitions' zero denominators give TA-Lib's 0 (vwap: NaN
 * for a window without volume), exactly. */
Test(catalog_more, flat_windows) {
    const size_t n = 300;
    series s;
    series_make(&s, 5, n, HLCV, 100.0, 0.5, 0);
    for (size_t t = 0; t < n; t++) {
        if (t < 100) {
            s.col[0][t] = s.col[1][t] = s.col[2][t] = s.col[4][t] = 42.0;
            s.col[3][t] = 0.0;
        }
    }
    const double p[2] = {20, 0};
    double *out[2] = {alloc_doubles(n), alloc_doubles(n)};
    apo__cat_io io;
    const struct {
        apo__cat_id id;
        double want;
        size_t first;
        int xy;
    } cases[] = {{APO_CAT_ZSCORE, 0.0, 19, 0},
                 {APO_CAT_MFI, 0.0, 20, 0},
                 {APO_CAT_VWAP, NAN, 19, 0},
                 {APO_CAT_PLUS_DI, 0.0, 20, 0},
                 {APO_CAT_MINUS_DI, 0.0, 20, 0}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        series one = s;
        if (cases[c].xy) {
            one.n_in = 2;
            one.in[0] = s.col[2];
            one.in[1] = s.col[4];
        } else if (cases[c].id == APO_CAT_ZSCORE) {
            one.n_in = 1;
            one.in[0] = s.col[2];
        }
        io_make(&io, cases[c].id, &one, p, out, 1);
        apo__cpu_catalog_tile(cases[c].id, &io, 0, n);
        for (size_t t = cases[c].first; t < 100; t++) {
            if (isnan(cases[c].want))
                cr_assert(isnan(out[0][t]), "case %zu t %zu: %g", c, t, out[0][t]);
            else
                cr_assert_eq(out[0][t], cases[c].want, "case %zu t %zu: %g", c, t, out[0][t]);
        }
        cr_assert(isfinite(out[0][199]), "case %zu: moving data gives a value", c);
    }
    free(out[0]);
    free(out[1]);
    series_free(&s);
}

/* A window without volume after traded bars: the slid volume sum (window_sum.h) must come
 * back to exactly 0 when the last fractional volume leaves the window, so vwap is NaN there
 * as on a series that starts without volume, and a value again once volume returns. The
 * series is one tile run whole, on every vector path (blocks of clean windows), and the same
 * tile fed to a stream's resume in pieces of 5 bars, too short for a block, so that one sum
 * slides bar by bar from the tile's start to its end. */
static void assert_vwap_quiet_run(const double *out, size_t n, size_t p, size_t quiet_from,
                                  size_t quiet_to, const char *how) {
    for (size_t t = p - 1; t < n; t++) {
        const int quiet = t >= quiet_from + p - 1 && t < quiet_to;
        cr_assert(quiet ? isnan(out[t]) : isfinite(out[t]), "%s: t %zu gives %g", how, t, out[t]);
    }
}

Test(catalog_more, vwap_window_without_volume_after_trades_is_nan) {
    const size_t n = 700, p = 20, quiet_from = 230, quiet_to = 420;
    series s;
    series_make(&s, 8, n, HLCV, 100.0, 0.5, 0);
    for (size_t t = quiet_from; t < quiet_to; t++)
        s.col[3][t] = 0.0;
    cr_assert(s.col[3][quiet_from - 1] != floor(s.col[3][quiet_from - 1]),
              "the volumes before the quiet run are fractional");
    const double prm[2] = {(double)p, 0};
    double *out[1] = {alloc_doubles(n)};
    apo__cat_io io;
    io_make(&io, APO_CAT_VWAP, &s, prm, out, 1);
    for (int isa = APO_CPU_ISA_SSE2; isa <= APO_CPU_ISA_LAST; isa++) {
        if (!apo__cpu_isa_supported((apo__cpu_isa)isa))
            continue;
        apo__cpu_catalog_tile_on(APO_CAT_VWAP, &io, 0, n, isa);
        assert_vwap_quiet_run(out[0], n, p, quiet_from, quiet_to,
                              apo__cpu_isa_name((apo__cpu_isa)isa));
    }
    void *state = calloc(1, apo__catalog_resume_size(APO_CAT_VWAP));
    cr_assert_not_null(state);
    for (size_t b = 0; b < n; b += 5)
        apo__cpu_catalog_resume(APO_CAT_VWAP, &io, state, b == 0, 0, b + 5 < n ? b + 5 : n);
    assert_vwap_quiet_run(out[0], n, p, quiet_from, quiet_to, "resumed in pieces of 5");
    free(state);
    free(out[0]);
    series_free(&s);
}

/* Any tile grid of the same tile length gives the same bits whatever order its tiles run
 * in. */
Test(catalog_more, tiles_depend_on_the_grid_only, .timeout = 300) {
    for (size_t ki = 0; ki < n_catalog_more_kernels; ki++) {
        const ref_kernel *k = &catalog_more_kernels[ki];
        const double p[2] = {9, k->second};
        const size_t len = apo__catalog_tile_len(k->id, p);
        series s;
        series_make(&s, 31 + ki, 3 * len + 1000, k->cols, 100.0, 0.5, 1);
        double *a[2] = {alloc_doubles(s.n), alloc_doubles(s.n)};
        double *b[2] = {alloc_doubles(s.n), alloc_doubles(s.n)};
        run_grid(k, &s, p, a);
        apo__cat_io io;
        io_make(&io, k->id, &s, p, b, k->n_out);
        for (size_t o = 0; o < k->n_out; o++)
            for (size_t t = 0; t < s.n; t++)
                b[o][t] = -1.0;
        for (size_t b0 = 0; b0 < s.n; b0 += len)
            apo__cpu_catalog_tile(k->id, &io, b0, b0 + len < s.n ? b0 + len : s.n);
        for (size_t o = 0; o < k->n_out; o++)
            cr_assert(memcmp(a[o], b[o], s.n * sizeof(double)) == 0, "%s: tile order changed bits",
                      k->name);
        for (size_t o = 0; o < 2; o++) {
            free(a[o]);
            free(b[o]);
        }
        series_free(&s);
    }
}

/* TA-Lib's directional movement, written in plain double from its sources' operation
 * order (TA_PLUS_DI, TA_MINUS_DI, TA_ADX with TA_IS_ZERO read as an exact 0) on a series
 * without gaps: the first tile must have these bits. */
static void talib_dmi(const series *s, size_t q, int which, double *out) {
    const double *h = s->in[0], *l = s->in[1], *c = s->in[2];
    double sp = 0, sm = 0, st = 0, sum_dx = 0, adx = 0;
    for (size_t t = 0; t < s->n; t++)
        out[t] = NAN;
    for (size_t t = 1; t < s->n; t++) {
        const double up = h[t] - h[t - 1], down = l[t - 1] - l[t];
        double tr = h[t] - l[t];
        if (fabs(c[t - 1] - h[t]) > tr)
            tr = fabs(c[t - 1] - h[t]);
        if (fabs(l[t] - c[t - 1]) > tr)
            tr = fabs(l[t] - c[t - 1]);
        if (t < q) {
            if (up > 0 && up > down)
                sp += up;
            if (down > 0 && up < down)
                sm += down;
            st += tr;
            continue;
        }
        sp -= sp / (double)q;
        sm -= sm / (double)q;
        if (up > 0 && up > down)
            sp += up;
        if (down > 0 && up < down)
            sm += down;
        st = st - (st / (double)q) + tr;
        const double pdi = st != 0 ? 100.0 * (sp / st) : 0, mdi = st != 0 ? 100.0 * (sm / st) : 0;
        if (which == 0) {
            out[t] = pdi;
            continue;
        }
        if (which == 1) {
            out[t] = mdi;
            continue;
        }
        const double sum = mdi + pdi;
        if (t < 2 * q) {
            if (st != 0 && sum != 0)
                sum_dx += 100.0 * (fabs(mdi - pdi) / sum);
            if (t == 2 * q - 1) {
                adx = sum_dx / (double)q;
                out[t] = adx;
            }
            continue;
        }
        if (st != 0 && sum != 0)
            adx = ((adx * (double)(q - 1)) + 100.0 * (fabs(mdi - pdi) / sum)) / (double)q;
        out[t] = adx;
    }
}

Test(catalog_more, directional_movement_has_talib_bits_in_its_first_tile, .timeout = 300) {
    const size_t periods[] = {2, 3, 14, 30};
    const apo__cat_id ids[] = {APO_CAT_PLUS_DI, APO_CAT_MINUS_DI, APO_CAT_ADX};
    for (size_t pi = 0; pi < sizeof periods / sizeof periods[0]; pi++) {
        for (int which = 0; which < 3; which++) {
            const size_t q = periods[pi];
            const double p[2] = {(double)q, 0};
            const ref_kernel *k = &catalog_more_kernels[1 + which];
            cr_assert_eq(k->id, ids[which]);
            const size_t len = apo__catalog_tile_len(k->id, p);
            series s;
            series_make(&s, 5 + pi, 2 * len + 999, HLC, 100.0, 0.5, 0);
            double *got[2] = {alloc_doubles(s.n), NULL};
            double *want = alloc_doubles(s.n);
            run_grid(k, &s, p, got);
            talib_dmi(&s, q, which, want);
            size_t differ = 0;
            for (size_t t = 0; t < s.n; t++) {
                const int same = memcmp(&got[0][t], &want[t], sizeof(double)) == 0 ||
                                 (isnan(got[0][t]) && isnan(want[t]));
                if (t < len)
                    cr_assert(same, "%s(%zu) t %zu: %.17g, TA-Lib %.17g", k->name, q, t, got[0][t],
                              want[t]);
                else
                    differ += !same;
            }
            fprintf(stderr, "catalog %s(%zu): %zu of %zu later outputs differ from TA-Lib's bits\n",
                    k->name, q, differ, s.n - len);
            free(got[0]);
            free(want);
            series_free(&s);
        }
    }
}

/* TA-Lib's ADOSC, written in plain double from its sources' operation order, on a series
 * without gaps: the first tile must have its bits; later tiles restart AD at their warm-up
 * and agree far below an ulp of TA-Lib's running AD. */
static void talib_adosc(const series *s, size_t fast, size_t slow, double *out) {
    const double *h = s->in[0], *l = s->in[1], *c = s->in[2], *v = s->in[3];
    const double fk = 2.0 / (double)(fast + 1), sk = 2.0 / (double)(slow + 1);
    const size_t lookback = (fast > slow ? fast : slow) - 1;
    double ad = 0, fe = 0, se = 0;
    for (size_t t = 0; t < s->n; t++) {
        const double tmp = h[t] - l[t];
        if (tmp > 0.0)
            ad += (((c[t] - l[t]) - (h[t] - c[t])) / tmp) * v[t];
        if (t == 0) {
            fe = ad;
            se = ad;
        } else {
            fe = (fk * ad) + ((1.0 - fk) * fe);
            se = (sk * ad) + ((1.0 - sk) * se);
        }
        out[t] = t >= lookback ? fe - se : NAN;
    }
}

Test(catalog_more, adosc_has_talib_bits_in_its_first_tile, .timeout = 300) {
    const size_t pairs[][2] = {{3, 10}, {2, 2}, {10, 3}, {12, 26}};
    const ref_kernel *k = &catalog_more_kernels[7];
    cr_assert_eq(k->id, APO_CAT_ADOSC);
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        const double p[2] = {(double)pairs[i][0], (double)pairs[i][1]};
        const size_t len = apo__catalog_tile_len(k->id, p);
        series s;
        series_make(&s, 9 + i, 5 * len + 77, HLCV, 100.0, 0.5, 0);
        double *got[2] = {alloc_doubles(s.n), NULL};
        double *want = alloc_doubles(s.n);
        run_grid(k, &s, p, got);
        talib_adosc(&s, pairs[i][0], pairs[i][1], want);
        double big = 0;
        for (size_t t = 0; t < s.n; t++)
            big = fabs(want[t]) > big ? fabs(want[t]) : big;
        for (size_t t = 0; t < s.n; t++) {
            if (t < len)
                cr_assert(memcmp(&got[0][t], &want[t], sizeof(double)) == 0 ||
                              (isnan(got[0][t]) && isnan(want[t])),
                          "adosc(%zu, %zu) t %zu: %.17g, TA-Lib %.17g", pairs[i][0], pairs[i][1], t,
                          got[0][t], want[t]);
            else
                cr_assert(fabs(got[0][t] - want[t]) <= 1e-9 * big, "t %zu: %.17g, TA-Lib %.17g", t,
                          got[0][t], want[t]);
        }
        free(got[0]);
        free(want);
        series_free(&s);
    }
}

/* adosc whose A/D line overflows: from bar 600 on every bar closes at its high with a volume
 * near DBL_MAX, so AD turns infinite and both averages with it, and fast - slow is inf - inf.
 * Every output must be finite or the NAN constant's bits (the vector path makes NaN canonical
 * only when a block ends with a non-finite average: adosc_tile.h), and some must be NaN. */
Test(catalog_more, adosc_overflow_gives_the_canonical_nan) {
    const ref_kernel *k = &catalog_more_kernels[7];
    cr_assert_eq(k->id, APO_CAT_ADOSC);
    const double p[2] = {3, 10};
    const size_t len = apo__catalog_tile_len(k->id, p);
    series s;
    series_make(&s, 33, 3 * len + 5, HLCV, 100.0, 0.5, 0);
    for (size_t t = 600; t < s.n; t++) {
        s.col[2][t] = s.col[0][t] + 0.0;
        s.col[1][t] = s.col[0][t] - 1.0;
        s.col[3][t] = 1.5e308;
    }
    double *got[2] = {alloc_doubles(s.n), NULL};
    run_grid(k, &s, p, got);
    const double canonical = NAN;
    size_t nans = 0;
    for (size_t t = 9; t < s.n; t++) {
        if (isfinite(got[0][t]))
            continue;
        nans++;
        cr_assert(memcmp(&got[0][t], &canonical, sizeof(double)) == 0,
                  "t %zu: %.17g is not the NAN constant", t, got[0][t]);
    }
    cr_assert_gt(nans, s.n / 2, "only %zu outputs overflowed", nans);
    free(got[0]);
    series_free(&s);
}
