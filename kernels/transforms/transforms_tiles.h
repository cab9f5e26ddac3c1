/*
 * transforms_tiles.h: the price transforms', math operators' and math transforms' tile bodies
 * behind one switch over their rows of the table (catalog_table.h), which the CPU
 * (dispatch/catalog_dispatch.c) and this family's CUDA launcher (transforms.cu) both call.
 */
#ifndef APO_KERNELS_TRANSFORMS_TILES_H
#define APO_KERNELS_TRANSFORMS_TILES_H

#include "catalog.h"
#include "cumsum_tile.h"
#include "extremes_tile.h"
#include "ha_tile.h"
#include "index_tile.h"
#include "math_tile.h"
#include "operator_tile.h"
#include "price_tile.h"
#include "sum_tile.h"
#include "trig_tile.h"

static inline APO_HD void apo__transforms_tile(int id, const apo__cat_io *io, size_t begin,
                                               size_t end) {
    switch (id) {
#define APO__TRANSFORMS_CASE(ID, name, room, ...)                                                  \
    APO_CAT_WHEN(room, transforms)(case APO_CAT_##ID : apo__##name##_tile(io, begin, end); break;)
        APO_CATALOG(APO__TRANSFORMS_CASE)
#undef APO__TRANSFORMS_CASE
    default:
        break;
    }
}

#endif /* APO_KERNELS_TRANSFORMS_TILES_H */
