/*
 * cycles_tiles.h: the cycle indicators' tile bodies behind one switch over its rows of the
 * table (catalog_table.h), which the CPU (dispatch/catalog_dispatch.c) and this family's CUDA
 * launcher (cycles.cu) both call.
 */
#ifndef APO_KERNELS_CYCLES_TILES_H
#define APO_KERNELS_CYCLES_TILES_H

#include "catalog.h"
#include "ht_tile.h"

static inline APO_HD void apo__cycles_tile(int id, const apo__cat_io *io, size_t begin,
                                           size_t end) {
    switch (id) {
#define APO__CYCLES_CASE(ID, name, room, ...)                                                      \
    APO_CAT_WHEN(room, cycles)(case APO_CAT_##ID : apo__##name##_tile(io, begin, end); break;)
        APO_CATALOG(APO__CYCLES_CASE)
#undef APO__CYCLES_CASE
    default:
        break;
    }
}

#endif /* APO_KERNELS_CYCLES_TILES_H */
