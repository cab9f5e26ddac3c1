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

/* The tile's start: the loop runs from w0 with an empty seed (apo__cat_run: n[0] the
 * samples seen, v[0] the seed's sum, v[1] the average). */
static inline APO_HD void apo__ema_start(const apo__cat_io *io, size_t begin, apo__cat_run *r) {
    apo__cat_run_from(r, begin > io->h ? begin - io->h : 0);
}

/* The loop from r->t to end, writing the positions from `begin` (the tile's) on. */
static inline APO_HD void apo__ema_run(const apo__cat_io *io, size_t begin, size_t end,
                                       apo__cat_run *r) {
    const double *x = io->in[0];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0];
    const double k = 2.0 / ((double)p + 1.0);
    size_t seen = r->n[0];
    double sum = r->v[0], e = r->v[1];
    for (size_t t = r->t; t < end; t++) {
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
    r->t = end > r->t ? end : r->t;
    r->n[0] = seen;
    r->v[0] = sum;
    r->v[1] = e;
}

static inline APO_HD void apo__ema_tile(const apo__cat_io *io, size_t begin, size_t end) {
    apo__cat_run r;
    apo__ema_start(io, begin, &r);
    apo__ema_run(io, begin, end, &r);
}

#endif /* APO_KERNELS_EMA_TILE_H */
