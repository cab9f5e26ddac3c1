/*
 * test_statistics_more5.c: TA-Lib 0.8's RVI in the statistics' room (kernels/statistics/
 * rvi_tile.h) against its long-double reference (catalog_reference_talib_more5.c) through group
 * 2's shared check (talib_more2_cases.h), and by hand: the legs' seed, a tie that feeds neither
 * leg, TA-Lib's 50 where both legs are 0, and a gap that both legs skip.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "catalog_dispatch.h"
#include "catalog_reference_talib_more5.h"
#include "talib_more2_cases.h"

/* The defaults, the shortest periods, a long smoothing of a short window and a long window. */
static const more2_case cases[] = {
    {APO_CAT_RVI, "rvi", CLOSE, 1, apo__ref_cat_rvi, {14, 10}},
    {APO_CAT_RVI, "rvi", CLOSE, 1, apo__ref_cat_rvi, {1, 2}},
    {APO_CAT_RVI, "rvi", CLOSE, 1, apo__ref_cat_rvi, {200, 3}},
    {APO_CAT_RVI, "rvi", CLOSE, 1, apo__ref_cat_rvi, {5, 120}},
};
MORE2_TABLE_TESTS(statistics_more5, cases)

static void run_rvi(const double *x, double p, double s, double *out, size_t n) {
    const double par[2] = {p, s};
    run_tile_once(APO_CAT_RVI, &x, 1, par, 2, &out, 1, n);
}

/* timeperiod 2, stddevperiod 2: sigma of two closes is half their distance. */
Test(statistics_more5, rvi_by_hand) {
    const double x[] = {10, 12, 11, 11, 15, 7, NAN, 8, 9};
    enum { N = sizeof x / sizeof x[0] };
    double out[N];
    run_rvi(x, 2, 2, out, N);
    cr_assert(isnan(out[0]) && isnan(out[1]), "lookback (2 - 1) + (2 - 1) = 2");
    /* Bar 1: up 1; bar 2: down 0.5. Seed up 0.5, down 0.25: 100 * 0.5 / 0.75. */
    cr_assert(fabs(out[2] - 200.0 / 3.0) < 1e-13, "bar 2: %.17g", out[2]);
    /* Bar 3 is a tie (sigma 0, and neither leg): up 0.25, down 0.125, the same ratio. */
    cr_assert(fabs(out[3] - 200.0 / 3.0) < 1e-13, "bar 3: %.17g", out[3]);
    /* Bar 4: up (0.25 + 2) / 2 = 1.125, down 0.0625: 100 * 1.125 / 1.1875. */
    cr_assert(fabs(out[4] - 100.0 * 1.125 / 1.1875) < 1e-12, "bar 4: %.17g", out[4]);
    /* Bar 5: up 0.5625, down (0.0625 + 4) / 2 = 2.03125. */
    cr_assert(fabs(out[5] - 100.0 * 0.5625 / 2.59375) < 1e-12, "bar 5: %.17g", out[5]);
    /* The NaN at 6 is in the windows of bars 6 and 7; bar 8 (up 0.5) steps from bar 5's legs. */
    cr_assert(isnan(out[6]) && isnan(out[7]), "gap: %g %g", out[6], out[7]);
    cr_assert(fabs(out[8] - 100.0 * 0.53125 / (0.53125 + 1.015625)) < 1e-12, "bar 8: %.17g",
              out[8]);
}

/* Flat closes: both legs exactly 0, TA-Lib's 50. */
Test(statistics_more5, rvi_of_flat_closes_is_50) {
    double x[40], out[40];
    for (size_t t = 0; t < 40; t++)
        x[t] = 3.25;
    run_rvi(x, 14, 10, out, 40);
    for (size_t t = 0; t < 22; t++)
        cr_assert(isnan(out[t]), "bar %zu", t);
    for (size_t t = 22; t < 40; t++)
        cr_assert_eq(out[t], 50.0, "bar %zu: %g", t, out[t]);
}
