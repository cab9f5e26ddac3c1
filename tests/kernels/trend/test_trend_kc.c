/*
 * test_trend_kc.c: kc, TA-Lib 0.8's Keltner channel (docs/kernels.md, "TA-Lib 0.8's newer
 * functions, group 4"), on bars worked by hand, including TA-Lib's seeds (both legs' seeds end at
 * the lookback bar). kc against its long-double reference, over its tile grid, with gaps, at its
 * bounds, is the table of tests/kernels/common/ (catalog_more_fixtures.c).
 */
#include <criterion/criterion.h>

#include <math.h>
#include <string.h>

#include "catalog_dispatch.h"
#include "catalog_more_fixtures.h"

/* kc over [0, n) as one tile into out[0..2]. */
static void run_kc(const double *const *hlc, const double *p, double *const *out, size_t n) {
    run_tile_once(APO_CAT_KC, hlc, 3, p, 3, out, 3, n);
}

static void assert_near(double got, double want, const char *what) {
    cr_assert(fabs(got - want) < 1e-13, "%s: %.17g, want %.17g", what, got, want);
}

Test(trend_kc, bars_worked_by_hand) {
    const double high[3] = {3, 4, 6}, low[3] = {1, 1, 2}, close[3] = {2, 1, 5};
    const double *hlc[3] = {high, low, close};
    double upper[3], middle[3], lower[3];
    double *out[3] = {upper, middle, lower};
    /* timeperiod 2 (k = 2/3), atrperiod 1 (the true range itself), nbdev 2: lookback 1. */
    const double p[3] = {2, 1, 2};
    run_kc(hlc, p, out, 3);
    cr_assert(isnan(upper[0]) && isnan(middle[0]) && isnan(lower[0]), "lookback 1");
    /* Typical prices 2, 2, 13/3. Bar 1: EMA (2 + 2) / 2 = 2; TR max(3, |2 - 4|, |2 - 1|) = 3. */
    assert_near(middle[1], 2.0, "middle 1");
    assert_near(upper[1], 8.0, "upper 1");
    assert_near(lower[1], -4.0, "lower 1");
    /* Bar 2: EMA 2 + (13/3 - 2) * 2/3 = 32/9; TR max(4, |1 - 6|, |1 - 2|) = 5. */
    assert_near(middle[2], 32.0 / 9.0, "middle 2");
    assert_near(upper[2], 32.0 / 9.0 + 10.0, "upper 2");
    assert_near(lower[2], 32.0 / 9.0 - 10.0, "lower 2");
}

/* atrperiod 3 past timeperiod 2 - 1: the lookback is 3, and the EMA's seed is the mean of the
 * typical prices of bars 2 and 3, TA-Lib's, not of bars 0 and 1. */
Test(trend_kc, seeds_end_at_the_lookback) {
    const double high[5] = {3, 4, 6, 5, 7}, low[5] = {1, 1, 2, 3, 4}, close[5] = {2, 1, 5, 4, 6};
    const double *hlc[3] = {high, low, close};
    double upper[5], middle[5], lower[5];
    double *out[3] = {upper, middle, lower};
    const double p[3] = {2, 3, 0.5};
    run_kc(hlc, p, out, 5);
    for (size_t t = 0; t < 3; t++)
        cr_assert(isnan(middle[t]) && isnan(upper[t]), "lookback 3: bar %zu", t);
    /* Typical prices 13/3 and 4: the seed 25/6. True ranges 3, 5, 2: the seed 10/3. */
    assert_near(middle[3], 25.0 / 6.0, "middle 3");
    assert_near(upper[3], 25.0 / 6.0 + 5.0 / 3.0, "upper 3");
    assert_near(lower[3], 25.0 / 6.0 - 5.0 / 3.0, "lower 3");
    /* Bar 4: EMA 25/6 + (17/3 - 25/6) * 2/3 = 31/6; TR max(3, |4 - 7|, |4 - 4|) = 3, the ATR
     * (10/3 * 2 + 3) / 3 = 29/9. */
    assert_near(middle[4], 31.0 / 6.0, "middle 4");
    assert_near(upper[4], 31.0 / 6.0 + 29.0 / 18.0, "upper 4");
}
