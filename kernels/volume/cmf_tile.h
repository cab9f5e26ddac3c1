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
 * gives NaN (window.h). Stream: RUN, the window's state in apo__cat_run. The loop is
 * sliding_sums.h's run, shared with vwap, adr, rvol and vwma.
 */
#ifndef APO_KERNELS_CMF_TILE_H
#define APO_KERNELS_CMF_TILE_H

#include "flow.h"
#include "run_entries.h"
#include "sliding_sums.h"

/* Bar t's money flow volume: the A/D step from 0 (a sum of doubles: sliding_sums.h). */
static APO_HD_STEP APO_HD apo__dd apo__cmf_flow(const apo__cat_io *io, size_t t) {
    return apo__dd_make(apo__ad_add(0.0, io, t), 0.0);
}

/* CMF from the window's slid sums: 0 where the volume's sum is not above 0. */
static APO_HD_STEP APO_HD double apo__cmf_of(const apo__cat_io *io, size_t t, apo__dd flow,
                                             apo__dd volume) {
    (void)io;
    (void)t;
    const double v = apo__dd_settle(volume).hi;
    /* The quotient taken whatever v is, then selected: a division under the condition stays
     * a branch (gcc keeps a trapping operation where the source has it), which keeps the
     * block's output loop scalar (sliding_sums.h). */
    const double q = apo__canonical_nan(apo__dd_settle(flow).hi / v);
    return v > 0.0 ? q : 0.0;
}

/* cmf as a body of sliding_sums.h: the 4 inputs' gaps, the flows and the volumes. */
static inline APO_HD apo__sliding_body apo__cmf_body(void) {
    return apo__sliding_body_of(4, 0, apo__cmf_flow, 0, apo__volume_term, apo__cmf_of);
}

/* cmf's tile and stream (catalog_table.h, RUN): apo__cmf_tile, apo__cmf_stream_start and
 * apo__cmf_stream_run. */
APO_CAT_RUN_ENTRIES(cmf, apo__sliding_stream_start(io, apo__cmf_body(), begin, r),
                    apo__sliding_stream_run(io, end, r, apo__cmf_body()))

#endif /* APO_KERNELS_CMF_TILE_H */
