/*
 * stoch_tile.h: STOCHF(fastk_period, fastd_period, fastd_matype) and STOCH(fastk_period,
 * slowk_period, slowk_matype, slowd_period, slowd_matype), TA-Lib's stochastics, with
 * TA-Lib's default moving average, the SMA (matype 0): apo__stochf_sma_tile and
 * apo__stoch_sma_tile. The other kinds take kdj's body (stoch_ma.h).
 *
 * Definition: fastk(i) = (close[i] - L) / ((H - L) / 100), H and L the highest high and
 * lowest low of the fastk_period bars ending at i, 0 where H = L (TA-Lib's operation order);
 * STOCHF's fastd is the SMA(fastd_period) of fastk; STOCH's slowk is the SMA(slowk_period)
 * of fastk and slowd the SMA(slowd_period) of slowk. Every output is NaN before the
 * lookback, (fastk_period - 1) + (fastd_period - 1) for STOCHF and (fastk_period - 1) +
 * (slowk_period - 1) + (slowd_period - 1) for STOCH, as in TA-Lib.
 *
 * Tile: halo = lookback. Each mean is a double-double sum of its values (dd.h) divided by
 * its count, evaluated per output from fastk values that are themselves evaluated per bar
 * (a scan of fastk_period bars): O(fastk_period * slowk_period) per output, cheap at the
 * defaults (5, 3, 3), and no state crosses outputs, so nothing drifts. STOCH's slowd reads
 * the slowk values this tile has written and evaluates those before the tile. A gap (a
 * non-finite high, low or close) anywhere the output reads makes it NaN. Where the mean
 * periods fit APO_STOCH_RING, each bar's fastk (and slowk) is evaluated once and kept in a
 * small buffer (apo__stoch_buf) that the means read in the same order, instead of re-evaluating it
 * for every mean it enters (about 3x the work at the defaults), and the gaps of high and low are
 * tracked as bars arrive rather than re-tested in every scan; the values and sums are the
 * same. There the bars go in blocks of APO_STOCH_BLOCK, each stage a loop across the block's
 * bars that vectorises (apo__fastk_block, apo__stoch_means), each bar still performing its
 * own operations in its own order, so the outputs keep their bits. On the CPU the stages
 * take APO_STOCH_UNROLL vectors of bars at a time in registers (apo__fastk_lanes,
 * apo__stoch_mean_lanes), leaving out only steps shown not to move a bit.
 */
#ifndef APO_KERNELS_STOCH_TILE_H
#define APO_KERNELS_STOCH_TILE_H

#include "dd.h"
#include "force_inline.h"
#include "window.h"
#include "window_extreme.h"
#include "window_sum.h"

/* fastk of a close and its window's highest high and lowest low, in TA-Lib's operation order:
 * 0 where they are equal. */
static inline APO_HD double apo__fastk_of(double close, double hh, double ll) {
    const double diff = (hh - ll) / 100.0;
    return diff != 0.0 ? (close - ll) / diff : 0.0;
}

/* fastk at i >= fk - 1 from samples the caller knows are finite. */
static inline APO_HD double apo__fastk_finite(const apo__cat_io *io, size_t i, size_t fk) {
    const double *high = io->in[0], *low = io->in[1], *close = io->in[2];
    double hh = high[i + 1 - fk], ll = low[i + 1 - fk];
    for (size_t j = i + 2 - fk; j <= i; j++) {
        hh = high[j] > hh ? high[j] : hh;
        ll = low[j] < ll ? low[j] : ll;
    }
    return apo__fastk_of(close[i], hh, ll);
}

/* fastk at i >= fk - 1, or NaN where one of its samples is not finite. */
static inline APO_HD double apo__fastk_at(const apo__cat_io *io, size_t i, size_t fk) {
    int ok = isfinite(io->in[2][i]);
    for (size_t j = i + 1 - fk; j <= i; j++)
        ok = ok && isfinite(io->in[0][j]) && isfinite(io->in[1][j]);
    return ok ? apo__fastk_finite(io, i, fk) : (double)NAN;
}

