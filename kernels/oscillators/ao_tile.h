/*
 * ao_tile.h: AO(fastperiod, slowperiod) and AC(fastperiod, slowperiod, signalperiod), TA-Lib
 * 0.8's Awesome and Accelerator oscillators (Bill Williams). With m = (high + low) / 2, the
 * median price:
 *
 *   AO[t] = SMA(m, fast)[t] - SMA(m, slow)[t]        lookback max(fast, slow) - 1
 *   AC[t] = AO[t] - SMA(AO, signal)[t]               lookback that + signal - 1
 *
 * The periods are taken as given (TA-Lib does not swap them: fast > slow gives -AO). Inputs
 * high, low.
 *
 * Each output is evaluated from its own bars: an average is its window's sum of median
 * prices in index order divided by its period (as TA-Lib divides), evaluated afresh where
 * TA-Lib slides running sums in double. AC's signal average is the mean of the s AO values
 * ending at t, each AO's own output bit for bit (its two windows summed afresh), summed oldest
 * first and divided by s: AC is AO less the SMA of AO's outputs, exactly as the two kernels'
 * outputs would give it. On the CPU a block of outputs computes each AO value it reads once
 * (apo__ao_values), so a bar costs one AO (fast + slow additions, two divisions) and s
 * additions and a division; the scalar loop (a GPU, the bars past the blocks' bounds)
 * computes the s values of each output again. (Until 2026-12-01 the s - 1 later values were
 * slid from the first one's sums, eleven divisions a bar at the defaults, and the bits were
 * not AO's.) Every output is a function of its bars alone: tiles join, and a stream keeps its
 * position. Gaps: NaN where a high or a low the output reads is not finite (its sums are then
 * not finite, which is the test).
 */
#ifndef APO_KERNELS_AO_TILE_H
#define APO_KERNELS_AO_TILE_H

#include "catalog.h"
#include "tile_vec.h"

/* The median price of bar i, TA-Lib's (high + low) / 2. */
static inline APO_HD double apo__median_price(const double *high, const double *low, size_t i) {
    return (high[i] + low[i]) / 2.0;
}

/* The sum of the median prices of the p bars ending at t, in index order. */
static inline APO_HD double apo__median_sum(const double *high, const double *low, size_t t,
                                            size_t p) {
    double sum = 0.0;
    for (size_t i = t + 1 - p; i <= t; i++)
        sum = sum + apo__median_price(high, low, i);
    return sum;
}

/* AO at bar t (t at or past its lookback), before the gap test: its windows summed afresh. */
static inline APO_HD double apo__ao_at(const double *high, const double *low, size_t t, size_t fast,
                                       size_t slow) {
    return apo__median_sum(high, low, t, fast) / (double)fast -
           apo__median_sum(high, low, t, slow) / (double)slow;
}

/* AC at bar t (t at or past its lookback), before the gap test: AO at t less the mean of the
 * signal AO values ending at t, summed oldest first. */
static inline APO_HD double apo__ac_at(const double *high, const double *low, size_t t, size_t fast,
                                       size_t slow, size_t signal) {
    double ao = apo__ao_at(high, low, t + 1 - signal, fast, slow), sum = ao;
    for (size_t u = t + 2 - signal; u <= t; u++) {
        ao = apo__ao_at(high, low, u, fast, slow);
        sum = sum + ao;
    }
    return ao - sum / (double)signal;
}

#ifdef APO_TILE_LANES
/* apo__median_sum for the bars t .. t + APO_TILE_LANES - 1, one lane each: the same additions
 * of the same median prices in the same order. */
static inline apo_tv apo__median_sum_vec(const double *high, const double *low, size_t t,
                                         size_t p) {
    apo_tv sum = apo_tv_splat(0.0);
    for (size_t i = t + 1 - p; i <= t; i++)
        sum = sum + (apo_tv_load(high + i) + apo_tv_load(low + i)) / 2.0;
    return sum;
}

#endif

#ifdef APO_TILE_LANES
/* The most outputs of a block (apo__ao_block, apo__ac_block) and the longest period (and AC's
 * signal) it takes: a row of up to 256 + 2 x 512 median prices, 10 KiB of stack. */
