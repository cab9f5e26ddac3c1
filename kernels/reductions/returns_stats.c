/*
 * returns_stats.c: moments of the simple returns of a series, one tile per call.
 *
 * What: r_t = x[t] / x[t-1] - 1 for t >= 1. A tile [begin, end) covers the returns with t in
 * [max(begin, 1), end) and so reads one sample of halo, x[begin - 1]. It produces the count,
 * mean, M2 (sum of squared deviations), min and max of the finite returns; non-finite
 * returns (from a NaN or infinite price, or a zero price) are skipped. The runtime merges
 * the tile partials with apo__cpu_moments_merge and apo__returns_stats_finalize gives the count,
 * mean, sample variance, min and max.
 *
 * Tile shape: apo__returns_stats_tile_len() = 8192 samples per tile.
 *
 * Algorithm: exact two-pass per tile, in index order: first the sum, count, min and max,
 * then the sum of squared deviations from the tile mean. Recomputing the returns in the
 * second pass is cheaper than storing them and keeps the function allocation-free.
 *
 * Code: the tile body is the APO_HD inline apo__returns_stats_tile of returns_stats_tile.h,
 * which the CUDA kernel (returns_stats.cu) calls too; this file adds the tile length, the
 * host-side precondition checks and the finalize.
 *
 * Determinism: each partial depends on x and the tile bounds only, with a fixed operation
 * order (no FMA contraction on the CPU or the GPU), so a partial computed on either has the
 * same bits; the merge order is fixed by the runtime.
 */
#include "reductions.h"

#include "returns_stats_tile.h"

#include <assert.h>
#include <math.h>

size_t apo__returns_stats_tile_len(void) { return 8192; }

void apo__cpu_returns_stats_tile(const double *x, size_t n, size_t begin, size_t end,
                                 apo__moments *out) {
    assert(x != NULL && out != NULL);
    assert(begin < end && end <= n);
    (void)n;
    apo__returns_stats_tile(x, begin, end, out);
}

size_t apo__returns_stats_scratch_len(apo__cpu_isa isa) {
    return apo__returns_stats_tile_len() * apo__cpu_isa_lanes(apo__cpu_isa_resolve(isa));
}

void apo__returns_stats_finalize(const apo__moments *m, double *count, double *mean,
                                 double *variance, double *min, double *max) {
    assert(m != NULL && count != NULL && mean != NULL && variance != NULL && min != NULL &&
           max != NULL);
    *count = m->count;
    if (m->count == 0.0) {
        *mean = NAN;
        *variance = NAN;
        *min = NAN;
        *max = NAN;
        return;
    }
    *mean = m->mean;
    *variance = m->count < 2.0 ? NAN : m->m2 / (m->count - 1.0);
    *min = m->min;
    *max = m->max;
}
