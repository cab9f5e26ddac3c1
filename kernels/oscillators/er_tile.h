/*
 * er_tile.h: ER(timeperiod), TA-Lib 0.8's Kaufman efficiency ratio (kama's): the net move
 * over p bars against the path travelled, `abs(x[t] - x[t-p]) / sum abs(x[i] - x[i-1])` over
 * the p changes ending at t, and 1 where the path is 0 (a flat window, TA-Lib's value). Input
 * close; lookback p.
 *
 * Each output sums its own window's changes in index order (TA-Lib slides the sum, and purges
 * its residue after p changes of exactly 0): a function of its window alone, so tiles join and
 * a stream keeps its position. The ratio is at most 1 by the triangle inequality; a rounded
 * path a few ulps below the net move is held to 1, as TA-Lib holds it. Gaps: NaN where one of
 * the p + 1 closes is not finite. On the CPU (APO_TILE_LANES) the windows of APO_TILE_LANES
 * consecutive bars are summed side by side, one vector lane a bar, each lane adding its window from
 * 0 in index order as the scalar loop does: the same bits (the rest of the bars, and a GPU's, run
 * the scalar loop).
 */
#ifndef APO_KERNELS_ER_TILE_H
#define APO_KERNELS_ER_TILE_H

#include "catalog.h"
#include "tile_vec.h"

static inline APO_HD void apo__er_tile(const apo__cat_io *io, size_t begin, size_t end) {
    const double *x = io->in[0];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0];
    size_t t = apo__cat_nan_lead(out, begin, end, p);
#ifdef APO_TILE_LANES
    for (; end - t >= APO_TILE_LANES; t += APO_TILE_LANES) {
        apo_tv path = apo_tv_splat(0.0); /* lane l: the window of bar t + l */
        for (size_t i = t + 1 - p; i <= t; i++)
            path = path + apo_tv_abs(apo_tv_load(x + i) - apo_tv_load(x + i - 1));
        const apo_tv net = apo_tv_abs(apo_tv_load(x + t) - apo_tv_load(x + t - p));
        /* The scalar loop's choices as selects. */
        const apo_tm clean = apo_tv_finite(path) & apo_tv_finite(net);
        const apo_tv value = apo_tv_pick(path <= net, apo_tv_splat(1.0), net / path);
        apo_tv_store(out + t, apo_tv_or_nan(clean, value));
    }
#endif
    for (; t < end; t++) {
        double path = 0.0;
        for (size_t i = t + 1 - p; i <= t; i++)
            path = path + fabs(x[i] - x[i - 1]);
        const double net = fabs(x[t] - x[t - p]);
        const int clean = apo__finite(path) & apo__finite(net);
        out[t] = !clean ? (double)NAN : path <= net ? 1.0 : net / path;
    }
}

#endif /* APO_KERNELS_ER_TILE_H */
