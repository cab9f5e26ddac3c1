/*
 * dpo_tile.h: DPO(timeperiod), TA-Lib 0.8's detrended price oscillator: the close
 * p/2 + 1 bars back (p/2 rounded down) less the simple moving average of the p closes ending
 * at t, `x[t - (p/2 + 1)] - S / p`. Input close; lookback max(p - 1, p/2 + 1) (the displaced
 * close reaches further back than the window at p = 2 and 3).
 *
 * Each output sums its window in index order afresh (TA-Lib slides a running sum), so it is a
 * function of its bars alone: tiles join, and a stream keeps its position. Gaps: NaN where the
 * window or the displaced close holds a non-finite sample. On the CPU (APO_TILE_LANES) the windows
 * of APO_TILE_LANES consecutive bars are summed side by side, one vector lane a bar, each lane
 * adding its window from 0 in index order as the scalar loop does: the same bits (the rest of the
 * bars, and a GPU's, run the scalar loop).
 */
#ifndef APO_KERNELS_DPO_TILE_H
#define APO_KERNELS_DPO_TILE_H

#include "catalog.h"
#include "tile_vec.h"

static inline APO_HD void apo__dpo_tile(const apo__cat_io *io, size_t begin, size_t end) {
    const double *x = io->in[0];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0], shift = p / 2 + 1;
    const size_t lookback = p - 1 > shift ? p - 1 : shift;
    size_t t = apo__cat_nan_lead(out, begin, end, lookback);
#ifdef APO_TILE_LANES
    /* APO_TV_CHAINS vectors of bars at a time, then one (tile_vec.h); lane l of sum[c]: the
     * window of bar t + c APO_TILE_LANES + l, the scalar loop's additions in its order. */
    while (end - t >= APO_TILE_LANES) {
        const size_t nv = end - t >= APO_TV_CHAINS * APO_TILE_LANES ? APO_TV_CHAINS : 1;
        apo_tv sum[APO_TV_CHAINS];
        if (nv == APO_TV_CHAINS)
            apo_tv_window_sums(x + t + 1 - p, p, APO_TV_CHAINS, sum);
        else
            apo_tv_window_sums(x + t + 1 - p, p, 1, sum);
        for (size_t c = 0; c < nv; c++, t += APO_TILE_LANES) {
            const apo_tv dpo = apo_tv_load(x + t - shift) - sum[c] / apo_tv_splat((double)p);
            apo_tv_store(out + t, apo_tv_or_nan(apo_tv_finite(dpo), dpo));
        }
    }
#endif
    for (; t < end; t++) {
        double sum = 0.0;
        for (size_t i = t + 1 - p; i <= t; i++)
            sum = sum + x[i];
        const double dpo = x[t - shift] - sum / (double)p;
        out[t] = isfinite(dpo) ? dpo : (double)NAN;
    }
}

#endif /* APO_KERNELS_DPO_TILE_H */
