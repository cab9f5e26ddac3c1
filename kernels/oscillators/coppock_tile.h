/*
 * coppock_tile.h: COPPOCK(wmaperiod, roc1period, roc2period), TA-Lib 0.8's Coppock curve: the
 * weighted moving average over w bars (weights 1, oldest, to w, newest, divided by
 * w (w + 1) / 2) of S[j] = R(j, r1) + R(j, r2), the sum of two rates of change,
 * R(j, r) = `(x[j] / x[j-r] - 1) * 100`, 0 where x[j-r] is 0 (roc's rule). Input close;
 * lookback max(r1, r2) + w - 1.
 *
 * Each output evaluates its w values of S (on the CPU computed once a bar: apo__coppock_block)
 * and their weighted sum in index order afresh (TA-Lib slides the weighted sums in double and
 * re-anchors them every 8 w bars): a function of its bars alone, so tiles join and a stream
 * keeps its position. At w = 1 the output is S itself.
 * Gaps: NaN where a close the output reads (x[j], x[j-r1], x[j-r2] for its w bars j) is not
 * finite.
 */
#ifndef APO_KERNELS_COPPOCK_TILE_H
#define APO_KERNELS_COPPOCK_TILE_H

#include "catalog.h"
#include "tile_vec.h"

/* roc's rate of change of x[j] over r bars (0 where x[j-r] is 0). */
static inline APO_HD double apo__coppock_rate(const double *x, size_t j, size_t r) {
    const double base = x[j - r];
    return base != 0.0 ? (x[j] / base - 1.0) * 100.0 : 0.0;
}

#ifdef APO_TILE_LANES
/* apo__coppock_rate lane for lane, x[j] loaded from x + j: the 0 of a zero base as a select. */
static inline apo_tv apo__coppock_rate_vec(const double *x, size_t j, size_t r) {
    const apo_tv base = apo_tv_load(x + j - r);
    return apo_tv_pick(base != 0.0, (apo_tv_load(x + j) / base - 1.0) * 100.0, apo_tv_splat(0.0));
}
#endif

#ifdef APO_TILE_LANES
/* The most outputs of a block (apo__coppock_block) and the longest w it takes: two rows of
 * (256 + 512) doubles, 12 KiB of stack. */
#define APO_COPPOCK_BLOCK 256
#define APO_COPPOCK_MAX_W 512

/* The outputs t .. e - 1 (t at or past the lookback, e - t <= APO_COPPOCK_BLOCK,
 * w <= APO_COPPOCK_MAX_W): each bar's S computed once, in lanes of consecutive bars (the loop
 * computes each w times, four divisions for every output reading it), with its closes' gap
 * test as a sum, 0 where the three are finite and NaN otherwise, then each output's weighted
 * sum in lanes of consecutive outputs, its products added in the loop's order; the window is
 * clean where its gap sums add up to 0. The bits are the loop's. */
