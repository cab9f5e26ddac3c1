/*
 * ma_series.h: TA-Lib's MA(p, matype) of a series that a tile body computes itself and hands
 * over in pieces (macdext's signal line over its macd line, stochrsi's fastd over its fastk), so
 * that the series is never whole in memory: a body allocates nothing, and the part of the
 * series before `begin` (the average's warm-up) has no row to live in.
 *
 * What: apo__ma_series_start(s, matype, p, h, begin) sets up the average whose outputs from
 * `begin` are wanted, in the series' own indices; the series must then be handed over from
 * apo__ma_series_origin(s) = max(0, begin - h) on, piece after piece, by
 * apo__ma_series_run(s, v, lag, out, u0, u1): v[u - u0] is the series at u, for u in [u0, u1),
 * and out[u - u0] receives the average at each u >= begin.
 *
 * How, by kind:
 *   EMA, DEMA, TEMA, T3: recurrences that read only the value at hand, so each piece runs the
 *   kind's own stream (ema_tile.h, dema_tile.h, tema_tile.h, t3_tile.h: the catalog kernel's
 *   arithmetic, its seeds and gap rule) over the piece, through row pointers offset so that
 *   the series' index u addresses v[u - u0] (only elements inside the piece are touched). A
 *   run from the origin is the kernel's tile over the series from there, whatever the pieces.
 *   SMA and WMA: running double-double sums of the window, S and the weighted sum W (weights
 *   1, oldest, to p, newest): a new value v enters as S += v, W += c v while the window fills
 *   (c the values it then holds), then as W += p v - S (S before its step) and S += v - v_old,
 *   v_old the value leaving, lag[u - u0] = the series at u - p, which the caller takes from a
 *   second copy of its series computed p bars behind from the same origin (the same bits). The
 *   WMA is W / (p (p + 1) / 2), the double-double quotient's high part. p v is an exact
 *   product (dd.h), so the sums hold every term but for the double-double's rounding, about
 *   2^-104 of their size a step. The SMA steps S alone (no SMA output reads W), slid as
 *   window_sum.h's sums are (one plain add a step on the chain, lo folded at fixed indices),
 *   and its average is S / p by products (apo__ma_series_mean); on the CPU a full window's
 *   finite values go a block at a time, terms, slide and averages in three loops
 *   (apo__ma_series_sma_piece), the same steps.
 *   Period 1: the value itself (NaN where it is not finite), as TA-Lib's MA at period 1.
 *   TRIMA, HMA, KAMA and ZLEMA (ma_series_lagged.h) read the series at several distances back
 *   (a triangle is a box of a box, HMA a WMA of two WMAs, KAMA its efficiency ratio's lagged
 *   sum, ZLEMA a lagged value): apo__ma_series_run_lagged takes them from a caller that hands
 *   over the series at each of apo__ma_series_lag_count's distances (kdj); apo__ma_series_run,
 *   whose callers (macdext, stochrsi) hand over one value p back, takes the kinds
 *   apo__ma_series_supported says and writes NaN for the others. MAMA is taken by neither.
 *
 * Gaps (a value that is not finite): the EMA family's rule (NaN, no stage moves); for SMA and
 * WMA the windows' rule, NaN while the window holds one: the sums restart empty after it.
 *
 * The outputs are a function of the origin and the values alone, so a body that starts its
 * series at an origin set by its tile grid gives outputs that are a pure function of the grid.
 */
#ifndef APO_KERNELS_MA_SERIES_H
#define APO_KERNELS_MA_SERIES_H

#include "dd.h"
#include "ma_series_lagged.h"
#include "ma_type.h"
#include "window_sum.h"

/* The sums and count of an SMA or WMA. A piece's loop steps a local copy: stepped through the
 * series (apo__ma_series), which the output stores may alias, every value waited on the sums'
 * stores and loads; in locals they stay in registers (the same operations, so the same bits). */
