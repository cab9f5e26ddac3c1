/*
 * var_tile.h: VAR(timeperiod) and STDDEV(timeperiod, nbdev), TA-Lib's population variance
 * of the p samples ending at t, and its square root times nbdev.
 *
 * Tile: halo p - 1. The sums S1 = sum x and S2 = sum x^2 of the window are double-doubles
 * (dd.h; the squares exact by Dekker's product), evaluated exactly at the tile's first
 * clean window and slid with their rounding errors gathered beside them (apo__dd_slide,
 * window_sum.h: within about m^2 2^-106 of the data's scale after m steps); S2 - S1^2 / p
 * is formed in double-double too, then rounded and divided by p, so the cancellation of
 * E[x^2] - mean^2, which costs TA-Lib's running sums about mean^2 / var ulps, costs here
 * about that many times m^2 2^-106 (2^-82 for a tile of 4096 steps) and an ulp: invisible
 * in double unless the window's spread is below about 1e-12 of its mean. A constant window (no
 * change of value inside it, tracked exactly) gives var 0 exactly; a negative rounding is clamped
 * to 0. Gaps as SMA (window.h). Positions t < p - 1 are NaN.
 */
#ifndef APO_KERNELS_VAR_TILE_H
#define APO_KERNELS_VAR_TILE_H

#include "catalog.h"
#include "window.h"
#include "window_sum.h"

/* The tile's start of var, stddev and zscore (apo__cat_run: n[0] the last gap, n[1] whether
 * the double-doubles v[0] + v[1] (S1) and v[2] + v[3] (S2) are the last window's, n[2] one
 * past the last change of value, n[3] the first sample the tile reads). */
static inline APO_HD void apo__moments_start(const double *x, size_t p, size_t begin,
                                             apo__cat_run *r) {
    const size_t from = apo__window_from(begin, p);
    const double *const in[1] = {x};
    apo__cat_run_from(r, begin);
    r->n[0] = apo__last_gap(in, 1, from, begin);
    /* One past the last index k in (from, t] with x[k] != x[k-1]: the window of t is
     * constant when no such k lies inside it. */
    size_t chg = 0;
    for (size_t k = from + 1; k < begin; k++)
        if (x[k] != x[k - 1])
            chg = k + 1;
    r->n[2] = chg;
    r->n[3] = from;
}

/* The loop from r->t to end: the variance into out_var (NULL: not wanted) and
 * sqrt(var) * nbdev into out_sd (NULL: not wanted). */
static inline APO_HD void apo__var_run(const double *x, size_t p, double nbdev, size_t end,
                                       double *out_var, double *out_sd, apo__cat_run *r) {
    const size_t from = r->n[3];
    size_t bad = r->n[0];
    size_t chg = r->n[2];
    int valid = r->n[1] != 0;
    const double pd = (double)p;
    apo__dd s1 = apo__dd_make(r->v[0], r->v[1]), s2 = apo__dd_make(r->v[2], r->v[3]);
    for (size_t t = r->t; t < end; t++) {
        if (!isfinite(x[t]))
            bad = t + 1;
        if (t > from && x[t] != x[t - 1])
            chg = t + 1;
        if (!apo__window_clean(t, p, bad)) {
            if (out_var != NULL)
                out_var[t] = NAN;
            if (out_sd != NULL)
                out_sd[t] = NAN;
            valid = 0;
            continue;
        }
        if (!valid) {
            s1 = apo__dd_sum(x, t + 1 - p, t + 1);
            s2 = apo__dd_sum_sq(x, t + 1 - p, t + 1);
            valid = 1;
        } else {
            s1 = apo__dd_slide(s1, x[t], x[t - p], t);
            s2 = apo__dd_slide_dd(s2, apo__two_prod(x[t], x[t]), apo__two_prod(x[t - p], x[t - p]),
                                  t);
        }
        double var = 0.0;
        if (chg + p > t + 2) {
            const apo__dd a1 = apo__dd_settle(s1);
            const apo__dd m2 = apo__dd_add(apo__dd_settle(s2),
                                           apo__dd_neg(apo__dd_div_d(apo__dd_mul(a1, a1), pd)));
            var = m2.hi / pd;
            var = var > 0.0 ? var : 0.0;
        }
        if (out_var != NULL)
            out_var[t] = apo__canonical_nan(var);
        if (out_sd != NULL)
            out_sd[t] = apo__canonical_nan(sqrt(var) * nbdev);
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

static inline APO_HD void apo__var_body(const double *x, size_t p, double nbdev, size_t begin,
                                        size_t end, double *out_var, double *out_sd) {
    apo__cat_run r;
    apo__moments_start(x, p, begin, &r);
    apo__var_run(x, p, nbdev, end, out_var, out_sd, &r);
}

static inline APO_HD void apo__var_tile(const apo__cat_io *io, size_t begin, size_t end) {
    apo__var_body(io->in[0], (size_t)io->p[0], 1.0, begin, end, io->out[0], NULL);
}

static inline APO_HD void apo__stddev_tile(const apo__cat_io *io, size_t begin, size_t end) {
    apo__var_body(io->in[0], (size_t)io->p[0], io->p[1], begin, end, NULL, io->out[0]);
}

#endif /* APO_KERNELS_VAR_TILE_H */
