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

/* The clean windows t .. e - 1 of apo__zscore_run, a block (window_sum.h) whose window before
 * t was clean and summed into s1 and s2: returns both moved over it; the same operations as the
 * loop's, sample by sample, so the same bits. The squares come first and the variances and
 * deviations after the sums, in loops that vectorise; the sums' renormalised steps stay one serial
 * loop. */
static inline APO_HD apo__dd_pair apo__zscore_block(const double *x, size_t p, size_t t, size_t e,
                                                    apo__dd s1, apo__dd s2, size_t *chg,
                                                    double *out) {
    const size_t n = e - t;
    const double pd = (double)p;
    apo__dd_block sq_in, sq_out, sum1, sum2;
    for (size_t k = 0; k < n; k++) {
        const apo__dd in = apo__two_prod(x[t + k], x[t + k]);
        const apo__dd old = apo__two_prod(x[t + k - p], x[t + k - p]);
        sq_in.h[k] = in.hi;
        sq_in.l[k] = in.lo;
        sq_out.h[k] = old.hi;
        sq_out.l[k] = old.lo;
    }
    apo__dd a1 = s1, a2 = s2;
    for (size_t k = 0; k < n; k++) {
        a1 = apo__dd_add_d(a1, x[t + k]);
        a1 = apo__dd_add_d(a1, -x[t + k - p]);
        a2 = apo__dd_add(a2, apo__dd_make(sq_in.h[k], sq_in.l[k]));
        a2 = apo__dd_add(a2, apo__dd_neg(apo__dd_make(sq_out.h[k], sq_out.l[k])));
        sum1.h[k] = a1.hi;
        sum1.l[k] = a1.lo;
        sum2.h[k] = a2.hi;
        sum2.l[k] = a2.lo;
    }
    double var[APO_DD_FOLD], dev[APO_DD_FOLD];
    for (size_t k = 0; k < n; k++) {
        const apo__dd m1 = apo__dd_make(sum1.h[k], sum1.l[k]);
        const apo__dd m2 = apo__dd_add(apo__dd_make(sum2.h[k], sum2.l[k]),
                                       apo__dd_neg(apo__dd_div_d(apo__dd_mul(m1, m1), pd)));
        var[k] = apo__dd_div_d(m2, pd).hi;
        dev[k] = apo__dd_add_d(apo__dd_neg(apo__dd_div_d(m1, pd)), x[t + k]).hi;
    }
    for (size_t k = 0; k < n; k++) {
        *chg = x[t + k] != x[t + k - 1] ? t + k + 1 : *chg;
        const double z = *chg + p > t + k + 2 && var[k] > 0.0 ? dev[k] / sqrt(var[k]) : 0.0;
        out[t + k] = apo__canonical_nan(z);
    }
    return apo__dd_pair_of(a1, a2);
}

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
    size_t plain_until = 0;
    for (size_t t = r->t; t < end; t++) {
        const size_t e = apo__clean_block_end(&x, 1, valid, t, end, &plain_until);
        if (e > t) {
            const apo__dd_pair s = apo__zscore_block(x, p, t, e, s1, s2, &chg, out);
            s1 = s.a;
            s2 = s.b;
            t = e - 1;
            continue;
        }
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