typedef struct apo__ma_sums {
    apo__dd sum, wsum; /* SMA: S alone; WMA: S and W */
    size_t held;       /* the values the sums hold (at most p) */
} apo__ma_sums;

typedef struct apo__ma_series {
    apo__cat_io io; /* the EMA family's stream call: p, T3's vfactor, h */
    apo__cat_run r; /* its run state; r.t the next index the series is handed over at */
    int matype;
    size_t p, begin;
    apo__ma_sums sums;     /* SMA and WMA */
    apo__ma_lagged lagged; /* TRIMA, HMA, KAMA, ZLEMA (ma_series_lagged.h) */
} apo__ma_series;

/* 1 when the average can be taken over a computed series (see above). */
static inline APO_HD int apo__ma_series_supported(int matype, size_t p) {
    if (p <= 1)
        return 1;
    return matype == APO_MA_SMA || matype == APO_MA_EMA || matype == APO_MA_WMA ||
           matype == APO_MA_DEMA || matype == APO_MA_TEMA || matype == APO_MA_T3;
}

/* 1 when the average can be taken over a computed series whose caller hands over the values at
 * each of apo__ma_series_lag_count's distances back (apo__ma_series_run_lagged): the kinds above
 * and ma_series_lagged.h's, TRIMA, HMA, KAMA and ZLEMA. */
static inline APO_HD int apo__ma_series_takes_lagged(int matype, size_t p) {
    return apo__ma_series_supported(matype, p) || apo__ma_lagged_kind(matype, p);
}

/* 1 when the average reads the value leaving its window (lag of apo__ma_series_run). */
static inline APO_HD int apo__ma_series_lags(int matype, size_t p) {
    return p > 1 && (matype == APO_MA_SMA || matype == APO_MA_WMA);
}

/* How many distances back the average reads (apo__ma_series_run_lagged), and the i-th. */
static inline APO_HD size_t apo__ma_series_lag_count(int matype, size_t p) {
    if (apo__ma_lagged_kind(matype, p))
        return apo__ma_lagged_count(matype, p);
    return apo__ma_series_lags(matype, p) ? 1 : 0;
}
static inline APO_HD size_t apo__ma_series_lag_distance(int matype, size_t p, size_t i) {
    return apo__ma_lagged_kind(matype, p) ? apo__ma_lagged_distance(matype, p, i) : p;
}

static inline APO_HD void apo__ma_series_start(apo__ma_series *s, int matype, size_t p, size_t h,
                                               size_t begin) {
    memset(&s->io, 0, sizeof s->io);
    s->io.p[0] = (double)p;
    s->io.p[1] = APO_MA_T3_VFACTOR;
    s->io.h = h;
    s->matype = matype;
    s->p = p;
    s->begin = begin;
    s->sums.sum = apo__dd_make(0.0, 0.0);
    s->sums.wsum = apo__dd_make(0.0, 0.0);
    s->sums.held = 0;
    /* Every kind starts at the EMA family's warm-up origin; the streams set their seeds there. */
    apo__ema_chain_start(&s->io, begin, &s->r);
    apo__ma_lagged_start(&s->lagged, s->r.t);
}

/* The first index of the series the average reads. */
static inline APO_HD size_t apo__ma_series_origin(const apo__ma_series *s) { return s->r.t; }

/* The double nearest s / p for a slid sum s (window_sum.h: unnormalised) and inv_p = 1 / p
 * rounded: the quotient q1 = s.hi inv_p, then the remainder s - q1 p times inv_p as its
 * correction, as apo__dd_div_d corrects its quotient, with products in place of its two
 * divisions, which bound the loop at a division's throughput. q1 p is within a few ulps of
 * s.hi, so s.hi - q1 p's high part is exact, and the remainder, a few ulps of s.hi, is right
 * to about 2^-52 of itself: the quotient to about 2^-100 before its one rounding. */
