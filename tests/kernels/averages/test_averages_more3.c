/*
 * test_averages_more3.c: TA-Lib 0.8's HMA in the averages' room (kernels/averages/hma_tile.h)
 * against its long-double reference (catalog_reference_talib_more3.c) through group 2's shared
 * check (talib_more2_cases.h), and by hand: the lookback's integer square root, period 1 the
 * sample itself and periods 2 and 3 `2 x - WMA(x, n)`.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "catalog_dispatch.h"
#include "catalog_reference_talib_more3.h"
#include "talib_more2_cases.h"

/* The default, the identity, both degenerate periods, the first with s = h = 2, an exact
 * square and a long one. */
static const more2_case cases[] = {
    {APO_CAT_HMA, "hma", CLOSE, 1, apo__ref_cat_hma, {20}},
    {APO_CAT_HMA, "hma", CLOSE, 1, apo__ref_cat_hma, {1}},
    {APO_CAT_HMA, "hma", CLOSE, 1, apo__ref_cat_hma, {2}},
    {APO_CAT_HMA, "hma", CLOSE, 1, apo__ref_cat_hma, {3}},
    {APO_CAT_HMA, "hma", CLOSE, 1, apo__ref_cat_hma, {4}},
    {APO_CAT_HMA, "hma", CLOSE, 1, apo__ref_cat_hma, {49}},
    {APO_CAT_HMA, "hma", CLOSE, 1, apo__ref_cat_hma, {150}},
};
MORE2_TABLE_TESTS(averages_more3, cases)

/* TA-Lib's lookbacks: (n - 1) + (floor(sqrt(n)) - 1), 0 at n = 1. */
Test(averages_more3, hma_lookback_is_talibs) {
    const double periods[] = {1, 2, 3, 4, 8, 9, 20, 24, 25, 100, 99999, 100000};
    const size_t want[] = {0, 1, 2, 4, 8, 10, 22, 26, 28, 108, 99998 + 315, 99999 + 315};
    for (size_t i = 0; i < sizeof periods / sizeof periods[0]; i++) {
        double p[APO_CAT_MAX_PAR] = {periods[i]};
        cr_assert_eq(apo__catalog_lookback(APO_CAT_HMA, p), want[i], "period %g", periods[i]);
    }
}

static void run_hma(const double *x, double *out, size_t n, double period) {
    run_tile_once(APO_CAT_HMA, &x, 1, &period, 1, &out, 1, n);
}

/* Period 1 copies the sample; period 3 is 2 x - (x[t-2] + 2 x[t-1] + 3 x[t]) / 6; period 4
 * (h = s = 2) worked through: on 1, 2, 4, 8, 16 the WMA(4)s at 3 and 4 are 49/10 and 98/10,
 * the WMA(2)s 20/3 and 40/3, so d is 253/30 and 253/15 and the HMA (d3 + 2 d4) / 3 = 253/18
 * (TA-Lib 0.8.1 gives 14.0555...). */
Test(averages_more3, hma_by_hand) {
    const double x[] = {1, 2, 4, 8, 16};
    double out[5];
    run_hma(x, out, 5, 1);
    for (int t = 0; t < 5; t++)
        cr_assert_eq(out[t], x[t]);
    run_hma(x, out, 5, 3);
    cr_assert(isnan(out[1]));
    cr_assert_float_eq(out[2], 8.0 - (1 + 4 + 12) / 6.0, 1e-14);
    cr_assert_float_eq(out[4], 32.0 - (4 + 16 + 48) / 6.0, 1e-14);
    run_hma(x, out, 5, 4);
    cr_assert(isnan(out[3]));
    cr_assert_float_eq(out[4], 253.0 / 18.0, 1e-13);
}
