/*
 * cmf_tile.h: CMF(timeperiod), TA-Lib 0.8's Chaikin money flow: the sum of the money flow
 * volumes over the p bars t - p + 1 .. t over the sum of their volumes, 0 where the volumes
 * sum to 0 or less (TA-Lib's: a window without volume has no flow to distribute). A bar's money
 * flow volume is the A/D line's step (flow.h, apo__ad_add: 0 for a bar with high at or below
 * low), so cmf, ad and adosc share one definition. Inputs high, low, close, volume; lookback
 * p - 1.
 *
 * Tile: halo p - 1. Both sums are double-doubles, summed exactly at the tile's first clean
 * window and after each gap, then slid (window_sum.h, as vwap's), so they do not drift along
 * the series as TA-Lib's running sums do; each is settled before the quotient. Each output is
 * a function of the tile grid alone. Gaps: a window holding a non-finite sample of any input
 * gives NaN (window.h). Stream: RUN, the window's state in apo__cat_run.
 */
#ifndef APO_KERNELS_CMF_TILE_H
#define APO_KERNELS_CMF_TILE_H

#include "flow.h"
#include "window.h"
#include "window_sum.h"

/* Bar t's money flow volume: the A/D step from 0. */
static inline APO_HD double apo__cmf_flow(const apo__cat_io *io, size_t t) {
    return apo__ad_add(0.0, io, t);
}

/* CMF from the window's slid sums: 0 where the volume's sum is not above 0. */
static inline APO_HD double apo__cmf_of(apo__dd flow, apo__dd volume) {
    const double v = apo__dd_settle(volume).hi;
    return v > 0.0 ? apo__canonical_nan(apo__dd_settle(flow).hi / v) : 0.0;
}

/* The loop from r->t to end, after apo__window_start over the 4 inputs (n[0] the last gap,
 * n[1] whether v[0] + v[1] (the flows) and v[2] + v[3] (the volumes) are the last window's). */
static inline APO_HD void apo__cmf_run(const apo__cat_io *io, size_t end, apo__cat_run *r) {
    const double *vol = io->in[3];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0];
    size_t bad = r->n[0];
    int valid = r->n[1] != 0;
    apo__dd flow = apo__window_sum(r, 0), volume = apo__window_sum(r, 1);
    for (size_t t = r->t; t < end; t++) {
        if (!apo__window_step(apo__all_finite_at(io->in, 4, t), out, t, p, &bad, &valid))
            continue;
        if (!valid) {
            flow = volume = apo__dd_make(0.0, 0.0);
            for (size_t i = t + 1 - p; i <= t; i++) {
                flow = apo__dd_add_d(flow, apo__cmf_flow(io, i));
                volume = apo__dd_add_d(volume, vol[i]);
            }
            valid = 1;
        } else {
            flow = apo__dd_slide(flow, apo__cmf_flow(io, t), apo__cmf_flow(io, t - p), t);
            volume = apo__dd_slide(volume, vol[t], vol[t - p], t);
        }
        out[t] = apo__cmf_of(flow, volume);
    }
    apo__window_keep(r, end, bad, valid);
    apo__window_keep_sum(r, 0, flow);
    apo__window_keep_sum(r, 1, volume);
}

static inline APO_HD void apo__cmf_tile(const apo__cat_io *io, size_t begin, size_t end) {
    apo__cat_run r;
    apo__window_start(io, 4, (size_t)io->p[0], begin, &r);
    apo__cmf_run(io, end, &r);
}

/* cmf's stream (catalog_table.h, RUN): its start at `begin` and its run to `end`. */
static inline APO_HD void apo__cmf_stream_start(const apo__cat_io *io, size_t begin,
                                                apo__cat_run *r) {
    apo__window_start(io, 4, (size_t)io->p[0], begin, r);
}

static inline APO_HD void apo__cmf_stream_run(const apo__cat_io *io, size_t begin, size_t end,
                                              apo__cat_run *r) {
    (void)begin;
    apo__cmf_run(io, end, r);
}

#endif /* APO_KERNELS_CMF_TILE_H */
