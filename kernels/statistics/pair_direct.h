/*
 * pair_direct.h: the centred moments of short windows of pairs (a, b), each window evaluated
 * from its own samples, for beta (of the returns, beta_tile.h) and correl's bars that its
 * blocks cannot slide to (of the samples, correl_tile.h); the design of var's short windows
 * (var_tile.h, docs/kernels.md "Short variance windows") taken to two series.
 *
 * For the window of p pairs ending at each of n consecutive bars: both series shifted by the
 * window's newest pair (a - ca, b - cb), their means, then in a second pass the sums of the
 * deviations' squares and products (no cancellation), and whether any sample of each series
 * differs from the newest: 0 exactly when the series is constant in the window. A non-finite
 * sample makes its series' sum of squares NaN (a NaN propagates, an infinity meets
 * inf - inf). Every bar performs the same operations in the same order, in a vector lane or
 * alone, so the results are a function of the window's samples only.
 */
#ifndef APO_KERNELS_PAIR_DIRECT_H
#define APO_KERNELS_PAIR_DIRECT_H

#include <stdint.h>
#include <string.h>

#include "var_direct.h"

/* The longest period beta evaluates directly: past it its blocks (beta_tile.h), which replaced
 * double-double sums there. The two passes over two series broke even with those near p = 45 on
 * avx2 (docs/perf-log/2026-11-23-catalog-peers.md, "var, stddev, beta and correl: short windows
 * evaluated directly"); 32, as var's, leaves room for the narrower sse2 path. */
#define APO_PAIR_DIRECT_MAX 32

/* The moments of a block's windows, bar k of the block at index k. */
typedef struct apo__pair_moments {
    double vaa[APO_VAR_BLOCK], vbb[APO_VAR_BLOCK], vab[APO_VAR_BLOCK];
    int64_t moved_a[APO_VAR_BLOCK], moved_b[APO_VAR_BLOCK]; /* nonzero: not constant */
} apo__pair_moments;

/* Bars k0 .. k0 + n - 1 of the block, whose windows are a[k .. k + p - 1], b[the same], the
 * bars' sums kept in memory across the window (the loops over the bars vectorise). */
static inline APO_HD void apo__pair_direct_block(const double *a, const double *b, size_t p,
                                                 double inv_p, size_t k0, size_t n,
                                                 apo__pair_moments *m) {
    double ma[APO_VAR_BLOCK], mb[APO_VAR_BLOCK];
    const double *const ca = a + p - 1, *const cb = b + p - 1; /* the newest pairs */
    for (size_t k = k0; k < k0 + n; k++) {
        ma[k] = 0.0;
        mb[k] = 0.0;
        m->moved_a[k] = 0;
        m->moved_b[k] = 0;
    }
    for (size_t j = 1; j < p; j++) {
        const double *const aj = ca - j, *const bj = cb - j;
        for (size_t k = k0; k < k0 + n; k++) {
            const double da = aj[k] - ca[k], db = bj[k] - cb[k];
            ma[k] += da;
            mb[k] += db;
            m->moved_a[k] |= -(int64_t)(da != 0.0);
            m->moved_b[k] |= -(int64_t)(db != 0.0);
        }
    }
    for (size_t k = k0; k < k0 + n; k++) {
        ma[k] *= inv_p;
        mb[k] *= inv_p;
        m->vaa[k] = 0.0;
        m->vbb[k] = 0.0;
        m->vab[k] = 0.0;
    }
    for (size_t j = 0; j < p; j++) {
        const double *const aj = ca - j, *const bj = cb - j;
        for (size_t k = k0; k < k0 + n; k++) {
            const double da = (aj[k] - ca[k]) - ma[k];
            const double db = (bj[k] - cb[k]) - mb[k];
            m->vaa[k] += da * da;
            m->vbb[k] += db * db;
            m->vab[k] += da * db;
        }
    }
}

#ifdef APO_TILE_LANES
/* The same for the vector of bars k0 .. k0 + APO_TILE_LANES - 1, its sums in registers across
 * the window (var_tile.h says why that pays). */
static inline void apo__pair_direct_lanes(const double *a, const double *b, size_t p, double inv_p,
                                          size_t k0, apo__pair_moments *m) {
    const double *const ca = a + p - 1 + k0, *const cb = b + p - 1 + k0;
    const apo_tv na = apo_tv_load(ca), nb = apo_tv_load(cb);
    apo_tv ma = {0}, mb = {0};
    apo_tm moved_a = {0}, moved_b = {0};
    for (size_t j = 1; j < p; j++) {
        const apo_tv da = apo_tv_load(ca - j) - na, db = apo_tv_load(cb - j) - nb;
        ma += da;
        mb += db;
        moved_a |= (apo_tm)(da != 0.0);
        moved_b |= (apo_tm)(db != 0.0);
    }
    ma *= inv_p;
    mb *= inv_p;
    apo_tv saa = {0}, sbb = {0}, sab = {0};
    for (size_t j = 0; j < p; j++) {
        const apo_tv da = (apo_tv_load(ca - j) - na) - ma;
        const apo_tv db = (apo_tv_load(cb - j) - nb) - mb;
        saa += da * da;
        sbb += db * db;
        sab += da * db;
    }
    apo_tv_store(m->vaa + k0, saa);
    apo_tv_store(m->vbb + k0, sbb);
    apo_tv_store(m->vab + k0, sab);
    memcpy(m->moved_a + k0, &moved_a, sizeof moved_a);
    memcpy(m->moved_b + k0, &moved_b, sizeof moved_b);
}
#endif

/* The moments of the windows of n <= APO_VAR_BLOCK consecutive bars into m: bar k's window is
 * a[k .. k + p - 1], b[k .. k + p - 1] (p <= the caller's direct limit). */
static inline APO_HD void apo__pair_direct(const double *a, const double *b, size_t p, double inv_p,
                                           size_t n, apo__pair_moments *m) {
    size_t k = 0;
#ifdef APO_TILE_LANES
    for (; k + APO_TILE_LANES <= n; k += APO_TILE_LANES)
        apo__pair_direct_lanes(a, b, p, inv_p, k, m);
#endif
    if (k < n)
        apo__pair_direct_block(a, b, p, inv_p, k, n - k, m);
}

#endif /* APO_KERNELS_PAIR_DIRECT_H */
