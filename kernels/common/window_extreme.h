/*
 * window_extreme.h: the largest or smallest sample of every window of p samples across a
 * block of bars, by doubling, for the catalog's rolling extremes (max, min, willr, aroon).
 *
 * Why: tracking the extreme's index (TA-Lib's method, minmax_tile.h) costs a compare and a
 * branch per bar and a scan of the window whenever the extreme leaves it; it does not
 * vectorise. Here the extreme of each span of 2, 4, 8, ... samples is built from two of the
 * span before (a sparse table, one level in place over the last), and a window of p samples is
 * the union of two overlapping spans of L = 2^floor(log2 p): K = floor(log2 p) vector passes
 * over the block and its window, then one more, branch-free, APO_TILE_LANES bars at a time.
 * At p = 30 that is five maxima per bar and a quarter of a vector instruction each.
 *
 * Ties: of two equal samples the later one is kept at every step, so each result is the
 * latest sample among those that reach the extreme, as the index tracking's >= gives it; for
 * max and min that decides only the sign of a zero, for aroon the index. The samples must be
 * finite (the callers take a block here only when its windows are clean). Exact: comparisons
 * only, so the bits are those of any other evaluation with the same tie rule.
 *
 * CPU only (APO_TILE_LANES): a GPU thread keeps its tile's scalar tracking, whose outputs are
 * the same.
 */
#ifndef APO_KERNELS_WINDOW_EXTREME_H
#define APO_KERNELS_WINDOW_EXTREME_H

#include "catalog.h"
#include "tile_vec.h"
#include "window.h"
#include "window_sum.h"

#ifdef APO_TILE_LANES

/* The bars of a block, and the longest window taken here: the scratch holds the block and
 * its window (8 KiB for both arrays). MAX of a million samples on avx2 took about 1.5 ms at
 * p = 30, 2 at 64, 3 at 200 and 256 this way, and 7 to 10 ms tracked at 100 to 300; blocks
 * of 512 bars were slower at small p. */
#define APO_EXTREME_BLOCK 256
#define APO_EXTREME_SPAN_MAX 256

/* The fewest bars worth a block: a stream's one-bar update keeps the tracking. */
#define APO_EXTREME_BLOCK_MIN 16

/* One pass's scratch: the extremes of the spans starting at each sample of the block's
 * window (v) and, for the arg-extremes, their positions from its first sample (at). */
typedef struct apo__extreme_scratch {
    double v[APO_EXTREME_BLOCK + APO_EXTREME_SPAN_MAX];
    double at[APO_EXTREME_BLOCK + APO_EXTREME_SPAN_MAX];
} apo__extreme_scratch;

/* The later of two extremes unless the earlier is strictly more extreme: MAXPD and MINPD
 * return their second operand on a tie, so each is one instruction. */
static inline apo_tv apo__tv_keep_later(apo_tv early, apo_tv late, int largest) {
#if APO_TILE_LANES == 8
    return largest ? (apo_tv)_mm512_max_pd((__m512d)early, (__m512d)late)
                   : (apo_tv)_mm512_min_pd((__m512d)early, (__m512d)late);
#elif APO_TILE_LANES == 4
    return largest ? (apo_tv)_mm256_max_pd((__m256d)early, (__m256d)late)
                   : (apo_tv)_mm256_min_pd((__m256d)early, (__m256d)late);
#else
    return largest ? (apo_tv)_mm_max_pd((__m128d)early, (__m128d)late)
                   : (apo_tv)_mm_min_pd((__m128d)early, (__m128d)late);
#endif
}

/* {0, 1, ..., APO_TILE_LANES - 1}: the lanes' offsets from a vector's first bar. */
static inline apo_tv apo__tv_lane_offsets(void) {
    apo_tv lane;
    for (size_t l = 0; l < APO_TILE_LANES; l++)
        lane[l] = (double)l;
    return lane;
}

/* 1 where the later of two extremes is kept (scalar, for the remainders). */
static inline int apo__keep_later(double early, double late, int largest) {
    return largest ? late >= early : late <= early;
}

