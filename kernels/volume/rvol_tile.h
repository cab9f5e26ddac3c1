/*
 * rvol_tile.h: RVOL(timeperiod), TA-Lib 0.8's relative volume: the bar's volume over the mean
 * volume of the p bars before it, `volume[t] / (S / p)`, S the sum of volume[t - p .. t - 1]
 * (TA-Lib's order: the baseline first). Input volume; lookback p.
 *
 * Where S is 0 (p bars without a trade) there is no baseline: NaN, as mvwap's window without
 * volume, where TA-Lib 0.8.1 divides by it (+inf, or NaN where the bar's volume is 0 too).
 *
 * Tile: halo p. Up to APO_PLAIN_MAX S is slid in plain double between anchors where it is
 * evaluated afresh (sliding_plain.h); a baseline of volumes all 0 reads exactly 0 (the run
 * counts them), so its NaN holds. Longer windows slide a double-double (sliding_sums.h),
 * settled before the quotient. Each output is a function of the tile grid alone. Gaps: a
 * window of the p + 1 bars t - p .. t holding a non-finite volume gives NaN (window.h).
 * Stream: RUN, the window's state in apo__cat_run. (Until 2026-11-30 every period took the
 * double-double.)
 */
#ifndef APO_KERNELS_RVOL_TILE_H
#define APO_KERNELS_RVOL_TILE_H

#include "run_entries.h"
#include "sliding_plain.h"

/* The sum's term at bar t: the volume of the bar before it, so that the sum at t is that of
 * the p volumes before the bar (sliding_sums.h, a sum of doubles). */
static APO_HD_STEP APO_HD apo__dd apo__rvol_term(const apo__cat_io *io, size_t t) {
    return apo__dd_make(io->in[0][t - 1], 0.0);
}

/* The bar's volume over the mean of the window's sum, NaN where that sum is 0 (b unused). */
static APO_HD_STEP APO_HD double apo__rvol_of(const apo__cat_io *io, size_t t, apo__dd sum,
                                              apo__dd b) {
    (void)b;
    const double s = apo__dd_settle(sum).hi;
    /* Taken whatever s is, then selected, so that the block's output loop has no branch
     * (cmf_tile.h). */
    const double q = apo__canonical_nan(io->in[0][t] / (s / (double)(size_t)io->p[0]));
    return s != 0.0 ? q : (double)NAN;
}

/* The baseline's plain term at bar t: the volume of the bar before it. */
static APO_HD_STEP APO_HD double apo__rvol_plain_term(const apo__cat_io *io, size_t t) {
    return io->in[0][t - 1];
}

/* The bar's volume over the mean of the window's plain sum, NaN where that sum is 0. */
static APO_HD_STEP APO_HD double apo__rvol_plain_of(const apo__cat_io *io, size_t t, double s,
                                                    double b) {
    (void)b;
    /* Taken whatever s is, then selected (apo__rvol_of). */
    const double q = apo__canonical_nan(io->in[0][t] / (s / (double)(size_t)io->p[0]));
    return s != 0.0 ? q : (double)NAN;
}

/* rvol as a body of sliding_sums.h: its volume's gaps over p + 1 bars, one sum. */
static inline APO_HD apo__sliding_body apo__rvol_body(void) {
    return apo__sliding_body_of(1, 1, apo__rvol_term, 0, NULL, apo__rvol_of);
}

/* The same as a body of sliding_plain.h, its one sum the divisor. */
static inline APO_HD apo__plain_body apo__rvol_plain_body(void) {
    return apo__plain_body_of(1, 1, apo__rvol_plain_term, NULL, 0, apo__rvol_plain_of);
}

/* rvol's tile and stream (catalog_table.h, RUN): apo__rvol_tile, apo__rvol_stream_start and
 * apo__rvol_stream_run. */
APO_CAT_RUN_ENTRIES(rvol, apo__sliding_stream_start(io, apo__rvol_body(), begin, r),
                    apo__sliding_either_run(io, end, r, apo__rvol_plain_body(), apo__rvol_body()))

#endif /* APO_KERNELS_RVOL_TILE_H */
