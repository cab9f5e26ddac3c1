/*
 * test_oscillators_momentum.c: the oscillators bop, imi, rocp, rocr and rocr100
 * (docs/kernels/momentum.md, "Momentum and directional movement"), beyond the checks of every
 * kernel of the table (common/test_catalog_more.c and test_catalog_more_slow.c: the long-double
 * references, tile grids, halos): bars worked by hand, TA-Lib's rules where a denominator is 0, and
 * the gaps.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "catalog_dispatch.h"
#include "catalog_more_fixtures.h"

/* Kernel id over [0, n) of in at period p, one tile, into out. */
static void run_one_period(apo__cat_id id, const double *const *in, size_t n_in, double p, size_t n,
                           double *out) {
    const double params[3] = {p};
    run_one_tile(id, in, n_in, params, out, NULL, n);
}

/* (close - open) / (high - low); 0 where high is at or below low (TA-Lib's); NaN at a gap. */
Test(oscillators_momentum, bop_by_hand) {
    const double open[] = {1, 2, 3, 4, NAN}, high[] = {3, 2, 2, 6, 5}, low[] = {1, 2, 3, 2, 4},
                 close[] = {2.5, 1, 2.5, 3, 4.5};
    const double *in[] = {open, high, low, close};
    double out[5];
    run_one_period(APO_CAT_BOP, in, 4, 0, 5, out);
    cr_assert_eq(out[0], 1.5 / 2.0);
    cr_assert_eq(out[1], 0.0);
    cr_assert_eq(out[2], 0.0);
    cr_assert_eq(out[3], -1.0 / 4.0);
    cr_assert(isnan(out[4]));
}

/* A bar of finite prices whose close - open and high - low both overflow divides infinity by
 * infinity: its NaN is stored as the NAN constant (apo_hd.h), not as the quotient's own NaN,
 * whose sign bit x86 sets, so that every device stores the same bits. */
Test(oscillators_momentum, bop_of_two_overflows_is_the_nan_constant) {
    const double open[] = {-1.7e308, 1}, high[] = {1.7e308, 2}, low[] = {-1.7e308, 1},
                 close[] = {1.7e308, 1.5};
    const double *in[] = {open, high, low, close};
    double out[2];
    run_one_period(APO_CAT_BOP, in, 4, 0, 2, out);
    const double nan_constant = NAN;
    uint64_t bits = 0;
    memcpy(&bits, &out[0], sizeof bits);
    cr_assert(memcmp(&out[0], &nan_constant, sizeof out[0]) == 0, "stored %016llx",
              (unsigned long long)bits);
    cr_assert_eq(out[1], 0.5);
}

/* 100 up / (up + down) over p bars; 50 where no bar moved (TA-Lib 0.8's); a gap's window NaN. */
Test(oscillators_momentum, imi_by_hand) {
    const double open[] = {1, 1, 1, 2, 1, 1, 1, 1}, close[] = {1, 1, 1, 1, 4, 1, NAN, 2};
    const double *in[] = {open, close};
    double out[8];
    run_one_period(APO_CAT_IMI, in, 2, 3, 8, out);
    cr_assert(isnan(out[0]) && isnan(out[1]));
    cr_assert_eq(out[2], 50.0);
    cr_assert_eq(out[3], 0.0);
    cr_assert_eq(out[4], 100.0 * (3.0 / 4.0));
    cr_assert_eq(out[5], 100.0 * (3.0 / 4.0));
    cr_assert(isnan(out[6]) && isnan(out[7]));
}

/* The ratios at period 1, with TA-Lib's 0 where the earlier sample is 0 (either sign), and NaN
 * where either end is a gap. */
Test(oscillators_momentum, rocp_rocr_rocr100_by_hand) {
    const double x[] = {0, 2, 3, -0.0, 5, INFINITY, 4};
    const double *in[] = {x};
    double out[7];
    const struct {
        apo__cat_id id;
        double want[7];
    } cases[] = {
        {APO_CAT_ROCP, {NAN, 0, 0.5, -1, 0, NAN, NAN}},
        {APO_CAT_ROCR, {NAN, 0, 1.5, 0, 0, NAN, NAN}},
        {APO_CAT_ROCR100, {NAN, 0, 150, 0, 0, NAN, NAN}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        run_one_period(cases[c].id, in, 1, 1, 7, out);
        for (size_t t = 0; t < 7; t++) {
            if (isnan(cases[c].want[t]))
                cr_assert(isnan(out[t]), "case %zu t %zu: %g", c, t, out[t]);
            else
                cr_assert_eq(out[t], cases[c].want[t], "case %zu t %zu: %g", c, t, out[t]);
        }
    }
}