/* apo__fastk_at for the bars j = from, from + 1, ... in turn: the gaps of high and low are
 * tracked as the bars arrive (window.h), so each sample is tested once, not fk times. */
typedef struct apo__fastk_run {
    size_t bad; /* one past the last bar with a non-finite high or low, 0: none */
} apo__fastk_run;

static inline APO_HD apo__fastk_run apo__fastk_run_from(const apo__cat_io *io, size_t from,
                                                        size_t fk) {
    apo__fastk_run r;
    r.bad = apo__last_gap(io->in, 2, from + 1 - fk, from);
    return r;
}

static inline APO_HD double apo__fastk_next(const apo__cat_io *io, apo__fastk_run *r, size_t j,
                                            size_t fk) {
    if (!apo__all_finite_at(io->in, 2, j))
        r->bad = j + 1;
    const int ok = apo__window_clean(j, fk, r->bad) & apo__finite(io->in[2][j]);
    return ok ? apo__fastk_finite(io, j, fk) : (double)NAN;
}

/* The SMA(n) of fastk ending at i >= fk + n - 2, or NaN. */
static inline APO_HD double apo__fastk_mean(const apo__cat_io *io, size_t i, size_t fk, size_t n) {
    apo__dd s = apo__dd_make(0.0, 0.0);
    for (size_t j = i + 1 - n; j <= i; j++) {
        const double v = apo__fastk_at(io, j, fk);
        if (!isfinite(v))
            return NAN;
        s = apo__dd_add_d(s, v);
    }
    return apo__dd_div_d(s, (double)n).hi;
}

/* The longest mean period the blocked bodies take, and the bars of a block. Fixed, because
 * a body allocates nothing; small, because on the GPU each thread holds its buffers. */
#define APO_STOCH_RING 64
#define APO_STOCH_BLOCK 64

/* A mean's values: v[q] is the value at bar base + q, for the bars base .. base + n - 1
 * kept so far: the last period - 1 of the bars before a block, then the block's. */
typedef struct apo__stoch_buf {
    double v[APO_STOCH_RING - 1 + APO_STOCH_BLOCK];
    size_t base, n;
} apo__stoch_buf;

/* Drops all but the last keep values (the bars the next block's means read first). */
static inline APO_HD void apo__stoch_buf_keep(apo__stoch_buf *b, size_t keep) {
    if (b->n <= keep)
        return;
    const size_t drop = b->n - keep;
    for (size_t q = 0; q < keep; q++)
        b->v[q] = b->v[q + drop];
    b->base += drop;
    b->n = keep;
}

#ifdef APO_TILE_LANES
/* The vectors of bars the lane bodies below compute at once. Each vector is one long chain of
 * dependent operations (two divisions and a double-double sum or split between them); one at
 * a time, the FP scheduler fills with its waiting operations before the next vector's
 * independent ones reach it, so the loop ran at the chain's latency. Side by side in one
 * iteration, their operations interleave. */
#define APO_STOCH_UNROLL 4

/* fastk at the vectors of bars from i, i + APO_TILE_LANES, ... (count of them, at most
 * APO_STOCH_UNROLL; bars >= fk - 1, their windows clean) into out: each lane
 * apo__fastk_finite's operations in its order, the extremes held in registers across the fk
 * bars (kept in arrays, each of the fk - 1 steps stored and reloaded them). */
static APO_FORCE_INLINE void apo__fastk_lanes(const apo__cat_io *io, size_t i, size_t fk, int count,
                                              double *out) {
    const double *high = io->in[0] + (i + 1 - fk), *low = io->in[1] + (i + 1 - fk);
    apo_tv hh[APO_STOCH_UNROLL], ll[APO_STOCH_UNROLL];
    for (int u = 0; u < count; u++) {
        hh[u] = apo_tv_load(high + u * APO_TILE_LANES);
        ll[u] = apo_tv_load(low + u * APO_TILE_LANES);
    }
    for (size_t d = 1; d < fk; d++) {
        for (int u = 0; u < count; u++) {
            /* h > hh ? h : hh and l < ll ? l : ll: MAXPD and MINPD with the new sample
             * first keep the running extreme on a tie, as the scalar comparison does. */
            hh[u] = apo__tv_keep_later(apo_tv_load(high + d + u * APO_TILE_LANES), hh[u], 1);
            ll[u] = apo__tv_keep_later(apo_tv_load(low + d + u * APO_TILE_LANES), ll[u], 0);
        }
    }
    for (int u = 0; u < count; u++) {
        const apo_tv diff = (hh[u] - ll[u]) / 100.0;
        const apo_tv num = apo_tv_load(io->in[2] + i + u * APO_TILE_LANES) - ll[u];
        apo_tv_store(out + u * APO_TILE_LANES, apo__tv_quotient_or_zero(num, diff));
    }
}