static inline APO_HD double apo__ma_series_mean(apo__dd s, double p, double inv_p) {
    const double q1 = s.hi * inv_p;
    const apo__dd q1p = apo__two_prod(q1, p);
    const double rest = ((s.hi - q1p.hi) - q1p.lo) + s.lo;
    return q1 + rest * inv_p;
}

/* One value of the SMA at series index u: the new sum and the average, NaN until the window is
 * full of finite values. S alone (see above), slid as window_sum.h slides a window's sum:
 * gathered (apo__dd_gather) while the window fills, then one value in and one out a step
 * (apo__dd_slide), lo folded into hi at the indices that are multiples of APO_DD_FOLD, so that
 * only one plain add a step is on the sums' chain (two renormalised double-double additions
 * were, about half of stochrsi's and macdext's time at 1e4 bars). The average is taken off the
 * chain (apo__ma_series_mean). */
static inline APO_HD double apo__ma_series_sma_step(apo__ma_sums *m, size_t p, double inv_p,
                                                    size_t u, double v, double v_old) {
    if (!isfinite(v)) {
        m->sum = apo__dd_make(0.0, 0.0);
        m->held = 0;
        return NAN;
    }
    if (m->held < p) {
        m->held++;
        m->sum = apo__dd_gather(m->sum, v, u);
    } else {
        m->sum = apo__dd_slide(m->sum, v, v_old, u);
    }
    if (m->held < p)
        return NAN;
    return apo__ma_series_mean(m->sum, (double)p, inv_p);
}

/* The SMA over a piece (apo__ma_series_run's arguments): a full window's values taken a block of
 * window_sum.h's at a time (apo__dd_block_end: up to a fold) where every value of the block is
 * finite, with the terms of the block's steps computed first (apo__dd_block_step), then the
 * slide (apo__dd_block_slide, the sums' chain alone), then the averages, so that the first and
 * last loops run across the block's values in vector lanes where the scalar steps were bound by
 * the core's adders and multipliers (about two thirds of stochrsi's time at 1e4 bars went to its
 * fastd of three values). Each step is apo__ma_series_sma_step's: the same slide and folds, the
 * same average of the same sums, so the same bits; a value that is not finite, or a window
 * still filling, takes that step. A GPU thread keeps the steps (the block would be its local
 * memory). */
static inline APO_HD void apo__ma_series_sma_piece(apo__ma_sums *m, size_t p, const double *v,
                                                   const double *lag, double *out, size_t u0,
                                                   size_t u1) {
    const double inv_p = 1.0 / (double)p;
    size_t u = u0;
    while (u < u1) {
#ifndef __CUDA_ARCH__
        if (m->held >= p) {
            const double pd = (double)p;
            const size_t n = apo__dd_block_end(u, u1) - u;
            const double *vb = v + (u - u0), *ob = lag + (u - u0);
            if (apo__block_finite(vb, 0, n)) {
                apo__dd_block b;
                for (size_t k = 0; k < n; k++)
                    apo__dd_block_step(&b, k, vb[k], ob[k]);
                m->sum = apo__dd_block_slide(m->sum, &b, u, n, 0);
                double *yb = out + (u - u0);
                for (size_t k = 0; k < n; k++)
                    yb[k] = apo__ma_series_mean(apo__dd_make(b.h[k], b.l[k]), pd, inv_p);
                u += n;
                continue;
            }
        }
#endif
        const double old = m->held < p ? 0.0 : lag[u - u0];
        out[u - u0] = apo__ma_series_sma_step(m, p, inv_p, u, v[u - u0], old);
        u++;
    }
}

/* One value of the WMA: the new sums (W's step reads S) and the average, NaN until the window
 * is full of finite values. */
