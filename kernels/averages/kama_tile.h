/*
 * kama_tile.h: KAMA(timeperiod), TA-Lib's Kaufman adaptive moving average.
 *
 * Definition (TA-Lib's): noise = sum of |x[i] - x[i-1]| over the p differences ending at t,
 * roc = x[t] - x[t-p]; the efficiency ratio er = 1 where noise <= roc (TA-Lib compares with
 * the signed roc) or noise is 0, else |roc / noise|; sc = (er * (2/3 - 2/31) + 2/31)^2 and
 * kama = (x[t] - kama) * sc + kama, seeded with kama = x[p-1], first output at t = p
 * (lookback p). TA-Lib keeps noise as a running double sum; here it is a double-double
 * (dd.h), summed exactly at each seed and slid, so it does not drift over long series
 * (and kama does not have TA-Lib's bits where the running sum had rounded).
 *
 * Gaps: a non-finite sample gives NaN and restarts the definition after it (its next p
 * samples are a new lookback): KAMA's noise window and seed have no meaning across a gap,
 * and the restart keeps the gap's effect to the p outputs after it plus the decay of the
 * new seed, never the rest of the series.
 *
 * Tile: a recurrence whose rate sc is at least (2/31)^2, so a tile re-runs the definition
 * from w0 = max(0, begin - h), h = p + D((2/31)^2) (catalog.c; D = 10,650 steps): by
 * `begin` the restarted seed weighs below 2^-64 of the data scale.
 */
#ifndef APO_KERNELS_KAMA_TILE_H
#define APO_KERNELS_KAMA_TILE_H

#include "catalog.h"
#include "dd.h"

/* The tile's start: the loop runs from w0 = max(0, begin - h) (apo__cat_run: n[0] the
 * first sample of the current run without gaps, v[0] + v[1] the double-double noise,
 * v[2] the average). */
static inline APO_HD void apo__kama_start(const apo__cat_io *io, size_t begin, apo__cat_run *r) {
    const size_t w0 = begin > io->h ? begin - io->h : 0;
    apo__cat_run_from(r, w0);
    r->n[0] = w0;
}

/* The loop from r->t to end, writing the positions from `begin` (the tile's) on. */
static inline APO_HD void apo__kama_run(const apo__cat_io *io, size_t begin, size_t end,
                                        apo__cat_run *r) {
    const double *x = io->in[0];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0];
    const double const_max = 2.0 / (30.0 + 1.0);
    const double const_diff = 2.0 / (2.0 + 1.0) - const_max;
    size_t start = r->n[0]; /* the first sample of the current run without gaps */
    apo__dd noise = apo__dd_make(r->v[0], r->v[1]);
    double kama = r->v[2];
    for (size_t t = r->t; t < end; t++) {
        double y = NAN;
        if (!isfinite(x[t])) {
            start = t + 1;
        } else if (t >= start + p) {
            if (t == start + p) {
                noise = apo__dd_make(0.0, 0.0);
                for (size_t i = start + 1; i <= t; i++)
                    noise = apo__dd_add_d(noise, fabs(x[i] - x[i - 1]));
                kama = x[t - 1];
            } else {
                noise = apo__dd_add_d(noise, fabs(x[t] - x[t - 1]));
                noise = apo__dd_add_d(noise, -fabs(x[t - p] - x[t - p - 1]));
            }
            const double roc = x[t] - x[t - p], n = noise.hi;
            const double er = n <= roc || n == 0.0 ? 1.0 : fabs(roc / n);
            double sc = er * const_diff + const_max;
            sc = sc * sc;
            kama = (x[t] - kama) * sc + kama;
            y = apo__canonical_nan(kama);
        }
        if (t >= begin)
            out[t] = y;
    }
    r->t = end > r->t ? end : r->t;
    r->n[0] = start;
    r->v[0] = noise.hi;
    r->v[1] = noise.lo;
    r->v[2] = kama;
}

static inline APO_HD void apo__kama_tile(const apo__cat_io *io, size_t begin, size_t end) {
    apo__cat_run r;
    apo__kama_start(io, begin, &r);
    apo__kama_run(io, begin, end, &r);
}

#endif /* APO_KERNELS_KAMA_TILE_H */
