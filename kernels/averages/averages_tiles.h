/*
 * averages_tiles.h: the moving averages' tile bodies behind one switch, which the CPU
 * (dispatch/catalog.c) and this family's CUDA launcher (averages.cu) both call.
 */
#ifndef APO_KERNELS_AVERAGES_TILES_H
#define APO_KERNELS_AVERAGES_TILES_H

#include "dema_tile.h"
#include "ema_tile.h"
#include "kama_tile.h"
#include "sma_tile.h"
#include "tema_tile.h"
#include "wma_tile.h"

static inline APO_HD void apo__averages_tile(int id, const apo__cat_io *io, size_t begin,
                                             size_t end) {
    switch (id) {
    case APO_CAT_SMA:
        apo__sma_tile(io, begin, end);
        break;
    case APO_CAT_EMA:
        apo__ema_tile(io, begin, end);
        break;
    case APO_CAT_WMA:
        apo__wma_tile(io, begin, end);
        break;
    case APO_CAT_DEMA:
        apo__dema_tile(io, begin, end);
        break;
    case APO_CAT_TEMA:
        apo__tema_tile(io, begin, end);
        break;
    /* catalog2's averages */
    case APO_CAT_KAMA:
        apo__kama_tile(io, begin, end);
        break;
    default:
        break;
    }
}

#endif /* APO_KERNELS_AVERAGES_TILES_H */
