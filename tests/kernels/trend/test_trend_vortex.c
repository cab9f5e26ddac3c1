/*
 * test_trend_vortex.c: vortex, TA-Lib 0.8's vortex indicator (docs/kernels/volume_statistics.md,
 * "TA-Lib 0.8's newer momentum indicators"), on bars worked by hand and a flat stretch. vortex
 * against its long-double reference, over its tile grid, with gaps, at its bounds, is the table of
 * tests/kernels/common/ (catalog_more_fixtures.c).
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_dispatch.h"
#include "catalog_more_fixtures.h"

Test(trend_vortex, bars_worked_by_hand) {
    const double close[3] = {2, 1, 5}, high[3] = {3, 4, 6}, low[3] = {1, 1, 2};
    const double *hlc[3] = {high, low, close};
    double plus[3], minus[3];
    const double p1[3] = {1, 0, 0}, p2[3] = {2, 0, 0};
    run_one_tile(APO_CAT_VORTEX, hlc, 3, p1, plus, minus, 3);
    cr_assert(isnan(plus[0]) && isnan(minus[0]), "lookback 1");
    /* Bar 1: TR max(3, |2 - 4|, |2 - 1|) = 3; VM+ |4 - 1| = 3; VM- |1 - 3| = 2. */
    cr_assert(fabs(plus[1] - 1.0) < 1e-15 && fabs(minus[1] - 2.0 / 3.0) < 1e-15, "bar 1");
    /* Bar 2: TR max(4, |1 - 6|, |1 - 2|) = 5; VM+ |6 - 1| = 5; VM- |2 - 4| = 2. */
    run_one_tile(APO_CAT_VORTEX, hlc, 3, p2, plus, minus, 3);
    cr_assert(isnan(plus[1]), "lookback 2");
    cr_assert(fabs(plus[2] - 8.0 / 8.0) < 1e-15 && fabs(minus[2] - 4.0 / 8.0) < 1e-15, "bar 2");
}

/* No true range in the window: TA-Lib's 0 for both lines, exactly. */
Test(trend_vortex, a_flat_stretch_gives_zero) {
    const size_t n = 400;
    series s;
    series_make(&s, 9, n, HLC, 100.0, 0.5, 0);
    for (size_t t = 100; t < n; t++)
        s.col[0][t] = s.col[1][t] = s.col[2][t] = 42.0;
    double *a = alloc_doubles(n), *b = alloc_doubles(n);
    const double p[3] = {14, 0, 0};
    run_one_tile(APO_CAT_VORTEX, s.in, 3, p, a, b, n);
    cr_assert(a[n - 1] == 0.0 && b[n - 1] == 0.0, "0 and 0");
    cr_assert(a[110] > 0.0, "a window holding the stretch's first bar moves");
    free(a);
    free(b);
    series_free(&s);
}
