/*
 * zscore_tile.h: ZSCORE(timeperiod), beyond TA-Lib: (x[t] - mean) / sd, the mean and the
 * population standard deviation of the p samples ending at t (docs/kernels.md).
 *
 * Tile: halo p - 1. As VAR (var_tile.h): the window's sums S1 and S2 are double-doubles,
 * summed exactly at the tile's first clean window and after each gap, then slid; the
 * deviation x[t] - S1 / p and the variance (S2 - S1^2 / p) / p are formed in
 * double-double, so neither cancels visibly in double. A constant window (tracked exactly)
 * gives 0: the sample is its mean. Gaps as SMA (window.h). Positions t < p - 1 are NaN.
 */
#ifndef APO_KERNELS_ZSCORE_TILE_H
#define APO_KERNELS_ZSCORE_TILE_H

#include "catalog.h"
#include "var_tile.h"
#include "window.h"
#include "window_sum.h"

/* The loop from r->t to end, after apo__moments_start (var_tile.h). */
static inline APO_HD void apo__zscore_run(const apo__cat_io *io, size_t end, apo__cat_run *r) {
    const double *x = io->in[0];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0];
    const double pd = (double)p;
    const size_t from = r->n[3];
    size_t bad = r->n[0];
    size_t chg = r->n[2];
    int valid = r->n[1] != 0;
    apo__dd s1 = apo__dd_make(r->v[0], r->v[1]), s2 = apo__dd_make(r->v[2], r->v[3]);
    for (size_t t = r->t; t < end; t++) {
        if (!isfinite(x[t]))
            bad = t + 1;
        if (t > from && x[t] != x[t - 1])
            chg = t + 1;
        if (!apo__window_clean(t, p, bad)) {
            out[t] = NAN;
            valid = 0;
            continue;
        }
        if (!valid) {
            s1 = apo__dd_sum(x, t + 1 - p, t + 1);
            s2 = apo__dd_sum_sq(x, t + 1 - p, t + 1);
            valid = 1;
        } else {
            s1 = apo__dd_add_d(s1, x[t]);
            s1 = apo__dd_add_d(s1, -x[t - p]);
            s2 = apo__dd_add(s2, apo__two_prod(x[t], x[t]));
            s2 = apo__dd_add(s2, apo__dd_neg(apo__two_prod(x[t - p], x[t - p])));
        }
        double z = 0.0;
        if (chg + p > t + 2) {
            const apo__dd m2 = apo__dd_add(s2, apo__dd_neg(apo__dd_div_d(apo__dd_mul(s1, s1), pd)));
            const double var = apo__dd_div_d(m2, pd).hi;
            const apo__dd dev = apo__dd_add_d(apo__dd_neg(apo__dd_div_d(s1, pd)), x[t]);
            if (var > 0.0)
                z = dev.hi / sqrt(var);
        }
        out[t] = apo__canonical_nan(z);
    }
    r->t = end > r->t ? end : r->t;
    r->n[0] = bad;
    r->n[1] = (size_t)valid;
    r->n[2] = chg;
    r->v[0] = s1.hi;
    r->v[1] = s1.lo;
    r->v[2] = s2.hi;
    r->v[3] = s2.lo;
}

static inline APO_HD void apo__zscore_tile(const apo__cat_io *io, size_t begin, size_t end) {
    apo__cat_run r;
    apo__moments_start(io->in[0], (size_t)io->p[0], begin, &r);
    apo__zscore_run(io, end, &r);
}

#endif /* APO_KERNELS_ZSCORE_TILE_H */
