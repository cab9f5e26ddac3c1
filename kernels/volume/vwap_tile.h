/*
 * vwap_tile.h: VWAP(timeperiod), beyond TA-Lib: the rolling volume-weighted average price
 * sum(tp * volume) / sum(volume) over the p bars t - p + 1 .. t, tp = (high + low + close)
 * / 3 (flow.h). Inputs high, low, close, volume; lookback p - 1. NaN where the window's
 * volume sums to 0 (no trade: no price).
 *
 * Tile: halo p - 1. Both sums are double-doubles (the flows exact), summed exactly at the
 * tile's first clean window and after each gap, then slid; the quotient is a double-double
 * over the volume's leading part. Gaps: a window holding a non-finite sample of any input
 * gives NaN (window.h).
 */
#ifndef APO_KERNELS_VWAP_TILE_H
#define APO_KERNELS_VWAP_TILE_H

#include "flow.h"
#include "window.h"

/* The loop from r->t to end, after apo__window_start over the 4 inputs (apo__cat_run: n[0]
 * the last gap, n[1] whether the double-doubles v[0] + v[1] (the money flow) and v[2] +
 * v[3] (the volume) are the last window's). */
static inline APO_HD void apo__vwap_run(const apo__cat_io *io, size_t end, apo__cat_run *r) {
    const double *vol = io->in[3];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0];
    size_t bad = r->n[0];
    int valid = r->n[1] != 0;
    apo__dd flow = apo__dd_make(r->v[0], r->v[1]), volume = apo__dd_make(r->v[2], r->v[3]);
    for (size_t t = r->t; t < end; t++) {
        if (!apo__all_finite_at(io->in, 4, t))
            bad = t + 1;
        if (!apo__window_clean(t, p, bad)) {
            out[t] = NAN;
            valid = 0;
            continue;
        }
        if (!valid) {
            flow = volume = apo__dd_make(0.0, 0.0);
            for (size_t i = t + 1 - p; i <= t; i++) {
                flow = apo__dd_add(flow, apo__money_flow(io, i));
                volume = apo__dd_add_d(volume, vol[i]);
            }
            valid = 1;
        } else {
            flow = apo__dd_add(flow, apo__money_flow(io, t));
            flow = apo__dd_add(flow, apo__dd_neg(apo__money_flow(io, t - p)));
            volume = apo__dd_add_d(volume, vol[t]);
            volume = apo__dd_add_d(volume, -vol[t - p]);
        }
        out[t] =
            volume.hi != 0.0 ? apo__canonical_nan(apo__dd_div_d(flow, volume.hi).hi) : (double)NAN;
    }
    r->t = end > r->t ? end : r->t;
    r->n[0] = bad;
    r->n[1] = (size_t)valid;
    r->v[0] = flow.hi;
    r->v[1] = flow.lo;
    r->v[2] = volume.hi;
    r->v[3] = volume.lo;
}

static inline APO_HD void apo__vwap_tile(const apo__cat_io *io, size_t begin, size_t end) {
    apo__cat_run r;
    apo__window_start(io, 4, (size_t)io->p[0], begin, &r);
    apo__vwap_run(io, end, &r);
}

#endif /* APO_KERNELS_VWAP_TILE_H */
