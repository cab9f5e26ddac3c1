/*
 * linearreg_plain.h: LINEARREG and LINEARREG_SLOPE of middle periods
 * (APO_LINEARREG_DIRECT_MAX < p <= APO_LINREG_PLAIN_MAX), the window's sums slid in plain double
 * between anchors, shifted by a sample of the window.
 *
 * Why: each window's own weighted sum (linearreg_direct.h) costs p / 8 cycles a bar and the
 * double-double slide (linearreg_tile.h) about 12 ns a bar, where Tulip Indicators slides plain
 * sums in about 2 ns. A plain slide of the raw sums from the series' start loses the slope's
 * digits (W is about (p-1)/2 S, the level's digits cancel) and carries the errors of its whole
 * past. Here:
 *  - the sums are of z = y - c, c the middle sample of the window where they were last
 *    evaluated directly, so that they carry the windows' spread, not their level, and their
 *    roundings are relative to the spread;
 *  - the slid sums are S = sum z_j and the centred N = sum (j - (p-1)/2) z_j (j = 0 oldest ..
 *    p-1 newest), the slope's numerator itself, so that nothing cancels at the end:
 *      S' = S + (y_new - y_old),  N' = N + (((p+1)/2 z_old + (p-1)/2 z_new) - S)  (S before),
 *      slope = N * 12 / (p (p^2 - 1)),  value = c + (S / p + N * 6 / (p (p + 1)));
 *  - the sums are evaluated directly (each sample's shifted term into one of 8 fixed partial
 *    sums, combined in a fixed order) at every anchor, a bar that is a multiple of the spacing
 *    A (apo__linreg_anchor: 64, or 32 below period 40), and at the first clean window after a
 *    tile's start or a gap, so at most k <= A - 1 slid steps separate an output from a direct
 *    evaluation, and nothing older than that evaluation's window is carried.
 *
 * Error bound, first order in u = 2^-53, each rounding at most u times its result's magnitude;
 * Z is the largest |y - c| over the samples from the direct evaluation's window to the current
 * one (p + k samples), at most 2 M, M the largest |y| among them (c is one of them):
 *  - direct S: the shifts (u Z each), a partial's ceil(p/8) - 1 additions and the combination's
 *    3: below (p/8 + 4) u p Z;
 *  - direct N: the weights |j - (p-1)/2| are exact and sum to below p^2/4; the shifts, the
 *    products and the same additions: below (p/8 + 6) u (p^2/4) Z;
 *  - a step of S: y_new - y_old (below 2Z) and the sum (below p Z): (p + 2) u Z, so after m
 *    steps S's error is below (p/8 + 4) u p Z + m (p + 2) u Z;
 *  - a step of N: the two shifts times (p+1)/2 and (p-1)/2 (p u Z), the two products and their
 *    sum (below p Z each: 2 p u Z), the subtraction of S (below 2 p Z) and the sum (below
 *    p^2/4 Z): (p^2/4 + 5p) u Z of its own, plus the error of the S it subtracts;
 *  - so after k steps N's error is below
 *      [(p/8 + 6) p^2/4 + k (p^2/4 + 5p) + k (p/8 + 4) p + k^2 (p + 2) / 2] u Z,
 *    and the slope's, times 12 / (p (p^2 - 1)), relative to the test's scale M / p:
 *      E(p, k) = [3 (p/8 + 6) + 4.5 k + 108 k / p + 6 k^2 (p + 2) / p^2 + 2] u Z / M
 *    (the 2: the reciprocal's and the product's roundings; 12 / (p^2 - 1) taken as 12 / p^2, a
 *    factor below 1.002 from p = 25).
 * With Z = 2 M (apo__linreg_plain_bound), E is at most 1.3e-13 (p = 25, k = 31) and 2.5e-13 at
 * p = 40 with k = 63, 1.6e-13 at p = 1024, 2.4e-13 at 2048: a margin of 4 to the contract's
 * 1e-12 from period 25 to APO_LINREG_PLAIN_MAX, which sets the spacing (64 below 40 would exceed
 * it: the k^2 / p term) and the limit (past about 2150 the direct sums' p/8 term would). The
 * value's error is S's over p (below (p/8 + 4 + 1.1 k) u Z) plus N's times 6 / (p (p + 1)) (half
 * the slope's bound, relative to M) and 3 roundings of |value|. Measured on walks far lower
 * (docs/kernels.md, "Accuracy"). M is over the p + k samples, not the current window alone: after a
 * fall from a far larger level, errors made while the larger samples were in the sums stay until
 * the next anchor (at most A - 1 bars), as in sma's and wma's plain slides (window_plain.h).
 *
 * Bits: the anchors sit at fixed indices and the other restarts at a tile's start and after a
 * gap, as window_plain.h's do, so the outputs are a pure function of the data, the absolute index
 * and the tile grid, and a stream running the same steps from the state (apo__cat_run: S, N and
 * c) gets the same bits. Each bar performs the same operations in the same order whichever loop
 * runs it, and every vector operation below is lane by lane, so every path (sse2, avx2, avx512,
 * the GPU's scalar loops) gives the same bits.
 *
 * Speed: APO_LINREG_LANES whole blocks between anchors are independent (each starts from its own
 * direct sums), so they advance side by side, in three loops (as window_sum.h's blocked slides):
 * the steps' terms (vectorised along each block), the chains (two adds and a subtraction a step,
 * the four blocks' chains interleaved, where one alone would wait on the adds' latency), the
 * outputs (vectorised). The direct sums cost about p/16 vector additions per anchor.
 */
