/*
 * test_transforms_ha.c: ha's own cases (kernels/transforms/ha_tile.h), worked by hand from
 * the definition (docs/kernels/transforms.md, "Heikin-Ashi (TA-Lib 0.8)"): the seed and the
 * recurrence on a short rising series (these dyadic values are exact, and TA-Lib 0.8.1's HA
 * gives the same), the extremes' ties of signed zeros, the gap rule and the halo. The
 * table-driven checks (the long-double reference, tile grids, halos) run ha through
 * catalog_more_fixtures.c.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <string.h>

#include "catalog_dispatch.h"
#include "catalog_more_fixtures.h"

#define N 5

/* Runs ha over one tile [0, n) of the prices into the four outputs out[k]. */
static void run_ha(const double *open, const double *high, const double *low, const double *close,
                   size_t n, double out[4][N]) {
    const double *const in[4] = {open, high, low, close};
    double *const outs[4] = {out[0], out[1], out[2], out[3]};
    run_tile_once(APO_CAT_HA, in, 4, NULL, 0, outs, 4, n);
}

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

Test(transforms_ha, seed_and_recurrence_by_hand) {
    /* open 1..5, high open + 1, low open - 1, close open + 0.5. */
    const double open[N] = {1, 2, 3, 4, 5}, high[N] = {2, 3, 4, 5, 6}, low[N] = {0, 1, 2, 3, 4},
                 close[N] = {1.5, 2.5, 3.5, 4.5, 5.5};
    double out[4][N];
    run_ha(open, high, low, close, N, out);
    /* haclose: (o + h + l + c) / 4 = o + 0.125. haopen: (o + c) / 2 = 1.25 at the first bar,
     * then the mean of the previous bar's haopen and haclose. */
    const double want_open[N] = {1.25, 1.1875, 1.65625, 2.390625, 3.2578125};
    for (size_t t = 0; t < N; t++) {
        cr_assert_eq(out[0][t], want_open[t], "haopen[%zu] %.17g", t, out[0][t]);
        cr_assert_eq(out[3][t], open[t] + 0.125, "haclose[%zu] %.17g", t, out[3][t]);
        /* The bar's high is above both body ends; its low is above haopen from bar 2. */
        cr_assert_eq(out[1][t], high[t], "hahigh[%zu]", t);
        cr_assert_eq(out[2][t], t < 2 ? low[t] : want_open[t], "halow[%zu] %.17g", t, out[2][t]);
    }
}

Test(transforms_ha, extremes_reach_the_body_and_keep_the_bars_zero) {
    /* A bar whose body pokes out of its range (a high below haopen): hahigh is haopen. */
    const double open[2] = {10, 0}, high[2] = {10, 1}, low[2] = {10, -1}, close[2] = {10, 0};
    double out[4][N];
    run_ha(open, high, low, close, 2, out);
    cr_assert_eq(out[0][1], 10.0);
    cr_assert_eq(out[1][1], 10.0, "hahigh rises to haopen");
    cr_assert_eq(out[2][1], -1.0);
    /* Signed zeros: haopen (-0 + -0) / 2 = -0, haclose ((-0 + 0) + -0 + -0) / 4 = +0; a tie
     * keeps the bar's own high (+0) and low (-0). */
    const double zo[1] = {-0.0}, zh[1] = {0.0}, zl[1] = {-0.0}, zc[1] = {-0.0};
    run_ha(zo, zh, zl, zc, 1, out);
    cr_assert(same_bits(out[0][0], -0.0) && same_bits(out[3][0], 0.0));
    cr_assert(same_bits(out[1][0], 0.0), "hahigh keeps the high's +0");
    cr_assert(same_bits(out[2][0], -0.0), "halow keeps the low's -0");
}

Test(transforms_ha, a_gap_bar_is_nan_and_the_recurrence_skips_it) {
    const double open[N] = {NAN, 1, 2, 3, 4}, high[N] = {2, 2, INFINITY, 4, 5},
                 low[N] = {0, 0, 1, 2, 3}, close[N] = {1, 1.5, 2.5, 3.5, 4.5};
    double out[4][N];
    run_ha(open, high, low, close, N, out);
    const double nan = NAN;
    for (size_t k = 0; k < 4; k++)
        cr_assert(same_bits(out[k][0], nan) && same_bits(out[k][2], nan),
                  "output %zu: the gap bars are the NAN constant", k);
    cr_assert_eq(out[0][1], 1.25, "the first clean bar seeds (o + c) / 2");
    cr_assert_eq(out[3][1], 1.125);
    /* Bar 3 averages bar 1's candle body, the last clean one. */
    cr_assert_eq(out[0][3], (1.25 + 1.125) / 2);
}

Test(transforms_ha, halo_is_the_steps_a_halving_takes_to_forget_its_seed) {
    const double p[APO_CAT_MAX_PAR] = {0};
    cr_assert_eq(apo__catalog_lookback(APO_CAT_HA, p), 0);
    cr_assert_eq(apo__catalog_halo(APO_CAT_HA, p), 64, "2^-64 after 64 halvings");
}
