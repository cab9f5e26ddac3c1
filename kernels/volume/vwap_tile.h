/*
 * vwap_tile.h: VWAP(timeperiod), beyond TA-Lib: the rolling volume-weighted average price of
 * the p bars ending at t, sum(tp * volume) / sum(volume) with the typical price
 * tp = (high + low + close) / 3; NaN where the window's volume is 0 (no price was paid).
 * Inputs high, low, close, volume.
 *
 * Tile: halo p - 1. Both sums are double-doubles (the products tp * volume exact by
 * Dekker's product, dd.h), evaluated exactly at the first clean window and slid. A gap in
 * any input inside the window gives NaN (window.h).
 */
#ifndef APO_KERNELS_VWAP_TILE_H
#define APO_KERNELS_VWAP_TILE_H

#include "catalog.h"
#include "dd.h"
#include "window.h"

static inline APO_HD double apo__bar_typical(const apo__cat_io *io, size_t i) {
    return (io->in[0][i] + io->in[1][i] + io->in[2][i]) / 3.0;
}

static inline APO_HD void apo__vwap_tile(const apo__cat_io *io, size_t begin, size_t end) {
    const double *vol = io->in[3];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0];
    size_t bad = apo__last_gap(io->in, 4, apo__window_from(begin, p), begin);
    int valid = 0;
    apo__dd pv = apo__dd_make(0.0, 0.0), v = apo__dd_make(0.0, 0.0);
    for (size_t t = begin; t < end; t++) {
        if (!apo__all_finite_at(io->in, 4, t))
            bad = t + 1;
        if (!apo__window_clean(t, p, bad)) {
            out[t] = NAN;
            valid = 0;
            continue;
        }
        if (!valid) {
            pv = v = apo__dd_make(0.0, 0.0);
            for (size_t i = t + 1 - p; i <= t; i++) {
                pv = apo__dd_add(pv, apo__two_prod(apo__bar_typical(io, i), vol[i]));
                v = apo__dd_add_d(v, vol[i]);
            }
            valid = 1;
        } else {
            pv = apo__dd_add(pv, apo__two_prod(apo__bar_typical(io, t), vol[t]));
            pv = apo__dd_add(pv, apo__two_prod(-apo__bar_typical(io, t - p), vol[t - p]));
            v = apo__dd_add_d(v, vol[t]);
            v = apo__dd_add_d(v, -vol[t - p]);
        }
        out[t] = v.hi != 0.0 ? apo__canonical_nan(apo__dd_div_d(pv, v.hi + v.lo).hi) : (double)NAN;
    }
}

#endif /* APO_KERNELS_VWAP_TILE_H */
