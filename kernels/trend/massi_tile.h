/*
 * massi_tile.h: MASSI, TA-Lib 0.8's mass index (Dorsey). Inputs high, low; one output;
 * parameters fastperiod (9, 2..100000) and slowperiod (25, 2..100000); the lookback is
 * 2 (fastperiod - 1) + (slowperiod - 1), TA-Lib's.
 *
 * Definition (TA-Lib's): the range `hl = high - low`; e1 its EMA(f), e2 the EMA(f) of e1, each
 * seeded with the mean of its first f inputs (so e1 at bar f - 1, e2 at 2 (f - 1)), then
 * `e = beta e + k hl` with TA-Lib's constants `beta = (f - 1) / (f + 1)`, `k = 1 - beta`,
 * `beta = 1 - k`; the ratio e1 / e2 (1 where e2 is exactly 0, the flat market's limit); the
 * output the sum of the s ratios ending at t. TA-Lib fuses the EMA step (fma), which tile bodies
 * do not (apo_hd.h): a few ulps apart.
 *
 * Tiles: the recurrences re-run from `begin - halo` (halo: the lookback and three decays of the
 * EMA, dema's rule for a chain of two, so that a restarted e1 and then e2 forget their fresh seeds
 * to 2^-64: rsi's design). The window's sum is a double-double slid as window_sum.h slides
 * (apo__dd_slide: each ratio in, and out s bars later, one plain add a bar on the sum's chain,
 * the exact errors gathered beside it and folded at fixed bars; 0 in and out for a bar
 * without a ratio), so it does not drift along the tile. The ratio leaving is the one the
 * recurrences gave s bars before: on the CPU, for s up to APO_MASSI_RING, kept in a ring
 * (apo__massi_blocks); otherwise, and on the GPU, computed again by a second copy of the
 * recurrences running s bars behind from the same start, the same bits.
 *
 * Gaps (rsi's rule for the EMAs, the window's for the sum): a bar whose high or low is not finite
 * gives NaN, moves neither EMA and adds no ratio; an output whose s bars hold such a bar is NaN.
 * A ratio that overflows (e2 below e1 by more than the doubles' range) is taken as such a bar.
 */
#ifndef APO_KERNELS_MASSI_TILE_H
#define APO_KERNELS_MASSI_TILE_H

#include "catalog.h"
#include "window_sum.h"

/* The two EMAs of one copy of the recurrences: clean bars seen, their seeds' sums. */
typedef struct apo__massi_emas {
    double e1, e2, sum1, sum2;
    size_t seen;
} apo__massi_emas;

/* One bar into the EMAs; returns its ratio, or NaN before e2 has its seed or at a gap. A
 * high or low that is not finite makes hl not finite, so one test covers the three. */
static APO_HD_STEP APO_HD double apo__massi_step(apo__massi_emas *m, double high, double low,
                                                 size_t f, double beta, double k) {
    const double hl = high - low;
    if (!isfinite(hl))
        return NAN;
    const size_t n = m->seen++;
    if (n >= 2 * f - 1) {
        /* Both seeded: the steady step, on every bar after the warm-up. */
        m->e1 = beta * m->e1 + k * hl;
        m->e2 = beta * m->e2 + k * m->e1;
        return m->e2 == 0.0 ? 1.0 : m->e1 / m->e2;
    }
    if (n < f) {
        m->sum1 += hl;
        if (n == f - 1)
            m->e1 = m->sum1 / (double)f;
    } else {
        m->e1 = beta * m->e1 + k * hl;
    }
    if (n < f - 1)
        return NAN;
    const size_t n2 = n - (f - 1);
    m->sum2 += m->e1;
    if (n2 == f - 1)
        m->e2 = m->sum2 / (double)f;
    if (n2 < f - 1)
        return NAN;
    return m->e2 == 0.0 ? 1.0 : m->e1 / m->e2;
}

/* The longest window whose ratios a CPU tile keeps, in a stack ring of 16 KiB, in place of
 * the second copy of the recurrences (apo__massi_blocks); a GPU thread keeps no such memory. */
#ifndef __CUDA_ARCH__
#define APO_MASSI_RING 2048
#endif

/* A tile's loop from bar w0 (apo__massi_tile), in one of two forms with the same operations
 * bar for bar, so the same bits. */
typedef struct apo__massi_loop {
    const double *high, *low;
    double *out;
    size_t f, s, w0, begin, end;
    double beta, k;
} apo__massi_loop;