#ifndef APO_KERNELS_LINEARREG_PLAIN_H
#define APO_KERNELS_LINEARREG_PLAIN_H

#include "partials.h"
#include "window.h"
#include "window_plain.h"
#include "window_sum.h"

/* The longest window slid plain; longer ones keep the double-doubles (linearreg_tile.h). The
 * bound allows 2048 (above); from 1025 to 2048 the plain slide runs at about 2.5 times the
 * double-doubles' speed (docs/perf-log/2026-11-25-catalog-rounds-10-11.md, "linearreg: plain slides
 * up to 2048"). */
#define APO_LINREG_PLAIN_MAX 2048
/* Anchors: the bars where the sums are evaluated directly whatever the state, every
 * APO_LINREG_ANCHOR bars from period APO_LINREG_ANCHOR_WIDE_MIN on, every half of that below
 * (apo__linreg_anchor): the bound's terms in k^2 / p keep it within the margin there. */
#define APO_LINREG_ANCHOR 64
#define APO_LINREG_ANCHOR_WIDE_MIN 40
/* Blocks between anchors advanced side by side. */
#define APO_LINREG_LANES 4

/* The spacing of the anchors at period p. */
static inline APO_HD size_t apo__linreg_anchor(size_t p) {
    return p >= APO_LINREG_ANCHOR_WIDE_MIN ? APO_LINREG_ANCHOR : APO_LINREG_ANCHOR / 2;
}

/* A window's shifted sums: S = sum (y_j - c), N = sum (j - (p-1)/2) (y_j - c), and the shift c. */
typedef struct apo__linreg_sums {
    double s, n, c;
} apo__linreg_sums;

/* The outputs' constants for a period. */
typedef struct apo__linreg_consts {
    double pd, half_next, half_prev; /* p, (p+1)/2, (p-1)/2 */
    double slope_scale;              /* 12 / (p (p^2 - 1)) */
    double inv_p;                    /* 1 / p */
    double value_scale;              /* 6 / (p (p + 1)) */
    double tsf_scale;                /* 6 / (p (p - 1)) */
} apo__linreg_consts;

static inline APO_HD apo__linreg_consts apo__linreg_consts_of(size_t p) {
    const double pd = (double)p;
    apo__linreg_consts k;
    k.pd = pd;
    k.half_next = (pd + 1.0) / 2.0;
    k.half_prev = (pd - 1.0) / 2.0;
    k.slope_scale = 12.0 / (pd * (pd * pd - 1.0));
    k.inv_p = 1.0 / pd;
    k.value_scale = 6.0 / (pd * (pd + 1.0));
    k.tsf_scale = 6.0 / (pd * (pd - 1.0));
    return k;
}

/* E(p, k) above, the first-order bound on the slope's error relative to M / p, for Z = 2 M and k
 * steps from a direct evaluation: the tests check the spacing and the period range against the
 * contract's margin with it. */
static inline APO_HD double apo__linreg_plain_bound(size_t p, size_t k) {
    const double pd = (double)p, kd = (double)k, u = 0x1p-53;
    const double e = 3.0 * (pd / 8.0 + 6.0) + 4.5 * kd + 108.0 * kd / pd +
                     6.0 * kd * kd * (pd + 2.0) / (pd * pd) + 2.0;
    return 2.0 * e * u;
}

/* The output of a window's sums (apo__linreg_what): the slope, or the line's value at the window's
 * end (linearreg), start (the intercept: the slope's term taken off) or one bar past its end (tsf:
 * the slope times (p+1)/2, 6 / (p (p - 1)) of N). */
