/*
 * catalog_rounds.h: the round of lanes of each catalog recurrence that records its edges
 * (catalog_lanes.h), chosen by kernel, for the two callers that run such rounds: a row's tiles
 * side by side (catalog_entry.h) and a lone tile's pieces (catalog_split.h). One switch, so
 * that a kernel given a round is given it in both. A cut piece whose head does not continue the
 * run before it goes on from a round's edge by the stream's run (apo__catalog_run_to): every
 * kernel with a round has a RUN stream, whose run is the one its tile body and round take.
 */
#ifndef APO_KERNELS_CATALOG_ROUNDS_H
#define APO_KERNELS_CATALOG_ROUNDS_H

#include "atr_lanes.h"
#include "catalog_dispatch.h"
#include "catalog_lanes.h"
#include "dema_tile.h"
#include "dm_lanes.h"
#include "dmi_lanes.h"
#include "efi_tile.h"
#include "rma_tile.h"
#include "rsi_lanes.h"
#include "t3_tile.h"
#include "tsi_tile.h"
#include "zlema_tile.h"

/* Runs the tiles (or pieces) [0, count) of kernel id as one round of lanes, recording each
 * one's edges where edges is not NULL; returns 0, having computed nothing, for a kernel
 * without such a round. */
static inline int apo__catalog_edge_round(apo__cat_id id, const apo__cat_io *io,
                                          const apo__tile_span *tiles, size_t count,
                                          apo__cat_edge *edges) {
    switch (id) {
    case APO_CAT_RSI:
    case APO_CAT_CMO:
        apo__wilder_osc_round(io, tiles, count, id == APO_CAT_CMO, edges);
        return 1;
    case APO_CAT_ATR:
    case APO_CAT_NATR:
        apo__atr_round(io, tiles, count, id == APO_CAT_NATR, edges);
        return 1;
    case APO_CAT_PLUS_DI:
        apo__dmi_round(io, tiles, count, APO_DMI_PLUS, edges);
        return 1;
    case APO_CAT_MINUS_DI:
        apo__dmi_round(io, tiles, count, APO_DMI_MINUS, edges);
        return 1;
    case APO_CAT_ADX:
        apo__dmi_round(io, tiles, count, APO_DMI_ADX, edges);
        return 1;
    case APO_CAT_DX:
        apo__dmi_round(io, tiles, count, APO_DMI_DX, edges);
        return 1;
    case APO_CAT_PLUS_DM:
        apo__dm_round(io, tiles, count, APO_DMI_PLUS, edges);
        return 1;
    case APO_CAT_MINUS_DM:
        apo__dm_round(io, tiles, count, APO_DMI_MINUS, edges);
        return 1;
    case APO_CAT_RMA:
        apo__rma_round(io, tiles, count, edges);
        return 1;
    case APO_CAT_ZLEMA:
        apo__zlema_round(io, tiles, count, edges);
        return 1;
    case APO_CAT_EFI:
        apo__efi_round(io, tiles, count, edges);
        return 1;
    case APO_CAT_DEMA:
        apo__ema_chain_round(io, tiles, count, 2, edges);
        return 1;
    case APO_CAT_TEMA:
        apo__ema_chain_round(io, tiles, count, 3, edges);
        return 1;
    case APO_CAT_T3:
        apo__t3_round(io, tiles, count, edges);
        return 1;
    case APO_CAT_TSI:
        apo__tsi_round(io, tiles, count, edges);
        return 1;
    default:
        return 0;
    }
}

#endif /* APO_KERNELS_CATALOG_ROUNDS_H */
