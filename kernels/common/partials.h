/*
 * partials.h: a window summed in eight partial sums of fixed samples, combined in a fixed
 * order: the direct sums of var's, correl's and beta's blocks (statistics/shifted_blocks.h)
 * and of sma's and wma's anchors (window_plain.h); linearreg's anchors (linearreg_plain.h)
 * combine their partials the same way.
 *
 * Sample i of a window of p goes to one fixed partial, so the bits are the same whether the
 * partials run in vector lanes (2, 4 or 8 a vector) or one by one, and each partial gathers an
 * eighth of the window's rounding: ceil(p / 8) + 3 ulps of the sum of the terms' moduli at
 * most, where one sum in index order may reach p - 1. The window's samples 0 .. r - 1
 * (r = p % 8) go one to a partial, partial l taking sample l (added to 0.0, as every partial's
 * first term); sample r + 8 j + l then goes to partial l.
 */
#ifndef APO_KERNELS_PARTIALS_H
#define APO_KERNELS_PARTIALS_H

#include "apo_hd.h"
#include "tile_vec.h"

#define APO_PARTS 8

/* The eight partials in a fixed order: the halves first (l with l + 4, one vector addition
 * on every path), then in pairs. */
static inline APO_HD double apo__parts_combine(const double *a) {
    return ((a[0] + a[4]) + (a[1] + a[5])) + ((a[2] + a[6]) + (a[3] + a[7]));
}

#ifdef APO_TILE_LANES
/* apo__parts_combine lane for lane, for windows summed side by side, one a vector lane
 * (rvi_tile.h): each lane combines its eight partials in the same order, so the same bits. */
static inline apo_tv apo__parts_combine_tv(const apo_tv *a) {
    return ((a[0] + a[4]) + (a[1] + a[5])) + ((a[2] + a[6]) + (a[3] + a[7]));
}
#endif

#endif /* APO_KERNELS_PARTIALS_H */
