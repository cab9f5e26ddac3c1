/*
 * roc_tile.h: ROC(timeperiod) = (x[t] / x[t - p] - 1) * 100, TA-Lib's rate of change,
 * with TA-Lib's 0 where x[t - p] is 0. Halo p; positions t < p are NaN. A non-finite sample
 * at either end is a gap: the output is NaN (the NAN constant, apo_hd.h).
 */
#ifndef APO_KERNELS_ROC_TILE_H
#define APO_KERNELS_ROC_TILE_H

#include "catalog.h"

static inline APO_HD void apo__roc_tile(const apo__cat_io *io, size_t begin, size_t end) {
    const double *x = io->in[0];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0];
    size_t t = begin;
    for (; t < end && t < p; t++)
        out[t] = NAN;
    /* The lead is out of the loop and both samples are tested without short-circuits: one
     * branch per output for the gaps instead of three. The value stored is the same. */
    for (; t < end; t++) {
        const double cur = x[t], prev = x[t - p];
        if (!(apo__finite(cur) & apo__finite(prev))) {
            out[t] = NAN;
            continue;
        }
        out[t] = prev != 0.0 ? (cur / prev - 1.0) * 100.0 : 0.0;
    }
}

#endif /* APO_KERNELS_ROC_TILE_H */
