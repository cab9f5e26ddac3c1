/*
 * test_trend_momentum_dm.c: the trend room's momentum and directional movement kernels
 * plus_dm, minus_dm, dx, adxr, aroonosc and ultosc (docs/kernels/momentum.md, "Momentum and
 * directional movement"), beyond the checks of every kernel of the table
 * (common/test_catalog_more.c and test_catalog_more_slow.c: the long-double references, tile
 * grids, halos): hand-worked bars, TA-Lib's edge rules, and the first tiles bitwise against
 * TA-Lib's recursion written out in double here from TA-Lib's operation order.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_dispatch.h"
#include "catalog_more_fixtures.h"

/* Five bars worked by hand: moves up 2, 0, 1, -1 (down -1, 3, 0, 2): +DM 2, 0, 1, 0 and -DM
 * 0, 3, 0, 2; at p = 1 each is its bar's, at p = 3 the seed 2 (+DM of bars 1, 2) then
 * 2 - 2/3 + 0. */
Test(trend_momentum_dm, directional_movements_by_hand) {
    const double high[] = {10, 12, 12, 13, 12}, low[] = {9, 10, 7, 7, 5};
    const double *in[] = {high, low};
    double out[5];
    const double p1[3] = {1, 0, 0}, p3[3] = {3, 0, 0};
    const double plus1[] = {NAN, 2, 0, 1, 0}, minus1[] = {NAN, 0, 3, 0, 2};
    run_one_tile(APO_CAT_PLUS_DM, in, 2, p1, out, NULL, 5);
    for (size_t t = 0; t < 5; t++)
        cr_assert(t == 0 ? isnan(out[t]) : out[t] == plus1[t], "plus_dm(1) t %zu: %g", t, out[t]);
    run_one_tile(APO_CAT_MINUS_DM, in, 2, p1, out, NULL, 5);
    for (size_t t = 0; t < 5; t++)
        cr_assert(t == 0 ? isnan(out[t]) : out[t] == minus1[t], "minus_dm(1) t %zu: %g", t, out[t]);
    run_one_tile(APO_CAT_PLUS_DM, in, 2, p3, out, NULL, 5);
    cr_assert(isnan(out[0]) && isnan(out[1]));
    cr_assert_eq(out[2], 2.0);
    cr_assert_eq(out[3], 2.0 - 2.0 / 3.0 + 1.0);
    cr_assert_eq(out[4], out[3] - out[3] / 3.0 + 0.0);
    run_one_tile(APO_CAT_MINUS_DM, in, 2, p3, out, NULL, 5);
    cr_assert_eq(out[2], 3.0);
    cr_assert_eq(out[4], (3.0 - 3.0 / 3.0 + 0.0) - (3.0 - 3.0 / 3.0 + 0.0) / 3.0 + 2.0);
}

/* A series flat from its start has no DX: TA-Lib's 0, repeated, and ADXR 0; then moving
 * bars give values. aroonosc's highest high 3 bars after its lowest low, p = 4: (100/4) * 3. */
Test(trend_momentum_dm, flat_bars_and_aroonosc_by_hand) {
    enum { N = 60 };
    double h[N], l[N], c[N], out[N];
    for (size_t t = 0; t < N; t++) {
        const double x = t < 30 ? 5.0 : 5.0 + (double)((t * 7) % 5);
        h[t] = x + 1, l[t] = x - 1, c[t] = x;
    }
    const double *in[] = {h, l, c};
    const double p[3] = {5, 0, 0};
    run_one_tile(APO_CAT_DX, in, 3, p, out, NULL, N);
    for (size_t t = 5; t < 30; t++)
        cr_assert_eq(out[t], 0.0, "dx t %zu: %g", t, out[t]);
    cr_assert(out[N - 1] > 0.0);
    run_one_tile(APO_CAT_ADXR, in, 3, p, out, NULL, N);
    cr_assert(isnan(out[12]));
    for (size_t t = 13; t < 30; t++)
        cr_assert_eq(out[t], 0.0, "adxr t %zu: %g", t, out[t]);
    const double hh[] = {3, 1, 2, 2, 9, 4}, ll[] = {2, 0, 1, 1, 3, 2};
    const double *hl[] = {hh, ll};
    const double p4[3] = {4, 0, 0};
    run_one_tile(APO_CAT_AROONOSC, hl, 2, p4, out, NULL, 6);
    cr_assert(isnan(out[3]));
    cr_assert_eq(out[4], 25.0 * 3.0);
    cr_assert_eq(out[5], 25.0 * 3.0);
}

