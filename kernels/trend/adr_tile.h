/*
 * adr_tile.h: ADR(timeperiod), TA-Lib 0.8's average daily range: the mean of high - low over
 * the p bars t - p + 1 .. t (TA-Lib's SMA of the ranges, each range rounded once). Inputs high,
 * low; lookback p - 1.
 *
 * Tile: halo p - 1. Up to APO_PLAIN_MAX the sum of the window's ranges is slid in plain
 * double between anchors where it is evaluated afresh (sliding_plain.h, as sma's sum), so its
 * error does not grow with the series as TA-Lib's running sum does; the mean is the sum over
 * p. Longer windows slide a double-double (sliding_sums.h), summed exactly at the tile's first
 * clean window and after each gap, the mean its settled sum over p. Each output is a function
 * of the tile grid alone. Gaps: a window holding a non-finite high or low gives NaN
 * (window.h). Stream: RUN, the window's state in apo__cat_run. (Until 2026-11-30 every period
 * took the double-double.)
 */
#ifndef APO_KERNELS_ADR_TILE_H
#define APO_KERNELS_ADR_TILE_H

#include "run_entries.h"
#include "sliding_plain.h"

/* The range of bar t, TA-Lib's high - low. */
static APO_HD_STEP APO_HD double apo__bar_range(const apo__cat_io *io, size_t t) {
    return io->in[0][t] - io->in[1][t];
}

/* The range as a term of a sum of doubles (sliding_sums.h). */
static APO_HD_STEP APO_HD apo__dd apo__adr_term(const apo__cat_io *io, size_t t) {
    return apo__dd_make(apo__bar_range(io, t), 0.0);
}

/* The mean range from the window's slid sum (b unused: one sum). */
static APO_HD_STEP APO_HD double apo__adr_of(const apo__cat_io *io, size_t t, apo__dd sum,
                                             apo__dd b) {
    (void)t;
    (void)b;
    return apo__canonical_nan(apo__dd_settle(sum).hi / (double)(size_t)io->p[0]);
}

/* The mean range from the window's plain sum (b unused: one sum). */
static APO_HD_STEP APO_HD double apo__adr_plain_of(const apo__cat_io *io, size_t t, double sum,
                                                   double b) {
    (void)t;
    (void)b;
    return apo__canonical_nan(sum / (double)(size_t)io->p[0]);
}

/* adr as a body of sliding_sums.h: the 2 inputs' gaps and one sum, the ranges'. */
static inline APO_HD apo__sliding_body apo__adr_body(void) {
    return apo__sliding_body_of(2, 0, apo__adr_term, 0, NULL, apo__adr_of);
}

/* The same as a body of sliding_plain.h, no sum a divisor. */
static inline APO_HD apo__plain_body apo__adr_plain_body(void) {
    return apo__plain_body_of(2, 0, apo__bar_range, NULL, -1, apo__adr_plain_of);
}

/* adr's tile and stream (catalog_table.h, RUN): apo__adr_tile, apo__adr_stream_start and
 * apo__adr_stream_run. */
APO_CAT_RUN_ENTRIES(adr, apo__sliding_stream_start(io, apo__adr_body(), begin, r),
                    apo__sliding_either_run(io, end, r, apo__adr_plain_body(), apo__adr_body()))

#endif /* APO_KERNELS_ADR_TILE_H */