#define APO_AO_BLOCK 256
#define APO_AO_MAX_P 512

/* The sums of m[k .. k + p) for the 4 APO_TILE_LANES windows k = 0 .. 4 APO_TILE_LANES - 1,
 * each adding its terms in index order from 0, four vectors of windows at a time: four chains
 * of adds in flight, where one vector's chain waits p times on the adder's latency. */
static inline void apo__ao_sums4(const double *m, size_t p, apo_tv *s) {
    apo_tv a = apo_tv_splat(0.0), b = a, c = a, d = a;
    for (size_t j = 0; j < p; j++) {
        a = a + apo_tv_load(m + j);
        b = b + apo_tv_load(m + APO_TILE_LANES + j);
        c = c + apo_tv_load(m + 2 * APO_TILE_LANES + j);
        d = d + apo_tv_load(m + 3 * APO_TILE_LANES + j);
    }
    s[0] = a;
    s[1] = b;
    s[2] = c;
    s[3] = d;
}

/* m[q] = the median price of bar first + q, for q < n: a block's row (apo__ao_block,
 * apo__ac_block). */
static inline void apo__median_row(const double *high, const double *low, size_t first, size_t n,
                                   double *m) {
    for (size_t q = 0; q < n; q++)
        m[q] = (high[first + q] + low[first + q]) / 2.0;
}

/* The sums of the fast and slow windows of a row's median prices that start at mf and ms, each
 * in index order from 0: the scalar form of apo__ao_sums4's. */
static inline void apo__ao_row_sums(const double *mf, const double *ms, size_t fast, size_t slow,
                                    double *f, double *s) {
    double a = 0.0, b = 0.0;
    for (size_t j = 0; j < fast; j++)
        a = a + mf[j];
    for (size_t j = 0; j < slow; j++)
        b = b + ms[j];
    *f = a;
    *s = b;
}

/* AO's values at bars t .. e - 1 (t at or past its lookback, e - t <= APO_AO_BLOCK +
 * APO_AO_MAX_P, both periods up to APO_AO_MAX_P) into v[0 .. e - t), with the gap test where
 * `outputs` (AO's own outputs) or without (the values AC reads): each bar's median price
 * computed once into a row (the loop computes it once for each window holding it), then the
 * two window sums of each value, four vectors of values at a time, each lane adding its
 * window's median prices in index order from 0, as apo__ao_at does: the same bits. */
static inline void apo__ao_values(const double *high, const double *low, size_t t, size_t e,
                                  size_t fast, size_t slow, int outputs, double *v) {
    double m[APO_AO_BLOCK + 2 * APO_AO_MAX_P]; /* m[q]: bar first + q */
    const size_t longer = fast > slow ? fast : slow, first = t + 1 - longer;
    apo__median_row(high, low, first, e - first, m);
    const double *mf = m + (longer - fast), *ms = m + (longer - slow); /* bar t's windows */
    size_t k = 0;
    for (; k + 4 * APO_TILE_LANES <= e - t; k += 4 * APO_TILE_LANES) {
        apo_tv f[4], s[4];
        apo__ao_sums4(mf + k, fast, f);
        apo__ao_sums4(ms + k, slow, s);
        for (int g = 0; g < 4; g++) {
            const apo_tv ao = f[g] / (double)fast - s[g] / (double)slow;
            apo_tv_store(v + k + (size_t)g * APO_TILE_LANES,
                         outputs ? apo_tv_or_nan(apo_tv_finite(ao), ao) : ao);
        }
    }
    for (; k < e - t; k++) {
        double f, s;
        apo__ao_row_sums(mf + k, ms + k, fast, slow, &f, &s);
        const double ao = f / (double)fast - s / (double)slow;
        v[k] = outputs && !isfinite(ao) ? (double)NAN : ao;
    }
}

/* AO's outputs t .. e - 1 (e - t <= APO_AO_BLOCK). */
static inline void apo__ao_block(const double *high, const double *low, double *out, size_t t,
                                 size_t e, size_t fast, size_t slow) {
    apo__ao_values(high, low, t, e, fast, slow, 1, out + t);
}

