/*
 * vwap_tile.h: VWAP(timeperiod), beyond TA-Lib: the rolling volume-weighted average price
 * sum(tp * volume) / sum(volume) over the p bars t - p + 1 .. t, tp = (high + low + close)
 * / 3 (flow.h). Inputs high, low, close, volume; lookback p - 1. NaN where the window's
 * volume sums to 0 (no trade: no price).
 *
 * Tile: halo p - 1. Both sums are double-doubles (the flows exact by Dekker's product),
 * summed exactly at the tile's first clean window and after each gap, then slid with their
 * rounding errors gathered beside them (window_sum.h, as var's sums); the quotient is a
 * double-double over the volume's leading part. Runs of clean windows go in blocks
 * (apo__clean_block_end), the same operations as the loop's, bar by bar, so the same bits.
 * Gaps: a window holding a non-finite sample of any input gives NaN (window.h).
 */
#ifndef APO_KERNELS_VWAP_TILE_H
#define APO_KERNELS_VWAP_TILE_H

#include "flow.h"
#include "window.h"
#include "window_sum.h"

/* VWAP from the window's slid sums (window_sum.h): NaN where the volume is 0. */
static inline APO_HD double apo__vwap_of(apo__dd flow, apo__dd volume) {
    const double v = apo__dd_settle(volume).hi;
    return v != 0.0 ? apo__canonical_nan(apo__dd_div_d(apo__dd_settle(flow), v).hi) : (double)NAN;
}

/* The clean windows t .. e - 1 of apo__vwap_run, a block (window_sum.h) whose window before
 * t was clean and slid into flow and volume: slides both, writes the outputs and returns the
 * sums. The flows of a step's bars in and out first, then the two slides side by side, then
 * the quotients, so that only the slides are serial. */
static inline APO_HD apo__dd_pair apo__vwap_block(const apo__cat_io *io, size_t p, size_t t,
                                                  size_t e, apo__dd flow, apo__dd volume) {
    const size_t n = e - t;
    const double *vol = io->in[3];
    apo__dd_block bf, bv;
    for (size_t k = 0; k < n; k++) {
        apo__dd_block_step_dd(&bf, k, apo__money_flow(io, t + k), apo__money_flow(io, t + k - p));
        apo__dd_block_step(&bv, k, vol[t + k], vol[t + k - p]);
    }
    const apo__dd_pair slid = apo__dd_block_slide_two(flow, &bf, 1, volume, &bv, 0, t, n);
    double *out = io->out[0] + t;
    for (size_t k = 0; k < n; k++)
        out[k] = apo__vwap_of(apo__dd_make(bf.h[k], bf.l[k]), apo__dd_make(bv.h[k], bv.l[k]));
    return slid;
}

/* The loop from r->t to end, after apo__window_start over the 4 inputs (apo__cat_run: n[0]
 * the last gap, n[1] whether the double-doubles v[0] + v[1] (the money flow) and v[2] +
 * v[3] (the volume) are the last window's). */
static inline APO_HD void apo__vwap_run(const apo__cat_io *io, size_t end, apo__cat_run *r) {
    const double *vol = io->in[3];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0];
    size_t bad = r->n[0];
    int valid = r->n[1] != 0;
    apo__dd flow = apo__window_sum(r, 0), volume = apo__window_sum(r, 1);
    size_t plain_until = 0;
    for (size_t t = r->t; t < end; t++) {
        const size_t e = apo__clean_block_end(io->in, 4, valid, t, end, &plain_until);
        if (e > t) {
            const apo__dd_pair s = apo__vwap_block(io, p, t, e, flow, volume);
            flow = s.a;
            volume = s.b;
            t = e - 1;
            continue;
        }
        if (!apo__window_step(apo__all_finite_at(io->in, 4, t), out, t, p, &bad, &valid))
            continue;
        if (!valid) {
            flow = volume = apo__dd_make(0.0, 0.0);
            for (size_t i = t + 1 - p; i <= t; i++) {
                flow = apo__dd_add(flow, apo__money_flow(io, i));
                volume = apo__dd_add_d(volume, vol[i]);
            }
            valid = 1;
        } else {
            flow = apo__dd_slide_dd(flow, apo__money_flow(io, t), apo__money_flow(io, t - p), t);
            volume = apo__dd_slide(volume, vol[t], vol[t - p], t);
        }
        out[t] = apo__vwap_of(flow, volume);
    }
    apo__window_keep(r, end, bad, valid);
    apo__window_keep_sum(r, 0, flow);
    apo__window_keep_sum(r, 1, volume);
}

static inline APO_HD void apo__vwap_tile(const apo__cat_io *io, size_t begin, size_t end) {
    apo__cat_run r;
    apo__window_start(io, 4, (size_t)io->p[0], begin, &r);
    apo__vwap_run(io, end, &r);
}

/* vwap's stream (catalog_table.h, RUN): its start at `begin` and its run to `end`. */
static inline APO_HD void apo__vwap_stream_start(const apo__cat_io *io, size_t begin,
                                                 apo__cat_run *r) {
    apo__window_start(io, 4, (size_t)io->p[0], begin, r);
}

static inline APO_HD void apo__vwap_stream_run(const apo__cat_io *io, size_t begin, size_t end,
                                               apo__cat_run *r) {
    (void)begin;
    apo__vwap_run(io, end, r);
}

#endif /* APO_KERNELS_VWAP_TILE_H */
