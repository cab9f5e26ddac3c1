/*
 * test_trend_more3.c: TA-Lib 0.8's MASSI in the trend room (kernels/trend/massi_tile.h) against
 * its long-double reference (catalog_reference_talib_more3.c) through group 2's shared check
 * (talib_more2_cases.h), and by hand: a flat market sums slowperiod ratios of 1, and a range that
 * is constant gives the same.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "catalog_dispatch.h"
#include "catalog_reference_talib_more3.h"
#include "talib_more2_cases.h"

/* The defaults, the shortest periods, a slow window shorter than the fast EMA and long ones. */
static const more2_case cases[] = {
    {APO_CAT_MASSI, "massi", HL, 1, apo__ref_cat_massi, {9, 25}},
    {APO_CAT_MASSI, "massi", HL, 1, apo__ref_cat_massi, {2, 2}},
    {APO_CAT_MASSI, "massi", HL, 1, apo__ref_cat_massi, {12, 3}},
    {APO_CAT_MASSI, "massi", HL, 1, apo__ref_cat_massi, {30, 200}},
};
MORE2_TABLE_TESTS(trend_more3, cases)

static void run_massi(const double *high, const double *low, double *out, size_t n, double fast,
                      double slow) {
    const double *const in[2] = {high, low}, par[2] = {fast, slow};
    run_tile_once(APO_CAT_MASSI, in, 2, par, 2, &out, 1, n);
}

/* A flat market (high == low: both EMAs 0) is TA-Lib's ratio 1, so the index is slowperiod; a
 * constant range of 2 gives the same; the NaN lead is 2 (f - 1) + (s - 1); a gap bar is NaN in
 * the s outputs whose windows hold it. */
Test(trend_more3, massi_by_hand) {
    enum { N = 20 };
    double high[N], low[N], out[N];
    for (int t = 0; t < N; t++) {
        high[t] = 10.0;
        low[t] = 10.0;
    }
    run_massi(high, low, out, N, 3, 4);
    for (int t = 0; t < 7; t++)
        cr_assert(isnan(out[t]), "bar %d", t);
    for (int t = 7; t < N; t++)
        cr_assert_eq(out[t], 4.0, "bar %d", t);
    for (int t = 0; t < N; t++)
        low[t] = 8.0;
    high[12] = NAN;
    run_massi(high, low, out, N, 3, 4);
    for (int t = 7; t < 12; t++)
        cr_assert_eq(out[t], 4.0, "bar %d", t);
    for (int t = 12; t < 16; t++)
        cr_assert(isnan(out[t]), "bar %d", t);
    for (int t = 16; t < N; t++)
        cr_assert_eq(out[t], 4.0, "bar %d", t);
}
