/*
 * trend_tiles.h: the trend indicators' tile bodies behind one switch, which the CPU
 * (dispatch/catalog.c) and this family's CUDA launcher (trend.cu) both call.
 */
#ifndef APO_KERNELS_TREND_TILES_H
#define APO_KERNELS_TREND_TILES_H

#include "aroon_tile.h"
#include "atr_tile.h"
#include "dmi_tile.h"
#include "trange_tile.h"

static inline APO_HD void apo__trend_tile(int id, const apo__cat_io *io, size_t begin, size_t end) {
    switch (id) {
    case APO_CAT_TRANGE:
        apo__trange_tile(io, begin, end);
        break;
    case APO_CAT_ATR:
        apo__atr_tile(io, begin, end);
        break;
    case APO_CAT_NATR:
        apo__natr_tile(io, begin, end);
        break;
    case APO_CAT_AROON:
        apo__aroon_tile(io, begin, end);
        break;
    /* catalog2's trend */
    case APO_CAT_PLUS_DI:
        apo__plus_di_tile(io, begin, end);
        break;
    case APO_CAT_MINUS_DI:
        apo__minus_di_tile(io, begin, end);
        break;
    case APO_CAT_ADX:
        apo__adx_tile(io, begin, end);
        break;
    default:
        break;
    }
}

#endif /* APO_KERNELS_TREND_TILES_H */
