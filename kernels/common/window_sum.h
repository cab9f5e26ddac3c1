/*
 * window_sum.h: exact-restart sums over a window, for the catalog's sliding bodies.
 */
#ifndef APO_KERNELS_WINDOW_SUM_H
#define APO_KERNELS_WINDOW_SUM_H

#include "dd.h"

/* The double-double sum of x[from .. to), in index order. */
static inline APO_HD apo__dd apo__dd_sum(const double *x, size_t from, size_t to) {
    apo__dd s = apo__dd_make(0.0, 0.0);
    for (size_t i = from; i < to; i++)
        s = apo__dd_add_d(s, x[i]);
    return s;
}

/* The double-double sum of x[i]^2 over [from, to), in index order. */
static inline APO_HD apo__dd apo__dd_sum_sq(const double *x, size_t from, size_t to) {
    apo__dd s = apo__dd_make(0.0, 0.0);
    for (size_t i = from; i < to; i++)
        s = apo__dd_add(s, apo__two_prod(x[i], x[i]));
    return s;
}

#endif /* APO_KERNELS_WINDOW_SUM_H */
