/*
 * donchian_tile.h: DONCHIAN(timeperiod), TA-Lib 0.8's Donchian channel over the p bars ending
 * at t: upperband the highest high, lowerband the lowest low, middleband
 * (upperband + lowerband) / 2 (midprice's value). Inputs high, low; lookback p - 1.
 *
 * Evaluation: midprice's extremes of the window (midpoint_tile.h: by doubling in blocks of
 * clean windows on the CPU, else a scan), then midprice's one addition and product by 0.5.
 * Comparisons are exact and the halving of a sum is TA-Lib's, so every output has TA-Lib's bits;
 * each output is a function of its window, so tiles, streams (the position) and devices give the
 * same bits.
 *
 * Gaps: a window holding a non-finite high or low gives NaN in all three (window.h's rule).
 */
#ifndef APO_KERNELS_DONCHIAN_TILE_H
#define APO_KERNELS_DONCHIAN_TILE_H

#include "midpoint_tile.h"

/* The three outputs of bar t from its window's extremes, or the NAN constant in all three
 * where the window is not full or not clean (clean 0). */
static inline APO_HD void apo__donchian_store(const apo__cat_io *io, size_t t, int clean,
                                              double top, double bottom) {
    io->out[0][t] = clean ? top : (double)NAN;
    io->out[1][t] = clean ? (top + bottom) * 0.5 : (double)NAN;
    io->out[2][t] = clean ? bottom : (double)NAN;
}

static inline APO_HD void apo__donchian_tile(const apo__cat_io *io, size_t begin, size_t end) {
    const size_t p = (size_t)io->p[0];
    size_t t = begin;
    for (; t < end && t + 1 < p; t++)
        apo__donchian_store(io, t, 0, 0.0, 0.0);
    while (t < end) {
        const size_t e = apo__midpoint_block_end(t, end);
#ifdef APO_TILE_LANES
        double top[APO_EXTREME_BLOCK], bottom[APO_EXTREME_BLOCK];
        if (apo__midpoint_block(io->in[0], io->in[1], p, t, e, top, bottom)) {
            for (size_t k = 0; k < e - t; k++)
                apo__donchian_store(io, t + k, 1, top[k], bottom[k]);
            t = e;
            continue;
        }
#endif
        for (; t < e; t++) {
            double top, bottom;
            const int clean = apo__window_top_bottom(io->in[0], io->in[1], p, t, &top, &bottom);
            apo__donchian_store(io, t, clean, top, bottom);
        }
    }
}

#endif /* APO_KERNELS_DONCHIAN_TILE_H */