/* The SMA(period) ending at each bar of `count` (at most APO_STOCH_UNROLL) vectors of bars,
 * lane k of vector u reading the terms v[u * APO_TILE_LANES + k ..][0 .. period), into out:
 * apo__stoch_means's double-double sum and quotient, the sums in registers. Its first two
 * steps are shortened without changing a bit: from (0, 0), apo__dd_add_d gives (0.0 + x,
 * +0.0) for every finite x (the TwoSum's error and the renormalisation are +0.0 exactly), and
 * on the second term the TwoSum's error e is never -0 (its first part hi - (s - bb) would need
 * hi = -0, and 0.0 + x is not), so e + 0.0 is e. A non-finite term makes the mean NaN; with
 * `clean` the caller has found every term finite and the test is left out. */
static APO_FORCE_INLINE void apo__stoch_mean_lanes(const double *v, size_t period, int clean,
                                                   int count, double *out) {
    apo_tv hi[APO_STOCH_UNROLL], lo[APO_STOCH_UNROLL], gap[APO_STOCH_UNROLL];
    for (int u = 0; u < count; u++) {
        const apo_tv first = apo_tv_load(v + u * APO_TILE_LANES);
        hi[u] = apo_tv_splat(0.0) + first;
        lo[u] = apo_tv_splat(0.0);
        /* 0 while every term is finite, NaN after one is not (x - x). */
        gap[u] = first - first;
    }
    for (size_t d = 1; d < period; d++) {
        for (int u = 0; u < count; u++) {
            const apo_tv x = apo_tv_load(v + d + u * APO_TILE_LANES);
            /* apo__dd_add_d: TwoSum, the low part added, then renormalised. */
            const apo_tv s = hi[u] + x, bb = s - hi[u];
            apo_tv e = (hi[u] - (s - bb)) + (x - bb);
            e = d == 1 ? e : e + lo[u];
            hi[u] = s + e;
            lo[u] = e - (hi[u] - s);
            if (!clean)
                gap[u] += x - x;
        }
    }
    /* apo__dd_div_d(sum, period).hi, Dekker's split and product without FMA. A period below
     * 2^26 (every one the catalog takes) splits into itself and a low part 0, whose two
     * products q_hi * 0 and q_lo * 0 are zeros: adding them changes no nonzero value, and a
     * zero's sign reaches the mean only as q2 = +-0, where q1 + q2 is q1 (or +0 when q1 is,
     * the sum having been +0): they are left out, the same bits. */
    const double nd = (double)period;
    const apo__dd ns = apo__split(nd);
    const int exact_n = ns.lo == 0.0;
    const apo_tv n = apo_tv_splat(nd), n_hi = apo_tv_splat(ns.hi), n_lo = apo_tv_splat(ns.lo);
    for (int u = 0; u < count; u++) {
        const apo_tv q1 = hi[u] / n;
        const apo_tv p = q1 * n;
        const apo_tv c = 134217729.0 * q1;
        const apo_tv q_hi = c - (c - q1), q_lo = q1 - q_hi;
        const apo_tv p_err = exact_n
                                 ? (q_hi * n_hi - p) + q_lo * n_hi
                                 : ((q_hi * n_hi - p) + q_hi * n_lo + q_lo * n_hi) + q_lo * n_lo;
        const apo_tv minus_p = -p;
        const apo_tv r = hi[u] + minus_p, rb = r - hi[u];
        const apo_tv r_lo = (((hi[u] - (r - rb)) + (minus_p - rb)) - p_err) + lo[u];
        apo_tv mean = q1 + (r + r_lo) / n;
        if (!clean)
            mean = apo_tv_pick((apo_tm)(gap[u] == 0.0), mean, apo_tv_splat((double)NAN));
        apo_tv_store(out + u * APO_TILE_LANES, mean);
    }
}

