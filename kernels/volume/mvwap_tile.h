/*
 * mvwap_tile.h: MVWAP(timeperiod), beyond TA-Lib: the moving (rolling) volume-weighted average
 * price sum(tp * volume) / sum(volume) over the p bars t - p + 1 .. t, tp = (high + low + close) /
 * 3 (flow.h). Inputs high, low, close, volume; lookback p - 1. NaN where the window's volume sums
 * to 0 (no trade: no price). The catalog's `vwap` until TA-Lib 0.8's VWAP, a running quotient
 * from the series' first bar, took that name (vwap_tile.h).
 *
 * Tile: halo p - 1. Both sums are double-doubles (the flows exact by Dekker's product),
 * summed exactly at the tile's first clean window and after each gap, then slid with their
 * rounding errors gathered beside them (window_sum.h, as var's sums); the quotient is a
 * double-double over the volume's leading part. Runs of clean windows go in blocks
 * (apo__clean_block_end), the same operations as the loop's, bar by bar, so the same bits.
 * The loop, its gaps and its state are sliding_sums.h's run, shared with cmf, adr, rvol and
 * vwma past period 4096 (below it they slide plain: sliding_plain.h).
 * Gaps: a window holding a non-finite sample of any input gives NaN (window.h).
 */
#ifndef APO_KERNELS_MVWAP_TILE_H
#define APO_KERNELS_MVWAP_TILE_H

#include "flow.h"
#include "run_entries.h"
#include "sliding_sums.h"

/* VWAP from the window's slid sums (window_sum.h): NaN where the volume is 0. */
static APO_HD_STEP APO_HD double apo__mvwap_of(apo__dd flow, apo__dd volume) {
    const double v = apo__dd_settle(volume).hi;
    /* Taken whatever v is, then selected, so that the block's output loop has no branch
     * (cmf_tile.h). */
    const double q = apo__canonical_nan(apo__dd_div_d(apo__dd_settle(flow), v).hi);
    return v != 0.0 ? q : (double)NAN;
}

/* apo__mvwap_of as the output of a body of sliding_sums.h. */
static APO_HD_STEP APO_HD double apo__mvwap_output(const apo__cat_io *io, size_t t, apo__dd flow,
                                                   apo__dd volume) {
    (void)io;
    (void)t;
    return apo__mvwap_of(flow, volume);
}

/* mvwap as a body of sliding_sums.h: the 4 inputs' gaps, the money flows (double-doubles)
 * and the volumes. */
static inline APO_HD apo__sliding_body apo__mvwap_body(void) {
    return apo__sliding_body_of(4, 0, apo__money_flow, 1, apo__volume_term, apo__mvwap_output);
}

/* mvwap's tile and stream (catalog_table.h, RUN): apo__mvwap_tile, apo__mvwap_stream_start and
 * apo__mvwap_stream_run. */
APO_CAT_RUN_ENTRIES(mvwap, apo__sliding_stream_start(io, apo__mvwap_body(), begin, r),
                    apo__sliding_stream_run(io, end, r, apo__mvwap_body()))

#endif /* APO_KERNELS_MVWAP_TILE_H */
