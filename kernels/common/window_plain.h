/*
 * window_plain.h: the window sum S and weighted sum W (weights 1 oldest .. p newest) of short
 * windows, slid in plain double between anchors, for sma and wma up to APO_PLAIN_MAX.
 *
 * Why plain: TA-Lib slides these sums in double from the series' first window on, so its
 * error grows with the series; the double-doubles of window_sum.h bound it at an ulp but put
 * TwoSums on every step, and cost about twice TA-Lib's time. Here each sum is evaluated
 * directly at every anchor, a bar that is a multiple of the anchors' spacing A
 * (apo__plain_anchor: 64 up to period 64, then 128, 256 and 512), and at the first clean
 * window after a tile's start or a gap, and slid from there for at most A - 1 steps:
 * S' = S + (x_new - x_old), W' = W + (p x_new - S), S the sum before the step. A direct sum
 * gathers the window in the eight partials of partials.h (in vector lanes on the CPU, one by
 * one on a GPU: the same bits), within (p / 8 + 4) eps of its terms' moduli, where one sum in
 * index order reached p eps. The error of S stays below about (A + p / 8 + 4) eps p max|x| (the
 * steps' and the direct sum's) and that of W below about (A^2 / 2) eps p max|x| +
 * (A + p / 8 + 4) eps |W|: over the weights' sum p (p + 1) / 2, below A^2 eps / (p + 1) +
 * (A + p / 8 + 4) eps of the window's largest sample (with A = 64, 1.6e-13 at p = 2, 2.3e-14 at
 * 30; with 128, 4.3e-14 at 65; with 256, 8.7e-14 at 129; with 512, 1.7e-13 at 257, 1.0e-13 at
 * 1024 and 1.2e-13 at 4096), and the mean's below (A + p / 8 + 4) eps; measured far lower
 * (docs/kernels.md, "Accuracy"). The direct evaluations cost p additions (and p products for W)
 * per anchor, p / A operations a bar, eight to a vector step.

 * The anchors sit at fixed indices and the other restarts at a tile's start and after a gap,
 * as the double-doubles' do, so the outputs are a pure function of the tile grid, and a
 * stream that runs the same steps from the state (apo__cat_run) gets the same bits.
 *
 * Speed: a slide step's serial chain is one add per sum. Whole blocks between anchors are
 * independent of each other (each starts from its own direct sums), so APO_PLAIN_LANES of
 * them advance side by side in one loop, where one chain alone would wait on the add's
 * latency. Each output is its sum times the reciprocal of the divisor (one product, where a
 * division per bar is what bounds TA-Lib's loops); each bar performs the same operations in
 * the same order whichever loop runs it, so the bits do not depend on the loop.
 */
#ifndef APO_KERNELS_WINDOW_PLAIN_H
#define APO_KERNELS_WINDOW_PLAIN_H

#include "catalog.h"
#include "partials.h"
#include "tile_vec.h"
#include "window.h"
#include "window_sum.h"

/* The longest window slid plain; longer ones keep the double-doubles (window_sum.h). The
 * direct sums in index order stopped the plain slides at 1024, where they cost more than the
 * double-doubles' slide; in partials they run eight to a vector step, and at 4096 (8
 * samples a bar) wma still ran at 0.5 to 0.8 of TA-Lib's speed where the double-doubles ran at
 * 0.13 to 0.32 (docs/perf-log/2026-11-25-catalog-round-7.md, "sma and wma: anchors summed in
 * partials, plain slides up to 4096"). */
#define APO_PLAIN_MAX 4096
/* Anchors: the bars where the sums are evaluated directly whatever the state: every 64 bars up
 * to period 64, every 128 up to 128, every 256 up to APO_PLAIN_NEAR_MAX and every 512 past it.
 * A direct sum costs p / anchor operations a bar: with anchors 64 apart, wma ran at 0.8 of
 * TA-Lib's speed at period 200 and 0.7 at 256, and sma and wma at 500 at 0.56 and 0.39; with
 * these spacings, 1.0 to 1.3 (docs/perf-log/2026-11-25-catalog-round-7.md, "sma and wma: anchors
 * 512 apart" and "sma and wma: anchors up to twice the period apart"). The slide's error grows with
 * the spacing A, to (A + p / 8 + 4) eps for S and A^2 eps / (p + 1) + (A + p / 8 + 4) eps for W of
 * the window's largest sample: at most 1.7e-13 from p = 257 to 4096 (A = 512), 8.7e-14 from 129 to
 * 256 (256) and 4.3e-14 from 65 to 128 (128). Below 65 the A^2 / (p + 1) term keeps A at 64 (with
 * 128 it would reach 6e-13 at p = 2). */
