/*
 * imi_tile.h: IMI(timeperiod), TA-Lib's intraday momentum index over the p bars ending at t:
 * up = the sum of close - open over the bars with close > open, down = the sum of open - close
 * over the others, both in index order; IMI = 100 * (up / (up + down)), and 50 where
 * up + down is 0 (TA-Lib 0.8's neutral value for a window of bars that did not move). Inputs
 * open, close; lookback p - 1.
 *
 * Each output is evaluated from its own window, as TA-Lib does (p additions a bar), so it is
 * a function of its window alone: tiles join, and a stream keeps its position. A window
 * holding a non-finite open or close gives NaN.
 */
#ifndef APO_KERNELS_IMI_TILE_H
#define APO_KERNELS_IMI_TILE_H

#include "catalog.h"

static inline APO_HD void apo__imi_tile(const apo__cat_io *io, size_t begin, size_t end) {
    const double *open = io->in[0], *close = io->in[1];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0];
    size_t t = apo__cat_nan_lead(out, begin, end, p - 1);
    for (; t < end; t++) {
        double up = 0.0, down = 0.0;
        int clean = 1;
        for (size_t i = t + 1 - p; i <= t; i++) {
            const double o = open[i], c = close[i];
            clean &= isfinite(o) && isfinite(c);
            if (c > o)
                up = up + (c - o);
            else
                down = down + (o - c);
        }
        const double sum = up + down;
        out[t] = !clean ? (double)NAN : sum == 0.0 ? 50.0 : 100.0 * (up / sum);
    }
}

#endif /* APO_KERNELS_IMI_TILE_H */
