/*
 * accbands_tile.h: ACCBANDS(timeperiod), TA-Lib's acceleration bands (Headley's): at each
 * bar r = 4 (high - low) / (high + low), the bar's upper term high (1 + r) and lower term
 * low (1 - r) (high and low themselves where high + low is 0); upperband and lowerband are
 * the SMA(p) of those terms, middleband the SMA(p) of the close; positions t < p - 1 are NaN.
 * TA-Lib takes high + low as 0 where it is below 1e-8 in magnitude (TA_IS_ZERO); here only an
 * exact 0 is, as everywhere in the catalog (docs/kernels.md, "Where TA-Lib differs").
 *
 * Evaluation: each window's three sums afresh, in index order, divided by p (TA-Lib's SMA
 * divides its sum by p): within about p eps of the window's largest term, nothing carried
 * from bar to bar, so every output is a function of its window and tiles, streams (the
 * position) and devices give the same bits. O(p) a bar.
 *
 * Gaps: the bands read high and low, the middle the close: a window holding a non-finite
 * sample of what an output reads gives that output NaN.
 */
#ifndef APO_KERNELS_ACCBANDS_TILE_H
#define APO_KERNELS_ACCBANDS_TILE_H

#include "catalog.h"
#include "tile_vec.h"

/* Bar i's upper (side 1) or lower (side -1) term. */
static inline APO_HD double apo__accbands_term(double high, double low, double side) {
    const double sum = high + low;
    if (sum == 0.0)
        return side > 0 ? high : low;
    const double r = 4.0 * (high - low) / sum;
    return side > 0 ? high * (1.0 + r) : low * (1.0 - r);
}

/* Output t's bands from its window's three sums: each sum over p, NaN where it is not finite. */
static inline APO_HD void apo__accbands_store(const apo__cat_io *io, size_t t, double su, double sm,
                                              double sl, double pd) {
    io->out[0][t] = isfinite(su) ? su / pd : (double)NAN;
    io->out[1][t] = isfinite(sm) ? sm / pd : (double)NAN;
    io->out[2][t] = isfinite(sl) ? sl / pd : (double)NAN;
}

#ifdef APO_TILE_LANES
/* The upper and lower terms of the APO_TILE_LANES bars from i: apo__accbands_term's, its
 * branch a select. */
static inline void apo__accbands_terms_vec(const double *high, const double *low, size_t i,
                                           apo_tv *upper, apo_tv *lower) {
    const apo_tv h = apo_tv_load(high + i), l = apo_tv_load(low + i);
    const apo_tv sum = h + l, r = 4.0 * (h - l) / sum;
    const apo_tm flat = sum == 0.0;
    *upper = apo_tv_pick(flat, h, h * (1.0 + r));
    *lower = apo_tv_pick(flat, l, l * (1.0 - r));
}

/* apo__accbands_store for the APO_TILE_LANES outputs from t, one a lane. */
static inline void apo__accbands_store_vec(const apo__cat_io *io, size_t t, apo_tv su, apo_tv sm,
                                           apo_tv sl, double pd) {
    apo_tv_store(io->out[0] + t, apo_tv_or_nan(apo_tv_finite(su), su / pd));
    apo_tv_store(io->out[1] + t, apo_tv_or_nan(apo_tv_finite(sm), sm / pd));
    apo_tv_store(io->out[2] + t, apo_tv_or_nan(apo_tv_finite(sl), sl / pd));
}
#endif

#ifdef APO_TILE_LANES
/* The most outputs of a block (apo__accbands_block) and the longest period it takes: two rows
 * of (256 + 512) terms, 12 KiB of stack. */
#define APO_ACCBANDS_BLOCK 256
#define APO_ACCBANDS_MAX_P 512

/* The outputs t .. e - 1 (t >= p - 1, e - t <= APO_ACCBANDS_BLOCK, p <= APO_ACCBANDS_MAX_P):
 * each bar's upper and lower terms computed once, in lanes of consecutive bars (the loop
 * computes each p times, a division each), then each output's three sums in lanes of
 * consecutive outputs, each adding its window's terms in index order from 0.
 * Every term and sum is the loop's, so the bits are the loop's. */