/* ultosc sorts its periods (TA-Lib does), so any order of the three gives the same bits; flat
 * bars (no true range) give 0, at a series' start and after moving bars. */
Test(trend_momentum_dm, ultosc_periods_in_any_order_and_flat_bars) {
    series s;
    series_make(&s, 9, 400, HLC, 100.0, 0.5, 1);
    const double orders[][3] = {{7, 14, 28}, {28, 7, 14}, {14, 28, 7}};
    double *a = alloc_doubles(s.n), *b = alloc_doubles(s.n);
    run_one_tile(APO_CAT_ULTOSC, s.in, 3, orders[0], a, NULL, s.n);
    for (size_t o = 1; o < 3; o++) {
        run_one_tile(APO_CAT_ULTOSC, s.in, 3, orders[o], b, NULL, s.n);
        cr_assert(memcmp(a, b, s.n * sizeof(double)) == 0, "order %zu", o);
    }
    for (size_t t = 0; t < 100; t++)
        s.col[0][t] = s.col[1][t] = s.col[2][t] = 42.0;
    run_one_tile(APO_CAT_ULTOSC, s.in, 3, orders[0], a, NULL, s.n);
    for (size_t t = 28; t < 100; t++)
        cr_assert_eq(a[t], 0.0, "t %zu: %g", t, a[t]);
    /* Flat bars after moving ones, slid into from the anchor at bar 256 (ultosc_tile.h): a
     * window of flat bars alone gives 0 too, whatever the slides left of the ranges they let
     * go (bar 300 still has a range, from the close before it). Before them, bars near 1e6
     * then near 1: the small ranges and pressures join sums that hold large ones, and round, so
     * letting every one go leaves a residue where exact sums would leave 0. */
    for (size_t t = 256; t < 300; t++) {
        const double scale = t < 280 ? 1e6 : 1.0;
        s.col[0][t] = scale * (1.0 + 0.0123 * (double)(t % 11) / 3.0);
        s.col[1][t] = s.col[0][t] - scale * (0.003 + (double)(t % 5) * 1e-3 / 7.0);
        s.col[2][t] = s.col[1][t] + (s.col[0][t] - s.col[1][t]) * (0.2 + 0.05 * (double)(t % 7));
    }
    for (size_t t = 300; t < 400; t++)
        s.col[0][t] = s.col[1][t] = s.col[2][t] = 1.0;
    run_one_tile(APO_CAT_ULTOSC, s.in, 3, orders[0], a, NULL, s.n);
    for (size_t t = 328; t < 400; t++)
        cr_assert_eq(a[t], 0.0, "t %zu: %g", t, a[t]);
    free(a);
    free(b);
    series_free(&s);
}

/* The same flat bars after moving ones of two scales, with a longest window past the chunks'
 * reach (s3 = 513 > APO_ULTOSC_SPAN_MAX, ultosc_tile.h), so that the per-bar loop slides them,
 * as a GPU and a stream's one-bar pieces do: from the anchor at bar 1024, a window of 513 flat
 * bars gives 0 exactly. (These ranges leave a positive residue in the longest window's range
 * sum, which, left in place, gave -14 where 0 is due.) */
Test(trend_momentum_dm, ultosc_flat_windows_on_the_per_bar_loop) {
    series s;
    series_make(&s, 9, 1536, HLC, 100.0, 0.5, 1);
    for (size_t t = 500; t < 900; t++) {
        const double scale = t < 700 ? 1e6 : 1.0;
        s.col[0][t] = scale * (1.0 + 0.0123 * (double)(t % 11) / 3.0);
        s.col[1][t] = s.col[0][t] - scale * (0.002 + (double)(t % 5) * 1e-3 / 7.0);
        s.col[2][t] = s.col[1][t] + (s.col[0][t] - s.col[1][t]) * (0.2 + 0.05 * (double)(t % 7));
    }
    for (size_t t = 900; t < 1536; t++)
        s.col[0][t] = s.col[1][t] = s.col[2][t] = 1.0;
    const double periods[3] = {7, 14, 513};
    double *a = alloc_doubles(s.n);
    run_one_tile(APO_CAT_ULTOSC, s.in, 3, periods, a, NULL, s.n);
    for (size_t t = 901 + 512; t < 1536; t++)
        cr_assert_eq(a[t], 0.0, "t %zu: %g", t, a[t]);
    free(a);
    series_free(&s);
}

