/*
 * avgdev_tile.h: AVGDEV(timeperiod), TA-Lib's average deviation: the mean of abs(x - m) over the
 * p samples ending at t, m their mean. Halo p - 1; positions t < p - 1 are NaN.
 *
 * Each output is evaluated from its own window, as TA-Lib does (the deviations need every sample
 * again once the mean is known, so nothing slides), shifted by the window's newest sample c, as
 * var's short windows are (var_direct.h): the sum of the y = x - c as a double-double (TwoSum in
 * index order, dd.h), m their mean rounded once, then the deviations abs(y - m), each rounded
 * once, summed as a double-double and divided by p. The shift keeps every rounding relative to
 * the window's spread rather than to its level (an unshifted mean's rounding, an ulp of abs(m),
 * would enter every deviation; at a level of 100 and a spread of 1e-3 that is 1e-11 of avgdev).
 * With D the window's largest abs(x - mean), each y is within an ulp of 2D, m within a few ulps
 * of D, and the deviations, all of one sign, cancel nothing: the output is within a few ulps of
 * D whatever p is (docs/kernels/volume_statistics.md, "Statistics of the line and average
 * deviation"). A constant window gives exactly 0 (every y is +0).
 *
 * Gaps as the other windows (window.h): a non-finite sample makes the window's sum, and so
 * every deviation or one of them (inf - inf), NaN or infinite, stored as the NAN constant, so a
 * gap affects exactly the p windows that hold it, with no state. Each output is a function of
 * its window alone: the bits do not depend on the tiles, a stream's position or the device.
 */
#ifndef APO_KERNELS_AVGDEV_TILE_H
#define APO_KERNELS_AVGDEV_TILE_H

#include "catalog.h"
#include "dd.h"
#include "dd_tv.h"

/* The average deviation of the p samples ending at t (t >= p - 1). */
static inline APO_HD double apo__avgdev_at(const double *x, size_t p, size_t t) {
    const double pd = (double)p, c = x[t];
    const double *const y = x + t + 1 - p;
    apo__dd sum = apo__dd_make(0.0, 0.0);
    for (size_t j = 0; j < p; j++)
        sum = apo__dd_add_d(sum, y[j] - c);
    const double mean = apo__dd_div_d(sum, pd).hi;
    apo__dd dev = apo__dd_make(0.0, 0.0);
    for (size_t j = 0; j < p; j++)
        dev = apo__dd_add_d(dev, fabs((y[j] - c) - mean));
    const double r = apo__dd_div_d(dev, pd).hi;
    return apo__finite(r) ? r : (double)NAN;
}

#ifdef APO_TILE_LANES
/* Vectors of bars whose windows run side by side: each lane's double-double sums are a chain
 * of dependent adds (tile_vec.h, APO_TV_CHAINS: two doubles a sum). */
#define APO_AVGDEV_GROUP (APO_TV_CHAINS / 2)

/* apo__avgdev_at for the nv vectors of bars t .. t + nv APO_TILE_LANES - 1 into out + t, one
 * lane each (t >= p - 1; nv a constant where this is inlined): each lane's operations are
 * the scalar body's, in its order. */
static inline void apo__avgdev_vec(const double *x, size_t p, size_t t, size_t nv, double *out) {
    const apo_tv pd = apo_tv_splat((double)p), zero = apo_tv_splat(0.0);
    const double *const y = x + t + 1 - p;
    apo_tv c[APO_AVGDEV_GROUP], mean[APO_AVGDEV_GROUP];
    apo__dd_tv sum[APO_AVGDEV_GROUP];
    for (size_t g = 0; g < nv; g++) {
        c[g] = apo_tv_load(x + t + g * APO_TILE_LANES);
        sum[g] = apo__dd_tv_make(zero, zero);
    }
    for (size_t j = 0; j < p; j++)
        for (size_t g = 0; g < nv; g++)
            sum[g] = apo__dd_add_d_tv(sum[g], apo_tv_load(y + j + g * APO_TILE_LANES) - c[g]);
    for (size_t g = 0; g < nv; g++) {
        mean[g] = apo__dd_div_d_tv(sum[g], pd).hi;
        sum[g] = apo__dd_tv_make(zero, zero); /* now the deviations' sum */
    }
    for (size_t j = 0; j < p; j++)
        for (size_t g = 0; g < nv; g++)
            sum[g] = apo__dd_add_d_tv(
                sum[g], apo_tv_abs((apo_tv_load(y + j + g * APO_TILE_LANES) - c[g]) - mean[g]));
    for (size_t g = 0; g < nv; g++) {
        const apo_tv r = apo__dd_div_d_tv(sum[g], pd).hi;
        apo_tv_store(out + t + g * APO_TILE_LANES, apo_tv_or_nan(apo_tv_finite(r), r));
    }
}
#endif

static inline APO_HD void apo__avgdev_tile(const apo__cat_io *io, size_t begin, size_t end) {
    const double *x = io->in[0];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0];
    size_t t = begin;
#ifdef APO_TILE_LANES
    for (; t < end && t + 1 < p; t++)
        out[t] = NAN;
    for (; end - t >= APO_AVGDEV_GROUP * APO_TILE_LANES; t += APO_AVGDEV_GROUP * APO_TILE_LANES)
        apo__avgdev_vec(x, p, t, APO_AVGDEV_GROUP, out);
    for (; end - t >= APO_TILE_LANES; t += APO_TILE_LANES)
        apo__avgdev_vec(x, p, t, 1, out);
#endif
    for (; t < end; t++)
        out[t] = t + 1 < p ? (double)NAN : apo__avgdev_at(x, p, t);
}

#endif /* APO_KERNELS_AVGDEV_TILE_H */