/* 1 when v[0 .. n) are all finite, a vector at a time. */
static inline int apo__stoch_all_finite(const double *v, size_t n) {
    apo_tv gap = apo_tv_splat(0.0);
    size_t k = 0;
    for (; k + APO_TILE_LANES <= n; k += APO_TILE_LANES) {
        const apo_tv x = apo_tv_load(v + k);
        gap += x - x;
    }
    /* The lanes' sum is 0 or NaN: one test instead of a mask reduction, which gcc writes as
     * a dozen shuffles. */
    double sum = 0.0;
    for (int l = 0; l < APO_TILE_LANES; l++)
        sum += gap[l];
    int ok = sum == 0.0;
    for (; k < n; k++)
        ok &= apo__finite(v[k]);
    return ok;
}
#endif

/* fastk of n bars side by side into out[k]: bar k's window is hi[k .. k + fk) for its highest
 * and lo[k .. k + fk) for its lowest, its close close[k] (all finite, or the caller replaces
 * the values of the bars whose windows are not). The extremes are scanned
 * in apo__fastk_finite's order for every bar at once and the quotients taken as apo__fastk_of
 * takes them (apo__quotients_or_zero), so each bar has apo__fastk_of's value and the loops
 * vectorise across bars; hh and ll: scratch of n values. stoch's clean blocks and stochrsi's
 * pieces (hi and lo both its RSI) take it. */
static inline APO_HD void apo__fastk_scan(const double *hi, const double *lo, const double *close,
                                          size_t fk, size_t n, double *hh, double *ll,
                                          double *out) {
    for (size_t k = 0; k < n; k++) {
        hh[k] = hi[k];
        ll[k] = lo[k];
    }
    for (size_t d = 1; d < fk; d++) {
        for (size_t k = 0; k < n; k++) {
            const double h = hi[d + k], l = lo[d + k];
            hh[k] = h > hh[k] ? h : hh[k];
            ll[k] = l < ll[k] ? l : ll[k];
        }
    }
    for (size_t k = 0; k < n; k++) {
        hh[k] = (hh[k] - ll[k]) / 100.0;
        out[k] = close[k] - ll[k];
    }
    apo__quotients_or_zero(out, hh, n, out);
}

/* fastk at the bars t .. e - 1 (at most APO_STOCH_BLOCK) into out. Where every window of
 * the block is clean, the bars are evaluated side by side: the highest high and lowest low
 * are scanned in apo__fastk_finite's order for every bar at once, so each bar performs the
 * same comparisons and quotient, and the loops vectorise across bars; otherwise bar by bar
 * (apo__fastk_next), which also tracks the gaps. */
static inline APO_HD void apo__fastk_block(const apo__cat_io *io, apo__fastk_run *r, size_t t,
                                           size_t e, size_t fk, double *out) {
    const double *high = io->in[0], *low = io->in[1], *close = io->in[2];
    const size_t n = e - t;
    const int clean = apo__window_clean(t, fk, r->bad) && apo__block_finite(high, t, e) &&
                      apo__block_finite(low, t, e) && apo__block_finite(close, t, e);
    if (!clean) {
        for (size_t k = 0; k < n; k++)
            out[k] = apo__fastk_next(io, r, t + k, fk);
        return;
    }
    size_t k0 = 0;
#ifdef APO_TILE_LANES
    const size_t group = APO_STOCH_UNROLL * APO_TILE_LANES;
    for (; k0 + group <= n; k0 += group)
        apo__fastk_lanes(io, t + k0, fk, APO_STOCH_UNROLL, out + k0);
    for (; k0 + APO_TILE_LANES <= n; k0 += APO_TILE_LANES)
        apo__fastk_lanes(io, t + k0, fk, 1, out + k0);
#endif
    double hh[APO_STOCH_BLOCK], ll[APO_STOCH_BLOCK];
    const size_t from = t + 1 - fk + k0;
    apo__fastk_scan(high + from, low + from, close + t + k0, fk, n - k0, hh, ll, out + k0);
}

