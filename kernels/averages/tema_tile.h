/*
 * tema_tile.h: TEMA(timeperiod), TA-Lib's triple EMA, e3 + ((3 * e1) - (3 * e2)): the chain
 * of dema_tile.h with three stages.
 */
#ifndef APO_KERNELS_TEMA_TILE_H
#define APO_KERNELS_TEMA_TILE_H

#include "dema_tile.h"
#include "run_entries.h"

/* tema's tile and stream (catalog_table.h, RUN): apo__tema_tile, apo__tema_stream_start and
 * apo__tema_stream_run. */
APO_CAT_RUN_ENTRIES(tema, apo__ema_chain_start(io, begin, r),
                    apo__ema_chain_run(io, begin, end, 3, r))

#endif /* APO_KERNELS_TEMA_TILE_H */
