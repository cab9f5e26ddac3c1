/*
 * volume_tiles.h: the volume indicators' tile bodies behind one switch, which the CPU
 * (dispatch/catalog.c) and this family's CUDA launcher (volume.cu) both call.
 */
#ifndef APO_KERNELS_VOLUME_TILES_H
#define APO_KERNELS_VOLUME_TILES_H

#include "ad_tile.h"
#include "adosc_tile.h"
#include "mfi_tile.h"
#include "obv_tile.h"
#include "vwap_tile.h"

static inline APO_HD void apo__volume_tile(int id, const apo__cat_io *io, size_t begin,
                                           size_t end) {
    switch (id) {
    case APO_CAT_MFI:
        apo__mfi_tile(io, begin, end);
        break;
    case APO_CAT_VWAP:
        apo__vwap_tile(io, begin, end);
        break;
    case APO_CAT_ADOSC:
        apo__adosc_tile(io, begin, end);
        break;
    case APO_CAT_OBV:
        apo__obv_tile(io, begin, end);
        break;
    case APO_CAT_AD:
        apo__ad_tile(io, begin, end);
        break;
    default:
        break;
    }
}

#endif /* APO_KERNELS_VOLUME_TILES_H */
