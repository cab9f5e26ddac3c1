/*
 * vortex_tile.h: VORTEX(timeperiod), TA-Lib 0.8's vortex indicator (Botes and Siepman): over
 * the p bars ending at t, plusvi = `sum VM+ / sum TR` and minusvi = `sum VM- / sum TR`, with
 * VM+[i] = abs(high[i] - low[i-1]), VM-[i] = abs(low[i] - high[i-1]) and TR the true range
 * (trange_tile.h's, TA-Lib's order of comparison); both 0 where the true ranges' sum is 0.
 * Inputs high, low, close; outputs plusvi, minusvi; lookback p.
 *
 * Each output sums its own window's terms in index order (TA-Lib slides the three sums in
 * double and purges the true ranges' residue after p flat bars): a function of its bars alone,
 * so tiles join and a stream keeps its position. Gaps: NaN where a high or a low of the p + 1
 * bars ending at t, or a close of the p before t, is not finite (a sum is then not finite).
 */
#ifndef APO_KERNELS_VORTEX_TILE_H
#define APO_KERNELS_VORTEX_TILE_H

#include "trange_tile.h"

/* Output t's VI+ and VI- from its window's sums of true ranges r and movements u and d: NaN
 * where a sum is not finite, 0 where the true ranges sum to 0. */
static inline APO_HD void apo__vortex_store(double *plus, double *minus, size_t t, double r,
                                            double u, double d) {
    const int clean = apo__finite(r) & apo__finite(u) & apo__finite(d);
    plus[t] = !clean ? (double)NAN : r > 0.0 ? u / r : 0.0;
    minus[t] = !clean ? (double)NAN : r > 0.0 ? d / r : 0.0;
}

#ifdef APO_TILE_LANES
/* apo__vortex_store for the APO_TILE_LANES outputs from t, one a lane, its choices as selects. */
static inline void apo__vortex_store_vec(double *plus, double *minus, size_t t, apo_tv r, apo_tv u,
                                         apo_tv d) {
    const apo_tm clean = apo_tv_finite(r) & apo_tv_finite(u) & apo_tv_finite(d);
    const apo_tm ranged = r > 0.0;
    const apo_tv zero = apo_tv_splat(0.0);
    apo_tv_store(plus + t, apo_tv_or_nan(clean, apo_tv_pick(ranged, u / r, zero)));
    apo_tv_store(minus + t, apo_tv_or_nan(clean, apo_tv_pick(ranged, d / r, zero)));
}

/* The most outputs of a block (apo__vortex_block) and the longest period it takes: its three
 * rows of terms, (256 + 512) bars each, are 18 KiB of stack. */
#define APO_VORTEX_BLOCK 256
#define APO_VORTEX_MAX_P 512

/* Vectors of outputs whose sums run side by side (three a vector: APO_TV_CHAINS, tile_vec.h). */
#define APO_VORTEX_GROUP 2

/* The outputs of nv vectors of bars from t (nv a constant where this is inlined), their
 * three windows' terms from tr, up and down (the first window's first term at [0]), each lane
 * adding its window's terms in index order from 0. */
static inline void apo__vortex_sums(const double *tr, const double *up, const double *down,
                                    size_t p, size_t nv, double *plus, double *minus, size_t t) {
    apo_tv r[APO_VORTEX_GROUP], u[APO_VORTEX_GROUP], d[APO_VORTEX_GROUP];
    for (size_t c = 0; c < nv; c++)
        r[c] = u[c] = d[c] = apo_tv_splat(0.0);
    for (size_t j = 0; j < p; j++)
        for (size_t c = 0; c < nv; c++) {
            const size_t at = c * APO_TILE_LANES + j;
            r[c] = r[c] + apo_tv_load(tr + at);
            u[c] = u[c] + apo_tv_load(up + at);
            d[c] = d[c] + apo_tv_load(down + at);
        }
    for (size_t c = 0; c < nv; c++)
        apo__vortex_store_vec(plus, minus, t + c * APO_TILE_LANES, r[c], u[c], d[c]);
}

/* The outputs t .. e - 1 (t >= p, e - t <= APO_VORTEX_BLOCK, p <= APO_VORTEX_MAX_P): each bar's
 * true range and movements computed once, in lanes of consecutive bars (the loop computes each
 * p times, once for each window holding it), then each output's three sums in lanes of
 * consecutive outputs, each lane adding its window's terms in index order from 0. Every term
 * and sum is the loop's, so the bits are the loop's. */
