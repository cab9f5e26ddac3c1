/*
 * cmf_tile.h: CMF(timeperiod), TA-Lib 0.8's Chaikin money flow: the sum of the money flow
 * volumes over the p bars t - p + 1 .. t over the sum of their volumes, 0 where the volumes
 * sum to 0 or less (TA-Lib's: a window without volume has no flow to distribute). A bar's money
 * flow volume is the A/D line's step (flow.h, apo__ad_add: 0 for a bar with high at or below
 * low), so cmf, ad and adosc share one definition. Inputs high, low, close, volume; lookback
 * p - 1.
 *
 * Tile: halo p - 1. Up to APO_PLAIN_MAX both sums are slid in plain double between anchors
 * where they are evaluated afresh (sliding_plain.h), so they do not drift along the series as
 * TA-Lib's running sums do; a window whose volumes are all 0 reads a volume sum of exactly 0
 * (the run counts them), so its 0 holds. Longer windows slide double-doubles
 * (sliding_sums.h, as mvwap's), each settled before the quotient. Each output is a function of
 * the tile grid alone. Gaps: a window holding a non-finite sample of any input gives NaN
 * (window.h). Stream: RUN, the window's state in apo__cat_run. (Until 2026-11-30 every period
 * took the double-doubles.)
 */
#ifndef APO_KERNELS_CMF_TILE_H
#define APO_KERNELS_CMF_TILE_H

#include "flow.h"
#include "run_entries.h"
#include "sliding_plain.h"

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

/* Bar t's money flow volume and volume as plain terms (sliding_plain.h). The flow keeps
 * apo__ad_add's branch around its division, which leaves a loop of it scalar (branchless
 * scalar forms gave the same bits and were no faster: docs/kernels/talib.md), so on the CPU
 * the chunks take the flows in vector lanes (apo__cmf_flow_tv). */
static APO_HD_STEP APO_HD double apo__cmf_plain_flow(const apo__cat_io *io, size_t t) {
    return apo__ad_add(0.0, io, t);
}

#ifdef APO_TILE_LANES
/* apo__cmf_plain_flow of the APO_TILE_LANES bars from t: flow.h's A/D steps, the same
 * operations, and -0 where the scalar form gives +0 (a bar with high at or below low), which
 * sliding_plain.h's sums do not tell apart (apo__plain_term_tv). */
static inline apo_tv apo__cmf_flow_tv(const apo__cat_io *io, size_t t) {
    return apo__ad_steps(io, t);
}
#endif

static APO_HD_STEP APO_HD double apo__cmf_plain_volume(const apo__cat_io *io, size_t t) {
    return io->in[3][t];
}

/* CMF from the window's plain sums: 0 where the volume's sum is not above 0. */
static APO_HD_STEP APO_HD double apo__cmf_plain_of(const apo__cat_io *io, size_t t, double flow,
                                                   double volume) {
    (void)io;
    (void)t;
    /* Taken whatever the volume is, then selected (apo__cmf_of). */
    const double q = apo__canonical_nan(flow / volume);
    return volume > 0.0 ? q : 0.0;
}

/* cmf as a body of sliding_sums.h: the 4 inputs' gaps, the flows and the volumes. */
static inline APO_HD apo__sliding_body apo__cmf_body(void) {
    return apo__sliding_body_of(4, 0, apo__cmf_flow, 0, apo__volume_term, apo__cmf_of);
}

/* The same as a body of sliding_plain.h, the volumes' sum the divisor. */
static inline APO_HD apo__plain_body apo__cmf_plain_body(void) {
    apo__plain_body body =
        apo__plain_body_of(4, 0, apo__cmf_plain_flow, apo__cmf_plain_volume, 1, apo__cmf_plain_of);
#ifdef APO_TILE_LANES
    body.term_a_tv = apo__cmf_flow_tv;
#endif
    return body;
}

/* cmf's tile and stream (catalog_table.h, RUN): apo__cmf_tile, apo__cmf_stream_start and
 * apo__cmf_stream_run. */
APO_CAT_RUN_ENTRIES(cmf, apo__sliding_stream_start(io, apo__cmf_body(), begin, r),
                    apo__sliding_either_run(io, end, r, apo__cmf_plain_body(), apo__cmf_body()))

#endif /* APO_KERNELS_CMF_TILE_H */