#define APO_PLAIN_NEAR_MAX 256
#define APO_PLAIN_ANCHOR_NEAR 64
#define APO_PLAIN_ANCHOR_MID 128
#define APO_PLAIN_ANCHOR_WIDE 256
#define APO_PLAIN_ANCHOR_FAR 512
/* Blocks between anchors advanced side by side. */
#define APO_PLAIN_LANES 4

/* The anchors' spacing for period p. */
static inline APO_HD size_t apo__plain_anchor(size_t p) {
    return p <= APO_PLAIN_ANCHOR_NEAR  ? APO_PLAIN_ANCHOR_NEAR
           : p <= APO_PLAIN_ANCHOR_MID ? APO_PLAIN_ANCHOR_MID
           : p <= APO_PLAIN_NEAR_MAX   ? APO_PLAIN_ANCHOR_WIDE
                                       : APO_PLAIN_ANCHOR_FAR;
}

/* A window's plain sum S and weighted sum W (W unused by sma). */
typedef struct apo__plain_sums {
    double s, w;
} apo__plain_sums;

/* The sums of the window w[0 .. p - 1] (w[0] the oldest, weight 1) in the partials of
 * partials.h, one by one. The weights are exact in double. */
static inline APO_HD apo__plain_sums apo__plain_parts_scalar(const double *w, size_t p,
                                                             int weighted) {
    const size_t r = p % APO_PARTS;
    double s[APO_PARTS], q[APO_PARTS];
    for (size_t l = 0; l < APO_PARTS; l++)
        s[l] = q[l] = 0.0;
    for (size_t l = 0; l < r; l++) {
        s[l] += w[l];
        q[l] += (double)(l + 1) * w[l];
    }
    for (size_t i = r; i < p; i += APO_PARTS)
        for (size_t l = 0; l < APO_PARTS; l++) {
            s[l] += w[i + l];
            q[l] += (double)(i + l + 1) * w[i + l];
        }
    apo__plain_sums z;
    z.s = apo__parts_combine(s);
    z.w = weighted ? apo__parts_combine(q) : 0.0;
    return z;
}

#ifdef APO_TILE_LANES
/* The same in vector lanes (p >= 8, so the first 8 samples are the window's): each lane
 * performs what the scalar loop does for its partial, a lane past r of the first 8 samples
 * adding +0 (and +0 times its weight) to 0.0 where the scalar loop adds nothing (the same
 * +0). The lanes' weights advance by 8, exactly. sma's W is left out. */
static inline apo__plain_sums apo__plain_parts_lanes(const double *w, size_t p, int weighted) {
    enum { V = APO_PARTS / APO_TILE_LANES };
    static const int64_t lane_no[APO_PARTS] = {0, 1, 2, 3, 4, 5, 6, 7};
    const size_t r = p % APO_PARTS;
    const apo_tv zero = {0};
    apo_tv as[V], aq[V], wt[V];
    for (size_t v = 0; v < V; v++) {
        apo_tm lane;
        memcpy(&lane, lane_no + v * APO_TILE_LANES, sizeof lane);
        const apo_tm keep = lane < (int64_t)r;
        const apo_tv x0 = (apo_tv)((apo_tm)apo_tv_load(w + v * APO_TILE_LANES) & keep);
        wt[v] = __builtin_convertvector(lane, apo_tv) + 1.0; /* sample l's weight, l + 1 */
        as[v] = zero + x0;
        aq[v] = zero + wt[v] * x0;
        wt[v] += (double)r; /* sample r + l's */
    }
    if (weighted) {
        for (size_t i = r; i < p; i += APO_PARTS)
            for (size_t v = 0; v < V; v++) {
                const apo_tv x = apo_tv_load(w + i + v * APO_TILE_LANES);
                as[v] += x;
                aq[v] += wt[v] * x;
                wt[v] += (double)APO_PARTS;
            }
    } else {
        for (size_t i = r; i < p; i += APO_PARTS)
            for (size_t v = 0; v < V; v++)
                as[v] += apo_tv_load(w + i + v * APO_TILE_LANES);
    }
    double s[APO_PARTS], q[APO_PARTS];
    for (size_t v = 0; v < V; v++) {
        apo_tv_store(s + v * APO_TILE_LANES, as[v]);
        apo_tv_store(q + v * APO_TILE_LANES, aq[v]);
    }
    apo__plain_sums z;
    z.s = apo__parts_combine(s);
    z.w = weighted ? apo__parts_combine(q) : 0.0;
    return z;
}
#endif

