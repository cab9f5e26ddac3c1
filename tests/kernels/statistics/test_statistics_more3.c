/*
 * test_statistics_more3.c: TA-Lib 0.8's PERCENTRANK in the statistics' room
 * (kernels/statistics/percentrank_tile.h) against its long-double reference
 * (catalog_reference_talib_more3.c) through group 2's shared check (talib_more2_cases.h), and
 * by hand: ties that do not count, the current sample left out, TA-Lib's rounding.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "catalog_dispatch.h"
#include "catalog_reference_talib_more3.h"
#include "talib_more2_cases.h"

/* The default, the shortest window, an odd one and a long one. */
static const more2_case cases[] = {
    {APO_CAT_PERCENTRANK, "percentrank", CLOSE, 1, apo__ref_cat_percentrank, {100}},
    {APO_CAT_PERCENTRANK, "percentrank", CLOSE, 1, apo__ref_cat_percentrank, {2}},
    {APO_CAT_PERCENTRANK, "percentrank", CLOSE, 1, apo__ref_cat_percentrank, {7}},
    {APO_CAT_PERCENTRANK, "percentrank", CLOSE, 1, apo__ref_cat_percentrank, {300}},
};
MORE2_TABLE_TESTS(statistics_more3, cases)

/* Period 3: the output at t counts x[t-3 .. t-1] strictly below x[t]. */
Test(statistics_more3, percentrank_by_hand) {
    const double x[] = {5, 1, 5, 3, 5, 9, 0, NAN, 4, 4, 4, 4, 2};
    enum { N = sizeof x / sizeof x[0] };
    double out[N];
    apo__cat_io io;
    memset(&io, 0, sizeof io);
    io.in[0] = x;
    io.out[0] = out;
    io.p[0] = 3;
    io.h = apo__catalog_halo(APO_CAT_PERCENTRANK, io.p);
    apo__cpu_catalog_tile(APO_CAT_PERCENTRANK, &io, 0, N);
    for (int t = 0; t < 3; t++)
        cr_assert(isnan(out[t]), "bar %d", t);
    /* 3 against {5, 1, 5}: 1 below; 5 against {1, 5, 3}: 1 and 3 (the tie is not below). */
    cr_assert_eq(out[3], 1.0 / 3.0 * 100.0);
    cr_assert_eq(out[4], 2.0 / 3.0 * 100.0);
    cr_assert_eq(out[5], 100.0); /* 9 above all three */
    cr_assert_eq(out[6], 0.0);   /* 0 below none */
    for (int t = 7; t < 11; t++) /* the NaN at 7 is in the windows of 7 .. 10 */
        cr_assert(isnan(out[t]), "bar %d", t);
    cr_assert_eq(out[11], 0.0); /* all ties */
    cr_assert_eq(out[12], 0.0);
}

/* TA-Lib divides, then scales: 1/3*100 is 33.33...336, where 100*1/3 is 33.33...331. */
Test(statistics_more3, percentrank_divides_before_it_scales) {
    cr_assert_neq(1.0 / 3.0 * 100.0, 100.0 * 1.0 / 3.0);
}
