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
 * Design (docs/kernels.md "BETA"), three ranges of the period:
 *  - up to APO_PAIR_DIRECT_MAX each window is evaluated from its own returns
 *    (apo__beta_direct, as var_tile.h's short windows): shifted by the window's newest returns,
 *    their means, then the centred sums of rx^2 and rx ry in a second pass, which does not
 *    cancel;
 *  - up to APO_BETA_BLOCKS_MAX, correl's blocks (correl_tile.h) on the returns: a block's
 *    returns are computed once, its first window's sums of the shifted returns are summed
 *    directly and slid in plain double, and a bar whose bound (apo__shifted_bounds) may exceed
 *    APO_BETA_MARGIN of 1 + |beta| is evaluated from its own window instead;
 *  - longer periods slide the sums of the returns as double-doubles (pair_sums.h), evaluated
 *    exactly at the first clean window and slid with their errors gathered beside them
 *    (apo__pair_slide: the cascaded-summation bound of window_sum.h).
 * In the first two every output is a function of its p + 1 samples and its absolute index
 * alone, so a stream's state is its position. Constant returns give 0 exactly, and a gap in
 * either input inside the p + 1 samples gives NaN (window.h).
 *
 * Tile: halo p, and APO_BETA_BLOCK_LEN - 1 more in the blocks' range, so that a tile
 * starting inside a block reaches the block's first window.
 */
#ifndef APO_KERNELS_BETA_TILE_H
#define APO_KERNELS_BETA_TILE_H

#include "correl_tile.h"
#include "pair_direct.h"
#include "pair_sums.h"
#include "shifted_blocks.h"
#include "window.h"

/* The longest period evaluated in blocks; longer ones slide double-doubles. correl's blocks go
 * on to 1024, but beta holds the returns of a block's windows on the stack (apo__beta_returns),
 * and on a GPU every resident thread reserves the kernel's frame in local memory: with blocks
 * up to 1024, where they still ran at twice the double-doubles' speed, the statistics kernel's
 * frame grew from 19.5 to 30.7 KB, against 22.5 KB up to 512
 * (docs/perf-log/2026-11-25-catalog-round-8.md, "beta in blocks"). */
#define APO_BETA_BLOCKS_MAX 512

/* The blocks' length: 64 bars at every period, where correl's are 16 below period 48 and 32
 * below 160. correl's blocks stay short where its series drift from the block's shift, which
 * the cancellation in sxx - sx^2 / p multiplies; returns hardly drift (their mean is near 0 in
 * every window), so the longest blocks, which sum the fewest windows directly, cost beta least
 * (docs/perf-log/2026-11-25-catalog-round-8.md, "beta in blocks"). */
#define APO_BETA_BLOCK_LEN APO_SHIFTED_BLOCK_MAX_LEN

/* The bound a slid bar's sums may reach: each of var(rx)'s and cov(rx, ry)'s errors at most
 * this much of var(rx), so that beta's error stays below twice this of 1 + |beta|, the tests'
 * scale (docs/kernels.md, "Accuracy"), whose tolerance is 1e-12. */
#define APO_BETA_MARGIN 2.5e-13

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

/* Beta from bar k's moments in m (pair_direct.h): 0 where x's returns are constant in the
 * window unless a NaN came with them (from y's returns), NaN where the newest pair is not
 * finite (`finite` 0), else the quotient. */
static inline APO_HD double apo__beta_quotient(const apo__pair_moments *m, size_t k, int finite) {
    const int flat = (m->moved_a[k] == 0 || m->vaa[k] == 0.0) && m->vab[k] == m->vab[k];
    const double b = flat ? 0.0 : m->vab[k] / m->vaa[k];
    return finite ? apo__canonical_nan(b) : NAN;
}

/* The bars begin .. end - 1 of a beta tile evaluated directly (p <= APO_PAIR_DIRECT_MAX). */
static inline APO_HD void apo__beta_direct(const apo__cat_io *io, size_t begin, size_t end) {
    const double *x = io->in[0], *y = io->in[1];
    const size_t p = (size_t)io->p[0];
    double *out = io->out[0], inv_p = 1.0 / (double)p;
    size_t t = apo__cat_nan_lead(out, begin, end, p);
    double rx[APO_VAR_BLOCK + APO_PAIR_DIRECT_MAX], ry[APO_VAR_BLOCK + APO_PAIR_DIRECT_MAX];
    apo__pair_moments m;
    while (t < end) {
        const size_t n = end - t < APO_VAR_BLOCK ? end - t : APO_VAR_BLOCK;
        /* The returns of the block's windows, bar t + k reading rx[k .. k + p - 1]. */
        apo__simple_returns(x, t + 1 - p, n + p - 1, rx);
        apo__simple_returns(y, t + 1 - p, n + p - 1, ry);
        apo__pair_direct(rx, ry, p, inv_p, n, &m);
        /* A non-finite sample makes the returns after it NaN, but the newest sample's return
         * is 0 after a zero price whatever the sample: hence its own test. */
        for (size_t k = 0; k < n; k++)
            out[t + k] = apo__beta_quotient(&m, k, isfinite(x[t + k]) && isfinite(y[t + k]));
        t += n;
    }
}

/* The returns of a run of blocks, each computed once: the returns at lo .. hi - 1 of x in
 * x[0 .. hi - lo - 1], of y in y[the same]. A block's windows read p + 63 returns at most, the
 * next block's overlap them but for its own bars', so the run keeps room for three blocks more
 * on the CPU and moves the returns it still needs to the front when it is full. A GPU thread
 * keeps room for one block only, and moves them every block: its frame is a GPU's local memory
 * for every resident thread. */
#ifdef __CUDA_ARCH__
#define APO_BETA_RETURNS (APO_BETA_BLOCKS_MAX + APO_BETA_BLOCK_LEN - 1)
#else
#define APO_BETA_RETURNS (APO_BETA_BLOCKS_MAX + 4 * APO_BETA_BLOCK_LEN)
#endif
typedef struct apo__beta_returns {
    double x[APO_BETA_RETURNS], y[APO_BETA_RETURNS];
    size_t lo, hi;
} apo__beta_returns;

/* Makes the returns at from .. to - 1 (to - from <= APO_BETA_RETURNS) held in r, computing
 * only those it does not hold yet; from never moves back in a run. */
static inline APO_HD void apo__beta_returns_reach(const double *x, const double *y,
                                                  apo__beta_returns *r, size_t from, size_t to) {
    if (from > r->hi)
        r->lo = r->hi = from;
    if (to - r->lo > APO_BETA_RETURNS) {
        /* Forwards, as the returns move down (device code has no memmove). */
        const size_t keep = r->hi - from, gone = from - r->lo;
        for (size_t j = 0; j < keep; j++) {
            r->x[j] = r->x[j + gone];
            r->y[j] = r->y[j + gone];
        }
        r->lo = from;
    }
    if (to > r->hi) {
        apo__simple_returns(x, r->hi, to - r->hi, r->x + (r->hi - r->lo));
        apo__simple_returns(y, r->hi, to - r->hi, r->y + (r->hi - r->lo));
        r->hi = to;
    }
}

/* Bars from .. b + n - 1 of the block starting at b (n <= APO_BETA_BLOCK_LEN), whose
 * returns r holds: the slid sums' beta where the bound allows it, else the bar's own window's. */
static inline APO_HD void apo__beta_block_out(const apo__cat_io *io, const double *e,
                                              const apo__beta_returns *r, size_t b, size_t from,
                                              size_t n) {
    const double *x = io->in[0], *y = io->in[1];
    const size_t p = (size_t)io->p[0], len = APO_BETA_BLOCK_LEN;
    double *out = io->out[0];
    /* rx[j] is x's return at b + 1 - p + j, so bar b + k reads rx[k .. k + p - 1], and
     * correl's functions take rx as their samples with the block's first bar at p - 1. */
    const double *rx = r->x + (b + 1 - p - r->lo), *ry = r->y + (b + 1 - p - r->lo);
    const double cx = apo__shifted_center(rx, p - 1, p, len);
    const double cy = apo__shifted_center(ry, p - 1, p, len);
    apo__correl_sums s;
    apo__correl_window(rx, ry, p, cx, cy, &s);
    apo__correl_slide(rx, ry, p - 1, p, n, cx, cy, &s);
    const double inv_p = 1.0 / (double)p;
    double q[APO_SHIFTED_BLOCK_MAX_LEN];
    int64_t ok[APO_SHIFTED_BLOCK_MAX_LEN];
    for (size_t k = 0; k < n; k++) {
        const double vx = s.sxx[k] - s.sx[k] * s.sx[k] * inv_p;
        const double cov = s.sxy[k] - s.sx[k] * s.sy[k] * inv_p;
        /* cov's error is at most e sqrt(top_xx top_yy) (Cauchy-Schwarz), vx's e top_xx; beta's
         * is about cov's over vx plus |beta| times vx's relative one. cov's test squared, so
         * that the loop vectorises without roots: a product that overflows fails it, one that
         * underflows passes it only where the bound it stands for is below the smallest normal
         * double and vx, past the first test, far above. A NaN in x's sums fails both tests;
         * one in y's alone leaves its largest sum as it was and makes q NaN, made canonical
         * below. */
        const double room = APO_BETA_MARGIN * vx;
        ok[k] = (e[k] * s.top_xx[k] + APO_SHIFTED_TINY < room) &
                ((e[k] * e[k]) * (s.top_xx[k] * s.top_yy[k]) < room * room);
        q[k] = cov / (ok[k] ? vx : 1.0);
    }
    /* Every bar's slid beta, NaN where its newest pair is not finite (apo__beta_direct's own
     * test), in a loop that vectorises; then the bars that failed the bound from their own
     * windows. */
    for (size_t k = from - b; k < n; k++) {
        const int finite = (fabs(x[b + k]) <= DBL_MAX) & (fabs(y[b + k]) <= DBL_MAX);
        out[b + k] = finite ? apo__canonical_nan(q[k]) : NAN;
    }
    apo__pair_moments m;
    for (size_t k = from - b; k < n; k++)
        if (!ok[k]) {
            apo__pair_direct_block(rx + k, ry + k, p, inv_p, 0, 1, &m);
            out[b + k] = apo__beta_quotient(&m, 0, isfinite(x[b + k]) && isfinite(y[b + k]));
        }
}

/* The bars begin .. end - 1 of a tile in the blocks' range. */
static inline APO_HD void apo__beta_blocks(const apo__cat_io *io, size_t begin, size_t end) {
    const double *x = io->in[0], *y = io->in[1];
    const size_t p = (size_t)io->p[0];
    size_t t = apo__cat_nan_lead(io->out[0], begin, end, p);
    const size_t len = APO_BETA_BLOCK_LEN;
    double e[APO_BETA_BLOCK_LEN];
    apo__shifted_bounds(p, len, e);
    apo__beta_returns r;
    r.lo = r.hi = 0;
    while (t < end) {
        /* The first block starts at the first full window, bar p. */
        const size_t b = apo__shifted_anchor(t, p + 1, len);
        const size_t block_end = b - b % len + len, stop = block_end < end ? block_end : end;
        apo__beta_returns_reach(x, y, &r, b + 1 - p, stop);
        /* A whole block's loops get a constant count, which the compiler unrolls (as
         * correl's). */
        if (block_end - b == len && block_end <= end)
            apo__beta_block_out(io, e, &r, b, t, APO_BETA_BLOCK_LEN);
        else
            apo__beta_block_out(io, e, &r, b, t, stop - b);
        t = block_end;
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

/* Past APO_BETA_BLOCKS_MAX: the start of a run of double-double sums (apo__pair_run): its
 * window's origin, last gap and last change of x's return before `begin`. */
static inline APO_HD void apo__beta_long_start(const apo__cat_io *io, size_t begin,
                                               apo__pair_run *r) {
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

/* That run's loop from r->t to end, the state in locals meanwhile (apo__correl_long_run). */
static inline APO_HD void apo__beta_long_run(const apo__cat_io *io, size_t end, apo__pair_run *r) {
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

/* beta's stream (catalog_table.h, PAIR) and tile: its windows of p returns read p + 1 prices. */
APO_PAIR_ENTRIES(beta, APO_BETA_BLOCKS_MAX, APO_PAIR_DIRECT_MAX, 1)

#endif /* APO_KERNELS_BETA_TILE_H */
