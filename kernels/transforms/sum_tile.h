/*
 * sum_tile.h: SUM(timeperiod), TA-Lib's sum of the p samples ending at t.
 *
 * Tile: halo p - 1; sma's double-double window sum (sma_tile.h, apo__window_dd_run: summed
 * exactly at the tile's first clean window, then slid with its rounding errors gathered
 * beside it), rounded once to a double: within an ulp of the exact sum, where TA-Lib's
 * running sum in double drifts with the series' length. A window holding a non-finite
 * sample gives NaN and the next clean window is summed afresh (window.h). Positions
 * t < p - 1 are NaN.
 */
#ifndef APO_KERNELS_SUM_TILE_H
#define APO_KERNELS_SUM_TILE_H

#include "sma_tile.h"

static inline APO_HD void apo__sum_tile(const apo__cat_io *io, size_t begin, size_t end) {
    apo__cat_run r;
    apo__sma_start(io, begin, &r);
    apo__window_dd_run(io, end, 1.0, &r);
}

/* sum's stream (catalog_table.h, RUN): its start at `begin` and its run to `end`. */
static inline APO_HD void apo__sum_stream_start(const apo__cat_io *io, size_t begin,
                                                apo__cat_run *r) {
    apo__sma_start(io, begin, r);
}

static inline APO_HD void apo__sum_stream_run(const apo__cat_io *io, size_t begin, size_t end,
                                              apo__cat_run *r) {
    (void)begin;
    apo__window_dd_run(io, end, 1.0, r);
}

#endif /* APO_KERNELS_SUM_TILE_H */
