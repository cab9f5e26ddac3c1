/*
 * averages_anchors.h: the spacing of the anchors of the averages whose bodies place them (sma,
 * wma, and ma at those matypes), for the GPU's launch of one thread per block between anchors
 * (kernels/common/catalog_launch.h, docs/cuda.md "The anchored kernels").
 *
 * Up to APO_PLAIN_MAX the plain bodies (window_plain.h) sum their windows afresh at every
 * multiple of apo__plain_anchor(p), whatever their state, and at a tile's start: a block from
 * one anchor to the next, run alone, performs the operations the whole tile performs there.
 * The spacing is that function's, never a copy of its rule. Longer windows slide double-doubles
 * from the tile's first window (window_sum.h): no anchors, spacing 0.
 */
#ifndef APO_KERNELS_AVERAGES_ANCHORS_H
#define APO_KERNELS_AVERAGES_ANCHORS_H

#include "averages_tiles.h"

/* The anchors' spacing of a plain body at period p; 0 where the period takes the
 * double-doubles (sma_tile.h's and wma_tile.h's choice). */
static inline APO_HD size_t apo__plain_anchor_spacing(size_t p) {
    return p <= APO_PLAIN_MAX ? apo__plain_anchor(p) : 0;
}

/* The spacing of kernel id of the averages at parameters p (0: no anchors). ma runs sma's or
 * wma's own body at those matypes and period > 1 (ma_type.h), the identity at period 1. */
static inline APO_HD size_t apo__averages_anchor_spacing(int id, const double *p) {
    switch (id) {
    case APO_CAT_SMA:
    case APO_CAT_WMA:
        return apo__plain_anchor_spacing((size_t)p[0]);
    case APO_CAT_MA: {
        const int matype = (int)p[1];
        const int plain = matype == APO_MA_SMA || matype == APO_MA_WMA;
        return plain && (size_t)p[0] > 1 ? apo__plain_anchor_spacing((size_t)p[0]) : 0;
    }
    default:
        return 0;
    }
}

#endif /* APO_KERNELS_AVERAGES_ANCHORS_H */
