/*
 * oscillators_tiles.h: the oscillators' tile bodies behind one switch, which the CPU
 * (dispatch/catalog.c) and this family's CUDA launcher (oscillators.cu) both call.
 */
#ifndef APO_KERNELS_OSCILLATORS_TILES_H
#define APO_KERNELS_OSCILLATORS_TILES_H

#include "cci_tile.h"
#include "cmo_tile.h"
#include "mom_tile.h"
#include "roc_tile.h"
#include "rsi_tile.h"
#include "stoch_tile.h"
#include "willr_tile.h"

static inline APO_HD void apo__oscillators_tile(int id, const apo__cat_io *io, size_t begin,
                                                size_t end) {
    switch (id) {
    case APO_CAT_MOM:
        apo__mom_tile(io, begin, end);
        break;
    case APO_CAT_ROC:
        apo__roc_tile(io, begin, end);
        break;
    case APO_CAT_RSI:
        apo__rsi_tile(io, begin, end);
        break;
    case APO_CAT_CMO:
        apo__cmo_tile(io, begin, end);
        break;
    case APO_CAT_WILLR:
        apo__willr_tile(io, begin, end);
        break;
    case APO_CAT_CCI:
        apo__cci_tile(io, begin, end);
        break;
    case APO_CAT_STOCHF:
        apo__stochf_tile(io, begin, end);
        break;
    case APO_CAT_STOCH:
        apo__stoch_tile(io, begin, end);
        break;
    default:
        break;
    }
}

#endif /* APO_KERNELS_OSCILLATORS_TILES_H */
