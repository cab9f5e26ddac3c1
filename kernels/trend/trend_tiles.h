/*
 * trend_tiles.h: the trend indicators' tile bodies behind one switch over its rows of the table
 * (catalog_table.h), which the CPU (dispatch/catalog_dispatch.c) and this family's CUDA launcher
 * (trend.cu) both call.
 */
#ifndef APO_KERNELS_TREND_TILES_H
#define APO_KERNELS_TREND_TILES_H

#include "adr_tile.h"
#include "aroon_tile.h"
#include "atr_tile.h"
#include "catalog.h"
#include "cvi_tile.h"
#include "dm_tile.h"
#include "dmi_tile.h"
#include "kc_tile.h"
#include "massi_tile.h"
#include "sar_tile.h"
#include "supertrend_tile.h"
#include "trange_tile.h"
#include "ultosc_tile.h"
#include "vortex_tile.h"

static inline APO_HD void apo__trend_tile(int id, const apo__cat_io *io, size_t begin, size_t end) {
    switch (id) {
#define APO__TREND_CASE(ID, name, room, ...)                                                       \
    APO_CAT_WHEN(room, trend)(case APO_CAT_##ID : apo__##name##_tile(io, begin, end); break;)
        APO_CATALOG(APO__TREND_CASE)
#undef APO__TREND_CASE
    default:
        break;
    }
}

#endif /* APO_KERNELS_TREND_TILES_H */
