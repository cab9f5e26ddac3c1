/*
 * cmo_tile.h: CMO(timeperiod), TA-Lib's Chande momentum oscillator,
 * 100 * (g - l) / (g + l) of Wilder's averages of gains and losses: RSI's body
 * (rsi_tile.h) with the other output formula.
 */
#ifndef APO_KERNELS_CMO_TILE_H
#define APO_KERNELS_CMO_TILE_H

#include "rsi_tile.h"
#include "run_entries.h"

/* cmo's tile and stream (catalog_table.h, RUN): apo__cmo_tile, apo__cmo_stream_start and
 * apo__cmo_stream_run. */
APO_CAT_RUN_ENTRIES(cmo, apo__wilder_osc_start(io, begin, r),
                    apo__wilder_osc_run(io, begin, end, 1, r))

#endif /* APO_KERNELS_CMO_TILE_H */
