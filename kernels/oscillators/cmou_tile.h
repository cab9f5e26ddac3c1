/*
 * cmou_tile.h: CMOU(timeperiod), TA-Lib 0.8's unsmoothed Chande momentum oscillator: over the
 * p changes d = x[i] - x[i-1] ending at t, up the sum of the rises (d > 0) and down the sum of
 * the falls' magnitudes (d < 0), CMOU = `(100 * (up - down)) / (up + down)` (TA-Lib scales
 * before it divides), and 0 where up + down is 0 (a window without movement). Input close;
 * lookback p.
 *
 * Each output sums its own window's changes in index order (TA-Lib slides the two sums and
 * carries their roundings; its zero test is TA_IS_ZERO, below 1e-8, here an exact 0, as for
 * cmo): a function of its window alone, so tiles join and a stream keeps its position. Gaps:
 * NaN where one of the p + 1 closes is not finite.
 */
#ifndef APO_KERNELS_CMOU_TILE_H
#define APO_KERNELS_CMOU_TILE_H

#include "catalog.h"
#include "tile_vec.h"

static inline APO_HD void apo__cmou_tile(const apo__cat_io *io, size_t begin, size_t end) {
    const double *x = io->in[0];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0];
    size_t t = apo__cat_nan_lead(out, begin, end, p);
#ifdef APO_TILE_LANES
    /* The scalar loop below for the bars t .. t + APO_TILE_LANES - 1, one lane each, its
     * branches as selects. */
    for (; end - t >= APO_TILE_LANES; t += APO_TILE_LANES) {
        apo_tv up = apo_tv_splat(0.0), down = apo_tv_splat(0.0);
        const apo_tv first = apo_tv_load(x + t - p);
        apo_tm clean = apo_tv_finite(first);
        for (size_t i = t + 1 - p; i <= t; i++) {
            const apo_tv xi = apo_tv_load(x + i), d = xi - apo_tv_load(x + i - 1);
            clean &= apo_tv_finite(xi);
            up = apo_tv_pick(d > 0.0, up + d, up);
            down = apo_tv_pick(d < 0.0, down - d, down);
        }
        const apo_tv sum = up + down;
        const apo_tv value = apo_tv_pick(sum == 0.0, apo_tv_splat(0.0), 100.0 * (up - down) / sum);
        apo_tv_store(out + t, apo_tv_or_nan(clean, value));
    }
#endif
    for (; t < end; t++) {
        double up = 0.0, down = 0.0;
        int clean = apo__finite(x[t - p]);
        for (size_t i = t + 1 - p; i <= t; i++) {
            clean &= apo__finite(x[i]);
            const double d = x[i] - x[i - 1];
            if (d > 0.0)
                up = up + d;
            else if (d < 0.0)
                down = down - d;
        }
        const double sum = up + down;
        out[t] = !clean ? (double)NAN : sum == 0.0 ? 0.0 : 100.0 * (up - down) / sum;
    }
}

#endif /* APO_KERNELS_CMOU_TILE_H */
