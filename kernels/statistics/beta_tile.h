/*
 * beta_tile.h: BETA(timeperiod), TA-Lib's beta: the least-squares slope of y's returns on
 * x's returns over the p returns ending at t. Inputs x, y (TA-Lib's real0, real1: TA-Lib
 * regresses real1's returns on real0's, and so does this).
 *
 * Definition: the return at i is (x[i] - x[i-1]) / x[i-1], 0 where x[i-1] is 0 (TA-Lib's
 * rule, with exact 0 for its |x| < 1e-14), the same for y; beta = cov(rx, ry) / var(rx) of
 * the window's p returns, 0 where rx is constant in the window. The window reads p + 1
 * samples; lookback p.
 *
 * Tile: halo p. Periods up to APO_BETA_DIRECT_MAX evaluate each window from its own returns
 * (apo__beta_direct, as var_tile.h's short windows): shifted by the window's newest returns,
 * their means, then the centred sums of rx^2 and rx ry in a second pass, which does not
 * cancel; each output a pure function of its p + 1 samples. Longer periods slide the sums of
 * the returns as double-doubles (pair_sums.h), evaluated exactly at the first clean window
 * and slid with their errors gathered beside them (apo__pair_slide: the cascaded-summation
 * bound of window_sum.h). Either way constant returns are detected exactly, and a gap in
 * either input inside the p + 1 samples gives NaN (window.h).
 */
#ifndef APO_KERNELS_BETA_TILE_H
#define APO_KERNELS_BETA_TILE_H

#include <stdint.h>
#include <string.h>

#include "catalog.h"
#include "pair_sums.h"
#include "var_tile.h"
#include "window.h"

/* The simple return of v at i >= 1, 0 after a zero price. */
static inline APO_HD double apo__simple_return(const double *v, size_t i) {
    return v[i - 1] != 0.0 ? (v[i] - v[i - 1]) / v[i - 1] : 0.0;
}

/* apo__simple_return(v, i) for i = from .. from + n - 1 into r, in two loops that
 * vectorise: the quotients, by 1 after a zero price (before + 1: a select of 1 would let
 * the compiler drop that division and branch around the other), then the zeros. */
static inline APO_HD void apo__simple_returns(const double *v, size_t from, size_t n, double *r) {
    for (size_t k = 0; k < n; k++) {
        const double before = v[from + k - 1];
        r[k] = (v[from + k] - before) / (before + (double)(before == 0.0));
    }
    for (size_t k = 0; k < n; k++)
        r[k] = v[from + k - 1] != 0.0 ? r[k] : 0.0;
}

/* The longest period evaluated directly (docs/PERF.md, "var, stddev and beta: short windows
 * evaluated directly"). */
#define APO_BETA_DIRECT_MAX 32

/* The centred sums of the windows of bars t .. t + n - 1 (n <= APO_VAR_BLOCK), whose returns
 * are rx, ry from the oldest of bar t's window, as apo__var_direct_block does a variance: vx
 * the sum of rx's squared deviations, cv of the products of both deviations, moved nonzero
 * where a return differs from the window's newest (so 0 exactly where they are all equal,
 * beta's constant case). */
static inline APO_HD void apo__beta_direct_block(const double *rx, const double *ry, size_t p,
                                                 double inv_p, size_t n, double *vx, double *cv,
                                                 int64_t *moved) {
    double mx[APO_VAR_BLOCK], my[APO_VAR_BLOCK];
    const double *const cx = rx + p - 1, *const cy = ry + p - 1; /* the newest returns */
    for (size_t k = 0; k < n; k++) {
        mx[k] = 0.0;
        my[k] = 0.0;
        moved[k] = 0;
    }
    for (size_t j = 1; j < p; j++) {
        const double *const ax = cx - j, *const ay = cy - j;
        for (size_t k = 0; k < n; k++) {
            const double dx = ax[k] - cx[k];
            mx[k] += dx;
            my[k] += ay[k] - cy[k];
            moved[k] |= -(int64_t)(dx != 0.0);
        }
    }
    for (size_t k = 0; k < n; k++) {
        mx[k] *= inv_p;
        my[k] *= inv_p;
        vx[k] = 0.0;
        cv[k] = 0.0;
    }
    for (size_t j = 0; j < p; j++) {
        const double *const ax = cx - j, *const ay = cy - j;
        for (size_t k = 0; k < n; k++) {
            const double dx = (ax[k] - cx[k]) - mx[k];
            const double dy = (ay[k] - cy[k]) - my[k];
            vx[k] += dx * dx;
            cv[k] += dx * dy;
        }
    }
}