/* AC's outputs t .. e - 1 (t at or past the lookback, e - t <= APO_AO_BLOCK, the periods and
 * signal up to APO_AO_MAX_P): the AO values they read, bars t + 1 - signal .. e - 1, computed
 * once (apo__ao_values), then each output's mean of its signal values, summed oldest first,
 * vectors of consecutive outputs side by side: apo__ac_at's operations in its order, the same
 * bits. */
static inline void apo__ac_block(const double *high, const double *low, double *out, size_t t,
                                 size_t e, size_t fast, size_t slow, size_t signal) {
    double v[APO_AO_BLOCK + APO_AO_MAX_P]; /* v[q]: AO at bar t + 1 - signal + q */
    apo__ao_values(high, low, t + 1 - signal, e, fast, slow, 0, v);
    size_t k = 0;
    for (; k + APO_TILE_LANES <= e - t; k += APO_TILE_LANES) {
        apo_tv ao = apo_tv_load(v + k), sum = ao;
        for (size_t j = 1; j < signal; j++) {
            ao = apo_tv_load(v + k + j);
            sum = sum + ao;
        }
        const apo_tv ac = ao - sum / (double)signal;
        apo_tv_store(out + t + k, apo_tv_or_nan(apo_tv_finite(ac), ac));
    }
    for (; k < e - t; k++) {
        double ao = v[k], sum = ao;
        for (size_t j = 1; j < signal; j++) {
            ao = v[k + j];
            sum = sum + ao;
        }
        const double ac = ao - sum / (double)signal;
        out[t + k] = isfinite(ac) ? ac : (double)NAN;
    }
}
#endif

static inline APO_HD void apo__ao_tile(const apo__cat_io *io, size_t begin, size_t end) {
    const double *high = io->in[0], *low = io->in[1];
    double *out = io->out[0];
    const size_t fast = (size_t)io->p[0], slow = (size_t)io->p[1];
    const size_t longer = fast > slow ? fast : slow;
    size_t t = apo__cat_nan_lead(out, begin, end, longer - 1);
#ifdef APO_TILE_LANES
    /* Blocks of outputs whose median prices are computed once (apo__ao_block). */
    for (; t < end && longer <= APO_AO_MAX_P;) {
        const size_t e = end - t < APO_AO_BLOCK ? end : t + APO_AO_BLOCK;
        apo__ao_block(high, low, out, t, e, fast, slow);
        t = e;
    }
    /* Windows past the blocks' bound: four bars at a time, one lane each. */
    for (; end - t >= APO_TILE_LANES; t += APO_TILE_LANES) {
        const apo_tv f = apo__median_sum_vec(high, low, t, fast),
                     s = apo__median_sum_vec(high, low, t, slow);
        const apo_tv ao = f / (double)fast - s / (double)slow;
        apo_tv_store(out + t, apo_tv_or_nan(apo_tv_finite(ao), ao));
    }
#endif
    for (; t < end; t++) {
        const double ao = apo__ao_at(high, low, t, fast, slow);
        out[t] = isfinite(ao) ? ao : (double)NAN;
    }
}

static inline APO_HD void apo__ac_tile(const apo__cat_io *io, size_t begin, size_t end) {
    const double *high = io->in[0], *low = io->in[1];
    double *out = io->out[0];
    const size_t fast = (size_t)io->p[0], slow = (size_t)io->p[1], signal = (size_t)io->p[2];
    const size_t longer = fast > slow ? fast : slow;
    const size_t lookback = longer - 1 + signal - 1;
    size_t t = apo__cat_nan_lead(out, begin, end, lookback);
#ifdef APO_TILE_LANES
    /* Blocks of outputs whose AO values are computed once (apo__ac_block). */
    for (; t < end && longer <= APO_AO_MAX_P && signal <= APO_AO_MAX_P;) {
        const size_t e = end - t < APO_AO_BLOCK ? end : t + APO_AO_BLOCK;
        apo__ac_block(high, low, out, t, e, fast, slow, signal);
        t = e;
    }
#endif
    for (; t < end; t++) {
        const double ac = apo__ac_at(high, low, t, fast, slow, signal);
        out[t] = isfinite(ac) ? ac : (double)NAN;
    }
}

#endif /* APO_KERNELS_AO_TILE_H */