static inline APO_HD double apo__ma_series_wma_step(apo__ma_sums *m, size_t p, double v,
                                                    double v_old) {
    if (!isfinite(v)) {
        m->sum = apo__dd_make(0.0, 0.0);
        m->wsum = apo__dd_make(0.0, 0.0);
        m->held = 0;
        return NAN;
    }
    const size_t r = m->held < p ? ++m->held : p + 1;
    apo__ma_wma_step(&m->sum, &m->wsum, p, r, v, v_old);
    if (m->held < p)
        return NAN;
    return apo__ma_wma_of(m->wsum, p);
}

/* The series at [u0, u1) (v[u - u0]; u0 the index after the last piece's), the values p bars
 * before them where the kind lags (lag[u - u0], read only once the window is full), and the
 * averages at the indices >= begin into out[u - u0]. */
static inline APO_HD void apo__ma_series_run(apo__ma_series *s, const double *v, const double *lag,
                                             double *out, size_t u0, size_t u1) {
    if (u1 <= u0)
        return;
    if (!apo__ma_series_supported(s->matype, s->p)) {
        for (size_t u = u0; u < u1; u++)
            out[u - u0] = NAN;
    } else if (s->p <= 1) {
        for (size_t u = u0; u < u1; u++)
            out[u - u0] = isfinite(v[u - u0]) ? v[u - u0] : (double)NAN;
    } else if (s->matype == APO_MA_SMA || s->matype == APO_MA_WMA) {
        /* The kind is chosen once a piece, not once a value. */
        const size_t p = s->p;
        apo__ma_sums m = s->sums;
        if (s->matype == APO_MA_SMA) {
            apo__ma_series_sma_piece(&m, p, v, lag, out, u0, u1);
        } else {
            for (size_t u = u0; u < u1; u++) {
                const double old = m.held < p ? 0.0 : lag[u - u0];
                out[u - u0] = apo__ma_series_wma_step(&m, p, v[u - u0], old);
            }
        }
        s->sums = m;
    } else {
        /* Offset rows: the stream reads v[u - u0] and writes out[u - u0] for u in [u0, u1). */
        s->io.in[0] = v - u0;
        s->io.out[0] = out - u0;
        switch (s->matype) {
        case APO_MA_EMA:
            apo__ema_stream_run(&s->io, s->begin, u1, &s->r);
            break;
        case APO_MA_DEMA:
            apo__dema_stream_run(&s->io, s->begin, u1, &s->r);
            break;
        case APO_MA_TEMA:
            apo__tema_stream_run(&s->io, s->begin, u1, &s->r);
            break;
        default:
            apo__t3_stream_run(&s->io, s->begin, u1, &s->r);
            break;
        }
    }
    s->r.t = u1;
}

/* apo__ma_series_run for every kind apo__ma_series_takes_lagged says: lags[i][u - u0] the
 * series apo__ma_series_lag_distance(i) before u (from the origin on; ma_series_lagged.h reads a
 * value only inside the values since the last gap, or ZLEMA's from the origin on). */
static inline APO_HD void apo__ma_series_run_lagged(apo__ma_series *s, const double *v,
                                                    const double *const *lags, double *out,
                                                    size_t u0, size_t u1) {
    if (!apo__ma_lagged_kind(s->matype, s->p)) {
        apo__ma_series_run(s, v, apo__ma_series_lag_count(s->matype, s->p) > 0 ? lags[0] : v, out,
                           u0, u1);
        return;
    }
    const size_t n = apo__ma_lagged_count(s->matype, s->p);
    for (size_t u = u0; u < u1; u++) {
        double lag[APO_MA_SERIES_LAGS] = {NAN, NAN, NAN, NAN, NAN};
        for (size_t i = 0; i < n; i++)
            lag[i] = lags[i][u - u0];
        out[u - u0] = apo__ma_lagged_step(&s->lagged, s->matype, s->p, u, v[u - u0], lag);
    }
    if (u1 > s->r.t)
        s->r.t = u1;
}

#endif /* APO_KERNELS_MA_SERIES_H */
