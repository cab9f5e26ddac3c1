/*
 * trange_tile.h: TRANGE, TA-Lib's true range, max(high - low, |high - close[t-1]|,
 * |low - close[t-1]|) in TA-Lib's order of comparison. Inputs high, low, close. Halo 1;
 * position 0 is NaN. A non-finite high[t], low[t] or close[t-1] gives NaN.
 */
#ifndef APO_KERNELS_TRANGE_TILE_H
#define APO_KERNELS_TRANGE_TILE_H

#include "catalog.h"

/* The true range at t >= 1, or NaN where one of its three samples is not finite. */
static inline APO_HD double apo__true_range(const double *high, const double *low,
                                            const double *close, size_t t) {
    const double h = high[t], l = low[t], c = close[t - 1];
    if (!(isfinite(h) && isfinite(l) && isfinite(c)))
        return NAN;
    double greatest = h - l;
    const double a = fabs(c - h);
    if (a > greatest)
        greatest = a;
    const double b = fabs(l - c);
    if (b > greatest)
        greatest = b;
    return greatest;
}

static inline APO_HD void apo__trange_tile(const apo__cat_io *io, size_t begin, size_t end) {
    for (size_t t = begin; t < end; t++)
        io->out[0][t] = t < 1 ? (double)NAN : apo__true_range(io->in[0], io->in[1], io->in[2], t);
}

#endif /* APO_KERNELS_TRANGE_TILE_H */
