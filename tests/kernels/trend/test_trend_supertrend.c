/*
 * test_trend_supertrend.c: supertrend, TA-Lib 0.8's SuperTrend (docs/kernels.md, "TA-Lib 0.8's
 * newer functions, group 4"): bars worked by hand, and its bits against the plain double
 * reference (catalog_reference_talib_more4.c) on walks with gaps, over tile grids and a stream's
 * carried pieces (a whole-row kernel: every grid has the same bits), and on bars of ties and
 * zeros of both signs.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_dispatch.h"
#include "catalog_more_fixtures.h"
#include "supertrend_tile.h"

static apo__cat_io io_of(const double *const *hlc, const double *p, double *line, double *trend) {
    double *const out[2] = {line, trend};
    return tile_io(APO_CAT_SUPERTREND, hlc, 3, p, 2, out, 2);
}

static int same(double a, double b) { return (isnan(a) && isnan(b)) || a == b; }

Test(trend_supertrend, bars_worked_by_hand) {
    const double high[5] = {11, 12, 13, 10, 9}, low[5] = {9, 10, 11, 7, 6};
    const double close[5] = {10, 11, 12, 8, 7};
    const double *hlc[3] = {high, low, close};
    double line[5], trend[5];
    /* timeperiod 2, multiplier 1: lookback 2. */
    const double p[2] = {2, 1};
    apo__cat_io io = io_of(hlc, p, line, trend);
    apo__cpu_catalog_tile(APO_CAT_SUPERTREND, &io, 0, 5);
    cr_assert(isnan(line[0]) && isnan(line[1]) && isnan(trend[1]), "lookback 2");
    /* True ranges 2, 2: ATR 2 at bar 2; median 12, bands 14 and 10; up, the line the lower. */
    cr_assert(line[2] == 10.0 && trend[2] == 1.0, "bar 2: %g %g", line[2], trend[2]);
    /* Bar 3: TR max(3, |12 - 10|, |12 - 7|) = 5, ATR (2 + 5) / 2 = 3.5; median 8.5, bands 12
     * (under 14: taken) and 5 (not above 10, close before 12 not below: kept 10); close 8 < 10:
     * down, the line the upper band 12. */
    cr_assert(line[3] == 12.0 && trend[3] == -1.0, "bar 3: %g %g", line[3], trend[3]);
    /* Bar 4: TR max(3, |8 - 9|, |8 - 6|) = 3, ATR 3.25; median 7.5, bands 10.75 (taken) and
     * 4.25; close 7 stays under 10.75: down, 10.75. */
    cr_assert(line[4] == 10.75 && trend[4] == -1.0, "bar 4: %g %g", line[4], trend[4]);
}

/* Every grid of tiles and a stream's pieces give the reference's bits, gaps and all. */
Test(trend_supertrend, bits_of_the_reference_over_grids_and_pieces) {
    const double params[3][2] = {{10, 3}, {2, 0}, {50, 1.5}};
    const size_t n = 3000, tiles[3] = {n, 257, 64};
    for (size_t c = 0; c < 3; c++) {
        series s;
        series_make(&s, 90 + c, n, HLC, 100.0, 0.5, c != 1);
        double *want[2] = {alloc_doubles(n), alloc_doubles(n)};
        double *line = alloc_doubles(n), *trend = alloc_doubles(n);
        apo__ref_cat_supertrend(s.in, n, params[c], want);
        size_t flips = 0;
        for (size_t t = 1; t < n; t++)
            flips += want[1][t] != want[1][t - 1] && isfinite(want[1][t - 1]);
        cr_assert_gt(flips, 3, "case %zu: the walk turns the trend (%zu)", c, flips);
        apo__cat_io io = io_of(s.in, params[c], line, trend);
        for (size_t g = 0; g < 3; g++) {
            for (size_t b = 0; b < n; b += tiles[g])
                apo__cpu_catalog_tile(APO_CAT_SUPERTREND, &io, b,
                                      b + tiles[g] < n ? b + tiles[g] : n);
            for (size_t t = 0; t < n; t++)
                cr_assert(same(line[t], want[0][t]) && same(trend[t], want[1][t]),
                          "case %zu tile %zu t %zu: %.17g %g, want %.17g %g", c, tiles[g], t,
                          line[t], trend[t], want[0][t], want[1][t]);
        }
        double carry[APO_SUPERTREND_CARRY] = {0};
        for (size_t b = 0; b < n; b += 97)
            apo__supertrend_carry(&io, carry, b, b + 97 < n ? b + 97 : n);
        for (size_t t = 0; t < n; t++)
            cr_assert(same(line[t], want[0][t]) && same(trend[t], want[1][t]),
                      "case %zu carried t %zu", c, t);
        free(want[0]);
        free(want[1]);
        free(line);
        free(trend);
        series_free(&s);
    }
}

/* The bands' selects (supertrend_tile.h: x86's min and max beside a crossing's select) must
 * give the reference's comparisons bit for bit where bands, closes and new bands tie and zeros
 * of both signs meet: bars drawn from a few values (not valid OHLC bars), at multiplier 0
 * (the bands are the medians) and 1, over tiles and whole. */
Test(trend_supertrend, selects_give_the_reference_bits_on_ties_and_zeros) {
    enum { N = 2000 };
    static const double values[] = {-1.0, -0.0, 0.0, 0.5, 1.0};
    static double high[N], low[N], close[N], want_line[N], want_trend[N], line[N], trend[N];
    uint64_t x = 2026;
    double *const rows[3] = {high, low, close};
    for (size_t t = 0; t < N; t++)
        for (size_t r = 0; r < 3; r++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            rows[r][t] = values[(x >> 33) % (sizeof values / sizeof values[0])];
        }
    const double *hlc[3] = {high, low, close};
    const double params[2][2] = {{3, 0}, {2, 1}};
    for (size_t c = 0; c < 2; c++) {
        double *want[2] = {want_line, want_trend};
        apo__ref_cat_supertrend(hlc, N, params[c], want);
        apo__cat_io io = io_of(hlc, params[c], line, trend);
        for (size_t tile = 61; tile <= N; tile += N - 61) {
            for (size_t b = 0; b < N; b += tile)
                apo__cpu_catalog_tile(APO_CAT_SUPERTREND, &io, b, b + tile < N ? b + tile : N);
            for (size_t t = 0; t < N; t++)
                cr_assert((isnan(line[t]) && isnan(want_line[t])) ||
                              (apo__bits_of(line[t]) == apo__bits_of(want_line[t]) &&
                               trend[t] == want_trend[t]),
                          "case %zu tile %zu t %zu: %.17g %g, want %.17g %g", c, tile, t, line[t],
                          trend[t], want_line[t], want_trend[t]);
        }
    }
}
