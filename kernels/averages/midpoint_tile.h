/*
 * midpoint_tile.h: MIDPOINT(timeperiod) and MIDPRICE(timeperiod), TA-Lib's middles of a
 * window: (max + min) / 2 of the close (midpoint), (highest high + lowest low) / 2
 * (midprice), over the p bars ending at t; positions t < p - 1 are NaN.
 *
 * Evaluation: the window's extremes, then one addition and one product by 0.5, as TA-Lib's
 * (max + min) / 2. On the CPU, a block of bars whose windows hold only finite samples none of
 * which is zero takes its extremes from window_extreme.h's doubling (a few vector maxima a bar
 * whatever p is, apo__midpoint_blocks); every other bar, and a GPU's, scans its window afresh
 * (O(p) comparisons). Comparisons are exact and two equal doubles other than zeros have the
 * same bits, so both give the same extremes, whichever of equal samples each takes (only for
 * +0 and -0 does that choice show, so zeros go to the scan); the bits are TA-Lib's. Every
 * output is a function of its window, so tiles, streams (the position) and devices give the
 * same bits.
 *
 * Gaps: a window holding a non-finite sample of an input it reads gives NaN (window.h's rule).
 */
#ifndef APO_KERNELS_MIDPOINT_TILE_H
#define APO_KERNELS_MIDPOINT_TILE_H

#include "catalog.h"
#include "window_extreme.h"

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

#ifdef APO_TILE_LANES
/* 1 when x[from .. to) are finite and none is zero: a block whose extremes may come from the
 * doubling (see the top of this file). */
static inline int apo__midpoint_block_ok(const double *x, size_t from, size_t to) {
    int ok = 1;
    for (size_t i = from; i < to; i++)
        ok = ok & (fabs(x[i]) <= DBL_MAX) & (x[i] != 0.0);
    return ok;
}

/* The extremes of the windows of p bars ending at t .. e - 1 (e - t <= APO_EXTREME_BLOCK)
 * into top[] and bottom[], by doubling, when every sample those windows read is finite and
 * not zero and p is at most APO_EXTREME_SPAN_MAX: returns 1; else 0, and nothing is written.
 * midpoint's one series (hi == lo) is tested once and its two extremes taken from one reading
 * (apo__window_extremes_both, minmax's: the same picks, so the same values). */
static inline int apo__midpoint_block(const double *hi, const double *lo, size_t p, size_t t,
                                      size_t e, double *top, double *bottom) {
    if (p > APO_EXTREME_SPAN_MAX || e - t < APO_EXTREME_BLOCK_MIN)
        return 0;
    const int one_series = hi == lo;
    if (!(apo__midpoint_block_ok(hi, t + 1 - p, e) &
          (one_series || apo__midpoint_block_ok(lo, t + 1 - p, e))))
        return 0;
    apo__extreme_scratch scratch;
    if (one_series) {
        apo__window_extremes_both(hi, t, e - t, p, bottom, top, &scratch);
        return 1;
    }
    apo__window_extremes(hi, t, e - t, p, 1, top, NULL, &scratch);
    apo__window_extremes(lo, t, e - t, p, 0, bottom, NULL, &scratch);
    return 1;
}
#endif

/* The end of the bars [t, end) that a block of the doubling would take, at most
 * APO_EXTREME_BLOCK of them. */
static inline APO_HD size_t apo__midpoint_block_end(size_t t, size_t end) {
#ifdef APO_TILE_LANES
    return end - t < APO_EXTREME_BLOCK ? end : t + APO_EXTREME_BLOCK;
#else
    (void)t;
    return end;
#endif
}

static inline APO_HD void apo__midpoint_span(const double *hi, const double *lo, double *out,
                                             size_t p, size_t begin, size_t end) {
    size_t t = begin;
    for (; t < end && t + 1 < p; t++)
        out[t] = NAN;
    while (t < end) {
        const size_t e = apo__midpoint_block_end(t, end);
#ifdef APO_TILE_LANES
        double top[APO_EXTREME_BLOCK], bottom[APO_EXTREME_BLOCK];
        if (apo__midpoint_block(hi, lo, p, t, e, top, bottom)) {
            for (size_t k = 0; k < e - t; k++)
                out[t + k] = (top[k] + bottom[k]) * 0.5;
            t = e;
            continue;
        }
#endif
        for (; t < e; t++)
            out[t] = apo__midpoint_at(hi, lo, p, t);
    }
}

static inline APO_HD void apo__midpoint_tile(const apo__cat_io *io, size_t begin, size_t end) {
    apo__midpoint_span(io->in[0], io->in[0], io->out[0], (size_t)io->p[0], begin, end);
}

static inline APO_HD void apo__midprice_tile(const apo__cat_io *io, size_t begin, size_t end) {
    apo__midpoint_span(io->in[0], io->in[1], io->out[0], (size_t)io->p[0], begin, end);
}

#endif /* APO_KERNELS_MIDPOINT_TILE_H */
