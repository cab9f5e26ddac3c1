/*
 * mom_tile.h: MOM(timeperiod) = x[t] - x[t - p], TA-Lib's momentum. Halo p; positions
 * t < p are NaN. A non-finite sample at either end is a gap: the output is NaN (the NAN
 * constant, apo_hd.h); nothing else is affected.
 */
#ifndef APO_KERNELS_MOM_TILE_H
#define APO_KERNELS_MOM_TILE_H

#include "catalog.h"

static inline APO_HD void apo__mom_tile(const apo__cat_io *io, size_t begin, size_t end) {
    const double *x = io->in[0];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0];
    for (size_t t = begin; t < end; t++) {
        const int gap = t < p || !isfinite(x[t]) || !isfinite(x[t - p]);
        out[t] = gap ? (double)NAN : x[t] - x[t - p];
    }
}

#endif /* APO_KERNELS_MOM_TILE_H */
