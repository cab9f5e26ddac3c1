/*
 * midpoint_tile.h: MIDPOINT(timeperiod) and MIDPRICE(timeperiod), TA-Lib's middles of a
 * window: (max + min) / 2 of the close (midpoint), (highest high + lowest low) / 2
 * (midprice), over the p bars ending at t; positions t < p - 1 are NaN.
 *
 * Evaluation: each window scanned afresh (O(p) comparisons a bar), then one addition and one
 * product by 0.5, as TA-Lib's (max + min) / 2. Comparisons are exact, so the bits are TA-Lib's;
 * every output is a function of its window, so tiles, streams (the position) and devices give
 * the same bits.
 *
 * Gaps: a window holding a non-finite sample of an input it reads gives NaN (window.h's rule).
 */
#ifndef APO_KERNELS_MIDPOINT_TILE_H
#define APO_KERNELS_MIDPOINT_TILE_H

#include "catalog.h"

/* The max of hi and the min of lo over the window of p bars ending at t, into *top and
 * *bottom; returns 0 where a sample of the window is not finite (midpoint's and donchian's
 * scan). */
static inline APO_HD int apo__window_top_bottom(const double *hi, const double *lo, size_t p,
                                                size_t t, double *top, double *bottom) {
    double up = hi[t], down = lo[t];
    int finite = apo__finite(up) & apo__finite(down);
    for (size_t i = t + 1 - p; i < t; i++) {
        finite &= apo__finite(hi[i]) & apo__finite(lo[i]);
        up = hi[i] > up ? hi[i] : up;
        down = lo[i] < down ? lo[i] : down;
    }
    *top = up;
    *bottom = down;
    return finite;
}

/* (max of hi + min of lo) / 2 over the window of p bars ending at t, or NaN where a sample
 * is not finite. */
static inline APO_HD double apo__midpoint_at(const double *hi, const double *lo, size_t p,
                                             size_t t) {
    double top, bottom;
    return apo__window_top_bottom(hi, lo, p, t, &top, &bottom) ? (top + bottom) * 0.5 : (double)NAN;
}

static inline APO_HD void apo__midpoint_span(const double *hi, const double *lo, double *out,
                                             size_t p, size_t begin, size_t end) {
    for (size_t t = begin; t < end; t++)
        out[t] = t + 1 >= p ? apo__midpoint_at(hi, lo, p, t) : (double)NAN;
}

static inline APO_HD void apo__midpoint_tile(const apo__cat_io *io, size_t begin, size_t end) {
    apo__midpoint_span(io->in[0], io->in[0], io->out[0], (size_t)io->p[0], begin, end);
}

static inline APO_HD void apo__midprice_tile(const apo__cat_io *io, size_t begin, size_t end) {
    apo__midpoint_span(io->in[0], io->in[1], io->out[0], (size_t)io->p[0], begin, end);
}

#endif /* APO_KERNELS_MIDPOINT_TILE_H */
