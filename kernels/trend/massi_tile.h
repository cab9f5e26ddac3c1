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
 * recurrences running s bars behind from the same start, the same bits. On the CPU the tiles
 * of a row run side by side in vector lanes (apo__massi_round), each lane a tile's bits.
 *
 * Gaps (rsi's rule for the EMAs, the window's for the sum): a bar whose high or low is not finite
 * gives NaN, moves neither EMA and adds no ratio; an output whose s bars hold such a bar is NaN.
 * A ratio that overflows (e2 below e1 by more than the doubles' range) is taken as such a bar.
 */
#ifndef APO_KERNELS_MASSI_TILE_H
#define APO_KERNELS_MASSI_TILE_H

#include "catalog.h"
#include "catalog_lanes.h"
#include "dd_tv.h"
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

#ifdef APO_TILE_LANES
/* The longest window a round of lanes keeps in its ring of vectors (8 KiB on avx2's lanes,
 * 16 on avx512's); a longer one takes the tiles one by one. */
#define APO_MASSI_LANE_RING 256

/* The lanes of a round (apo__massi_round): lane k reads its tile's bars from its warm-up origin
 * w0 (high[k], low[k] and out[k] point there), len[k] of them to its tile's end, and stores
 * from step from[k] on; lanes past `count` repeat lane 0's tile and store nothing. */
typedef struct apo__massi_lanes {
    const double *high[APO_TILE_LANES], *low[APO_TILE_LANES];
    double *out[APO_TILE_LANES];
    size_t len[APO_TILE_LANES], from[APO_TILE_LANES];
    int64_t phase[APO_TILE_LANES]; /* w0 mod APO_DD_FOLD: where the lane's folds fall */
    size_t count, steps;
} apo__massi_lanes;

/* Steps a round of lanes takes a pass at a time (apo__massi_round): a fold's period, so that
 * each lane folds at the same step of every chunk. */
#define APO_MASSI_LANE_CHUNK APO_DD_FOLD

/* The round's lanes' hl = high - low at steps step0 .. step0 + n - 1 into hl[], a lane past its
 * tile's end holding its last bar's. */
static inline void apo__massi_lanes_ranges(const apo__massi_lanes *ln, size_t step0, size_t n,
                                           apo_tv *hl) {
    for (size_t l = 0; l < APO_TILE_LANES; l++) {
        const size_t len = ln->len[l], left = len > step0 ? len - step0 : 0;
        const size_t have = left < n ? left : n;
        for (size_t q = 0; q < have; q++)
            hl[q][l] = ln->high[l][step0 + q] - ln->low[l][step0 + q];
        const double last = ln->high[l][len - 1] - ln->low[l][len - 1];
        for (size_t q = have; q < n; q++)
            hl[q][l] = last;
    }
}

/* apo__massi_step's ratio lane for lane, without a branch: where e2 is +0 or -0 (its bits
 * shifted left are 0) both terms are replaced by 1 on the bits, so 1 / 1 is the 1 it gives
 * there; any other pair is divided as it is (roc_tile.h's form). */
static inline apo_tv apo__massi_ratio_tv(apo_tv e1, apo_tv e2, apo_tm one_bits) {
    const apo_tm zero = ((apo_tm)e2 << 1) == 0;
    const apo_tv num = (apo_tv)(((apo_tm)e1 & ~zero) | (one_bits & zero));
    const apo_tv den = (apo_tv)(((apo_tm)e2 & ~zero) | (one_bits & zero));
    return num / den;
}

/* The lanes where v is not finite (its exponent's bits all set), or'ed into `bad`: integer
 * operations, where tile_vec.h's apo_tv_finite (a subtraction and a comparison) takes the FP
 * pipes the EMAs' pass keeps busy (the round took 1.04 to 1.07 times as long with it). */
static inline apo_tm apo__massi_not_finite(apo_tm bad, apo_tv v) {
    const apo_tm exponent = (apo_tm)apo_tv_splat(INFINITY);
    return bad | (((apo_tm)v & exponent) == exponent);
}

/* apo__massi_step's steady step lane for lane, both EMAs seeded: e1 and e2 moved by the bar's
 * range hl; returns the step's ratio. */
static inline apo_tv apo__massi_steady_tv(apo_tv *e1, apo_tv *e2, apo_tv hl, apo_tv beta, apo_tv k,
                                          apo_tm one_bits) {
    *e1 = beta * *e1 + k * hl;
    *e2 = beta * *e2 + k * *e1;
    return apo__massi_ratio_tv(*e1, *e2, one_bits);
}

/* The outputs y[0 .. n) of steps step0 .. step0 + n - 1 into each storing lane's tile, lane by
 * lane, where the step is inside it. */
static inline void apo__massi_lanes_store(const apo__massi_lanes *ln, size_t step0, size_t n,
                                          const apo_tv *y) {
    for (size_t l = 0; l < ln->count; l++) {
        const size_t from = ln->from[l] > step0 ? ln->from[l] - step0 : 0;
        const size_t left = ln->len[l] > step0 ? ln->len[l] - step0 : 0;
        const size_t to = left < n ? left : n;
        for (size_t q = from; q < to; q++)
            ln->out[l][step0 + q] = y[q][l];
    }
}

/* The window's sum of a round (apo__massi_round): each lane's double-double, the ring of the
 * ratios in the window and where the next goes, and the steps of every pass at which lanes fold
 * (a pass starts at a multiple of APO_DD_FOLD, so each lane folds at the same step of each). */
typedef struct apo__massi_window {
    apo_tv hi, lo;
    size_t j, s, out_from, folds, next_fold;
    size_t fold_at[APO_TILE_LANES];
    apo_tm fold_lanes[APO_TILE_LANES];
} apo__massi_window;

/* Step `step` (the q-th of its pass) of the window: the ratio `in` slid in and the one s steps
 * before out (apo__dd_slide, folded where a lane's bar is a multiple of APO_DD_FOLD); returns
 * the output, NaN before the window is full. hi and lo are the caller's, so that they stay in
 * registers. */
static inline apo_tv apo__massi_slide(apo__massi_window *w, apo_tv *ring, apo_tv *hi, apo_tv *lo,
                                      apo_tv in, size_t step, size_t q) {
    const apo_tv old = step >= w->s ? ring[w->j] : apo_tv_splat(0.0);
    ring[w->j] = in;
    w->j = w->j + 1 == w->s ? 0 : w->j + 1;
    const apo__dd_tv d = apo__two_sum_tv(in, -old), a = apo__two_sum_tv(*hi, d.hi);
    *hi = a.hi;
    *lo = *lo + (a.lo + d.lo);
    if (w->next_fold < w->folds && q == w->fold_at[w->next_fold]) {
        const apo__dd_tv folded = apo__two_sum_tv(*hi, *lo);
        *hi = apo_tv_pick(w->fold_lanes[w->next_fold], folded.hi, *hi);
        *lo = apo_tv_pick(w->fold_lanes[w->next_fold], folded.lo, *lo);
        w->next_fold++;
    }
    return step >= w->out_from ? *hi + *lo : apo_tv_splat(NAN);
}

/* A round of up to APO_TILE_LANES tiles side by side, one per vector lane, each lane performing
 * apo__massi_tile's operations on its own tile in its order (the EMAs' steps, the ratio, the
 * window's double-double slide with its folds at the lane's own bars, the output), so each
 * tile's bits. Every lane starts empty at its warm-up origin, so while no lane meets a gap
 * the lanes are at the same step of the definition: the seeds' tests, the ring's position and
 * whether a step has a ratio and an output are one for all, and a lane's ratio leaving the
 * window is the one it put in the ring s steps before. A lane past its tile's end re-reads its
 * last bar and stores nothing. Why: one tile's EMAs are a serial chain of a multiply and an
 * add a bar, two of them, and the division and the sum's TwoSums wait on it; side by side one
 * vector chain advances APO_TILE_LANES tiles (massi's tiles are four halos long for it:
 * catalog_table.h, SIDE_BY_SIDE). The steps go APO_MASSI_LANE_CHUNK at a time in passes (the
 * ranges gathered lane by lane, the EMAs and ratios, the slide, the outputs scattered lane by
 * lane), so that no division or gathered load waits on the chains. Returns 0, having stored
 * outputs that the tiles' own bodies then write again with the same bits, where a bar is a
 * gap or a ratio overflows (any lane), or the window is longer than the ring: the caller runs
 * the tiles one by one. */
static inline int apo__massi_round(const apo__cat_io *io, const apo__tile_span *tiles,
                                   size_t count) {
    const size_t f = (size_t)io->p[0], s = (size_t)io->p[1];
    if (s > APO_MASSI_LANE_RING || count < 2)
        return 0;
    apo__massi_lanes ln;
    ln.count = count;
    ln.steps = 0;
    for (size_t k = 0; k < APO_TILE_LANES; k++) {
        const size_t j = k < count ? k : 0, begin = tiles[j].begin;
        const size_t w0 = apo__cat_origin(io, begin);
        ln.high[k] = io->in[0] + w0;
        ln.low[k] = io->in[1] + w0;
        ln.out[k] = io->out[0] + w0;
        ln.len[k] = tiles[j].end - w0;
        ln.from[k] = k < count ? begin - w0 : ln.len[k];
        ln.phase[k] = (int64_t)(w0 % APO_DD_FOLD);
        ln.steps = ln.len[k] > ln.steps ? ln.len[k] : ln.steps;
    }
    size_t shortest = ln.len[0];
    for (size_t k = 1; k < APO_TILE_LANES; k++)
        shortest = ln.len[k] < shortest ? ln.len[k] : shortest;
    const double k_one = 1.0 - (double)(f - 1) / (double)(f + 1), beta_one = 1.0 - k_one;
    const apo_tv zero = apo_tv_splat(0.0), fd = apo_tv_splat((double)f);
    const apo_tv k = apo_tv_splat(k_one), beta = apo_tv_splat(beta_one);
    const apo_tm one_bits = (apo_tm)apo_tv_splat(1.0);
    apo_tv ring[APO_MASSI_LANE_RING], v[APO_MASSI_LANE_CHUNK];
    apo_tv e1 = zero, e2 = zero, sum1 = zero, sum2 = zero, hi = zero, lo = zero;
    apo__massi_window win;
    win.folds = 0;
    win.j = 0;
    win.s = s;
    for (size_t q = 0; q < APO_DD_FOLD; q++) {
        apo_tm lanes = apo_tm_zero();
        int any = 0;
        for (size_t l = 0; l < APO_TILE_LANES; l++) {
            const int at = (ln.phase[l] + (int64_t)q) % APO_DD_FOLD == 0;
            lanes[l] = at ? -1 : 0;
            any |= at;
        }
        if (any) {
            win.fold_at[win.folds] = q;
            win.fold_lanes[win.folds++] = lanes;
        }
    }
    /* The first step with a ratio (2 (f - 1) bars seen) and the first with an output (the
     * window full of ratios): apo__massi_step's and apo__massi_tile's tests at a lane's bar
     * w0 + step, where gap_end stays w0 + 2 (f - 1) in a round without gaps. */
    const size_t ratio_from = 2 * (f - 1);
    win.out_from = ratio_from + s - 1;
    for (size_t step0 = 0; step0 < ln.steps; step0 += APO_MASSI_LANE_CHUNK) {
        const size_t n =
            ln.steps - step0 < APO_MASSI_LANE_CHUNK ? ln.steps - step0 : APO_MASSI_LANE_CHUNK;
        /* The EMAs (apo__massi_step with n = step, the bars seen before this one) and each
         * step's ratio into v, 0 before the first (a step without one slides 0 in). A gap
         * makes every later ratio of its lane NaN (the EMAs and their seeds' sums take every
         * range), so a round without a ratio that is not finite has no gap either. */
        apo_tm bad = apo_tm_zero();
        size_t q = 0;
        win.next_fold = 0;
        if (step0 >= ratio_from + 1 && step0 + n <= shortest) {
            /* Every step steady (2 f - 1 bars seen) and every lane inside its tile: each
             * lane's bars gathered straight into the step's vector. (The window slid in this
             * loop too, its chains beside the EMAs', took 1.08 to 1.16 of the time.) */
            const double *high[APO_TILE_LANES], *low[APO_TILE_LANES];
            for (size_t l = 0; l < APO_TILE_LANES; l++) {
                high[l] = ln.high[l] + step0;
                low[l] = ln.low[l] + step0;
            }
            for (; q < n; q++) {
                apo_tv h, w;
                for (size_t l = 0; l < APO_TILE_LANES; l++) {
                    h[l] = high[l][q];
                    w[l] = low[l][q];
                }
                v[q] = apo__massi_steady_tv(&e1, &e2, h - w, beta, k, one_bits);
                bad = apo__massi_not_finite(bad, v[q]);
            }
        }
        if (q < n)
            apo__massi_lanes_ranges(&ln, step0, n, v);
        if (step0 >= ratio_from + 1) { /* every step steady (2 f - 1 bars seen) */
            for (; q < n; q++) {
                v[q] = apo__massi_steady_tv(&e1, &e2, v[q], beta, k, one_bits);
                bad = apo__massi_not_finite(bad, v[q]);
            }
        }
        for (; q < n; q++) {
            const size_t step = step0 + q;
            const apo_tv hl = v[q];
            if (step >= 2 * f - 1) {
                v[q] = apo__massi_steady_tv(&e1, &e2, hl, beta, k, one_bits);
            } else {
                if (step < f) {
                    sum1 = sum1 + hl;
                    if (step == f - 1)
                        e1 = sum1 / fd;
                } else {
                    e1 = beta * e1 + k * hl;
                }
                if (step >= f - 1) {
                    sum2 = sum2 + e1;
                    if (step - (f - 1) == f - 1)
                        e2 = sum2 / fd;
                }
                v[q] = step >= ratio_from ? apo__massi_ratio_tv(e1, e2, one_bits) : zero;
            }
            bad = apo__massi_not_finite(bad, v[q]);
        }
        if (apo_tm_any(bad))
            return 0;
        /* The window's slide and the outputs into v. */
        for (q = 0; q < n; q++)
            v[q] = apo__massi_slide(&win, ring, &hi, &lo, v[q], step0 + q, q);
        apo__massi_lanes_store(&ln, step0, n, v);
    }
    return 1;
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
    m.w0 = apo__cat_origin(io, begin);
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
