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

#include "run_entries.h"
#include "sma_tile.h"

/* sum's tile and stream (catalog_table.h, RUN): apo__sum_tile, apo__sum_stream_start and
 * apo__sum_stream_run, its start at `begin` and its run to `end`. */
APO_CAT_RUN_ENTRIES(sum, apo__sma_start(io, begin, r), apo__window_dd_run(io, end, 1.0, r))

#endif /* APO_KERNELS_SUM_TILE_H */
