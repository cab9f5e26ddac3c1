/*
 * test_oscillators_more2.c: TA-Lib 0.8's newer momentum kernels of group 2 in the oscillators'
 * room (kernels/oscillators/: wad, fractal) against their long-double references
 * (catalog_reference_talib_more2.c) through the shared check (talib_more2_cases.h), and each
 * worked by hand where TA-Lib's rule has an edge: wad's unmoved close and its true range's
 * extremes, fractal's ties and its report rightbars bars after the pivot.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <string.h>

#include "catalog_dispatch.h"
#include "talib_more2_cases.h"

static const more2_case cases[] = {
    {APO_CAT_WAD, "wad", HLC, 1, apo__ref_cat_wad, {0}},
    {APO_CAT_FRACTAL, "fractal", HL, 2, apo__ref_cat_fractal, {2, 2}},
    {APO_CAT_FRACTAL, "fractal", HL, 2, apo__ref_cat_fractal, {1, 1}},
    {APO_CAT_FRACTAL, "fractal", HL, 2, apo__ref_cat_fractal, {5, 1}},
    {APO_CAT_FRACTAL, "fractal", HL, 2, apo__ref_cat_fractal, {1, 7}},
    {APO_CAT_FRACTAL, "fractal", HL, 2, apo__ref_cat_fractal, {30, 40}},
};
MORE2_TABLE_TESTS(oscillators_more2, cases)

/* wad by hand: 0 at the first bar; a rise counts from the lower of the low and the previous
 * close, a fall from the higher of the high and the previous close; an unmoved close adds
 * nothing; a gap bar is NaN and is not the bar before. */
Test(oscillators_more2, wad_worked_by_hand) {
    const double high[] = {11, 12, 13, 12, NAN, 14, 9};
    const double low[] = {9, 10, 11, 8, 8, 11, 7};
    const double close[] = {10, 11, 11, 9, 9, 13, 8};
    /* Bar 1: rise, min(10, 10) = 10: +1. Bar 2: unmoved. Bar 3: fall, max(12, 11) = 12: -3.
     * Bar 4: a gap. Bar 5: rise from 9, min(11, 9) = 9: +4. Bar 6: fall, max(9, 13): -5. */
    const double want[] = {0, 1, 1, -2, NAN, 2, -3};
    const double *in[] = {high, low, close};
    double out[7];
    double *outs[] = {out};
    const double p[2] = {0};
    run_tile_once(APO_CAT_WAD, in, 3, p, 2, outs, 1, 7);
    for (size_t t = 0; t < 7; t++) {
        if (isnan(want[t]))
            cr_assert(isnan(out[t]), "bar %zu", t);
        else
            cr_assert_eq(out[t], want[t], "bar %zu: %g, not %g", t, out[t], want[t]);
    }
}

/* fractal by hand at (2, 2): a swing is reported two bars after its pivot; a high tied with
 * another of its window is no swing. */
Test(oscillators_more2, fractal_worked_by_hand) {
    const double high[] = {1, 2, 5, 3, 2, 4, 6, 6, 1, 0};
    const double low[] = {5, 4, 1, 3, 4, 2, 3, 3, 4, 5};
    /* Highs: pivot 2 (5 > 1, 2, 3, 2): at bar 4; pivots 6 and 7 tie (6, 6): no swing at 8 or 9.
     * Lows: pivot 2 (1): at bar 4; pivot 5 (2 < 3, 4, 3, 3): at bar 7. */
    const double want_high[] = {NAN, NAN, NAN, NAN, 100, 0, 0, 0, 0, 0};
    const double want_low[] = {NAN, NAN, NAN, NAN, 100, 0, 0, 100, 0, 0};
    const double *in[] = {high, low};
    double sh[10], sl[10];
    double *outs[] = {sh, sl};
    const double p[2] = {2, 2};
    run_tile_once(APO_CAT_FRACTAL, in, 2, p, 2, outs, 2, 10);
    for (size_t t = 0; t < 10; t++) {
        if (isnan(want_high[t])) {
            cr_assert(isnan(sh[t]) && isnan(sl[t]), "bar %zu", t);
            continue;
        }
        cr_assert_eq(sh[t], want_high[t], "swinghigh at bar %zu: %g", t, sh[t]);
        cr_assert_eq(sl[t], want_low[t], "swinglow at bar %zu: %g", t, sl[t]);
    }
}