#ifdef APO_VAR_LANES
typedef int64_t apo__beta_mask __attribute__((vector_size(APO_VAR_LANES * sizeof(int64_t))));

/* The same for one vector of bars starting at rx, ry (bar k of the block: rx + k), in
 * registers across the window (var_tile.h says why). */
static inline void apo__beta_direct_lanes(const double *rx, const double *ry, size_t p,
                                          double inv_p, double *vx, double *cv, int64_t *moved) {
    const double *const cx = rx + p - 1, *const cy = ry + p - 1;
    const apo__var_vec nx = apo__var_load(cx), ny = apo__var_load(cy);
    apo__var_vec mx = {0}, my = {0};
    apo__beta_mask mv = {0};
    for (size_t j = 1; j < p; j++) {
        const apo__var_vec dx = apo__var_load(cx - j) - nx;
        mx += dx;
        my += apo__var_load(cy - j) - ny;
        mv |= (apo__beta_mask)(dx != 0.0);
    }
    mx *= inv_p;
    my *= inv_p;
    apo__var_vec sxx = {0}, sxy = {0};
    for (size_t j = 0; j < p; j++) {
        const apo__var_vec dx = (apo__var_load(cx - j) - nx) - mx;
        const apo__var_vec dy = (apo__var_load(cy - j) - ny) - my;
        sxx += dx * dx;
        sxy += dx * dy;
    }
    memcpy(vx, &sxx, sizeof sxx);
    memcpy(cv, &sxy, sizeof sxy);
    memcpy(moved, &mv, sizeof mv);
}
#endif

/* The bars begin .. end - 1 of a beta tile evaluated directly (p <= APO_BETA_DIRECT_MAX). */
static inline APO_HD void apo__beta_direct(const apo__cat_io *io, size_t begin, size_t end) {
    const double *x = io->in[0], *y = io->in[1];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0];
    const double inv_p = 1.0 / (double)p;
    size_t t = begin;
    for (; t < end && t < p; t++)
        out[t] = NAN;
    double rx[APO_VAR_BLOCK + APO_BETA_DIRECT_MAX], ry[APO_VAR_BLOCK + APO_BETA_DIRECT_MAX];
    double vx[APO_VAR_BLOCK], cv[APO_VAR_BLOCK];
    int64_t moved[APO_VAR_BLOCK];
    while (t < end) {
        const size_t n = end - t < APO_VAR_BLOCK ? end - t : APO_VAR_BLOCK;
        /* The returns of the block's windows, bar t + k reading rx[k .. k + p - 1]. */
        apo__simple_returns(x, t + 1 - p, n + p - 1, rx);
        apo__simple_returns(y, t + 1 - p, n + p - 1, ry);
        size_t k = 0;
#ifdef APO_VAR_LANES
        for (; k + APO_VAR_LANES <= n; k += APO_VAR_LANES)
            apo__beta_direct_lanes(rx + k, ry + k, p, inv_p, vx + k, cv + k, moved + k);
#endif
        if (k < n)
            apo__beta_direct_block(rx + k, ry + k, p, inv_p, n - k, vx + k, cv + k, moved + k);
        /* A non-finite sample makes the returns after it NaN, but the newest sample's return
         * is 0 after a zero price whatever the sample: hence its own test. The constant case
         * gives 0 unless a NaN came with it (from y's returns). */
        for (k = 0; k < n; k++) {
            const int flat = (moved[k] == 0 || vx[k] == 0.0) && cv[k] == cv[k];
            const double b = flat ? 0.0 : cv[k] / vx[k];
            const int finite = isfinite(x[t + k]) && isfinite(y[t + k]);
            out[t + k] = finite ? apo__canonical_nan(b) : NAN;
        }
        t += n;
    }
}

/* The clean windows t .. e - 1 of a beta tile, a block (window_sum.h) whose window before t
 * was clean and slid into s: the same operations as the tile's loop, sample by sample, so
 * the same bits. *chg as there. */
