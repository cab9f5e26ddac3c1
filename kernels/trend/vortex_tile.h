/*
 * vortex_tile.h: VORTEX(timeperiod), TA-Lib 0.8's vortex indicator (Botes and Siepman): over
 * the p bars ending at t, plusvi = `sum VM+ / sum TR` and minusvi = `sum VM- / sum TR`, with
 * VM+[i] = abs(high[i] - low[i-1]), VM-[i] = abs(low[i] - high[i-1]) and TR the true range
 * (trange_tile.h's, TA-Lib's order of comparison); both 0 where the true ranges' sum is 0.
 * Inputs high, low, close; outputs plusvi, minusvi; lookback p.
 *
 * Each output sums its own window's terms in index order (TA-Lib slides the three sums in
 * double and purges the true ranges' residue after p flat bars): a function of its bars alone,
 * so tiles join and a stream keeps its position. Gaps: NaN where a high or a low of the p + 1
 * bars ending at t, or a close of the p before t, is not finite (a sum is then not finite).
 */
#ifndef APO_KERNELS_VORTEX_TILE_H
#define APO_KERNELS_VORTEX_TILE_H

#include "trange_tile.h"

static inline APO_HD void apo__vortex_tile(const apo__cat_io *io, size_t begin, size_t end) {
    const double *high = io->in[0], *low = io->in[1], *close = io->in[2];
    double *plus = io->out[0], *minus = io->out[1];
    const size_t p = (size_t)io->p[0];
    apo__cat_nan_lead(minus, begin, end, p);
    size_t t = apo__cat_nan_lead(plus, begin, end, p);
#ifdef APO_TILE_LANES
    /* The scalar loop below for the bars t .. t + APO_TILE_LANES - 1, one lane each, its
     * choices as selects. */
    for (; end - t >= APO_TILE_LANES; t += APO_TILE_LANES) {
        apo_tv tr = apo_tv_splat(0.0), up = apo_tv_splat(0.0), down = apo_tv_splat(0.0);
        for (size_t i = t + 1 - p; i <= t; i++) {
            tr = tr + apo__true_range_vec(high, low, close, i);
            up = up + apo_tv_abs(apo_tv_load(high + i) - apo_tv_load(low + i - 1));
            down = down + apo_tv_abs(apo_tv_load(low + i) - apo_tv_load(high + i - 1));
        }
        const apo_tm clean = apo_tv_finite(tr) & apo_tv_finite(up) & apo_tv_finite(down);
        const apo_tm ranged = tr > 0.0;
        const apo_tv zero = apo_tv_splat(0.0);
        apo_tv_store(plus + t, apo_tv_or_nan(clean, apo_tv_pick(ranged, up / tr, zero)));
        apo_tv_store(minus + t, apo_tv_or_nan(clean, apo_tv_pick(ranged, down / tr, zero)));
    }
#endif
    for (; t < end; t++) {
        double tr = 0.0, up = 0.0, down = 0.0;
        for (size_t i = t + 1 - p; i <= t; i++) {
            tr = tr + apo__true_range(high, low, close, i);
            up = up + fabs(high[i] - low[i - 1]);
            down = down + fabs(low[i] - high[i - 1]);
        }
        const int clean = apo__finite(tr) & apo__finite(up) & apo__finite(down);
        plus[t] = !clean ? (double)NAN : tr > 0.0 ? up / tr : 0.0;
        minus[t] = !clean ? (double)NAN : tr > 0.0 ? down / tr : 0.0;
    }
}

#endif /* APO_KERNELS_VORTEX_TILE_H */
