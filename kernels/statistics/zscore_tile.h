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
#include "window.h"
#include "window_sum.h"

static inline APO_HD void apo__zscore_tile(const apo__cat_io *io, size_t begin, size_t end) {
    const double *x = io->in[0];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0];
    const double pd = (double)p;
    const size_t from = apo__window_from(begin, p);
    size_t bad = apo__last_gap(io->in, 1, from, begin);
    size_t chg = 0;
    for (size_t k = from + 1; k < begin; k++)
        if (x[k] != x[k - 1])
            chg = k + 1;
    int valid = 0;
    apo__dd s1 = apo__dd_make(0.0, 0.0), s2 = apo__dd_make(0.0, 0.0);
    for (size_t t = begin; t < end; t++) {
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
}

#endif /* APO_KERNELS_ZSCORE_TILE_H */
