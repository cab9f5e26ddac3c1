/*
 * vhf_tile.h: VHF(timeperiod), TA-Lib 0.8's vertical horizontal filter: the range of the p
 * closes ending at t, `(highest - lowest)`, over the path of the p changes ending at t,
 * `sum abs(x[i] - x[i-1])` (which reach one close further back), and 0 where the path is 0.
 * Input close; lookback p.
 *
 * Each output scans its own window in index order, as TA-Lib does (its extremes are exact, its
 * path sum has TA-Lib's order, so TA-Lib's bits): a function of its window alone, so tiles
 * join and a stream keeps its position. Gaps: NaN where one of the p + 1 closes is not finite.
 */
#ifndef APO_KERNELS_VHF_TILE_H
#define APO_KERNELS_VHF_TILE_H

#include "catalog.h"

static inline APO_HD void apo__vhf_tile(const apo__cat_io *io, size_t begin, size_t end) {
    const double *x = io->in[0];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0];
    size_t t = apo__cat_nan_lead(out, begin, end, p);
    for (; t < end; t++) {
        double highest = x[t], lowest = x[t], path = 0.0;
        for (size_t i = t + 1 - p; i <= t; i++) {
            const double v = x[i];
            path = path + fabs(v - x[i - 1]);
            highest = v > highest ? v : highest;
            lowest = v < lowest ? v : lowest;
        }
        /* A non-finite close makes the path NaN or infinite (an infinity meets its neighbour's
         * finite value or itself). */
        out[t] = !apo__finite(path) ? (double)NAN : path > 0.0 ? (highest - lowest) / path : 0.0;
    }
}

#endif /* APO_KERNELS_VHF_TILE_H */
