/*
 * statistics_tiles.h: the rolling statistics' tile bodies behind one switch, which the CPU
 * (dispatch/catalog.c) and this family's CUDA launcher (statistics.cu) both call.
 */
#ifndef APO_KERNELS_STATISTICS_TILES_H
#define APO_KERNELS_STATISTICS_TILES_H

#include "beta_tile.h"
#include "correl_tile.h"
#include "linearreg_tile.h"
#include "minmax_tile.h"
#include "var_tile.h"
#include "zscore_tile.h"

static inline APO_HD void apo__statistics_tile(int id, const apo__cat_io *io, size_t begin,
                                               size_t end) {
    switch (id) {
    case APO_CAT_STDDEV:
        apo__stddev_tile(io, begin, end);
        break;
    case APO_CAT_VAR:
        apo__var_tile(io, begin, end);
        break;
    case APO_CAT_MAX:
        apo__max_tile(io, begin, end);
        break;
    case APO_CAT_MIN:
        apo__min_tile(io, begin, end);
        break;
    case APO_CAT_LINEARREG:
        apo__linearreg_tile(io, begin, end);
        break;
    case APO_CAT_LINEARREG_SLOPE:
        apo__linearreg_slope_tile(io, begin, end);
        break;
    case APO_CAT_CORREL:
        apo__correl_tile(io, begin, end);
        break;
    case APO_CAT_BETA:
        apo__beta_tile(io, begin, end);
        break;
    /* catalog2's statistics */
    case APO_CAT_ZSCORE:
        apo__zscore_tile(io, begin, end);
        break;
    default:
        break;
    }
}

#endif /* APO_KERNELS_STATISTICS_TILES_H */
