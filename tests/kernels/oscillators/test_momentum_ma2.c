/*
 * test_momentum_ma2.c: the catalog's oscillators of TA-Lib's matype averages (apo, ppo;
 * kernels/oscillators/apo_tile.h, averages/ma_pieces.h) against independent long-double
 * references (catalog_reference_momentum_ma2.c), one table of kernels and parameter sets over
 * every matype the catalog computes: every output on seeded walks with and without gaps over
 * the kernel's tile grid run backwards and over short tiles; the grid alone sets the bits; an
 * average taken in pieces has the bits of the average taken whole, and apo the bits of the
 * difference of the two ma kernels over its grid.
 *
 * Measured worst errors are printed on stderr; docs/kernels.md quotes them.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_dispatch.h"
#include "catalog_reference_momentum_ma2.h"
#include "ma_pieces.h"
#include "talib_more2_cases.h"

/* The defaults, swapped periods, and each matype but MAMA (7). */
static const more2_case cases[] = {
    {APO_CAT_APO, "apo", CLOSE, 1, apo__ref_cat_apo, {12, 26, 0}},
    {APO_CAT_APO, "apo", CLOSE, 1, apo__ref_cat_apo, {26, 12, 1}},
    {APO_CAT_APO, "apo", CLOSE, 1, apo__ref_cat_apo, {5, 9, 2}},
    {APO_CAT_APO, "apo", CLOSE, 1, apo__ref_cat_apo, {3, 8, 3}},
    {APO_CAT_APO, "apo", CLOSE, 1, apo__ref_cat_apo, {3, 5, 4}},
    {APO_CAT_APO, "apo", CLOSE, 1, apo__ref_cat_apo, {4, 9, 5}},
    {APO_CAT_APO, "apo", CLOSE, 1, apo__ref_cat_apo, {5, 10, 6}},
    {APO_CAT_APO, "apo", CLOSE, 1, apo__ref_cat_apo, {2, 4, 8}},
    {APO_CAT_PPO, "ppo", CLOSE, 1, apo__ref_cat_ppo, {12, 26, 0}},
    {APO_CAT_PPO, "ppo", CLOSE, 1, apo__ref_cat_ppo, {12, 26, 1}},
    {APO_CAT_PPO, "ppo", CLOSE, 1, apo__ref_cat_ppo, {7, 3, 2}},
    {APO_CAT_PPO, "ppo", CLOSE, 1, apo__ref_cat_ppo, {4, 10, 3}},
    {APO_CAT_PPO, "ppo", CLOSE, 1, apo__ref_cat_ppo, {2, 6, 4}},
    {APO_CAT_PPO, "ppo", CLOSE, 1, apo__ref_cat_ppo, {6, 9, 5}},
    {APO_CAT_PPO, "ppo", CLOSE, 1, apo__ref_cat_ppo, {5, 10, 6}},
    {APO_CAT_PPO, "ppo", CLOSE, 1, apo__ref_cat_ppo, {3, 7, 8}},
    /* macdext: the defaults (SMA), all EMA, swapped periods whose matypes swap with them (the
     * fast T3 has the larger lookback), KAMA and TRIMA lines, and each signal matype it takes
     * over the line (SMA and WMA reading the line leaving the window from the CPU's ring, the
     * EMA family as recurrences, TRIMA at period 1). */
    {APO_CAT_MACDEXT, "macdext", CLOSE, 3, apo__ref_cat_macdext, {12, 0, 26, 0, 9, 0}},
    {APO_CAT_MACDEXT, "macdext", CLOSE, 3, apo__ref_cat_macdext, {12, 1, 26, 1, 9, 1}},
    {APO_CAT_MACDEXT, "macdext", CLOSE, 3, apo__ref_cat_macdext, {26, 2, 12, 8, 5, 3}},
    {APO_CAT_MACDEXT, "macdext", CLOSE, 3, apo__ref_cat_macdext, {5, 6, 10, 5, 4, 4}},
    {APO_CAT_MACDEXT, "macdext", CLOSE, 3, apo__ref_cat_macdext, {3, 4, 8, 3, 7, 2}},
    {APO_CAT_MACDEXT, "macdext", CLOSE, 3, apo__ref_cat_macdext, {4, 0, 9, 1, 1, 5}},
    {APO_CAT_MACDEXT, "macdext", CLOSE, 3, apo__ref_cat_macdext, {6, 8, 13, 0, 3, 8}},
    /* A signal window longer than a piece of the line (128 bars). */
    {APO_CAT_MACDEXT, "macdext", CLOSE, 3, apo__ref_cat_macdext, {12, 1, 26, 0, 300, 2}},
    /* A signal SMA longer than the ring (APO_MACDEXT_LAG_RING): the line generated again
     * behind, the GPU's way. */
    {APO_CAT_MACDEXT, "macdext", CLOSE, 3, apo__ref_cat_macdext, {12, 1, 26, 0, 2100, 0}},
    /* stochrsi: the defaults (an SMA fastd through the generator behind), the RSI's window as
     * long as its period, each fastd matype it takes, fastd_period 1 with TRIMA, fastk_period 1,
     * and the longest fastk window the ring holds. */
    {APO_CAT_STOCHRSI, "stochrsi", CLOSE, 2, apo__ref_cat_stochrsi, {14, 5, 3, 0}},
    {APO_CAT_STOCHRSI, "stochrsi", CLOSE, 2, apo__ref_cat_stochrsi, {14, 14, 3, 1}},
    {APO_CAT_STOCHRSI, "stochrsi", CLOSE, 2, apo__ref_cat_stochrsi, {9, 7, 5, 2}},
    {APO_CAT_STOCHRSI, "stochrsi", CLOSE, 2, apo__ref_cat_stochrsi, {5, 4, 3, 3}},
    {APO_CAT_STOCHRSI, "stochrsi", CLOSE, 2, apo__ref_cat_stochrsi, {6, 3, 4, 4}},
    {APO_CAT_STOCHRSI, "stochrsi", CLOSE, 2, apo__ref_cat_stochrsi, {8, 6, 3, 8}},
    {APO_CAT_STOCHRSI, "stochrsi", CLOSE, 2, apo__ref_cat_stochrsi, {3, 5, 1, 5}},
    {APO_CAT_STOCHRSI, "stochrsi", CLOSE, 2, apo__ref_cat_stochrsi, {4, 1, 2, 0}},
    {APO_CAT_STOCHRSI, "stochrsi", CLOSE, 2, apo__ref_cat_stochrsi, {2, 256, 9, 0}},
    {APO_CAT_STOCHRSI, "stochrsi", CLOSE, 2, apo__ref_cat_stochrsi, {14, 5, 300, 0}},
};
#define N_CASES (sizeof cases / sizeof cases[0])

