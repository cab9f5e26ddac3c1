/*
 * qstick_tile.h: QSTICK(timeperiod), TA-Lib 0.8's Qstick (Chande and Kroll): the mean of the
 * candle bodies close - open over the p bars ending at t. Inputs open, close; lookback p - 1.
 *
 * Each output is its window's sum of bodies in index order, divided by p, evaluated afresh
 * (p additions a bar; TA-Lib slides a running sum in double and carries its roundings), so it
 * is a function of its window alone: tiles join, and a stream keeps its position. A window
 * holding a non-finite open or close gives NaN (the sum is then not finite, which is the test:
 * a sum that overflows is a gap too, past the catalog's range). On the CPU (APO_TILE_LANES)
 * the windows of APO_TILE_LANES consecutive bars are summed side by side, one vector lane a bar,
 * each lane adding its window's bodies from 0 in index order as the scalar loop does: the same
 * bits, with the rest of the bars (and a GPU's) in the scalar loop.
 */
#ifndef APO_KERNELS_QSTICK_TILE_H
#define APO_KERNELS_QSTICK_TILE_H

#include "catalog.h"
#include "tile_vec.h"

#ifdef APO_TILE_LANES
/* Vectors of bars whose windows are summed side by side (tile_vec.h, APO_TV_CHAINS: a
 * difference and a sum a vector). */
#define APO_QSTICK_GROUP (APO_TV_CHAINS / 2)

/* For c < nv (a constant where this is inlined): lane l of sum[c] the window of p bars from
 * bar first + c APO_TILE_LANES + l, `sum + (close - open)` from +0 in index order, as the
 * scalar loop adds them. */
static inline void apo__qstick_sums(const double *open, const double *close, size_t first, size_t p,
                                    size_t nv, apo_tv *sum) {
    for (size_t c = 0; c < nv; c++)
        sum[c] = apo_tv_splat(0.0);
    for (size_t i = first; i < first + p; i++)
        for (size_t c = 0; c < nv; c++) {
            const size_t at = i + c * APO_TILE_LANES;
            sum[c] = sum[c] + (apo_tv_load(close + at) - apo_tv_load(open + at));
        }
}
#endif

static inline APO_HD void apo__qstick_tile(const apo__cat_io *io, size_t begin, size_t end) {
    const double *open = io->in[0], *close = io->in[1];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0];
    size_t t = apo__cat_nan_lead(out, begin, end, p - 1);
#ifdef APO_TILE_LANES
    /* APO_QSTICK_GROUP vectors of bars at a time, then one (apo__qstick_sums). */
    while (end - t >= APO_TILE_LANES) {
        const size_t nv = end - t >= APO_QSTICK_GROUP * APO_TILE_LANES ? APO_QSTICK_GROUP : 1;
        apo_tv sum[APO_QSTICK_GROUP];
        if (nv == APO_QSTICK_GROUP)
            apo__qstick_sums(open, close, t + 1 - p, p, APO_QSTICK_GROUP, sum);
        else
            apo__qstick_sums(open, close, t + 1 - p, p, 1, sum);
        for (size_t c = 0; c < nv; c++, t += APO_TILE_LANES) {
            const apo_tv mean = sum[c] / apo_tv_splat((double)p);
            apo_tv_store(out + t, apo_tv_or_nan(apo_tv_finite(sum[c]), mean));
        }
    }
#endif
    for (; t < end; t++) {
        double sum = 0.0;
        for (size_t i = t + 1 - p; i <= t; i++)
            sum = sum + (close[i] - open[i]);
        out[t] = isfinite(sum) ? sum / (double)p : (double)NAN;
    }
}

#endif /* APO_KERNELS_QSTICK_TILE_H */
