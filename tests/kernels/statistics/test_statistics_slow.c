/*
 * test_statistics_slow.c: the slow suite's share of the rolling statistics
 * (kernels/statistics/; the quick cases are test_statistics.c): a stream's pieces give the
 * tiles' bits at every switch of linearreg's plain slide and of the blocks of var, stddev,
 * correl and beta (check_resumed_pieces, catalog_fixtures.c).
 */
#include <criterion/criterion.h>

#include "beta_tile.h"
#include "catalog_dispatch.h"
#include "catalog_fixtures.h"
#include "correl_tile.h"
#include "linearreg_tile.h"
#include "var_tile.h"

/* The same for linearreg and linearreg_slope, whose middle periods slide shifted plain sums
 * between anchors (linearreg_plain.h): periods on both sides of each of its limits (the direct
 * sums' APO_LINEARREG_DIRECT_MAX, the narrow anchors' APO_LINREG_ANCHOR_WIDE_MIN, the plain
 * slide's APO_LINREG_PLAIN_MAX), at the anchors' spacings and the target periods 50 to 200. */
Test(catalog, linearreg_resumed_pieces_have_the_tiles_bits, .timeout = 120) {
    const apo__cat_id ids[] = {APO_CAT_LINEARREG, APO_CAT_LINEARREG_SLOPE};
    const double periods[] = {APO_LINEARREG_DIRECT_MAX,
                              APO_LINEARREG_DIRECT_MAX + 1,
                              APO_LINREG_ANCHOR / 2,
                              APO_LINREG_ANCHOR_WIDE_MIN - 1,
                              APO_LINREG_ANCHOR_WIDE_MIN,
                              50,
                              APO_LINREG_ANCHOR,
                              APO_LINREG_ANCHOR + 1,
                              128,
                              129,
                              200,
                              APO_LINREG_PLAIN_MAX,
                              APO_LINREG_PLAIN_MAX + 1};
    for (size_t ii = 0; ii < sizeof ids / sizeof ids[0]; ii++)
        for (size_t pi = 0; pi < sizeof periods / sizeof periods[0]; pi++) {
            const double p[4] = {periods[pi], 0, 0, 0};
            check_resumed_pieces(ids[ii], p, 91 + ii + pi);
        }
}

/* var's, stddev's and correl's blocks (var_blocks.h, correl_tile.h), whose halo reaches back to
 * a block's first window: for var four blocks side by side where a piece holds them, one where
 * it does not. Periods at each switch of the blocks' length and on both sides of their limits. */
Test(catalog, block_kernels_resumed_pieces_have_the_tiles_bits, .timeout = 120) {
    const double periods[] = {APO_VAR_DIRECT_MAX + 1, 160, 333, APO_VAR_BLOCKS_MAX,
                              APO_VAR_BLOCKS_MAX + 1};
    for (size_t pi = 0; pi < sizeof periods / sizeof periods[0]; pi++) {
        const double var[4] = {periods[pi], 0, 0, 0}, sd[4] = {periods[pi], 1.5, 0, 0};
        check_resumed_pieces(APO_CAT_VAR, var, 71 + pi);
        check_resumed_pieces(APO_CAT_STDDEV, sd, 81 + pi);
    }
    const double correl[] = {47, 48, 159, 160, 513, APO_CORREL_BLOCKS_MAX};
    for (size_t pi = 0; pi < sizeof correl / sizeof correl[0]; pi++) {
        const double p[4] = {correl[pi], 0, 0, 0};
        check_resumed_pieces(APO_CAT_CORREL, p, 91 + pi);
    }
    /* beta's blocks are correl's on the returns, the first one at bar p (beta_tile.h). */
    const double beta[] = {APO_PAIR_DIRECT_MAX + 1, 47, 48, 159, 160, APO_BETA_BLOCKS_MAX,
                           APO_BETA_BLOCKS_MAX + 1};
    for (size_t pi = 0; pi < sizeof beta / sizeof beta[0]; pi++) {
        const double p[4] = {beta[pi], 0, 0, 0};
        check_resumed_pieces(APO_CAT_BETA, p, 101 + pi);
    }
}
