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
 * to 2^-64: rsi's design). The window's sum is a double-double, each ratio added once and taken
 * out s bars later exactly, the ratio leaving computed again by a second copy of the recurrences
 * running s bars behind from the same start (the same bits): no drift along the tile, and no
 * memory of s ratios.
 *
 * Gaps (rsi's rule for the EMAs, the window's for the sum): a bar whose high or low is not finite
 * gives NaN, moves neither EMA and adds no ratio; an output whose s bars hold such a bar is NaN.
 * A ratio that overflows (e2 below e1 by more than the doubles' range) is taken as such a bar.
 */
#ifndef APO_KERNELS_MASSI_TILE_H
#define APO_KERNELS_MASSI_TILE_H

#include "catalog.h"
#include "dd.h"

/* The two EMAs of one copy of the recurrences: clean bars seen, their seeds' sums. */
typedef struct apo__massi_emas {
    double e1, e2, sum1, sum2;
    size_t seen;
} apo__massi_emas;

/* One bar into the EMAs; returns its ratio, or NaN before e2 has its seed or at a gap. */
static inline APO_HD double apo__massi_step(apo__massi_emas *m, double high, double low, size_t f,
                                            double beta, double k) {
    const double hl = high - low;
    if (!isfinite(high) || !isfinite(low) || !isfinite(hl))
        return NAN;
    const size_t n = m->seen++;
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
    if (n2 < f) {
        m->sum2 += m->e1;
        if (n2 == f - 1)
            m->e2 = m->sum2 / (double)f;
    } else {
        m->e2 = beta * m->e2 + k * m->e1;
    }
    if (n2 < f - 1)
        return NAN;
    return m->e2 == 0.0 ? 1.0 : m->e1 / m->e2;
}

static inline APO_HD void apo__massi_tile(const apo__cat_io *io, size_t begin, size_t end) {
    const double *high = io->in[0], *low = io->in[1];
    double *out = io->out[0];
    const size_t f = (size_t)io->p[0], s = (size_t)io->p[1];
    const double k = 1.0 - (double)(f - 1) / (double)(f + 1), beta = 1.0 - k;
    const size_t w0 = begin > io->h ? begin - io->h : 0;
    apo__massi_emas lead = {0.0, 0.0, 0.0, 0.0, 0}, lag = {0.0, 0.0, 0.0, 0.0, 0};
    apo__dd sum = apo__dd_make(0.0, 0.0);
    /* One past the last bar without a ratio (a gap, the warm-up, or before w0). */
    size_t gap_end = w0;
    for (size_t t = w0; t < end; t++) {
        const double r = apo__massi_step(&lead, high[t], low[t], f, beta, k);
        if (isfinite(r)) {
            sum = apo__dd_add_d(sum, r);
        } else {
            gap_end = t + 1;
        }
        if (t >= w0 + s) {
            const double old = apo__massi_step(&lag, high[t - s], low[t - s], f, beta, k);
            if (isfinite(old))
                sum = apo__dd_add_d(sum, -old);
        }
        if (t < begin)
            continue;
        out[t] = gap_end + s <= t + 1 ? sum.hi + sum.lo : NAN;
    }
}

#endif /* APO_KERNELS_MASSI_TILE_H */
