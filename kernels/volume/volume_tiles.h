/*
 * volume_tiles.h: the volume indicators' tile bodies behind one switch over its rows of the table
 * (catalog_table.h), which the CPU (dispatch/catalog_dispatch.c) and this family's CUDA launcher
 * (volume.cu) both call.
 */
#ifndef APO_KERNELS_VOLUME_TILES_H
#define APO_KERNELS_VOLUME_TILES_H

#include "ad_tile.h"
#include "adosc_tile.h"
#include "catalog.h"
#include "cmf_tile.h"
#include "efi_tile.h"
#include "marketfi_tile.h"
#include "mfi_tile.h"
#include "mvwap_tile.h"
#include "nvi_tile.h"
#include "obv_tile.h"
#include "pvo_tile.h"
#include "pvt_tile.h"
#include "rvol_tile.h"
#include "vwap_tile.h"
#include "vwma_tile.h"

static inline APO_HD void apo__volume_tile(int id, const apo__cat_io *io, size_t begin,
                                           size_t end) {
    switch (id) {
#define APO__VOLUME_CASE(ID, name, room, ...)                                                      \
    APO_CAT_WHEN(room, volume)(case APO_CAT_##ID : apo__##name##_tile(io, begin, end); break;)
        APO_CATALOG(APO__VOLUME_CASE)
#undef APO__VOLUME_CASE
    default:
        break;
    }
}

#endif /* APO_KERNELS_VOLUME_TILES_H */
