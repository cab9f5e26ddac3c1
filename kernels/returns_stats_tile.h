/*
 * returns_stats_tile.h: the arithmetic of one returns_stats tile, shared by the CPU kernel
 * (returns_stats.c, apo__cpu_returns_stats_tile) and the CUDA kernel (returns_stats.cu).
 *
 * What: the count, mean, M2 (sum of squared deviations), min and max of the finite simple
 * returns r_t = x[t] / x[t-1] - 1 for t in [max(begin, 1), end), as an apo__moments
 * partial; non-finite returns are skipped and a tile without finite returns gives the empty
 * set. Exact two-pass in index order: first the sum, count, min and max, then the sum of
 * squared deviations from the tile mean, recomputing the returns rather than storing them.
 *
 * Tile shape: one call computes the partial of one tile [begin, end) of one row, reading x
 * from max(0, begin - 1) (a halo of one sample) to end - 1, indexed absolutely.
 *
 * Determinism: the partial depends on x and the tile bounds only, with a fixed operation
 * order of IEEE /, -, +, * and isfinite and comparisons (apo_hd.h), no FMA contraction on
 * either compiler, so the CPU and the GPU give the same partial bits; the runtime merges the
 * partials in a fixed order on the host.
 */
#ifndef APO_RETURNS_STATS_TILE_H
#define APO_RETURNS_STATS_TILE_H

#include "apo_hd.h"
#include "moments_tile.h"

/* One tile [begin, end) of one row (begin < end; the caller checks): the semantics of
 * apo__cpu_returns_stats_tile() in kernels.h. */
static inline APO_HD void apo__returns_stats_tile(const double *x, size_t begin, size_t end,
                                                  apo__moments *out) {
    const size_t t0 = begin > 1 ? begin : 1;
    size_t count = 0;
    double sum = 0.0;
    double mn = INFINITY, mx = -INFINITY;
    for (size_t t = t0; t < end; ++t) {
        const double r = x[t] / x[t - 1] - 1.0;
        if (isfinite(r)) {
            ++count;
            sum += r;
            mn = r < mn ? r : mn;
            mx = r > mx ? r : mx;
        }
    }
    if (count == 0) {
        apo__moments_empty(out);
        return;
    }
    const double mean = sum / (double)count;
    double m2 = 0.0;
    for (size_t t = t0; t < end; ++t) {
        const double r = x[t] / x[t - 1] - 1.0;
        if (isfinite(r)) {
            const double d = r - mean;
            m2 += d * d;
        }
    }
    out->count = (double)count;
    out->mean = mean;
    out->m2 = m2;
    out->min = mn;
    out->max = mx;
}

#endif /* APO_RETURNS_STATS_TILE_H */
