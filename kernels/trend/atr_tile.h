/*
 * atr_tile.h: ATR(timeperiod) and NATR(timeperiod), TA-Lib's average true range with
 * Wilder's smoothing, and ATR / close * 100 (0 where close is 0, as TA-Lib).
 *
 * Definition: the true ranges TR[1], TR[2], ... (trange_tile.h); the seed is their plain
 * mean over the first p of them (summed in index order, divided by p), output at index p;
 * then a = (a * (p - 1) + TR) / p, TA-Lib's operation order, so a tile starting at 0 has
 * TA-Lib's bits. p = 1 gives the true range itself.
 *
 * Gaps: a non-finite TR (a gap in high[t], low[t] or close[t-1]) gives NaN and the state
 * skips it; the seed is the mean of the first p finite TRs.
 *
 * Tile: a tile reruns the definition from w0 = max(0, begin - h), its first TR at w0 + 1
 * (TR needs the close before), h = p + D(1/p) (catalog.c): by `begin` the restarted
 * seed's weight is below 2^-64 of the data scale.
 */
#ifndef APO_KERNELS_ATR_TILE_H
#define APO_KERNELS_ATR_TILE_H

#include "catalog.h"
#include "trange_tile.h"

/* normalize 0: ATR; 1: NATR. */
static inline APO_HD void apo__atr_body(const apo__cat_io *io, size_t begin, size_t end,
                                        int normalize) {
    const double *close = io->in[2];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0];
    const double pd = (double)p, keep = pd - 1.0;
    const size_t w0 = begin > io->h ? begin - io->h : 0;
    if (begin == w0)
        out[begin] = NAN;
    size_t seen = 0;
    double sum = 0.0, a = 0.0;
    for (size_t t = w0 + 1; t < end; t++) {
        const double tr = apo__true_range(io->in[0], io->in[1], close, t);
        double y = NAN;
        if (isfinite(tr)) {
            if (seen < p) {
                sum = sum + tr;
                seen++;
                if (seen == p) {
                    a = sum / pd;
                    y = a;
                }
            } else {
                a = (a * keep + tr) / pd;
                y = a;
            }
        }
        if (normalize && isfinite(y)) {
            const double c = close[t];
            y = c != 0.0 ? apo__canonical_nan(y / c * 100.0) : 0.0;
        }
        if (t >= begin)
            out[t] = y;
    }
}

static inline APO_HD void apo__atr_tile(const apo__cat_io *io, size_t begin, size_t end) {
    apo__atr_body(io, begin, end, 0);
}

static inline APO_HD void apo__natr_tile(const apo__cat_io *io, size_t begin, size_t end) {
    apo__atr_body(io, begin, end, 1);
}

#endif /* APO_KERNELS_ATR_TILE_H */
