/*
 * vwma_tile.h: VWMA(timeperiod), TA-Lib 0.8's volume-weighted moving average: the sum of
 * close * volume over the p bars t - p + 1 .. t over the sum of their volumes. Inputs close,
 * volume; lookback p - 1. Where the volumes sum to 0 (p bars without a trade) there is no
 * weight and the output is NaN, as mvwap's window without volume (TA-Lib 0.8.1 divides: NaN
 * where the products sum to 0 too, which they then do for non-negative volumes).
 *
 * Tile: halo p - 1. Up to APO_PLAIN_MAX both sums are slid in plain double between anchors
 * where they are evaluated afresh (sliding_plain.h), each product rounded once as TA-Lib's,
 * so they do not drift along the series as TA-Lib's running sums do; a window whose volumes
 * are all 0 reads a volume sum of exactly 0 (the run counts them), so its NaN holds. Longer
 * windows slide double-doubles, the products exact (apo__two_prod; sliding_sums.h), each
 * settled before the quotient. Each output is a function of the tile grid alone. Gaps: a
 * window holding a non-finite close or volume gives NaN (window.h). Stream: RUN, the window's
 * state in apo__cat_run. (Until 2026-11-30 every period took the double-doubles.)
 */
#ifndef APO_KERNELS_VWMA_TILE_H
#define APO_KERNELS_VWMA_TILE_H

#include "run_entries.h"
#include "sliding_plain.h"

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

/* Bar t's close * volume, rounded once, and its volume as plain terms (sliding_plain.h). */
static APO_HD_STEP APO_HD double apo__vwma_plain_weighted(const apo__cat_io *io, size_t t) {
    return io->in[0][t] * io->in[1][t];
}

static APO_HD_STEP APO_HD double apo__vwma_plain_volume(const apo__cat_io *io, size_t t) {
    return io->in[1][t];
}

/* The quotient of the window's plain sums: NaN where the volumes sum to 0. */
static APO_HD_STEP APO_HD double apo__vwma_plain_of(const apo__cat_io *io, size_t t,
                                                    double weighted, double volume) {
    (void)io;
    (void)t;
    /* Taken whatever the volume is, then selected (apo__vwma_of). */
    const double q = apo__canonical_nan(weighted / volume);
    return volume != 0.0 ? q : (double)NAN;
}

/* vwma as a body of sliding_sums.h: the 2 inputs' gaps, the products (double-doubles) and
 * the volumes. */
static inline APO_HD apo__sliding_body apo__vwma_body(void) {
    return apo__sliding_body_of(2, 0, apo__vwma_weighted, 1, apo__vwma_volume, apo__vwma_of);
}

/* The same as a body of sliding_plain.h, the volumes' sum the divisor. */
static inline APO_HD apo__plain_body apo__vwma_plain_body(void) {
    return apo__plain_body_of(2, 0, apo__vwma_plain_weighted, apo__vwma_plain_volume, 1,
                              apo__vwma_plain_of);
}

/* vwma's tile and stream (catalog_table.h, RUN): apo__vwma_tile, apo__vwma_stream_start and
 * apo__vwma_stream_run. */
APO_CAT_RUN_ENTRIES(vwma, apo__sliding_stream_start(io, apo__vwma_body(), begin, r),
                    apo__sliding_either_run(io, end, r, apo__vwma_plain_body(), apo__vwma_body()))

#endif /* APO_KERNELS_VWMA_TILE_H */
