/*
 * averages_tiles.h: the moving averages' tile bodies behind one switch over its rows of the table
 * (catalog_table.h), which the CPU (dispatch/catalog_dispatch.c) and this family's CUDA launcher
 * (averages.cu) both call.
 */
#ifndef APO_KERNELS_AVERAGES_TILES_H
#define APO_KERNELS_AVERAGES_TILES_H

#include "accbands_tile.h"
#include "bbands_stream.h"
#include "bbands_tile.h"
#include "catalog.h"
#include "dema_tile.h"
#include "donchian_tile.h"
#include "ema_tile.h"
#include "hma_tile.h"
#include "kama_tile.h"
#include "ma_stream.h"
#include "ma_tile.h"
#include "ma_type.h"
#include "mama_tile.h"
#include "midpoint_tile.h"
#include "rma_tile.h"
#include "sma_tile.h"
#include "t3_tile.h"
#include "tema_tile.h"
#include "trima_tile.h"
#include "wma_tile.h"
#include "zlema_tile.h"

static inline APO_HD void apo__averages_tile(int id, const apo__cat_io *io, size_t begin,
                                             size_t end) {
    switch (id) {
#define APO__AVERAGES_CASE(ID, name, room, ...)                                                    \
    APO_CAT_WHEN(room, averages)(case APO_CAT_##ID : apo__##name##_tile(io, begin, end); break;)
        APO_CATALOG(APO__AVERAGES_CASE)
#undef APO__AVERAGES_CASE
    default:
        break;
    }
}

#endif /* APO_KERNELS_AVERAGES_TILES_H */
