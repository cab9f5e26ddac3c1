/*
 * ema_tile.h: EMA(timeperiod), TA-Lib's exponential moving average.
 *
 * Definition: k = 2 / (p + 1); the seed is the plain mean of the first p samples (summed
 * in index order in double, divided by p), output at index p - 1; then e = (x - e) * k + e,
 * written exactly in that form, as TA-Lib does, so a tile starting at 0 has TA-Lib's bits.
 *
 * Gaps: a non-finite sample gives a NaN output and the state skips it; the seed is the
 * mean of the first p finite samples.
 *
 * Tile: a recurrence, so a tile re-runs the definition from w0 = max(0, begin - h),
 * h = (p - 1) + D(k) (catalog.c): by `begin` the restarted seed's weight is below 2^-64
 * of the data scale, and the outputs are a pure function of the tile grid.
 */
#ifndef APO_KERNELS_EMA_TILE_H
#define APO_KERNELS_EMA_TILE_H

#include "catalog.h"

static inline APO_HD void apo__ema_tile(const apo__cat_io *io, size_t begin, size_t end) {
    const double *x = io->in[0];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0];
    const double k = 2.0 / ((double)p + 1.0);
    const size_t w0 = begin > io->h ? begin - io->h : 0;
    size_t seen = 0;
    double sum = 0.0, e = 0.0;
    for (size_t t = w0; t < end; t++) {
        const double v = x[t];
        double y = NAN;
        if (isfinite(v)) {
            if (seen < p) {
                sum = sum + v;
                seen++;
                if (seen == p) {
                    e = sum / (double)p;
                    y = e;
                }
            } else {
                e = (v - e) * k + e;
                y = e;
            }
        }
        if (t >= begin)
            out[t] = y;
    }
}

#endif /* APO_KERNELS_EMA_TILE_H */
