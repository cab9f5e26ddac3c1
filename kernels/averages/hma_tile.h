/*
 * hma_tile.h: HMA, TA-Lib 0.8's Hull moving average. Input close; one output; parameter
 * timeperiod (20, 1..100000); the lookback is (n - 1) + (s - 1), n the period and
 * s = floor(sqrt(n)).
 *
 * Definition (TA-Lib's, Alan Hull's): with h = floor(n / 2), the de-lagged series
 * `d[u] = 2 * WMA(x, h)[u] - WMA(x, n)[u]` and `HMA[t] = WMA(d, s)[t]`; each WMA weighs its
 * window 1 (oldest) .. k (newest) and divides the sum by `k (k + 1) / 2`. At n = 1 the output is
 * the sample itself (TA-Lib's copy: h would be 0). At n = 2 and 3, h = s = 1 and the output is
 * `2 x[t] - WMA(x, n)[t]`, which the general case gives exactly (a WMA of one sample is the
 * sample).
 *
 * Tiles: each output is evaluated from its own window of lookback + 1 samples, so any grid
 * gives the same bits: the s values of d it needs, each from its two weighted sums in plain
 * double, summed oldest first as TA-Lib's (its running sums in double slide instead, so the
 * two differ by roundings of the window's size: docs/kernels.md). Output by output a bar costs
 * s (n + h) multiply-adds, each value of d computed s times; the CPU's blocks (apo__hma_block)
 * compute each once, n + h + s a bar, where TA-Lib's sliding sums cost a few.
 *
 * Gaps: a window holding a non-finite sample gives NaN.
 */
#ifndef APO_KERNELS_HMA_TILE_H
#define APO_KERNELS_HMA_TILE_H

#include "catalog.h"
#include "tile_vec.h"

/* floor(sqrt(n)), TA-Lib's `(int)sqrt((double)n)`, settled by integer comparisons. */
static inline APO_HD size_t apo__hma_sqrt_period(size_t n) {
    size_t s = (size_t)sqrt((double)n);
    while (s > 0 && s * s > n)
        s--;
    while ((s + 1) * (s + 1) <= n)
        s++;
    return s;
}

static inline APO_HD size_t apo__hma_lookback(size_t n) {
    return n <= 1 ? 0 : (n - 1) + (apo__hma_sqrt_period(n) - 1);
}

/* d[u] = 2 WMA(x, h)[u] - WMA(x, n)[u], both windows clean. */
static inline APO_HD double apo__hma_delagged(const double *x, size_t u, size_t n, size_t h) {
    double full = 0.0, half = 0.0;
    for (size_t i = 1; i <= n; i++)
        full += x[u - n + i] * (double)i;
    for (size_t i = 1; i <= h; i++)
        half += x[u - h + i] * (double)i;
    const double nd = (double)n, hd = (double)h;
    return 2.0 * (half / (hd * (hd + 1.0) / 2.0)) - full / (nd * (nd + 1.0) / 2.0);
}

#ifdef APO_TILE_LANES
/* apo__hma_delagged for the nv vectors of u .. u + nv APO_TILE_LANES - 1 into d, one lane
 * each: the same products added in the same order (apo_tv_rising_sums). */
static inline void apo__hma_delagged_vec(const double *x, size_t u, size_t n, size_t h, size_t nv,
                                         double *d) {
    apo_tv full[APO_TV_CHAINS], half[APO_TV_CHAINS];
    apo_tv_rising_sums(x + u - n + 1, n, nv, full);
    apo_tv_rising_sums(x + u - h + 1, h, nv, half);
    const double nd = (double)n, hd = (double)h;
    for (size_t c = 0; c < nv; c++)
        apo_tv_store(d + c * APO_TILE_LANES,
                     2.0 * (half[c] / (hd * (hd + 1.0) / 2.0)) - full[c] / (nd * (nd + 1.0) / 2.0));
}

/* The most outputs of a block (apo__hma_block), and the longest s it takes: s of TA-Lib's
 * largest period, floor(sqrt(100000)). */
#define APO_HMA_BLOCK 256
#define APO_HMA_SQRT_MAX 316

/* The end of the block of outputs from t: up to APO_HMA_BLOCK bars while the samples are
 * finite (the windows before t being clean, the caller's test). */
