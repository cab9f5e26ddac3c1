/*
 * zlema_tile.h: ZLEMA(timeperiod), TA-Lib 0.8's zero-lag exponential moving average: the EMA
 * of rate k = 2/(p+1) of the de-lagged series `y[t] = 2 * x[t] - x[t - lag]`, lag = (p - 1) / 2
 * rounded down, seeded with the mean of the first p values of y (y[lag .. lag + p - 1], summed
 * in index order), then `e = (y - e) * k + e`, ema's order (ema_tile.h). Lookback lag + p - 1;
 * at p = 1 (lag 0, k = 1) the output is the sample itself, exactly.
 *
 * Tile: the definition re-run from w0 = max(0, begin - h), h = lag + p - 1 + D(2/(p+1))
 * (catalog_dispatch.c, EMA(1)), its first y at w0 + lag (y reads lag bars back): by `begin` the
 * restarted seed's weight is below 2^-64 of the data's scale, so a tile starting at 0 has the
 * definition's operations and later tiles agree with it to that weight.
 *
 * Gaps (rsi's rule): a y whose sample or lagged sample is not finite gives NaN and the EMA skips
 * it; the seed is the mean of the first p finite values. Stream: NONE (a piece re-runs its tile).
 */
#ifndef APO_KERNELS_ZLEMA_TILE_H
#define APO_KERNELS_ZLEMA_TILE_H

#include "catalog.h"

static inline APO_HD void apo__zlema_tile(const apo__cat_io *io, size_t begin, size_t end) {
    const double *x = io->in[0];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0], lag = (p - 1) / 2;
    const double pd = (double)p, k = 2.0 / (pd + 1.0);
    const size_t w0 = begin > io->h ? begin - io->h : 0;
    apo__cat_nan_lead(out, begin, end, w0 + lag);
    size_t seen = 0;
    double sum = 0.0, e = 0.0;
    for (size_t t = w0 + lag; t < end; t++) {
        const double y = 2.0 * x[t] - x[t - lag];
        double z = NAN;
        if (isfinite(y)) {
            if (seen < p) {
                sum = sum + y;
                if (++seen == p) {
                    e = sum / pd;
                    z = e;
                }
            } else {
                /* At p = 1 the step would round (y - e) + e; the average is y itself. */
                e = p > 1 ? (y - e) * k + e : y;
                z = e;
            }
        }
        if (t >= begin)
            out[t] = apo__canonical_nan(z);
    }
}

#endif /* APO_KERNELS_ZLEMA_TILE_H */