/* One pass: dst[i], for i < count, is the pick of v[i] and the later v[i + shift], and with
 * dst_at not NULL dst_at[i] the position of the one picked, from v_at (NULL: the positions are
 * the indices, v being the samples). dst may be v (and dst_at v_at): the indices go up, so each
 * value is read before it is overwritten. */
static inline void apo__extreme_pass(const double *v, const double *v_at, size_t count,
                                     size_t shift, int largest, double *dst, double *dst_at) {
    size_t i = 0;
    if (dst_at == NULL) {
        for (; i + APO_TILE_LANES <= count; i += APO_TILE_LANES)
            apo_tv_store(dst + i, apo__tv_keep_later(apo_tv_load(v + i), apo_tv_load(v + i + shift),
                                                     largest));
    } else {
        const apo_tv lane = apo__tv_lane_offsets();
        for (; i + APO_TILE_LANES <= count; i += APO_TILE_LANES) {
            const apo_tv early = apo_tv_load(v + i), late = apo_tv_load(v + i + shift);
            const apo_tm later = largest ? (apo_tm)(late >= early) : (apo_tm)(late <= early);
            const apo_tv at_early = v_at != NULL ? apo_tv_load(v_at + i) : lane + (double)i;
            const apo_tv at_late =
                v_at != NULL ? apo_tv_load(v_at + i + shift) : lane + (double)(i + shift);
            apo_tv_store(dst + i, (apo_tv)(((apo_tm)late & later) | ((apo_tm)early & ~later)));
            apo_tv_store(dst_at + i,
                         (apo_tv)(((apo_tm)at_late & later) | ((apo_tm)at_early & ~later)));
        }
    }
    for (; i < count; i++) {
        const int later = apo__keep_later(v[i], v[i + shift], largest);
        if (dst_at != NULL) {
            const double at_early = v_at != NULL ? v_at[i] : (double)i;
            const double at_late = v_at != NULL ? v_at[i + shift] : (double)(i + shift);
            dst_at[i] = later ? at_late : at_early;
        }
        dst[i] = later ? v[i + shift] : v[i];
    }
}

/* Two passes in one where no positions are kept: dst[i], for i < count, is the pick of
 * v[i] and v[i + shift] with the pick of v[i + 2 shift] and v[i + 3 shift], the later pair
 * second: the operations of apo__extreme_pass at shift and then at 2 shift, on the same pairs
 * in the same order, so the same values, without storing the level between and reading it
 * back (the passes are bound by their stores, one a vector a level). dst may be v, as there. */
static inline void apo__extreme_pass2(const double *v, size_t count, size_t shift, int largest,
                                      double *dst) {
    size_t i = 0;
    for (; i + APO_TILE_LANES <= count; i += APO_TILE_LANES) {
        const apo_tv early =
            apo__tv_keep_later(apo_tv_load(v + i), apo_tv_load(v + i + shift), largest);
        const apo_tv late = apo__tv_keep_later(apo_tv_load(v + i + 2 * shift),
                                               apo_tv_load(v + i + 3 * shift), largest);
        apo_tv_store(dst + i, apo__tv_keep_later(early, late, largest));
    }
    for (; i < count; i++) {
        const double a = v[i], b = v[i + shift], c = v[i + 2 * shift], d = v[i + 3 * shift];
        const double early = apo__keep_later(a, b, largest) ? b : a;
        const double late = apo__keep_later(c, d, largest) ? d : c;
        dst[i] = apo__keep_later(early, late, largest) ? late : early;
    }
}

/* The extremes (largest: 1, the largest; 0, the smallest) of the windows of p samples ending
 * at the bars t .. t + n - 1, n <= APO_EXTREME_BLOCK, 1 <= p <= APO_EXTREME_SPAN_MAX and
 * t + 1 >= p, all of x[t + 1 - p .. t + n) finite: into ext[k], and with `at` not NULL the
 * position of each extreme counted from x[t + 1 - p], the first window's first sample (so
 * at[k] - k from its own window's), as a double. */
