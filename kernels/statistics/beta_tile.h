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
 * Tile: halo p. Periods up to APO_PAIR_DIRECT_MAX evaluate each window from its own returns
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

#include "catalog.h"
#include "pair_direct.h"
#include "pair_sums.h"
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

/* The bars begin .. end - 1 of a beta tile evaluated directly (p <= APO_PAIR_DIRECT_MAX). */
static inline APO_HD void apo__beta_direct(const apo__cat_io *io, size_t begin, size_t end) {
    const double *x = io->in[0], *y = io->in[1];
    const size_t p = (size_t)io->p[0];
    double *out = io->out[0], inv_p = 1.0 / (double)p;
    size_t t = apo__pair_warm_up(out, begin, end, p);
    double rx[APO_VAR_BLOCK + APO_PAIR_DIRECT_MAX], ry[APO_VAR_BLOCK + APO_PAIR_DIRECT_MAX];
    apo__pair_moments m;
    while (t < end) {
        const size_t n = end - t < APO_VAR_BLOCK ? end - t : APO_VAR_BLOCK;
        /* The returns of the block's windows, bar t + k reading rx[k .. k + p - 1]. */
        apo__simple_returns(x, t + 1 - p, n + p - 1, rx);
        apo__simple_returns(y, t + 1 - p, n + p - 1, ry);
        apo__pair_direct(rx, ry, p, inv_p, n, &m);
        /* A non-finite sample makes the returns after it NaN, but the newest sample's return
         * is 0 after a zero price whatever the sample: hence its own test. The constant case
         * gives 0 unless a NaN came with it (from y's returns). */
        for (size_t k = 0; k < n; k++) {
            const int flat = (m.moved_a[k] == 0 || m.vaa[k] == 0.0) && m.vab[k] == m.vab[k];
            const double b = flat ? 0.0 : m.vab[k] / m.vaa[k];
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
    if ((size_t)io->p[0] <= APO_PAIR_DIRECT_MAX) {
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
    if ((size_t)io->p[0] <= APO_PAIR_DIRECT_MAX) {
        apo__beta_direct(io, begin, end);
        return;
    }
    apo__pair_run r;
    apo__beta_start(io, begin, &r);
    apo__beta_run(io, end, &r);
}

#endif /* APO_KERNELS_BETA_TILE_H */
