/*
 * vwma_tile.h: VWMA(timeperiod), TA-Lib 0.8's volume-weighted moving average: the sum of
 * close * volume over the p bars t - p + 1 .. t over the sum of their volumes. Inputs close,
 * volume; lookback p - 1. Where the volumes sum to 0 (p bars without a trade) there is no
 * weight and the output is NaN, as vwap's window without volume (TA-Lib 0.8.1 divides: NaN
 * where the products sum to 0 too, which they then do for non-negative volumes).
 *
 * Tile: halo p - 1. Both sums are double-doubles, the products exact (apo__two_prod), summed
 * exactly at the tile's first clean window and after each gap, then slid (window_sum.h, as
 * cmf's), so they do not drift along the series as TA-Lib's running sums do; each is settled
 * before the quotient. Each output is a function of the tile grid alone. Gaps: a window
 * holding a non-finite close or volume gives NaN (window.h). Stream: RUN, the window's state
 * in apo__cat_run. The loop is sliding_sums.h's run, shared with vwap, cmf, adr and rvol.
 */
#ifndef APO_KERNELS_VWMA_TILE_H
#define APO_KERNELS_VWMA_TILE_H

#include "run_entries.h"
#include "sliding_sums.h"

/* Bar t's close * volume, exactly (a sum of double-doubles: sliding_sums.h). */
static APO_HD_STEP APO_HD apo__dd apo__vwma_weighted(const apo__cat_io *io, size_t t) {
    return apo__two_prod(io->in[0][t], io->in[1][t]);
}

/* Bar t's volume, the second sum's term. */
static APO_HD_STEP APO_HD apo__dd apo__vwma_volume(const apo__cat_io *io, size_t t) {
    return apo__dd_make(io->in[1][t], 0.0);
}

/* The quotient of the window's settled sums: NaN where the volumes sum to 0. */
static APO_HD_STEP APO_HD double apo__vwma_of(const apo__cat_io *io, size_t t, apo__dd weighted,
                                              apo__dd volume) {
    (void)io;
    (void)t;
    const double v = apo__dd_settle(volume).hi;
    /* Taken whatever v is, then selected, so that the block's output loop has no branch
     * (cmf_tile.h). */
    const double q = apo__canonical_nan(apo__dd_settle(weighted).hi / v);
    return v != 0.0 ? q : (double)NAN;
}

/* vwma as a body of sliding_sums.h: the 2 inputs' gaps, the products (double-doubles) and
 * the volumes. */
static inline APO_HD apo__sliding_body apo__vwma_body(void) {
    return apo__sliding_body_of(2, 0, apo__vwma_weighted, 1, apo__vwma_volume, apo__vwma_of);
}

/* vwma's tile and stream (catalog_table.h, RUN): apo__vwma_tile, apo__vwma_stream_start and
 * apo__vwma_stream_run. */
APO_CAT_RUN_ENTRIES(vwma, apo__sliding_stream_start(io, apo__vwma_body(), begin, r),
                    apo__sliding_stream_run(io, end, r, apo__vwma_body()))

#endif /* APO_KERNELS_VWMA_TILE_H */
