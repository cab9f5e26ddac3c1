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

/* Pass 1 of a tile so far: the count, sum, min and max of its finite returns. */
typedef struct apo__returns_acc {
    size_t count;
    double sum, mn, mx;
} apo__returns_acc;

static inline APO_HD void apo__returns_acc_init(apo__returns_acc *a) {
    a->count = 0;
    a->sum = 0.0;
    a->mn = INFINITY;
    a->mx = -INFINITY;
}

/* Pass 1 over the returns t in [from, to), in index order (from >= 1; x read from from - 1).
 * Called once over the tile, or once per segment by the staged CUDA kernel: the same
 * operations in the same order either way. */
static inline APO_HD void apo__returns_stats_pass1(apo__in x, size_t from, size_t to,
                                                   apo__returns_acc *a) {
    size_t count = a->count;
    double sum = a->sum, mn = a->mn, mx = a->mx;
    for (size_t t = from; t < to; ++t) {
        const double r = APO_IN(x, t) / APO_IN(x, t - 1) - 1.0;
        if (isfinite(r)) {
            ++count;
            sum += r;
            mn = r < mn ? r : mn;
            mx = r > mx ? r : mx;
        }
    }
    a->count = count;
    a->sum = sum;
    a->mn = mn;
    a->mx = mx;
}

/* Pass 2 over the returns t in [from, to): *m2 gains the squared deviations of the finite
 * ones from `mean`, in index order, recomputing the returns rather than storing them. */
static inline APO_HD void apo__returns_stats_pass2(apo__in x, size_t from, size_t to, double mean,
                                                   double *m2) {
    double acc = *m2;
    for (size_t t = from; t < to; ++t) {
        const double r = APO_IN(x, t) / APO_IN(x, t - 1) - 1.0;
        if (isfinite(r)) {
            const double d = r - mean;
            acc += d * d;
        }
    }
    *m2 = acc;
}

/* The tile's mean from pass 1 (count > 0). */
static inline APO_HD double apo__returns_stats_mean(const apo__returns_acc *a) {
    return a->sum / (double)a->count;
}

/* The partial from both passes: the empty set when no return was finite. */
static inline APO_HD void apo__returns_stats_store(const apo__returns_acc *a, double m2,
                                                   apo__moments *out) {
    if (a->count == 0) {
        apo__moments_empty(out);
        return;
    }
    out->count = (double)a->count;
    out->mean = apo__returns_stats_mean(a);
    out->m2 = m2;
    out->min = a->mn;
    out->max = a->mx;
}

/* One tile [begin, end) of one row (begin < end; the caller checks): the semantics of
 * apo__cpu_returns_stats_tile() in kernels.h. */
static inline APO_HD void apo__returns_stats_tile(apo__in x, size_t begin, size_t end,
                                                  apo__moments *out) {
    const size_t t0 = begin > 1 ? begin : 1;
    apo__returns_acc a;
    apo__returns_acc_init(&a);
    apo__returns_stats_pass1(x, t0, end, &a);
    double m2 = 0.0;
    if (a.count > 0) {
        apo__returns_stats_pass2(x, t0, end, apo__returns_stats_mean(&a), &m2);
    }
    apo__returns_stats_store(&a, m2, out);
}

#endif /* APO_RETURNS_STATS_TILE_H */