/* The SMA(period) of b's values ending at each of the bars t .. e - 1 (at most
 * APO_STOCH_BLOCK, each with period values in b) into out: apo__fastk_mean's double-double
 * sum of the same values in the same order and its quotient, NaN where a value is not
 * finite. The sums of all the bars advance one term at a time, so the loops vectorise. */
static inline APO_HD void apo__stoch_means(const apo__stoch_buf *b, size_t t, size_t e,
                                           size_t period, double *out) {
    double hi[APO_STOCH_BLOCK], lo[APO_STOCH_BLOCK], finite[APO_STOCH_BLOCK];
    size_t n = e - t;
    const double *v = b->v + (t + 1 - period - b->base);
#ifdef APO_TILE_LANES
    /* On the CPU, a vector of bars at a time with its sums in registers (the loops below store
     * and reload them at every term); the loops take the rest. */
    size_t k0 = 0;
    const size_t lanes = n - n % APO_TILE_LANES, group = APO_STOCH_UNROLL * APO_TILE_LANES;
    if (lanes > 0 && apo__stoch_all_finite(v, lanes + period - 1)) {
        /* TA-Lib's default periods: a constant count unrolls the terms. */
        if (period == 3)
            for (; k0 + group <= lanes; k0 += group)
                apo__stoch_mean_lanes(v + k0, 3, 1, APO_STOCH_UNROLL, out + k0);
        for (; k0 + group <= lanes; k0 += group)
            apo__stoch_mean_lanes(v + k0, period, 1, APO_STOCH_UNROLL, out + k0);
        for (; k0 < lanes; k0 += APO_TILE_LANES)
            apo__stoch_mean_lanes(v + k0, period, 1, 1, out + k0);
    }
    for (; k0 < lanes; k0 += APO_TILE_LANES)
        apo__stoch_mean_lanes(v + k0, period, 0, 1, out + k0);
    v += k0;
    out += k0;
    n -= k0;
#endif
    for (size_t k = 0; k < n; k++) {
        hi[k] = 0.0;
        lo[k] = 0.0;
        finite[k] = 1.0;
    }
    for (size_t d = 0; d < period; d++) {
        for (size_t k = 0; k < n; k++) {
            const apo__dd s = apo__dd_add_d(apo__dd_make(hi[k], lo[k]), v[d + k]);
            hi[k] = s.hi;
            lo[k] = s.lo;
            finite[k] = fabs(v[d + k]) <= DBL_MAX ? finite[k] : 0.0;
        }
    }
    /* The quotients, then the NaNs, in two loops so that both vectorise (as in
     * apo__fastk_block). */
    for (size_t k = 0; k < n; k++)
        out[k] = apo__dd_div_d(apo__dd_make(hi[k], lo[k]), (double)period).hi;
    for (size_t k = 0; k < n; k++)
        out[k] = finite[k] != 0.0 ? out[k] : (double)NAN;
}

