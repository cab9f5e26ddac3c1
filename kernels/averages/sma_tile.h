/*
 * sma_tile.h: SMA(timeperiod), the mean of the `p` samples ending at t (TA-Lib's SMA).
 *
 * Tile: halo p - 1. The window sum is a double-double (dd.h): summed exactly at the tile's
 * first clean window, then slid by adding the new sample and subtracting the old one, so
 * it stays within about 2^-100 of the exact sum over the whole tile; the mean is that sum
 * divided by p with one correction step, within an ulp or so of the exact mean. A window
 * holding a non-finite sample gives NaN and the next clean window is summed afresh
 * (window.h). Positions t < p - 1 are NaN.
 */
#ifndef APO_KERNELS_SMA_TILE_H
#define APO_KERNELS_SMA_TILE_H

#include "catalog.h"
#include "window.h"
#include "window_sum.h"

static inline APO_HD void apo__sma_tile(const apo__cat_io *io, size_t begin, size_t end) {
    const double *x = io->in[0];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0];
    size_t bad = apo__last_gap(io->in, 1, apo__window_from(begin, p), begin);
    int valid = 0;
    apo__dd s = apo__dd_make(0.0, 0.0);
    for (size_t t = begin; t < end; t++) {
        if (!isfinite(x[t]))
            bad = t + 1;
        if (!apo__window_clean(t, p, bad)) {
            out[t] = NAN;
            valid = 0;
            continue;
        }
        if (!valid) {
            s = apo__dd_sum(x, t + 1 - p, t + 1);
            valid = 1;
        } else {
            s = apo__dd_add_d(s, x[t]);
            s = apo__dd_add_d(s, -x[t - p]);
        }
        out[t] = apo__dd_div_d(s, (double)p).hi;
    }
}

#endif /* APO_KERNELS_SMA_TILE_H */