static inline void apo__window_extremes(const double *x, size_t t, size_t n, size_t p, int largest,
                                        double *ext, double *at, apo__extreme_scratch *s) {
    const double *v = x + (t + 1 - p), *v_at = NULL;
    double *s_at = at != NULL ? s->at : NULL;
    /* Level j holds the extremes of the n + p - 2^j spans of 2^j samples in the block's
     * window, level 0 being the samples themselves. */
    size_t span = 1;
    /* Without positions, two levels a pass while both fit (apo__extreme_pass2). */
    while (at == NULL && 4 * span <= p) {
        apo__extreme_pass2(v, n + p - 4 * span, span, largest, s->v);
        v = s->v;
        span *= 4;
    }
    while (2 * span <= p) {
        apo__extreme_pass(v, v_at, n + p - 2 * span, span, largest, s->v, s_at);
        v = s->v;
        v_at = s_at;
        span *= 2;
    }
    /* The window starting at k is the span starting there and the one ending with it. */
    apo__extreme_pass(v, v_at, n, p - span, largest, ext, at);
}

/* apo__extreme_pass2 of v for both extremes at once, the smallest into lo and the largest into
 * hi: each sample is loaded once for the two. */
static inline void apo__extreme_pass2_both(const double *v, size_t count, size_t shift, double *lo,
                                           double *hi) {
    size_t i = 0;
    for (; i + APO_TILE_LANES <= count; i += APO_TILE_LANES) {
        const apo_tv a = apo_tv_load(v + i), b = apo_tv_load(v + i + shift);
        const apo_tv c = apo_tv_load(v + i + 2 * shift), d = apo_tv_load(v + i + 3 * shift);
        apo_tv_store(lo + i, apo__tv_keep_later(apo__tv_keep_later(a, b, 0),
                                                apo__tv_keep_later(c, d, 0), 0));
        apo_tv_store(hi + i, apo__tv_keep_later(apo__tv_keep_later(a, b, 1),
                                                apo__tv_keep_later(c, d, 1), 1));
    }
    if (i < count) {
        apo__extreme_pass2(v + i, count - i, shift, 0, lo + i);
        apo__extreme_pass2(v + i, count - i, shift, 1, hi + i);
    }
}

/* Both extremes of the windows, apo__window_extremes at largest 0 into lo and at 1 into hi
 * without positions (minmax's block): the first two levels of both from one reading of the
 * samples, the smallest's levels in the scratch's `at` (free without positions), then each
 * extreme's passes as there, so the same picks in the same order and the same values. In a
 * harness at p = 30 over 1e4 bars on Zen 4: 7.1 us against the two calls' 9.9 on avx512, 6.4
 * against 9.7 on avx2. */
static inline void apo__window_extremes_both(const double *x, size_t t, size_t n, size_t p,
                                             double *lo, double *hi, apo__extreme_scratch *s) {
    const double *v_lo = x + (t + 1 - p), *v_hi = v_lo;
    size_t span = 1;
    if (4 * span <= p) {
        apo__extreme_pass2_both(v_lo, n + p - 4 * span, span, s->at, s->v);
        v_lo = s->at;
        v_hi = s->v;
        span *= 4;
    }
    for (; 4 * span <= p; span *= 4) {
        apo__extreme_pass2(v_lo, n + p - 4 * span, span, 0, s->at);
        apo__extreme_pass2(v_hi, n + p - 4 * span, span, 1, s->v);
        v_lo = s->at;
        v_hi = s->v;
    }
    for (; 2 * span <= p; span *= 2) {
        apo__extreme_pass(v_lo, NULL, n + p - 2 * span, span, 0, s->at, NULL);
        apo__extreme_pass(v_hi, NULL, n + p - 2 * span, span, 1, s->v, NULL);
        v_lo = s->at;
        v_hi = s->v;
    }
    apo__extreme_pass(v_lo, NULL, n, p - span, 0, lo, NULL);
    apo__extreme_pass(v_hi, NULL, n, p - span, 1, hi, NULL);
}