#ifdef APO_MASSI_RING
/* The CPU's form for s <= APO_MASSI_RING, in blocks (window_sum.h, "Blocked slides"): one
 * loop runs the recurrences bar by bar, keeps each ratio in the ring until it leaves the
 * window, forms the slide's terms and runs the chain of the sum's hi; then the TwoSum errors
 * (a loop that vectorises) and the chain of lo (apo__dd_block_lo_passes); then the outputs.
 * The bar-by-bar loop of apo__massi_tile runs the same operations in another order, where
 * the division, the TwoSums and the selects of one bar wait on each other's latencies. */
static inline void apo__massi_blocks(const apo__massi_loop *m) {
    double ring[APO_MASSI_RING];
    apo__massi_emas lead = {0.0, 0.0, 0.0, 0.0, 0};
    apo__dd sum = apo__dd_make(0.0, 0.0);
    size_t gap_end = m->w0, j = 0;
    for (size_t t = m->w0; t < m->end;) {
        const size_t e = apo__dd_block_end(t, m->end), n = e - t;
        apo__dd_block b;
        double sh[APO_DD_FOLD + 1]; /* the chain of the sum's hi (window_sum.h) */
        size_t gaps[APO_DD_FOLD];   /* gap_end after each bar */
        sh[0] = sum.hi;
        for (size_t q = 0; q < n; q++) {
            const double r =
                apo__massi_step(&lead, m->high[t + q], m->low[t + q], m->f, m->beta, m->k);
            const int has = isfinite(r);
            gap_end = has ? gap_end : t + q + 1;
            gaps[q] = gap_end;
            const double in = has ? r : 0.0, old = t + q >= m->w0 + m->s ? ring[j] : 0.0;
            ring[j] = in;
            j = j + 1 == m->s ? 0 : j + 1;
            apo__dd_block_step(&b, q, in, old);
            sh[q + 1] = sh[q] + b.h[q];
        }
        double lo = sum.lo;
        apo__dd_block_lo_passes(&lo, &b, sh, n, 0);
        sum = apo__dd_block_last(&b, apo__dd_make(sh[n], lo), t, n);
        double o[APO_DD_FOLD];
        for (size_t q = 0; q < n; q++)
            o[q] = gaps[q] + m->s <= t + q + 1 ? apo__dd_block_sum(&b, q).hi : NAN;
        for (size_t q = t < m->begin ? m->begin - t : 0; q < n; q++)
            m->out[t + q] = o[q];
        t = e;
    }
}
#endif

static inline APO_HD void apo__massi_tile(const apo__cat_io *io, size_t begin, size_t end) {
    apo__massi_loop m;
    m.high = io->in[0];
    m.low = io->in[1];
    m.out = io->out[0];
    m.f = (size_t)io->p[0];
    m.s = (size_t)io->p[1];
    m.k = 1.0 - (double)(m.f - 1) / (double)(m.f + 1);
    m.beta = 1.0 - m.k;
    m.w0 = begin > io->h ? begin - io->h : 0;
    m.begin = begin;
    m.end = end;
#ifdef APO_MASSI_RING
    if (m.s <= APO_MASSI_RING) {
        apo__massi_blocks(&m);
        return;
    }
#endif
    const size_t f = m.f, s = m.s, w0 = m.w0;
    apo__massi_emas lead = {0.0, 0.0, 0.0, 0.0, 0}, lag = {0.0, 0.0, 0.0, 0.0, 0};
    apo__dd sum = apo__dd_make(0.0, 0.0);
    /* One past the last bar without a ratio (a gap, the warm-up, or before w0). */
    size_t gap_end = w0;
    for (size_t t = w0; t < end; t++) {
        const double r = apo__massi_step(&lead, m.high[t], m.low[t], f, m.beta, m.k);
        const int has = isfinite(r);
        gap_end = has ? gap_end : t + 1;
        /* A bar without a ratio slides 0 in, and 0 out when it leaves. */
        double old = 0.0;
        if (t >= w0 + s) {
            old = apo__massi_step(&lag, m.high[t - s], m.low[t - s], f, m.beta, m.k);
            old = isfinite(old) ? old : 0.0;
        }
        sum = apo__dd_slide(sum, has ? r : 0.0, old, t);
        if (t >= begin)
            m.out[t] = gap_end + s <= t + 1 ? apo__dd_settle(sum).hi : NAN;
    }
}

#endif /* APO_KERNELS_MASSI_TILE_H */
