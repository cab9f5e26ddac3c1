/*
 * test_volume.c: the catalog's volume indicators (kernels/volume/: mfi, mvwap, adosc; obv and
 * ad, the running sums, are test_catalog_cumulative.c's): mvwap's windows without volume after
 * trades, adosc's first tile bitwise against TA-Lib's recursion and its overflow to the
 * canonical NaN. Against their long-double references (catalog_reference_more.c) over lengths
 * 1 to 1e5, at their upper bound, in any tile order and reading only their halo, and mfi's and
 * mvwap's flat windows, they are checked with every kernel of their table
 * (common/test_catalog_more.c and its slow counterpart); catalog_more_fixtures.c holds the
 * table and helpers.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_dispatch.h"
#include "catalog_more_fixtures.h"
#include "cpu_isa.h"

/* A window without volume after traded bars: the slid volume sum (window_sum.h) must come
 * back to exactly 0 when the last fractional volume leaves the window, so mvwap is NaN there
 * as on a series that starts without volume, and a value again once volume returns. The
 * series is one tile run whole, on every vector path (blocks of clean windows), and the same
 * tile fed to a stream's resume in pieces of 5 bars, too short for a block, so that one sum
 * slides bar by bar from the tile's start to its end. */
static void assert_mvwap_quiet_run(const double *out, size_t n, size_t p, size_t quiet_from,
                                   size_t quiet_to, const char *how) {
    for (size_t t = p - 1; t < n; t++) {
        const int quiet = t >= quiet_from + p - 1 && t < quiet_to;
        cr_assert(quiet ? isnan(out[t]) : isfinite(out[t]), "%s: t %zu gives %g", how, t, out[t]);
    }
}

Test(catalog_more, mvwap_window_without_volume_after_trades_is_nan) {
    const size_t n = 700, p = 20, quiet_from = 230, quiet_to = 420;
    series s;
    series_make(&s, 8, n, HLCV, 100.0, 0.5, 0);
    for (size_t t = quiet_from; t < quiet_to; t++)
        s.col[3][t] = 0.0;
    cr_assert(s.col[3][quiet_from - 1] != floor(s.col[3][quiet_from - 1]),
              "the volumes before the quiet run are fractional");
    const double prm[3] = {(double)p, 0, 0};
    double *out[1] = {alloc_doubles(n)};
    apo__cat_io io;
    io_make(&io, APO_CAT_MVWAP, &s, prm, out, 1);
    for (int isa = APO_CPU_ISA_SSE2; isa <= APO_CPU_ISA_LAST; isa++) {
        if (!apo__cpu_isa_supported((apo__cpu_isa)isa))
            continue;
        apo__cpu_catalog_tile_on(APO_CAT_MVWAP, &io, 0, n, isa);
        assert_mvwap_quiet_run(out[0], n, p, quiet_from, quiet_to,
                               apo__cpu_isa_name((apo__cpu_isa)isa));
    }
    void *state = calloc(1, apo__catalog_resume_size(APO_CAT_MVWAP));
    cr_assert_not_null(state);
    for (size_t b = 0; b < n; b += 5)
        apo__cpu_catalog_resume(APO_CAT_MVWAP, &io, state, b == 0, 0, b + 5 < n ? b + 5 : n);
    assert_mvwap_quiet_run(out[0], n, p, quiet_from, quiet_to, "resumed in pieces of 5");
    free(state);
    free(out[0]);
    series_free(&s);
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
    cr_assert_eq(k->cols, HLCV);
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        const double p[3] = {(double)pairs[i][0], (double)pairs[i][1], 0};
        talib_run r;
        talib_run_make(&r, k, p, 9 + i, 5, 77);
        talib_adosc(&r.s, pairs[i][0], pairs[i][1], r.want);
        char what[64];
        snprintf(what, sizeof what, "adosc(%zu, %zu)", pairs[i][0], pairs[i][1]);
        talib_assert_first_tile(&r, what);
        double big = 0;
        for (size_t t = 0; t < r.s.n; t++)
            big = fabs(r.want[t]) > big ? fabs(r.want[t]) : big;
        for (size_t t = r.len; t < r.s.n; t++)
            cr_assert(fabs(r.got[t] - r.want[t]) <= 1e-9 * big, "%s t %zu: %.17g, TA-Lib %.17g",
                      what, t, r.got[t], r.want[t]);
        talib_run_free(&r);
    }
}

/* adosc whose A/D line overflows: from bar 600 on every bar closes at its high with a volume
 * near DBL_MAX, so AD turns infinite and both averages with it, and fast - slow is inf - inf.
 * Every output must be finite or the NAN constant's bits (the vector path makes NaN canonical
 * only when a block ends with a non-finite average: adosc_tile.h), and some must be NaN. */
Test(catalog_more, adosc_overflow_gives_the_canonical_nan) {
    const ref_kernel *k = &catalog_more_kernels[7];
    cr_assert_eq(k->id, APO_CAT_ADOSC);
    const double p[3] = {3, 10, 0};
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