/* TA-Lib's PLUS_DM, MINUS_DM, DX and ADXR written out in double in TA-Lib's operation order
 * (its seeds in index order, S - S/p then + DM, the DIs' 100 * (S / TR)); which: 0 +DM, 1 -DM,
 * 2 DX, 3 ADXR. */
static void talib_dm_family(const double *h, const double *l, const double *c, size_t n, size_t q,
                            int which, double *out) {
    double sp = 0, sm = 0, st = 0, adx = 0, last = 0;
    double *adxs = alloc_doubles(n);
    for (size_t t = 0; t < n; t++)
        out[t] = adxs[t] = NAN;
    for (size_t t = 1; t < n; t++) {
        const double up = h[t] - h[t - 1], down = l[t - 1] - l[t];
        const double pdm = up > 0 && up > down ? up : 0, mdm = down > 0 && down > up ? down : 0;
        double tr = h[t] - l[t];
        tr = fabs(h[t] - c[t - 1]) > tr ? fabs(h[t] - c[t - 1]) : tr;
        tr = fabs(l[t] - c[t - 1]) > tr ? fabs(l[t] - c[t - 1]) : tr;
        if (t < q) {
            sp += pdm, sm += mdm, st += tr;
        } else {
            sp = sp - sp / (double)q + pdm;
            sm = sm - sm / (double)q + mdm;
            st = st - st / (double)q + tr;
        }
        if (which < 2 && t + 1 >= q) {
            out[t] = which == 0 ? sp : sm;
            continue;
        }
        if (t < q)
            continue;
        const double pdi = st != 0 ? 100.0 * (sp / st) : 0, mdi = st != 0 ? 100.0 * (sm / st) : 0;
        const int defined = st != 0 && mdi + pdi != 0;
        const double dx = defined ? 100.0 * (fabs(mdi - pdi) / (mdi + pdi)) : 0;
        last = defined ? dx : last;
        out[t] = which == 2 ? last : NAN;
        const size_t k = t - q + 1; /* the DX seen */
        if (k <= q) {
            adx += defined ? dx : 0;
            if (k == q)
                adxs[t] = adx = adx / (double)q;
        } else {
            adx = defined ? (adx * (double)(q - 1) + dx) / (double)q : adx;
            adxs[t] = adx;
        }
    }
    if (which == 3)
        for (size_t t = q - 1; t < n; t++)
            out[t] = (adxs[t + 1 - q] + adxs[t]) / 2.0;
    free(adxs);
}

/* The first tile is TA-Lib's recursion to the bit (at p = 1 too, TA-Lib's raw DM); on these
 * walks the later tiles were too, which is not asserted. */
Test(trend_momentum_dm, first_tile_has_talibs_bits) {
    const apo__cat_id ids[] = {APO_CAT_PLUS_DM, APO_CAT_MINUS_DM, APO_CAT_DX, APO_CAT_ADXR};
    const size_t periods[] = {1, 2, 3, 14, 30};
    for (size_t pi = 0; pi < sizeof periods / sizeof periods[0]; pi++) {
        for (int which = 0; which < 4; which++) {
            const size_t q = periods[pi];
            if (q < 2 && which >= 2)
                continue;
            const double p[3] = {(double)q, 0, 0};
            const size_t len = apo__catalog_tile_len(ids[which], p);
            series s;
            series_make(&s, 50 + pi, len + 500, HLC, 100.0, 0.5, 0);
            double *want = alloc_doubles(s.n), *got[2] = {alloc_doubles(s.n), NULL};
            talib_dm_family(s.col[0], s.col[1], s.col[2], s.n, q, which, want);
            const ref_kernel k = {ids[which], "dm", which < 2 ? HL : HLC, 1, NULL, 1, 0};
            series one = s;
            one.n_in = which < 2 ? 2 : 3;
            run_grid(&k, &one, p, got);
            for (size_t t = 0; t < len; t++)
                cr_assert(memcmp(&got[0][t], &want[t], sizeof(double)) == 0 ||
                              (isnan(got[0][t]) && isnan(want[t])),
                          "kernel %d p %zu t %zu: got %.17g want %.17g", which, q, t, got[0][t],
                          want[t]);
            free(want);
            free(got[0]);
            series_free(&s);
        }
    }
}