static inline void apo__vortex_block(const apo__cat_io *io, size_t t, size_t e, size_t p) {
    const double *high = io->in[0], *low = io->in[1], *close = io->in[2];
    double tr[APO_VORTEX_BLOCK + APO_VORTEX_MAX_P], up[APO_VORTEX_BLOCK + APO_VORTEX_MAX_P],
        down[APO_VORTEX_BLOCK + APO_VORTEX_MAX_P]; /* [q]: bar first + q */
    const size_t first = t + 1 - p, m = e - first;
    size_t q = 0;
    for (; q + APO_TILE_LANES <= m; q += APO_TILE_LANES) {
        const size_t i = first + q;
        apo_tv_store(tr + q, apo__true_range_vec(high, low, close, i));
        apo_tv_store(up + q, apo_tv_abs(apo_tv_load(high + i) - apo_tv_load(low + i - 1)));
        apo_tv_store(down + q, apo_tv_abs(apo_tv_load(low + i) - apo_tv_load(high + i - 1)));
    }
    for (; q < m; q++) {
        const size_t i = first + q;
        tr[q] = apo__true_range(high, low, close, i);
        up[q] = fabs(high[i] - low[i - 1]);
        down[q] = fabs(low[i] - high[i - 1]);
    }
    double *plus = io->out[0], *minus = io->out[1];
    size_t k = 0;
    const size_t group = APO_VORTEX_GROUP * APO_TILE_LANES;
    for (; k + group <= e - t; k += group)
        apo__vortex_sums(tr + k, up + k, down + k, p, APO_VORTEX_GROUP, plus, minus, t + k);
    for (; k + APO_TILE_LANES <= e - t; k += APO_TILE_LANES)
        apo__vortex_sums(tr + k, up + k, down + k, p, 1, plus, minus, t + k);
    for (; k < e - t; k++) {
        double r = 0.0, u = 0.0, d = 0.0;
        for (size_t j = 0; j < p; j++) {
            r = r + tr[k + j];
            u = u + up[k + j];
            d = d + down[k + j];
        }
        apo__vortex_store(plus, minus, t + k, r, u, d);
    }
}
#endif

static inline APO_HD void apo__vortex_tile(const apo__cat_io *io, size_t begin, size_t end) {
    const double *high = io->in[0], *low = io->in[1], *close = io->in[2];
    double *plus = io->out[0], *minus = io->out[1];
    const size_t p = (size_t)io->p[0];
    apo__cat_nan_lead(minus, begin, end, p);
    size_t t = apo__cat_nan_lead(plus, begin, end, p);
#ifdef APO_TILE_LANES
    /* Blocks of outputs whose terms are computed once (apo__vortex_block). */
    for (; t < end && p <= APO_VORTEX_MAX_P;) {
        const size_t e = end - t < APO_VORTEX_BLOCK ? end : t + APO_VORTEX_BLOCK;
        apo__vortex_block(io, t, e, p);
        t = e;
    }
    /* Windows past the blocks' bound: the scalar loop below for APO_TILE_LANES bars at a time,
     * one lane each, its choices as selects. */
    for (; end - t >= APO_TILE_LANES; t += APO_TILE_LANES) {
        apo_tv tr = apo_tv_splat(0.0), up = apo_tv_splat(0.0), down = apo_tv_splat(0.0);
        for (size_t i = t + 1 - p; i <= t; i++) {
            tr = tr + apo__true_range_vec(high, low, close, i);
            up = up + apo_tv_abs(apo_tv_load(high + i) - apo_tv_load(low + i - 1));
            down = down + apo_tv_abs(apo_tv_load(low + i) - apo_tv_load(high + i - 1));
        }
        apo__vortex_store_vec(plus, minus, t, tr, up, down);
    }
#endif
    for (; t < end; t++) {
        double tr = 0.0, up = 0.0, down = 0.0;
        for (size_t i = t + 1 - p; i <= t; i++) {
            tr = tr + apo__true_range(high, low, close, i);
            up = up + fabs(high[i] - low[i - 1]);
            down = down + fabs(low[i] - high[i - 1]);
        }
        apo__vortex_store(plus, minus, t, tr, up, down);
    }
}

#endif /* APO_KERNELS_VORTEX_TILE_H */