#endif /* APO_TILE_LANES */

/* out[k] = num[k] / den[k], or 0 where den[k] is 0, for k < n (out may be num): the range
 * oscillators' quotients (stoch's fastk, willr). Every lane's quotient is computed and the 0
 * selected after, written in vector lanes on the CPU: a compiler keeps a division under a
 * condition scalar (it could trap where the condition is false), and turns the division by a
 * stand-in 1 into a branch around it. The same operations as the scalar loop, lane by lane. */
#ifdef APO_TILE_LANES
/* num / den lane by lane, or +0.0 where den is 0 (apo__quotients_or_zero's lanes, for a caller
 * that holds them in registers). */
static inline apo_tv apo__tv_quotient_or_zero(apo_tv num, apo_tv den) {
    const apo_tv one = (apo_tv){0} + 1.0;
    const apo_tm nonzero = (apo_tm)(den != 0.0);
    const apo_tv safe = (apo_tv)((nonzero & (apo_tm)den) | (~nonzero & (apo_tm)one));
    /* All bits 0 where den is 0: +0.0, the scalar loop's 0. */
    return (apo_tv)(nonzero & (apo_tm)(num / safe));
}
#endif

static inline APO_HD void apo__quotients_or_zero(const double *num, const double *den, size_t n,
                                                 double *out) {
    size_t k = 0;
#ifdef APO_TILE_LANES
    for (; k + APO_TILE_LANES <= n; k += APO_TILE_LANES)
        apo_tv_store(out + k, apo__tv_quotient_or_zero(apo_tv_load(num + k), apo_tv_load(den + k)));
#endif
    for (; k < n; k++)
        out[k] = den[k] != 0.0 ? num[k] / den[k] : 0.0;
}

/* Where a rolling-extreme body stands between two calls, in apo__cat_run's counts: n[0] the
 * last gap (one past it, 0: none), n[1] whether n[2] (and n[3]), the indices of the
 * extremes, are the last window's. */
typedef struct apo__extremes_state {
    size_t bad;
    int valid;
    size_t at[2];
} apo__extremes_state;

static inline APO_HD apo__extremes_state apo__extremes_load(const apo__cat_run *r) {
    apo__extremes_state s;
    s.bad = r->n[0];
    s.valid = r->n[1] != 0;
    s.at[0] = r->n[2];
    s.at[1] = r->n[3];
    return s;
}

static inline APO_HD void apo__extremes_save(const apo__extremes_state *s, size_t end,
                                             apo__cat_run *r) {
    apo__window_keep(r, end, s->bad, s->valid);
    r->n[2] = s->at[0];
    r->n[3] = s->at[1];
}

/* The next piece [t, *stop) of a run from t < end over windows of w samples: 1 when it is a
 * block for apo__window_extremes, its windows all clean (the one ending at t, given bad, and
 * the piece's samples of the n_in inputs finite), at least APO_EXTREME_BLOCK_MIN bars and w
 * at most APO_EXTREME_SPAN_MAX; 0 when its bars are to be tracked. On the GPU never a block:
 * the whole rest is tracked. */
static inline APO_HD int apo__extreme_piece(const double *const *in, size_t n_in, size_t w,
                                            size_t t, size_t end, size_t bad, size_t *stop) {
#ifdef APO_TILE_LANES
    const size_t e = end - t < APO_EXTREME_BLOCK ? end : t + APO_EXTREME_BLOCK;
    *stop = e;
    if (w > APO_EXTREME_SPAN_MAX || e - t < APO_EXTREME_BLOCK_MIN || !apo__window_clean(t, w, bad))
        return 0;
    int ok = 1;
    for (size_t i = 0; i < n_in; i++)
        ok = ok & apo__block_finite(in[i], t, e);
    return ok;
#else
    (void)in, (void)n_in, (void)w, (void)t, (void)bad;
    *stop = end;
    return 0;
#endif
}

#endif /* APO_KERNELS_WINDOW_EXTREME_H */
