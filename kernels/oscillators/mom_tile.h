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
    /* Branch-free, so that gcc vectorizes it: (a - a) + (b - b) is +0 when both samples
     * are finite and NaN when either is not, the same test as apo__finite on each; and the
     * difference is computed before the select, where the compiler, which must not move a
     * subtraction that may trap out from under a condition, would otherwise leave it and
     * keep a branch per output. The value stored is the same. */
    for (; t < end; t++) {
        const double a = x[t], b = x[t - p];
        const double diff = a - b;
        const double gap = (a - a) + (b - b);
        out[t] = isnan(gap) ? (double)NAN : diff;
    }
}

#endif /* APO_KERNELS_MOM_TILE_H */