static inline APO_HD double apo__linreg_plain_out(apo__linreg_sums z, const apo__linreg_consts *k,
                                                  int what) {
    switch (what) {
    case APO_LINREG_VALUE:
        return z.c + (z.s * k->inv_p + z.n * k->value_scale);
    case APO_LINREG_INTERCEPT:
        return z.c + (z.s * k->inv_p - z.n * k->value_scale);
    case APO_LINREG_TSF:
        return z.c + (z.s * k->inv_p + z.n * k->tsf_scale);
    default:
        return apo__linreg_finish(z.n * k->slope_scale, what);
    }
}

/* The sums of the window of p samples ending at t, shifted by its middle sample: sample i
 * (0 oldest) goes to partial i % 8 (the last p % 8 samples after the rest, where partials.h puts
 * the first p % 8 first), each partial in index order from 0.0, and the partials are combined
 * in partials.h's fixed order, so the bits do not depend on the vector width. */
static inline APO_HD apo__linreg_sums apo__linreg_direct_sums(const double *x, size_t p, size_t t) {
    const double *const y = x + t + 1 - p;
    const double c = x[t - (p - 1) / 2], h = ((double)p - 1.0) / 2.0;
    const size_t whole = p - p % APO_PARTS;
    double ps[APO_PARTS], pn[APO_PARTS];
#if defined(__GNUC__) && !defined(__CUDACC__)
    /* Partials 0-3 and 4-7 in two vectors of four lanes (the compiler splits them into two
     * halves on sse2 and keeps them in registers; a single vector of eight was spilled on
     * avx2), each lane one partial. */
    typedef double lanes4 __attribute__((vector_size(4 * sizeof(double))));
    const lanes4 cv = {c, c, c, c}, step = {8.0, 8.0, 8.0, 8.0};
    lanes4 s_lo = {0.0, 0.0, 0.0, 0.0}, s_hi = s_lo, n_lo = s_lo, n_hi = s_lo;
    lanes4 w_lo = {0.0 - h, 1.0 - h, 2.0 - h, 3.0 - h}, w_hi = {4.0 - h, 5.0 - h, 6.0 - h, 7.0 - h};
    for (size_t i = 0; i < whole; i += APO_PARTS) {
        lanes4 v_lo, v_hi;
        __builtin_memcpy(&v_lo, y + i, sizeof v_lo);
        __builtin_memcpy(&v_hi, y + i + 4, sizeof v_hi);
        const lanes4 z_lo = v_lo - cv, z_hi = v_hi - cv;
        s_lo = s_lo + z_lo;
        s_hi = s_hi + z_hi;
        n_lo = n_lo + w_lo * z_lo;
        n_hi = n_hi + w_hi * z_hi;
        w_lo = w_lo + step;
        w_hi = w_hi + step;
    }
    __builtin_memcpy(ps, &s_lo, sizeof s_lo);
    __builtin_memcpy(ps + 4, &s_hi, sizeof s_hi);
    __builtin_memcpy(pn, &n_lo, sizeof n_lo);
    __builtin_memcpy(pn + 4, &n_hi, sizeof n_hi);
#else
    for (int l = 0; l < APO_PARTS; l++)
        ps[l] = pn[l] = 0.0;
    for (size_t i = 0; i < whole; i += APO_PARTS)
        for (int l = 0; l < APO_PARTS; l++) {
            const double zz = y[i + (size_t)l] - c;
            ps[l] = ps[l] + zz;
            pn[l] = pn[l] + ((double)(i + (size_t)l) - h) * zz;
        }
#endif
    for (size_t i = whole; i < p; i++) {
        const double zz = y[i] - c;
        ps[i - whole] = ps[i - whole] + zz;
        pn[i - whole] = pn[i - whole] + ((double)i - h) * zz;
    }
    apo__linreg_sums z;
    z.s = apo__parts_combine(ps);
    z.n = apo__parts_combine(pn);
    z.c = c;
    return z;
}

/* A step's two terms: (p+1)/2 z_old + (p-1)/2 z_new for N and y_new - y_old for S. */
static inline APO_HD double apo__linreg_n_term(const double *x, size_t p, size_t t, double c,
                                               const apo__linreg_consts *k) {
    return k->half_next * (x[t - p] - c) + k->half_prev * (x[t] - c);
}

static inline APO_HD double apo__linreg_s_term(const double *x, size_t p, size_t t) {
    return x[t] - x[t - p];
}