static inline size_t apo__hma_block_end(const double *x, size_t t, size_t end) {
    const size_t most = end - t < APO_HMA_BLOCK ? end : t + APO_HMA_BLOCK;
    size_t e = t;
    while (e < most && isfinite(x[e]))
        e++;
    return e;
}

/* The outputs t .. e - 1, whose windows hold no gap: each d[u] they read is computed once
 * (the loop computes each s times, once for each output that reads it), vector lanes of
 * consecutive u, then each output's weighted sum of its s values, lanes of consecutive
 * outputs. d[u] is a function of u's window alone and each sum takes the loop's products in
 * its order, so the bits are the loop's. */
static inline void apo__hma_block(const double *x, double *out, size_t t, size_t e, size_t n,
                                  size_t h, size_t s, double divider) {
    double d[APO_HMA_BLOCK + APO_HMA_SQRT_MAX]; /* d[q]: d at u = first + q */
    const size_t first = t + 1 - s, m = e - first;
    size_t q = 0;
    const size_t group = APO_TV_CHAINS * APO_TILE_LANES;
    for (; q + group <= m; q += group)
        apo__hma_delagged_vec(x, first + q, n, h, APO_TV_CHAINS, d + q);
    for (; q + APO_TILE_LANES <= m; q += APO_TILE_LANES)
        apo__hma_delagged_vec(x, first + q, n, h, 1, d + q);
    for (; q < m; q++)
        d[q] = apo__hma_delagged(x, first + q, n, h);
    size_t k = 0;
    apo_tv sum[APO_TV_CHAINS];
    for (; k + group <= e - t; k += group) {
        apo_tv_rising_sums(d + k, s, APO_TV_CHAINS, sum);
        for (size_t c = 0; c < APO_TV_CHAINS; c++)
            apo_tv_store(out + t + k + c * APO_TILE_LANES, sum[c] / divider);
    }
    for (; k + APO_TILE_LANES <= e - t; k += APO_TILE_LANES) {
        apo_tv_rising_sums(d + k, s, 1, sum);
        apo_tv_store(out + t + k, sum[0] / divider);
    }
    for (; k < e - t; k++) {
        double sum = 0.0;
        for (size_t j = 1; j <= s; j++)
            sum += d[k + j - 1] * (double)j;
        out[t + k] = sum / divider;
    }
}
#endif

static inline APO_HD void apo__hma_tile(const apo__cat_io *io, size_t begin, size_t end) {
    const double *x = io->in[0];
    double *out = io->out[0];
    const size_t n = (size_t)io->p[0];
    if (n <= 1) {
        for (size_t t = begin; t < end; t++)
            out[t] = isfinite(x[t]) ? x[t] : NAN;
        return;
    }
    const size_t h = n / 2, s = apo__hma_sqrt_period(n), lookback = apo__hma_lookback(n);
    const double sd = (double)s, divider = sd * (sd + 1.0) / 2.0;
    /* One past the last non-finite sample seen, so a window's gap test is one comparison. */
    size_t gap_end = 0;
    for (size_t t = begin >= lookback ? begin - lookback : 0; t < begin; t++)
        if (!isfinite(x[t]))
            gap_end = t + 1;
    for (size_t t = begin; t < end; t++) {
#ifdef APO_TILE_LANES
        /* Bars whose windows hold no gap, in blocks; a bar with a gap, or before the lookback,
         * takes the loop below. */
        if (t >= lookback && gap_end <= t - lookback && s <= APO_HMA_SQRT_MAX) {
            const size_t e = apo__hma_block_end(x, t, end);
            if (e > t) {
                apo__hma_block(x, out, t, e, n, h, s, divider);
                t = e - 1;
                continue;
            }
        }
#endif
        if (!isfinite(x[t]))
            gap_end = t + 1;
        if (t < lookback || gap_end > t - lookback) {
            out[t] = NAN;
            continue;
        }
        double sum = 0.0;
        for (size_t j = 1; j <= s; j++)
            sum += apo__hma_delagged(x, t - s + j, n, h) * (double)j;
        out[t] = sum / divider;
    }
}

#endif /* APO_KERNELS_HMA_TILE_H */