/* The sums of the window of p samples ending at t, evaluated directly. */
static inline APO_HD apo__plain_sums apo__plain_direct(const double *x, size_t p, size_t t,
                                                       int weighted) {
#ifdef APO_TILE_LANES
    if (p >= APO_PARTS)
        return apo__plain_parts_lanes(x + t + 1 - p, p, weighted);
#endif
    return apo__plain_parts_scalar(x + t + 1 - p, p, weighted);
}

/* The sums slid from the window ending at t - 1 to the one ending at t. */
static inline APO_HD apo__plain_sums apo__plain_step(apo__plain_sums z, const double *x, double pd,
                                                     size_t p, size_t t, int weighted) {
    const double in = x[t];
    if (weighted)
        z.w = z.w + (pd * in - z.s);
    z.s = z.s + (in - x[t - p]);
    return z;
}

/* The output of a window's sums: the mean (inv = 1 / p) or the weighted average
 * (inv = 2 / (p (p + 1))). */
static inline APO_HD double apo__plain_value(apo__plain_sums z, double inv, int weighted) {
    return (weighted ? z.w : z.s) * inv;
}

/* APO_PLAIN_LANES whole blocks from the anchor a on (anchors `anchor` apart), every window in
 * them clean: each block's sums evaluated at its anchor and slid to its end, the blocks side by
 * side. Returns the last block's sums at its end. (Blocks further apart, each lane running on
 * through several, were no faster, and slower where the lanes' distance is a multiple of 4 KiB,
 * whose loads and stores alias in the caches.) */
static inline APO_HD apo__plain_sums apo__plain_blocks(const double *x, size_t p, size_t a,
                                                       size_t anchor, double inv, int weighted,
                                                       double *out) {
    const double pd = (double)p;
    apo__plain_sums z[APO_PLAIN_LANES];
    for (size_t j = 0; j < APO_PLAIN_LANES; j++)
        z[j] = apo__plain_direct(x, p, a + j * anchor, weighted);
    for (size_t j = 0; j < APO_PLAIN_LANES; j++)
        out[a + j * anchor] = apo__plain_value(z[j], inv, weighted);
    for (size_t k = 1; k < anchor; k++)
        for (size_t j = 0; j < APO_PLAIN_LANES; j++) {
            const size_t t = a + j * anchor + k;
            z[j] = apo__plain_step(z[j], x, pd, p, t, weighted);
            out[t] = apo__plain_value(z[j], inv, weighted);
        }
    return z[APO_PLAIN_LANES - 1];
}

/* Asks the caches for the n samples of each of the n_in inputs and the n outputs from `from`
 * on, which the next blocks read and write, while these are computed: the loop's few
 * operations a bar otherwise wait on memory past the caches (20% of sma's time at a million
 * bars). Each line once. Not on a GPU. */
static inline APO_HD void apo__plain_prefetch_inputs(const double *const *in, size_t n_in,
                                                     double *out, size_t from, size_t n) {
#if defined(__GNUC__) && !defined(__CUDA_ARCH__)
    for (size_t i = 0; i < n; i += 64 / sizeof(double)) {
        for (size_t k = 0; k < n_in; k++)
            __builtin_prefetch(in[k] + from + i, 0);
        __builtin_prefetch(out + from + i, 1);
    }
#else
    (void)in, (void)n_in, (void)out, (void)from, (void)n;
#endif
}

/* The same for one input x (sma, wma, the linear regressions). */
static inline APO_HD void apo__plain_prefetch(const double *x, double *out, size_t from, size_t n) {
    apo__plain_prefetch_inputs(&x, 1, out, from, n);
}

