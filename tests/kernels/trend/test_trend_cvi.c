/*
 * test_trend_cvi.c: cvi, TA-Lib 0.8's Chaikin volatility (docs/kernels.md, "TA-Lib 0.8's newer
 * functions, group 4"), on bars worked by hand, flat bars (TA-Lib's 0 where the lagged average is
 * 0) and a gap. cvi against its long-double reference, over its tile grid, with gaps, at its
 * bounds, is the table of tests/kernels/common/ (catalog_more_fixtures.c).
 */
#include <criterion/criterion.h>

#include <math.h>

#include "catalog_dispatch.h"
#include "catalog_more_fixtures.h"

/* cvi over [0, n) as one tile: run_one_tile, which reads three parameters, with cvi's two and
 * a 0 (the third an io's unused parameter holds). */
static void run_cvi(const double *high, const double *low, const double *p, double *out, size_t n) {
    const double *in[] = {high, low};
    const double params[3] = {p[0], p[1], 0.0};
    run_one_tile(APO_CAT_CVI, in, 2, params, out, NULL, n);
}

Test(trend_cvi, bars_worked_by_hand) {
    /* Ranges 2, 4, 1, 3; timeperiod 2 (k = 2/3), rocperiod 1. */
    const double high[4] = {12, 14, 11, 13}, low[4] = {10, 10, 10, 10};
    const double p[2] = {2, 1};
    double out[4];
    run_cvi(high, low, p, out, 4);
    cr_assert(isnan(out[0]) && isnan(out[1]), "lookback (2 - 1) + 1 = 2: %g %g", out[0], out[1]);
    /* E[1] = (2 + 4) / 2 = 3; E[2] = 3 + (1 - 3) * 2/3 = 5/3; 100 * (5/3 - 3) / 3 = -400/9. */
    cr_assert(fabs(out[2] - -400.0 / 9.0) < 1e-13, "bar 2: %.17g", out[2]);
    /* E[3] = 5/3 + (3 - 5/3) * 2/3 = 23/9; 100 * (23/9 - 5/3) / (5/3) = 160/3. */
    cr_assert(fabs(out[3] - 160.0 / 3.0) < 1e-13, "bar 3: %.17g", out[3]);
}

Test(trend_cvi, flat_bars_give_zero_and_a_gap_gives_nan) {
    double high[12], low[12], out[12];
    for (size_t t = 0; t < 12; t++)
        high[t] = low[t] = 7.0;
    high[9] = 8.0;
    high[10] = NAN;
    const double p[2] = {3, 2};
    run_cvi(high, low, p, out, 12);
    for (size_t t = 0; t < 4; t++)
        cr_assert(isnan(out[t]), "lookback 4: bar %zu %g", t, out[t]);
    /* E is 0 through bar 8: TA-Lib's guard gives 0 where the lagged average is 0, also at bar 9
     * whose range moved E off 0. */
    for (size_t t = 4; t < 10; t++)
        cr_assert_eq(out[t], 0.0, "bar %zu: %g", t, out[t]);
    cr_assert(isnan(out[10]), "a gap bar gives NaN: %g", out[10]);
    /* Bar 11: E skipped bar 10, so E[11] = E[9] + (0 - E[9]) / 2 = E[9] / 2, E[9] = 0.5, and the
     * lagged E[9] is 0.5: 100 * (0.25 - 0.5) / 0.5 = -50. */
    cr_assert(fabs(out[11] - -50.0) < 1e-13, "bar 11: %.17g", out[11]);
}
