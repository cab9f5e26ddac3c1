/*
 * statistics_anchors.h: the spacing of the blocks of the statistics whose bodies restart at
 * fixed absolute positions (var, stddev, the linearreg family, correl, beta), for the GPU's
 * launch of one thread per block (kernels/common/catalog_launch.h, docs/cuda.md "The anchored
 * kernels").
 *
 * Each spacing is the one the body itself cuts at, read from its own function or constant:
 *  - var and stddev up to APO_VAR_BLOCKS_MAX: blocks of apo__var_block_len(p) at its multiples
 *    (var_blocks.h, shifted_blocks.h);
 *  - the linearreg family up to APO_LINREG_PLAIN_MAX: anchors apo__linreg_anchor(p) apart
 *    (linearreg_plain.h);
 *  - correl up to APO_CORREL_BLOCKS_MAX: blocks of apo__correl_block_len(p) (correl_tile.h);
 *  - beta up to APO_BETA_BLOCKS_MAX: blocks of APO_BETA_BLOCK_LEN (beta_tile.h).
 * Below those ranges' blocks, the short periods evaluate every window from its own samples
 * (var_direct.h, linearreg_direct.h, pair_direct.h), so any cut gives their bits; they are cut
 * at the same spacing, which keeps a thread's work the size of a block. Past the ranges, the
 * sums slide as double-doubles from a tile's first window: no anchors, spacing 0.
 * tests/kernels/common/test_catalog_anchored.c checks every one block by block.
 */
#ifndef APO_KERNELS_STATISTICS_ANCHORS_H
#define APO_KERNELS_STATISTICS_ANCHORS_H

#include "statistics_tiles.h"

/* The spacing of kernel id of the statistics at parameters p (0: no anchors). */
static inline APO_HD size_t apo__statistics_anchor_spacing(int id, const double *p) {
    const size_t period = (size_t)p[0];
    switch (id) {
    case APO_CAT_VAR:
    case APO_CAT_STDDEV:
        return period <= APO_VAR_BLOCKS_MAX ? apo__var_block_len(period) : 0;
    case APO_CAT_LINEARREG:
    case APO_CAT_LINEARREG_SLOPE:
    case APO_CAT_LINEARREG_INTERCEPT:
    case APO_CAT_LINEARREG_ANGLE:
    case APO_CAT_TSF:
        return period <= APO_LINREG_PLAIN_MAX ? apo__linreg_anchor(period) : 0;
    case APO_CAT_CORREL:
        return period <= APO_CORREL_BLOCKS_MAX ? apo__correl_block_len(period) : 0;
    case APO_CAT_BETA:
        return period <= APO_BETA_BLOCKS_MAX ? APO_BETA_BLOCK_LEN : 0;
    default:
        return 0;
    }
}

#endif /* APO_KERNELS_STATISTICS_ANCHORS_H */