static inline APO_HD void apo__stochf_sma_tile(const apo__cat_io *io, size_t begin, size_t end) {
    const size_t fk = (size_t)io->p[0], fd = (size_t)io->p[1];
    const size_t lookback = (fk - 1) + (fd - 1);
    if (fd <= APO_STOCH_RING) {
        const size_t first = begin > lookback ? begin : lookback;
        apo__cat_nan_lead(io->out[0], begin, end, first);
        apo__cat_nan_lead(io->out[1], begin, end, first);
        /* A tile that ends in the lead has no fastk to compute, and the bars the first one
         * would read may not exist (a series shorter than the lookback). */
        if (first >= end)
            return;
        /* From the first fastk the first mean reads (>= fk - 1, as first >= lookback). */
        apo__fastk_run run = apo__fastk_run_from(io, first + 1 - fd, fk);
        apo__stoch_buf fast;
        fast.base = first + 1 - fd;
        fast.n = 0;
        for (size_t t = fast.base; t < end;) {
            const size_t e = end - t < APO_STOCH_BLOCK ? end : t + APO_STOCH_BLOCK;
            apo__fastk_block(io, &run, t, e, fk, fast.v + fast.n);
            fast.n += e - t;
            const size_t from = t > first ? t : first;
            if (from < e) {
                for (size_t j = from; j < e; j++)
                    io->out[0][j] = fast.v[j - fast.base];
                apo__stoch_means(&fast, from, e, fd, io->out[1] + from);
            }
            apo__stoch_buf_keep(&fast, fd - 1);
            t = e;
        }
        return;
    }
    for (size_t t = begin; t < end; t++) {
        if (t < lookback) {
            io->out[0][t] = NAN;
            io->out[1][t] = NAN;
            continue;
        }
        io->out[0][t] = apo__fastk_at(io, t, fk);
        io->out[1][t] = apo__fastk_mean(io, t, fk, fd);
    }
}

static inline APO_HD void apo__stoch_sma_tile(const apo__cat_io *io, size_t begin, size_t end) {
    const size_t fk = (size_t)io->p[0], sk = (size_t)io->p[1], sd = (size_t)io->p[3];
    const size_t first_k = (fk - 1) + (sk - 1), lookback = first_k + (sd - 1);
    double *slowk = io->out[0], *slowd = io->out[1];
    if (sk <= APO_STOCH_RING && sd <= APO_STOCH_RING) {
        const size_t first = begin > lookback ? begin : lookback;
        apo__cat_nan_lead(slowk, begin, end, first);
        apo__cat_nan_lead(slowd, begin, end, first);
        if (first >= end)
            return; /* as in apo__stochf_sma_tile */
        /* The first slowk the first slowd reads, and the first fastk that slowk reads
         * (>= fk - 1, as first >= lookback). */
        const size_t from_k = first + 1 - sd, from_f = from_k + 1 - sk;
        apo__fastk_run run = apo__fastk_run_from(io, from_f, fk);
        apo__stoch_buf fast, slow;
        fast.base = from_f;
        slow.base = from_k;
        fast.n = slow.n = 0;
        for (size_t t = from_f; t < end;) {
            const size_t e = end - t < APO_STOCH_BLOCK ? end : t + APO_STOCH_BLOCK;
            apo__fastk_block(io, &run, t, e, fk, fast.v + fast.n);
            fast.n += e - t;
            const size_t from_slow = t > from_k ? t : from_k;
            if (from_slow < e) {
                apo__stoch_means(&fast, from_slow, e, sk, slow.v + slow.n);
                slow.n += e - from_slow;
            }
            const size_t from = t > first ? t : first;
            if (from < e) {
                for (size_t j = from; j < e; j++)
                    slowk[j] = slow.v[j - slow.base];
                apo__stoch_means(&slow, from, e, sd, slowd + from);
            }
            apo__stoch_buf_keep(&fast, sk - 1);
            apo__stoch_buf_keep(&slow, sd - 1);
            t = e;
        }
        return;
    }
    for (size_t t = begin; t < end; t++) {
        if (t < lookback) {
            slowk[t] = NAN;
            slowd[t] = NAN;
            continue;
        }
        slowk[t] = apo__fastk_mean(io, t, fk, sk);
        apo__dd s = apo__dd_make(0.0, 0.0);
        int ok = 1;
        for (size_t j = t + 1 - sd; j <= t && ok; j++) {
            /* slowk at j: this tile's output where it wrote it (not the NaN lead), else
             * evaluated here. */
            const double v =
                j >= begin && j >= lookback ? slowk[j] : apo__fastk_mean(io, j, fk, sk);
            ok = isfinite(v);
            s = apo__dd_add_d(s, v);
        }
        slowd[t] = ok ? apo__dd_div_d(s, (double)sd).hi : (double)NAN;
    }
}

#endif /* APO_KERNELS_STOCH_TILE_H */
