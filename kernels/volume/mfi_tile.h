/*
 * mfi_tile.h: MFI(timeperiod), TA-Lib's money flow index. Inputs high, low, close, volume.
 *
 * Definition: the typical price tp = (high + low + close) / 3 and the money flow tp * volume
 * of bar i count as positive when tp[i] > tp[i-1], negative when tp[i] < tp[i-1], neither
 * when equal; over the p flows ending at t, MFI = 100 * (pos / (pos + neg)), 0 where
 * pos + neg is 0 (TA-Lib gives 0 below 1 instead: a series of small volumes would read 0
 * there). Lookback and halo p (the first flow needs the bar before).
 *
 * Tile: both sums are double-doubles (the flows exact by Dekker's product, dd.h), evaluated
 * exactly at the first clean window and slid. A gap in any input inside the p + 1 bars
 * gives NaN (window.h).
 */
#ifndef APO_KERNELS_MFI_TILE_H
#define APO_KERNELS_MFI_TILE_H

#include "vwap_tile.h"

/* Adds (sign 1) or takes out (sign -1) the flow of bar i >= 1. */
static inline APO_HD void apo__mfi_flow(const apo__cat_io *io, size_t i, double sign, apo__dd *pos,
                                        apo__dd *neg) {
    const double tp = apo__bar_typical(io, i), prev = apo__bar_typical(io, i - 1);
    const apo__dd flow = apo__two_prod(sign * tp, io->in[3][i]);
    if (tp > prev)
        *pos = apo__dd_add(*pos, flow);
    else if (tp < prev)
        *neg = apo__dd_add(*neg, flow);
}

static inline APO_HD void apo__mfi_tile(const apo__cat_io *io, size_t begin, size_t end) {
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0], w = p + 1;
    size_t bad = apo__last_gap(io->in, 4, apo__window_from(begin, w), begin);
    int valid = 0;
    apo__dd pos = apo__dd_make(0.0, 0.0), neg = apo__dd_make(0.0, 0.0);
    for (size_t t = begin; t < end; t++) {
        if (!apo__all_finite_at(io->in, 4, t))
            bad = t + 1;
        if (!apo__window_clean(t, w, bad)) {
            out[t] = NAN;
            valid = 0;
            continue;
        }
        if (!valid) {
            pos = neg = apo__dd_make(0.0, 0.0);
            for (size_t i = t + 1 - p; i <= t; i++)
                apo__mfi_flow(io, i, 1.0, &pos, &neg);
            valid = 1;
        } else {
            apo__mfi_flow(io, t, 1.0, &pos, &neg);
            apo__mfi_flow(io, t - p, -1.0, &pos, &neg);
        }
        const double sp = pos.hi + pos.lo, sn = neg.hi + neg.lo, total = sp + sn;
        out[t] = total != 0.0 ? apo__canonical_nan(100.0 * (sp / total)) : 0.0;
    }
}

#endif /* APO_KERNELS_MFI_TILE_H */
