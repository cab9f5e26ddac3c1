/*
 * donchian_tile.h: DONCHIAN(timeperiod), TA-Lib 0.8's Donchian channel over the p bars ending
 * at t: upperband the highest high, lowerband the lowest low, middleband
 * (upperband + lowerband) / 2 (midprice's value). Inputs high, low; lookback p - 1.
 *
 * Evaluation: midprice's scan of the window (midpoint_tile.h, apo__window_top_bottom), then
 * midprice's one addition and product by 0.5. Comparisons are exact and the halving of a sum
 * is TA-Lib's, so every output has TA-Lib's bits; each output is a function of its window, so
 * tiles, streams (the position) and devices give the same bits.
 *
 * Gaps: a window holding a non-finite high or low gives NaN in all three (window.h's rule).
 */
#ifndef APO_KERNELS_DONCHIAN_TILE_H
#define APO_KERNELS_DONCHIAN_TILE_H

#include "midpoint_tile.h"

static inline APO_HD void apo__donchian_tile(const apo__cat_io *io, size_t begin, size_t end) {
    const size_t p = (size_t)io->p[0];
    double *upper = io->out[0], *middle = io->out[1], *lower = io->out[2];
    for (size_t t = begin; t < end; t++) {
        double top = NAN, bottom = NAN;
        if (t + 1 < p || !apo__window_top_bottom(io->in[0], io->in[1], p, t, &top, &bottom)) {
            upper[t] = middle[t] = lower[t] = NAN;
            continue;
        }
        upper[t] = top;
        middle[t] = (top + bottom) * 0.5;
        lower[t] = bottom;
    }
}

#endif /* APO_KERNELS_DONCHIAN_TILE_H */
