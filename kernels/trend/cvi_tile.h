/*
 * cvi_tile.h: CVI(timeperiod, rocperiod), TA-Lib 0.8's Chaikin volatility: the rate of change,
 * in percent, over r = rocperiod bars of E, the EMA of rate k = 2/(p+1) of the bar's range
 * high - low (adr's apo__bar_range): `100 * ((E[t] - E[t-r]) / E[t-r])`, and 0 where E[t-r] is
 * exactly 0 (TA-Lib's guard). E is ema's: seeded with the mean of the first p ranges (summed in
 * index order), then `e = (range - e) * k + e`. Lookback (p - 1) + r.
 *
 * Tile: the definition re-run from w0 = max(0, begin - h), h = (p - 1) + r + D(2/(p+1))
 * (catalog_dispatch.c, EMA(1)), so a tile starting at 0 has the definition's operations and later
 * tiles agree with it to 2^-64 of the scale. E[t - r] needs no ring of r values: a second copy
 * of the same recurrence, started at the same w0, runs r bars behind the first, and since both
 * take the same operations over the same ranges it holds E[t - r]'s bits exactly.
 *
 * Gaps (rsi's rule): a bar whose range is not finite gives NaN and E skips it (E at that bar is
 * its value before it); the seed is the mean of the first p finite ranges. Stream: NONE (a piece
 * re-runs its tile).
 */
#ifndef APO_KERNELS_CVI_TILE_H
#define APO_KERNELS_CVI_TILE_H

#include "adr_tile.h"
#include "catalog.h"

/* One EMA of the ranges: the ranges seen toward the seed, the seed's sum and the average. */
typedef struct {
    size_t seen;
    double sum, e;
} apo__cvi_ema;

/* Takes bar t's range into a; returns whether a is seeded after it. */
static inline APO_HD int apo__cvi_ema_step(apo__cvi_ema *a, double range, size_t p, double k) {
    if (isfinite(range)) {
        if (a->seen < p) {
            a->sum = a->sum + range;
            if (++a->seen == p)
                a->e = a->sum / (double)p;
        } else {
            a->e = (range - a->e) * k + a->e;
        }
    }
    return a->seen == p;
}

static inline APO_HD void apo__cvi_tile(const apo__cat_io *io, size_t begin, size_t end) {
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0], r = (size_t)io->p[1];
    const double k = 2.0 / ((double)p + 1.0);
    const size_t w0 = begin > io->h ? begin - io->h : 0;
    apo__cvi_ema now = {0, 0.0, 0.0}, lagged = {0, 0.0, 0.0};
    for (size_t t = w0; t < end; t++) {
        const double range = apo__bar_range(io, t);
        const int seeded = apo__cvi_ema_step(&now, range, p, k);
        int lag_seeded = 0;
        if (t >= w0 + r)
            lag_seeded = apo__cvi_ema_step(&lagged, apo__bar_range(io, t - r), p, k);
        if (t < begin)
            continue;
        double z = NAN;
        if (isfinite(range) && seeded && lag_seeded)
            z = lagged.e != 0.0 ? 100.0 * ((now.e - lagged.e) / lagged.e) : 0.0;
        out[t] = apo__canonical_nan(z);
    }
}

#endif /* APO_KERNELS_CVI_TILE_H */
