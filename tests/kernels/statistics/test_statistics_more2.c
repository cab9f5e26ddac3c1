/*
 * test_statistics_more2.c: TA-Lib 0.8's PERCENTILE in the statistics' room
 * (kernels/statistics/percentile_tile.h) against its long-double reference
 * (catalog_reference_talib_more2.c) through the shared check (talib_more2_cases.h), and its
 * nearest rank at the round percentages where `percentile / 100 * p` would round one rank
 * too high.
 */
#include <criterion/criterion.h>

#include "catalog_dispatch.h"
#include "percentile_tile.h"
#include "talib_more2_cases.h"

/* The median, the extremes 0 and 100, round percentages, a window of 2 and a long one. */
static const more2_case cases[] = {
    {APO_CAT_PERCENTILE, "percentile", CLOSE, 1, apo__ref_cat_percentile, {30, 50}},
    {APO_CAT_PERCENTILE, "percentile", CLOSE, 1, apo__ref_cat_percentile, {5, 0}},
    {APO_CAT_PERCENTILE, "percentile", CLOSE, 1, apo__ref_cat_percentile, {5, 100}},
    {APO_CAT_PERCENTILE, "percentile", CLOSE, 1, apo__ref_cat_percentile, {100, 7}},
    {APO_CAT_PERCENTILE, "percentile", CLOSE, 1, apo__ref_cat_percentile, {2, 50}},
    {APO_CAT_PERCENTILE, "percentile", CLOSE, 1, apo__ref_cat_percentile, {7, 33.5}},
    {APO_CAT_PERCENTILE, "percentile", CLOSE, 1, apo__ref_cat_percentile, {120, 90}},
};
MORE2_TABLE_TESTS(statistics_more2, cases)

/* percentile * p / 100 rounded up, the product first: 7% of 100 is rank 7 (0.07 * 100 rounds to
 * 7.000000000000001, rank 8) and 14% of 50 rank 7; 0% rank 1, 100% rank p, 50% of 5 rank 3. */
Test(statistics_more2, percentile_rank_is_the_exact_ceiling) {
    cr_assert_eq(apo__percentile_rank(7, 100), 7);
    cr_assert_eq(apo__percentile_rank(14, 50), 7);
    cr_assert_eq(apo__percentile_rank(70, 10), 7);
    cr_assert_eq(apo__percentile_rank(10, 30), 3);
    cr_assert_eq(apo__percentile_rank(0, 30), 1);
    cr_assert_eq(apo__percentile_rank(100, 30), 30);
    cr_assert_eq(apo__percentile_rank(50, 5), 3);
    cr_assert_eq(apo__percentile_rank(50, 4), 2);
    cr_assert_eq(apo__percentile_rank(0.5, 10000), 50);
    cr_assert_eq(apo__percentile_rank(0.51, 10000), 51);
}