MORE2_TABLE_TESTS_AS(momentum_ma2, cases, {"momentum_ma2", 3001, 6, 1})

/* Every matype's average taken in pieces of 1 to 300 bars (cycling) has the bits of the same
 * average over the whole span (apo__ma_span), from a tile start past the warm-up. */
Test(momentum_ma2, an_average_in_pieces_has_the_bits_of_the_whole) {
    const size_t n = 2500, begin = 700;
    series s;
    series_make(&s, 77, n, CLOSE, 100.0, 0.5, 1);
    double *whole = alloc_doubles(n), *pieces = alloc_doubles(n);
    for (int matype = 0; matype < APO_MA_TYPES; matype++) {
        if (matype == APO_MA_MAMA)
            continue;
        const size_t periods[] = {1, 2, 9};
        for (size_t pi = 0; pi < 3; pi++) {
            const size_t p = periods[pi];
            const double params[2] = {(double)p, (double)matype};
            const size_t h = apo__catalog_halo(APO_CAT_MA, params);
            memset(whole, 0, n * sizeof(double));
            memset(pieces, 0, n * sizeof(double));
            apo__ma_span(matype, s.in[0], whole, p, h, begin, n);
            apo__ma_pieces m;
            apo__ma_pieces_start(&m, matype, s.in[0], pieces, p, h, begin);
            size_t len = 1;
            for (size_t t = begin; t < n; t += len, len = len % 300 + 7)
                apo__ma_pieces_run(&m, t + len < n ? t + len : n);
            cr_assert(memcmp(whole, pieces, n * sizeof(double)) == 0, "matype %d period %zu",
                      matype, p);
        }
    }
    free(whole);
    free(pieces);
    series_free(&s);
}

/* apo over its grid is, bit for bit, the ma kernel at the fast period less the ma kernel at the
 * slow one, each over apo's grid with apo's halo. */
Test(momentum_ma2, apo_is_the_difference_of_the_two_ma_kernels) {
    for (size_t ci = 0; ci < N_CASES; ci++) {
        const more2_case *c = &cases[ci];
        if (c->id != APO_CAT_APO)
            continue;
        const size_t len = apo__catalog_tile_len(c->id, c->p);
        series s;
        series_make(&s, 5 + ci, 2 * len + 100, CLOSE, 100.0, 0.5, 1);
        double *got = alloc_doubles(s.n), *fast = alloc_doubles(s.n), *slow = alloc_doubles(s.n);
        double *out[1] = {got};
        more2_run_tiles(c, &s, out, len, 0);
        const double fp = c->p[0] < c->p[1] ? c->p[0] : c->p[1];
        const double sp = c->p[0] < c->p[1] ? c->p[1] : c->p[0];
        const size_t h = apo__catalog_halo(c->id, c->p);
        for (size_t b = 0; b < s.n; b += len) {
            const size_t e = b + len < s.n ? b + len : s.n;
            apo__ma_span((int)c->p[2], s.in[0], fast, (size_t)fp, h, b, e);
            apo__ma_span((int)c->p[2], s.in[0], slow, (size_t)sp, h, b, e);
        }
        for (size_t t = 0; t < s.n; t++) {
            const double want = isnan(fast[t] - slow[t]) ? (double)NAN : fast[t] - slow[t];
            cr_assert(memcmp(&got[t], &want, sizeof want) == 0, "case %zu t %zu: %a, %a", ci, t,
                      got[t], want);
        }
        free(got);
        free(fast);
        free(slow);
        series_free(&s);
    }
}
