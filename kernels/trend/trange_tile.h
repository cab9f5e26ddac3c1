/*
 * trange_tile.h: TRANGE, TA-Lib's true range, max(high - low, |high - close[t-1]|,
 * |low - close[t-1]|) in TA-Lib's order of comparison. Inputs high, low, close. Halo 1;
 * position 0 is NaN. A non-finite high[t], low[t] or close[t-1] gives NaN.
 */
#ifndef APO_KERNELS_TRANGE_TILE_H
#define APO_KERNELS_TRANGE_TILE_H

#include "catalog.h"
#include "tile_vec.h"

/* The true range at t >= 1, or NaN where one of its three samples is not finite. Written
 * as selects, with the finiteness test without short-circuits and applied last, so that a
 * loop of it has no branch and vectorizes (the values compared are finite or infinite,
 * never NaN, where the result is kept). */
static inline APO_HD double apo__true_range(const double *high, const double *low,
                                            const double *close, size_t t) {
    const double h = high[t], l = low[t], c = close[t - 1];
    const int ok = apo__finite(h) & apo__finite(l) & apo__finite(c);
    double greatest = h - l;
    const double a = fabs(c - h);
    greatest = a > greatest ? a : greatest;
    const double b = fabs(l - c);
    greatest = b > greatest ? b : greatest;
    return ok ? greatest : (double)NAN;
}

#ifdef APO_TILE_LANES
/* apo__true_range lane for lane of each lane's high h, low l and previous close c: the same
 * subtractions, the sign bit cleared as fabs clears it, the same strict comparisons as
 * selects, and the finiteness of the three samples as (v - v) summed, +0 when all are finite
 * and NaN when one is not. gcc leaves the scalar function's loop scalar (it keeps the
 * function out of line), which made trange twice TA-Lib's time. apo__true_range_vec takes
 * APO_TILE_LANES consecutive positions from t; the Wilder lanes (trange_lanes.h) each lane's
 * own position. */
static inline apo_tv apo__true_range_of(apo_tv h, apo_tv l, apo_tv c) {
    const apo_tm magnitude = ~(apo_tm)apo_tv_splat(-0.0);
    const apo_tm ok = ((h - h) + (l - l) + (c - c)) == 0.0;
    apo_tv greatest = h - l;
    const apo_tv a = (apo_tv)((apo_tm)(c - h) & magnitude);
    greatest = apo_tv_pick(a > greatest, a, greatest);
    const apo_tv b = (apo_tv)((apo_tm)(l - c) & magnitude);
    greatest = apo_tv_pick(b > greatest, b, greatest);
    return apo_tv_pick(ok, greatest, apo_tv_splat(NAN));
}

static inline apo_tv apo__true_range_vec(const double *high, const double *low, const double *close,
                                         size_t t) {
    return apo__true_range_of(apo_tv_load(high + t), apo_tv_load(low + t),
                              apo_tv_load(close + t - 1));
}
#endif

static inline APO_HD void apo__trange_tile(const apo__cat_io *io, size_t begin, size_t end) {
    size_t t = begin;
    if (t == 0)
        io->out[0][t++] = NAN;
    const double *high = io->in[0], *low = io->in[1], *close = io->in[2];
    double *out = io->out[0];
#ifdef APO_TILE_LANES
    for (; t + APO_TILE_LANES <= end; t += APO_TILE_LANES)
        apo_tv_store(out + t, apo__true_range_vec(high, low, close, t));
#endif
    for (; t < end; t++)
        out[t] = apo__true_range(high, low, close, t);
}

#endif /* APO_KERNELS_TRANGE_TILE_H */
