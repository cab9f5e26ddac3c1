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
    size_t t = begin;
    for (; t < end && t < p; t++)
        out[t] = NAN;
    /* The lead is out of the loop and both samples are tested without short-circuits: one
     * branch per output instead of three. (It does not vectorize: gcc keeps the subtraction
     * under the condition, as it may trap.) The difference stored is the same. */
    for (; t < end; t++) {
        const double a = x[t], b = x[t - p];
        const int ok = apo__finite(a) & apo__finite(b);
        out[t] = ok ? a - b : (double)NAN;
    }
}

#endif /* APO_KERNELS_MOM_TILE_H */
