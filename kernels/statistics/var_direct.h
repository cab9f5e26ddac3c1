/*
 * var_direct.h: the variance of short windows evaluated directly, each from its own p samples
 * (var_tile.h's first design; docs/kernels.md "var"), for VAR and STDDEV up to
 * APO_VAR_DIRECT_MAX, for the bars var_blocks.h cannot slide to, and for pair_direct.h's roots.
 *
 * Shifted by the window's newest sample c = x[t] (y = x - c): the mean of y, then
 * M2 = sum (y - mean_y)^2, var = M2 / p. The shift makes a constant window exactly 0 (every y
 * is +0) and keeps the mean's rounding relative to the spread rather than to |mean(x)|; the
 * second pass has no cancellation, so the relative error of the variance is about (p + 3) ulps.
 * A non-finite sample makes the arithmetic NaN (NaN, inf - inf).
 */
#ifndef APO_KERNELS_VAR_DIRECT_H
#define APO_KERNELS_VAR_DIRECT_H

#include "catalog.h"
#include "tile_vec.h"

/* The longest window whose every bar is evaluated directly. Two passes cost about
 * 6p flops a bar against the sliding double-doubles' fixed cost: on avx2 they break even
 * near p = 45 (docs/PERF.md); 32 leaves room for the narrower sse2 path. */
#define APO_VAR_DIRECT_MAX 32

/* The windows ending at t .. t + n - 1 (n <= APO_VAR_BLOCK), evaluated directly one bar per
 * lane of a loop over the block's bars, the loops that vectorise: the variances into var.
 * The first pass leaves out the newest sample, whose y is +0 for a finite sample (and whose
 * NaN the second pass gives for a non-finite one). */
#ifdef __CUDA_ARCH__
#define APO_VAR_BLOCK 1 /* a GPU thread takes its bars one at a time */
#else
#define APO_VAR_BLOCK 64
#endif
static inline APO_HD void apo__var_direct_block(const double *x, size_t p, double inv_p, size_t t,
                                                size_t n, double *var) {
    double mean[APO_VAR_BLOCK];
    const double *const last = x + t; /* last[k]: the newest sample of bar t + k */
    for (size_t k = 0; k < n; k++)
        mean[k] = 0.0;
    for (size_t j = 1; j < p; j++) {
        const double *const xj = last - j;
        for (size_t k = 0; k < n; k++)
            mean[k] += xj[k] - last[k];
    }
    for (size_t k = 0; k < n; k++) {
        mean[k] *= inv_p;
        var[k] = 0.0;
    }
    for (size_t j = 0; j < p; j++) {
        const double *const xj = last - j;
        for (size_t k = 0; k < n; k++) {
            const double d = (xj[k] - last[k]) - mean[k];
            var[k] += d * d;
        }
    }
    for (size_t k = 0; k < n; k++)
        var[k] *= inv_p;
}

/* The same evaluation with GCC/clang vector extensions (lanes.h says why they compute what
 * the scalar code computes, lane for lane), two vectors of bars at a time with their sums in
 * registers across the window: the scalar loops above keep theirs in memory, and cost about
 * twice as much. The catalog's tile is built once per vector path (dispatch/catalog_<path>.c),
 * so the width is the path's. Not on a GPU, whose threads take one bar at a time. */
#ifdef APO_TILE_LANES
/* Bars t .. t + 2 APO_TILE_LANES - 1 into var. */
static inline void apo__var_direct_lanes(const double *x, size_t p, double inv_p, size_t t,
                                         double *var) {
    const size_t w = APO_TILE_LANES;
    const apo_tv c0 = apo_tv_load(x + t), c1 = apo_tv_load(x + t + w);
    apo_tv m0 = {0}, m1 = {0};
    for (size_t j = 1; j < p; j++) {
        m0 += apo_tv_load(x + t - j) - c0;
        m1 += apo_tv_load(x + t + w - j) - c1;
    }
    m0 *= inv_p;
    m1 *= inv_p;
    apo_tv v0 = {0}, v1 = {0};
    for (size_t j = 0; j < p; j++) {
        const apo_tv d0 = (apo_tv_load(x + t - j) - c0) - m0;
        const apo_tv d1 = (apo_tv_load(x + t + w - j) - c1) - m1;
        v0 += d0 * d0;
        v1 += d1 * d1;
    }
    v0 *= inv_p;
    v1 *= inv_p;
    apo_tv_store(var, v0);
    apo_tv_store(var + w, v1);
}
#endif

/* v[k] = sqrt(v[k]) * nbdev for k < n. */
static inline APO_HD void apo__var_roots(double *v, size_t n, double nbdev) {
    size_t k = 0;
#ifdef APO_TILE_LANES
    for (; k + APO_TILE_LANES <= n; k += APO_TILE_LANES) {
        const apo_tv r = apo_tv_sqrt(apo_tv_load(v + k)) * nbdev;
        apo_tv_store(v + k, r);
    }
#endif
    for (; k < n; k++)
        v[k] = sqrt(v[k]) * nbdev;
}

/* The positions begin .. end - 1 before the first full window p - 1: NaN into out_var and out_sd
 * (either NULL: not wanted). Returns the first position past them. */
static inline APO_HD size_t apo__var_lead(size_t p, size_t begin, size_t end, double *out_var,
                                          double *out_sd) {
    size_t t = begin;
    for (; t < end && t + 1 < p; t++) {
        if (out_var != NULL)
            out_var[t] = NAN;
        if (out_sd != NULL)
            out_sd[t] = NAN;
    }
    return t;
}

/* The windows ending at begin .. end - 1 evaluated directly (p <= APO_VAR_DIRECT_MAX): the
 * variance into out_var and sqrt(var) * nbdev into out_sd (NULL: not wanted). */
static inline APO_HD void apo__var_direct(const double *x, size_t p, double nbdev, size_t begin,
                                          size_t end, double *out_var, double *out_sd) {
    /* Multiplying by 1/p costs one rounding more than dividing, on the mean (whose error
     * enters M2 squared) and on the variance: within the (p + 3) ulps. */
    const double inv_p = 1.0 / (double)p;
    size_t t = apo__var_lead(p, begin, end, out_var, out_sd);
    double var[APO_VAR_BLOCK];
    while (t < end) {
        size_t n = end - t < APO_VAR_BLOCK ? end - t : APO_VAR_BLOCK;
#ifdef APO_TILE_LANES
        const size_t pair = 2 * APO_TILE_LANES;
        if (n >= pair) {
            n -= n % pair;
            for (size_t k = 0; k < n; k += pair)
                apo__var_direct_lanes(x, p, inv_p, t + k, var + k);
        } else
#endif
            apo__var_direct_block(x, p, inv_p, t, n, var);
        if (out_var != NULL)
            for (size_t k = 0; k < n; k++)
                out_var[t + k] = apo__canonical_nan(var[k]);
        if (out_sd != NULL) {
            apo__var_roots(var, n, nbdev);
            for (size_t k = 0; k < n; k++)
                out_sd[t + k] = apo__canonical_nan(var[k]);
        }
        t += n;
    }
}

#endif /* APO_KERNELS_VAR_DIRECT_H */