static inline APO_HD void apo__beta_block(const apo__cat_io *io, size_t t, size_t e,
                                          apo__pair_sums *s, size_t *chg) {
    const double *x = io->in[0], *y = io->in[1];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0], n = e - t;
    const double pd = (double)p;
    double rx[APO_DD_FOLD + 1], ry[APO_DD_FOLD], rx_out[APO_DD_FOLD], ry_out[APO_DD_FOLD];
    apo__simple_returns(x, t - 1, n + 1, rx);
    apo__simple_returns(y, t, n, ry);
    apo__simple_returns(x, t - p, n, rx_out);
    apo__simple_returns(y, t - p, n, ry_out);
    apo__pair_block b;
    for (size_t k = 0; k < n; k++)
        apo__pair_block_step(&b, k, rx[k + 1], ry[k], rx_out[k], ry_out[k]);
    apo__pair_block_slide(s, &b, t, n);
    double vx[APO_DD_FOLD], cv[APO_DD_FOLD];
    for (size_t k = 0; k < n; k++) {
        vx[k] = apo__pair_block_centred(&b.saa, &b.sa, &b.sa, k, pd);
        cv[k] = apo__pair_block_centred(&b.sab, &b.sa, &b.sb, k, pd);
    }
    for (size_t k = 0; k < n; k++) {
        *chg = rx[k + 1] != rx[k] ? t + k + 1 : *chg;
        out[t + k] = *chg > t + k + 2 - p && vx[k] != 0.0 ? apo__canonical_nan(cv[k] / vx[k]) : 0.0;
    }
}

/* The tile's start (apo__pair_run): its window's origin, last gap and last change of x's
 * return before `begin`. */
static inline APO_HD void apo__beta_start(const apo__cat_io *io, size_t begin, apo__pair_run *r) {
    const double *x = io->in[0];
    const size_t from = apo__window_from(begin, (size_t)io->p[0] + 1);
    apo__pair_run_from(r, begin, from);
    r->bad = apo__last_gap(io->in, 2, from, begin);
    /* One past the last index k with rx(k) != rx(k-1), both returns inside the tile's
     * reach (k - 2 >= from). */
    size_t chg = 0;
    for (size_t k = from + 2; k < begin; k++)
        if (apo__simple_return(x, k) != apo__simple_return(x, k - 1))
            chg = k + 1;
    r->chg[0] = chg;
}

/* The loop from r->t to end, the state in locals meanwhile (apo__correl_run). */
static inline APO_HD void apo__beta_run(const apo__cat_io *io, size_t end, apo__pair_run *r) {
    if ((size_t)io->p[0] <= APO_BETA_DIRECT_MAX) {
        /* Each window from its own samples: the run's state is its position alone. */
        if (end > r->t) {
            apo__beta_direct(io, r->t, end);
            r->t = end;
        }
        return;
    }
    const double *x = io->in[0], *y = io->in[1];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0], w = p + 1, from = r->from;
    const double pd = (double)p;
    size_t bad = r->bad, chg = r->chg[0];
    int valid = r->valid;
    apo__pair_sums s = r->s;
    size_t plain_until = 0;
    for (size_t t = r->t; t < end; t++) {
        const size_t e = apo__clean_block_end(io->in, 2, valid, t, end, &plain_until);
        if (e > t) {
            apo__beta_block(io, t, e, &s, &chg);
            t = e - 1;
            continue;
        }
        if (!apo__all_finite_at(io->in, 2, t))
            bad = t + 1;
        if (t >= from + 2 && apo__simple_return(x, t) != apo__simple_return(x, t - 1))
            chg = t + 1;
        if (!apo__window_clean(t, w, bad)) {
            out[t] = NAN;
            valid = 0;
            continue;
        }
        if (!valid) {
            apo__pair_clear(&s);
            for (size_t i = t + 1 - p; i <= t; i++)
                apo__pair_add(&s, apo__simple_return(x, i), apo__simple_return(y, i), 1.0);
            valid = 1;
        } else {
            apo__pair_slide(&s, apo__simple_return(x, t), apo__simple_return(y, t),
                            apo__simple_return(x, t - p), apo__simple_return(y, t - p), t);
        }
        /* The returns t-p+1 .. t are all equal when the last change is at or before t-p+1. */
        if (chg <= t + 2 - p) {
            out[t] = 0.0;
            continue;
        }
        const double vx = apo__pair_centred(s.saa, s.sa, s.sa, pd);
        const double cv = apo__pair_centred(s.sab, s.sa, s.sb, pd);
        out[t] = vx != 0.0 ? apo__canonical_nan(cv / vx) : 0.0;
    }
    apo__pair_run_keep(r, end, bad, chg, 0, valid, &s);
}

static inline APO_HD void apo__beta_tile(const apo__cat_io *io, size_t begin, size_t end) {
    if ((size_t)io->p[0] <= APO_BETA_DIRECT_MAX) {
        apo__beta_direct(io, begin, end);
        return;
    }
    apo__pair_run r;
    apo__beta_start(io, begin, &r);
    apo__beta_run(io, end, &r);
}

#endif /* APO_KERNELS_BETA_TILE_H */