static inline void apo__accbands_block(const apo__cat_io *io, size_t t, size_t e, size_t p) {
    const double *high = io->in[0], *low = io->in[1], *close = io->in[2];
    double upper[APO_ACCBANDS_BLOCK + APO_ACCBANDS_MAX_P],
        lower[APO_ACCBANDS_BLOCK + APO_ACCBANDS_MAX_P]; /* [q]: bar first + q */
    const size_t first = t + 1 - p, m = e - first;
    const double pd = (double)p;
    size_t q = 0;
    for (; q + APO_TILE_LANES <= m; q += APO_TILE_LANES) {
        apo_tv u, l;
        apo__accbands_terms_vec(high, low, first + q, &u, &l);
        apo_tv_store(upper + q, u);
        apo_tv_store(lower + q, l);
    }
    for (; q < m; q++) {
        upper[q] = apo__accbands_term(high[first + q], low[first + q], 1.0);
        lower[q] = apo__accbands_term(high[first + q], low[first + q], -1.0);
    }
    size_t k = 0;
    for (; k + APO_TILE_LANES <= e - t; k += APO_TILE_LANES) {
        apo_tv su = apo_tv_splat(0.0), sm = apo_tv_splat(0.0), sl = apo_tv_splat(0.0);
        for (size_t j = 0; j < p; j++) {
            su = su + apo_tv_load(upper + k + j);
            sm = sm + apo_tv_load(close + first + k + j);
            sl = sl + apo_tv_load(lower + k + j);
        }
        apo__accbands_store_vec(io, t + k, su, sm, sl, pd);
    }
    for (; k < e - t; k++) {
        double su = 0.0, sm = 0.0, sl = 0.0;
        for (size_t j = 0; j < p; j++) {
            su = su + upper[k + j];
            sm = sm + close[first + k + j];
            sl = sl + lower[k + j];
        }
        apo__accbands_store(io, t + k, su, sm, sl, pd);
    }
}
#endif

static inline APO_HD void apo__accbands_tile(const apo__cat_io *io, size_t begin, size_t end) {
    const double *high = io->in[0], *low = io->in[1], *close = io->in[2];
    const size_t p = (size_t)io->p[0];
    const double pd = (double)p;
    size_t t = begin;
#ifdef APO_TILE_LANES
    for (; t < end && t + 1 < p; t++) {
        io->out[0][t] = NAN;
        io->out[1][t] = NAN;
        io->out[2][t] = NAN;
    }
    /* Blocks of outputs whose terms are computed once (apo__accbands_block). */
    for (; t < end && p <= APO_ACCBANDS_MAX_P;) {
        const size_t e = end - t < APO_ACCBANDS_BLOCK ? end : t + APO_ACCBANDS_BLOCK;
        apo__accbands_block(io, t, e, p);
        t = e;
    }
    /* Windows past the blocks' bound: the loop below for the bars t .. t + APO_TILE_LANES - 1,
     * one lane each: the same terms (apo__accbands_term's branch and the gap's NaN as selects)
     * added in the same order. */
    for (; end - t >= APO_TILE_LANES; t += APO_TILE_LANES) {
        apo_tv su = apo_tv_splat(0.0), sm = apo_tv_splat(0.0), sl = apo_tv_splat(0.0);
        for (size_t i = t + 1 - p; i <= t; i++) {
            apo_tv u, l;
            apo__accbands_terms_vec(high, low, i, &u, &l);
            su = su + u;
            sm = sm + apo_tv_load(close + i);
            sl = sl + l;
        }
        apo__accbands_store_vec(io, t, su, sm, sl, pd);
    }
#endif
    for (; t < end; t++) {
        if (t + 1 < p) {
            io->out[0][t] = NAN;
            io->out[1][t] = NAN;
            io->out[2][t] = NAN;
            continue;
        }
        double su = 0.0, sm = 0.0, sl = 0.0;
        for (size_t i = t + 1 - p; i <= t; i++) {
            su = su + apo__accbands_term(high[i], low[i], 1.0);
            sm = sm + close[i];
            sl = sl + apo__accbands_term(high[i], low[i], -1.0);
        }
        apo__accbands_store(io, t, su, sm, sl, pd);
    }
}

#endif /* APO_KERNELS_ACCBANDS_TILE_H */