/* The bars t .. e - 1 slid from z, every window clean: returns the sums at e - 1. */
static inline APO_HD apo__plain_sums apo__plain_slide(const double *x, size_t p, size_t t, size_t e,
                                                      apo__plain_sums z, double inv, int weighted,
                                                      double *out) {
    const double pd = (double)p;
    for (; t < e; t++) {
        z = apo__plain_step(z, x, pd, p, t, weighted);
        out[t] = apo__plain_value(z, inv, weighted);
    }
    return z;
}

/* The loop from r->t to end of a body sliding plain (apo__cat_run: n[0] one past the last
 * gap, n[1] whether v[0] (S) and v[1] (W) are the last window's), outputs into out: each the
 * sum times inv (1 for SUM, transforms/sum_tile.h, whose product is then the sum itself). */
static inline APO_HD void apo__plain_run_scaled(const double *x, size_t p, int weighted, double inv,
                                                size_t end, double *out, apo__cat_run *r) {
    const double pd = (double)p;
    size_t bad = r->n[0];
    int valid = r->n[1] != 0;
    apo__plain_sums z = {r->v[0], r->v[1]};
    const size_t anchor = apo__plain_anchor(p);
    const size_t span = APO_PLAIN_LANES * anchor;
    size_t plain_until = 0; /* the bars before it take the per-bar step (a gap is near) */
    for (size_t t = r->t; t < end; t++) {
        if (t >= plain_until && t % anchor == 0 && t + 1 >= p && end - t >= span) {
            /* Whole blocks side by side, when their windows are all clean. */
            if (apo__block_finite(x, t + 1 - p, t + span)) {
                if (end - t >= 2 * span)
                    apo__plain_prefetch(x, out, t + span, span);
                /* The spacing a constant in each call, so that its loops unroll as before. */
                if (anchor == APO_PLAIN_ANCHOR_NEAR)
                    z = apo__plain_blocks(x, p, t, APO_PLAIN_ANCHOR_NEAR, inv, weighted, out);
                else if (anchor == APO_PLAIN_ANCHOR_MID)
                    z = apo__plain_blocks(x, p, t, APO_PLAIN_ANCHOR_MID, inv, weighted, out);
                else if (anchor == APO_PLAIN_ANCHOR_WIDE)
                    z = apo__plain_blocks(x, p, t, APO_PLAIN_ANCHOR_WIDE, inv, weighted, out);
                else
                    z = apo__plain_blocks(x, p, t, APO_PLAIN_ANCHOR_FAR, inv, weighted, out);
                valid = 1;
                t += span - 1;
                continue;
            }
            plain_until = t + span;
        }
        if (t >= plain_until && valid && t % anchor != 0) {
            /* The rest of the block, slid without a test per bar, when its samples are clean
             * (the window before t was). */
            const size_t next = t + (anchor - t % anchor);
            const size_t e = next < end ? next : end;
            if (apo__block_finite(x, t, e)) {
                z = apo__plain_slide(x, p, t, e, z, inv, weighted, out);
                t = e - 1;
                continue;
            }
            plain_until = e;
        }
        if (!apo__window_step(isfinite(x[t]), out, t, p, &bad, &valid))
            continue;
        if (!valid || t % anchor == 0) {
            z = apo__plain_direct(x, p, t, weighted);
            valid = 1;
        } else {
            z = apo__plain_step(z, x, pd, p, t, weighted);
        }
        out[t] = apo__plain_value(z, inv, weighted);
    }
    apo__window_keep(r, end, bad, valid);
    r->v[0] = z.s;
    r->v[1] = z.w;
}

/* apo__plain_run_scaled of the mean (inv = 1 / p) or the weighted average
 * (inv = 2 / (p (p + 1))). */
static inline APO_HD void apo__plain_run(const double *x, size_t p, int weighted, size_t end,
                                         double *out, apo__cat_run *r) {
    const double pd = (double)p;
    apo__plain_run_scaled(x, p, weighted, weighted ? 2.0 / (pd * (pd + 1.0)) : 1.0 / pd, end, out,
                          r);
}

#endif /* APO_KERNELS_WINDOW_PLAIN_H */
