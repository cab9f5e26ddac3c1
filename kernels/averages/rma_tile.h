/*
 * rma_tile.h: RMA(timeperiod), TA-Lib 0.8's running moving average (Wilder's smoothing) of the
 * close: the seed is the mean of the first p samples (summed in index order, divided by p),
 * output at p - 1; then `a = (a * (p - 1) + x) / p`, atr's operation order (atr_tile.h).
 * Lookback p - 1; at p = 1 the output is the sample itself (the step's product by 0 and
 * division by 1 are exact). TA-Lib 0.8.1 fuses its step, `fma((p-1)/p, a, (1 - (p-1)/p) * x)`;
 * the tile bodies use no FMA (apo_hd.h), so the outputs are within a few ulps of its.
 *
 * Tile: the definition re-run from w0 = max(0, begin - h), h = p - 1 + D(1/p)
 * (catalog_dispatch.c, WILDER(1)): by `begin` the restarted seed's weight is below 2^-64 of
 * the data's scale, so a tile starting at 0 has the definition's operations and later tiles
 * agree with it to that weight. Each output is a function of the tile grid alone.
 *
 * Gaps (rsi's and atr's rule): a non-finite sample gives NaN and the average skips it; the
 * seed is the mean of the first p finite samples. Stream: NONE (a piece re-runs its tile).
 */
#ifndef APO_KERNELS_RMA_TILE_H
#define APO_KERNELS_RMA_TILE_H

#include "catalog.h"

static inline APO_HD void apo__rma_tile(const apo__cat_io *io, size_t begin, size_t end) {
    const double *x = io->in[0];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0];
    const double pd = (double)p, keep = pd - 1.0;
    const size_t w0 = begin > io->h ? begin - io->h : 0;
    size_t seen = 0;
    double sum = 0.0, a = 0.0;
    for (size_t t = w0; t < end; t++) {
        double y = NAN;
        if (isfinite(x[t])) {
            if (seen < p) {
                sum = sum + x[t];
                if (++seen == p) {
                    a = sum / pd;
                    y = a;
                }
            } else {
                a = (a * keep + x[t]) / pd;
                y = a;
            }
        }
        if (t >= begin)
            out[t] = apo__canonical_nan(y);
    }
}

#endif /* APO_KERNELS_RMA_TILE_H */