/* The sums slid from the window ending at t - 1 to the one ending at t. */
static inline APO_HD apo__linreg_sums apo__linreg_step(apo__linreg_sums z, const double *x,
                                                       size_t p, size_t t,
                                                       const apo__linreg_consts *k) {
    z.n = z.n + (apo__linreg_n_term(x, p, t, z.c, k) - z.s);
    z.s = z.s + apo__linreg_s_term(x, p, t);
    return z;
}

/* APO_LINREG_LANES whole blocks from the anchor a on, every window in them clean: each block's
 * sums evaluated at its anchor and slid to its end, the blocks side by side. Returns the last
 * block's sums at its end. */
static inline APO_HD apo__linreg_sums apo__linreg_blocks(const double *x, size_t p, size_t a,
                                                         const apo__linreg_consts *k, int what,
                                                         double *out) {
    enum { L = APO_LINREG_LANES };
    const size_t A = apo__linreg_anchor(p);
    /* Block l's step j terms and, after the chain loop, its sums after step j, at [l][j]: each
     * block contiguous, so that the terms' and outputs' loops vectorise along it. */
    double tn[L][APO_LINREG_ANCHOR], ts[L][APO_LINREG_ANCHOR];
    double c[L], s[L], n[L];
    for (size_t l = 0; l < L; l++) {
        const apo__linreg_sums first = apo__linreg_direct_sums(x, p, a + l * A);
        c[l] = first.c;
        s[l] = first.s;
        n[l] = first.n;
        tn[l][0] = first.n;
        ts[l][0] = first.s;
    }
    for (size_t l = 0; l < L; l++) {
        const size_t b = a + l * A;
        for (size_t j = 1; j < A; j++) {
            tn[l][j] = apo__linreg_n_term(x, p, b + j, c[l], k);
            ts[l][j] = apo__linreg_s_term(x, p, b + j);
        }
    }
    /* The chains, the blocks side by side (one chain alone waits on the adds' latency). */
    for (size_t j = 1; j < A; j++)
        for (size_t l = 0; l < L; l++) {
            n[l] = n[l] + (tn[l][j] - s[l]);
            s[l] = s[l] + ts[l][j];
            tn[l][j] = n[l];
            ts[l][j] = s[l];
        }
    for (size_t l = 0; l < L; l++) {
        const size_t b = a + l * A;
        for (size_t j = 0; j < A; j++) {
            const apo__linreg_sums z = {ts[l][j], tn[l][j], c[l]};
            out[b + j] = apo__canonical_nan(apo__linreg_plain_out(z, k, what));
        }
    }
    const apo__linreg_sums last = {s[L - 1], n[L - 1], c[L - 1]};
    return last;
}

/* The loop from r->t to end (apo__cat_run: n[0] one past the last gap, n[1] whether v[0] (S),
 * v[1] (N) and v[2] (c) are the last window's), outputs into out; window_plain.h's loop. */
static inline APO_HD void apo__linreg_plain_run(const double *x, size_t p, int what, size_t end,
                                                double *out, apo__cat_run *r) {
    const apo__linreg_consts k = apo__linreg_consts_of(p);
    size_t bad = r->n[0];
    int valid = r->n[1] != 0;
    apo__linreg_sums z = {r->v[0], r->v[1], r->v[2]};
    const size_t anchor = apo__linreg_anchor(p), span = APO_LINREG_LANES * anchor;
    size_t plain_until = 0; /* the bars before it take the per-bar step (a gap is near) */
    for (size_t t = r->t; t < end; t++) {
        if (t >= plain_until && t % anchor == 0 && t + 1 >= p && end - t >= span) {
            if (apo__block_finite(x, t + 1 - p, t + span)) {
                if (end - t >= 2 * span)
                    apo__plain_prefetch(x, out, t + span, span);
                z = apo__linreg_blocks(x, p, t, &k, what, out);
                valid = 1;
                t += span - 1;
                continue;
            }
            plain_until = t + span;
        }
        if (!apo__window_step(isfinite(x[t]), out, t, p, &bad, &valid))
            continue;
        if (!valid || t % anchor == 0) {
            z = apo__linreg_direct_sums(x, p, t);
            valid = 1;
        } else {
            z = apo__linreg_step(z, x, p, t, &k);
        }
        out[t] = apo__canonical_nan(apo__linreg_plain_out(z, &k, what));
    }
    apo__window_keep(r, end, bad, valid);
    r->v[0] = z.s;
    r->v[1] = z.n;
    r->v[2] = z.c;
}

#endif /* APO_KERNELS_LINEARREG_PLAIN_H */
