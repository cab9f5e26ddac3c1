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
 * The loop, its gaps and its state are sliding_sums.h's run, shared with cmf, adr and rvol.
 * Gaps: a window holding a non-finite sample of any input gives NaN (window.h).
 */
#ifndef APO_KERNELS_VWAP_TILE_H
#define APO_KERNELS_VWAP_TILE_H

#include "flow.h"
#include "run_entries.h"
#include "sliding_sums.h"

/* Bar t's volume, the second sum's term. */
static inline APO_HD apo__dd apo__vwap_volume(const apo__cat_io *io, size_t t) {
    return apo__dd_make(io->in[3][t], 0.0);
}

/* VWAP from the window's slid sums (window_sum.h): NaN where the volume is 0. */
static inline APO_HD double apo__vwap_of(apo__dd flow, apo__dd volume) {
    const double v = apo__dd_settle(volume).hi;
    return v != 0.0 ? apo__canonical_nan(apo__dd_div_d(apo__dd_settle(flow), v).hi) : (double)NAN;
}

/* apo__vwap_of as the output of a body of sliding_sums.h. */
static inline APO_HD double apo__vwap_output(const apo__cat_io *io, size_t t, apo__dd flow,
                                             apo__dd volume) {
    (void)io;
    (void)t;
    return apo__vwap_of(flow, volume);
}

/* The clean windows t .. e - 1 of vwap's run, a block (window_sum.h) whose window before
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

/* vwap as a body of sliding_sums.h: the 4 inputs' gaps, the money flows (double-doubles)
 * and the volumes, its clean windows in blocks. */
static inline APO_HD apo__sliding_body apo__vwap_body(void) {
    return apo__sliding_body_of(4, 0, apo__money_flow, 1, apo__vwap_volume, apo__vwap_block,
                                apo__vwap_output);
}

/* vwap's tile and stream (catalog_table.h, RUN): apo__vwap_tile, apo__vwap_stream_start and
 * apo__vwap_stream_run. */
APO_CAT_RUN_ENTRIES(vwap, apo__sliding_stream_start(io, apo__vwap_body(), begin, r),
                    apo__sliding_stream_run(io, end, r, apo__vwap_body()))

#endif /* APO_KERNELS_VWAP_TILE_H */
