/*
 * statistics_tiles.h: the rolling statistics' tile bodies behind one switch over its rows of the
 * table (catalog_table.h), which the CPU (dispatch/catalog_dispatch.c) and this family's CUDA
 * launcher (statistics.cu) both call.
 */
#ifndef APO_KERNELS_STATISTICS_TILES_H
#define APO_KERNELS_STATISTICS_TILES_H

#include "avgdev_tile.h"
#include "beta_tile.h"
#include "catalog.h"
#include "correl_tile.h"
#include "fosc_tile.h"
#include "linearreg_tile.h"
#include "minmax_tile.h"
#include "percentile_tile.h"
#include "percentrank_tile.h"
#include "rvi_tile.h"
#include "var_tile.h"
#include "zscore_tile.h"

static inline APO_HD void apo__statistics_tile(int id, const apo__cat_io *io, size_t begin,
                                               size_t end) {
    switch (id) {
#define APO__STATISTICS_CASE(ID, name, room, ...)                                                  \
    APO_CAT_WHEN(room, statistics)(case APO_CAT_##ID : apo__##name##_tile(io, begin, end); break;)
        APO_CATALOG(APO__STATISTICS_CASE)
#undef APO__STATISTICS_CASE
    default:
        break;
    }
}

#endif /* APO_KERNELS_STATISTICS_TILES_H */