static inline void apo__coppock_block(const double *x, double *out, size_t t, size_t e, size_t w,
                                      size_t r1, size_t r2, double divider) {
    double s[APO_COPPOCK_BLOCK + APO_COPPOCK_MAX_W], g[APO_COPPOCK_BLOCK + APO_COPPOCK_MAX_W];
    const size_t first = t + 1 - w, m = e - first; /* [q]: bar first + q */
    size_t q = 0;
    for (; q + APO_TILE_LANES <= m; q += APO_TILE_LANES) {
        const size_t j = first + q;
        const apo_tv a = apo_tv_load(x + j), b = apo_tv_load(x + j - r1),
                     c = apo_tv_load(x + j - r2);
        apo_tv_store(g + q, (a - a) + (b - b) + (c - c));
        apo_tv_store(s + q, apo__coppock_rate_vec(x, j, r1) + apo__coppock_rate_vec(x, j, r2));
    }
    for (; q < m; q++) {
        const size_t j = first + q;
        g[q] = (x[j] - x[j]) + (x[j - r1] - x[j - r1]) + (x[j - r2] - x[j - r2]);
        s[q] = apo__coppock_rate(x, j, r1) + apo__coppock_rate(x, j, r2);
    }
    size_t k = 0;
    for (; k + APO_TILE_LANES <= e - t; k += APO_TILE_LANES) {
        apo_tv sum = apo_tv_splat(0.0), gaps = apo_tv_splat(0.0);
        for (size_t i = 1; i <= w; i++) {
            sum = sum + (double)i * apo_tv_load(s + k + i - 1);
            gaps = gaps + apo_tv_load(g + k + i - 1);
        }
        const apo_tv value = w == 1 ? apo_tv_load(s + k) : sum / divider;
        apo_tv_store(out + t + k, apo_tv_or_nan(gaps == 0.0, value));
    }
    for (; k < e - t; k++) {
        double sum = 0.0, gaps = 0.0;
        for (size_t i = 1; i <= w; i++) {
            sum = sum + (double)i * s[k + i - 1];
            gaps = gaps + g[k + i - 1];
        }
        out[t + k] = gaps != 0.0 ? (double)NAN : w == 1 ? s[k] : sum / divider;
    }
}
#endif

static inline APO_HD void apo__coppock_tile(const apo__cat_io *io, size_t begin, size_t end) {
    const double *x = io->in[0];
    double *out = io->out[0];
    const size_t w = (size_t)io->p[0], r1 = (size_t)io->p[1], r2 = (size_t)io->p[2];
    const size_t lookback = (r1 > r2 ? r1 : r2) + w - 1;
    const double divider = (double)w * ((double)w + 1.0) / 2.0;
    size_t t = apo__cat_nan_lead(out, begin, end, lookback);
#ifdef APO_TILE_LANES
    /* Blocks of outputs whose S values are computed once (apo__coppock_block). */
    for (; t < end && w <= APO_COPPOCK_MAX_W;) {
        const size_t e = end - t < APO_COPPOCK_BLOCK ? end : t + APO_COPPOCK_BLOCK;
        apo__coppock_block(x, out, t, e, w, r1, r2, divider);
        t = e;
    }
    /* Windows past the blocks' bound: the loop below for APO_TILE_LANES bars at a time, one lane
     * each: the same rates and products added in the same order, its choices as selects. */
    for (; end - t >= APO_TILE_LANES; t += APO_TILE_LANES) {
        apo_tv sum = apo_tv_splat(0.0), s = apo_tv_splat(0.0);
        apo_tm clean = apo_tv_splat(0.0) == 0.0;
        for (size_t i = 1; i <= w; i++) {
            const size_t j = t + i - w;
            const apo_tv a = apo_tv_load(x + j), b = apo_tv_load(x + j - r1),
                         c = apo_tv_load(x + j - r2);
            clean &= apo_tv_finite(a) & apo_tv_finite(b) & apo_tv_finite(c);
            s = apo__coppock_rate_vec(x, j, r1) + apo__coppock_rate_vec(x, j, r2);
            sum = sum + (double)i * s;
        }
        const apo_tv value = w == 1 ? s : sum / divider;
        apo_tv_store(out + t, apo_tv_or_nan(clean, value));
    }
#endif
    for (; t < end; t++) {
        double sum = 0.0, s = 0.0;
        int clean = 1;
        for (size_t i = 1; i <= w; i++) {
            const size_t j = t + i - w;
            clean &= apo__finite(x[j]) & apo__finite(x[j - r1]) & apo__finite(x[j - r2]);
            s = apo__coppock_rate(x, j, r1) + apo__coppock_rate(x, j, r2);
            sum = sum + (double)i * s;
        }
        out[t] = !clean ? (double)NAN : w == 1 ? s : sum / divider;
    }
}

#endif /* APO_KERNELS_COPPOCK_TILE_H */
