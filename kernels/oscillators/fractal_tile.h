/*
 * fractal_tile.h: FRACTAL, TA-Lib 0.8's Williams fractal. Inputs high, low; outputs swinghigh,
 * swinglow; parameters leftbars (2) and rightbars (2); the lookback is leftbars + rightbars.
 *
 * Definition (TA-Lib's): at bar t, the window of the leftbars + rightbars + 1 bars ending at t
 * has its pivot rightbars bars back; swinghigh is 100 where the pivot's high is above every
 * other high of the window, strictly (a tie is no swing), else 0, and swinglow 100 where the
 * pivot's low is below every other low, strictly. A swing is so reported at the bar that
 * confirms it, rightbars bars after the pivot. Comparisons alone: TA-Lib's values exactly.
 *
 * Tiles: each position reads its own window (leftbars + rightbars bars back, the lookback), so
 * any grid gives the same values. The scan is TA-Lib's, window by window: a window costs its
 * length, as TA-Lib's.
 *
 * Gaps: a window holding a bar whose high or low is not finite gives NaN in both outputs.
 */
#ifndef APO_KERNELS_FRACTAL_TILE_H
#define APO_KERNELS_FRACTAL_TILE_H

#include "catalog.h"

static inline APO_HD void apo__fractal_tile(const apo__cat_io *io, size_t begin, size_t end) {
    const double *high = io->in[0], *low = io->in[1];
    double *swing_high = io->out[0], *swing_low = io->out[1];
    const size_t left = (size_t)io->p[0], right = (size_t)io->p[1], span = left + right;
    for (size_t t = begin; t < end; t++) {
        if (t < span) {
            swing_high[t] = swing_low[t] = NAN;
            continue;
        }
        const size_t pivot = t - right;
        const double pivot_high = high[pivot], pivot_low = low[pivot];
        /* The others' extremes, and whether every bar of the window is finite. */
        double other_high = -INFINITY, other_low = INFINITY;
        int finite = isfinite(pivot_high) && isfinite(pivot_low);
        for (size_t i = t - span; i <= t; i++) {
            if (i == pivot)
                continue;
            const double h = high[i], l = low[i];
            finite &= isfinite(h) && isfinite(l);
            other_high = h > other_high ? h : other_high;
            other_low = l < other_low ? l : other_low;
        }
        if (!finite) {
            swing_high[t] = swing_low[t] = NAN;
            continue;
        }
        swing_high[t] = pivot_high > other_high ? 100.0 : 0.0;
        swing_low[t] = pivot_low < other_low ? 100.0 : 0.0;
    }
}

#endif /* APO_KERNELS_FRACTAL_TILE_H */
