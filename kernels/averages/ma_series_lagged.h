/*
 * ma_series_lagged.h: the kinds of ma_series.h that read their series at several distances back
 * (TRIMA, HMA, KAMA and ZLEMA over a series computed in pieces): their state and one step each.
 * ma_series.h hands each step the value at hand and the values `apo__ma_lagged_distance` bars
 * before it, which its caller takes from copies of its series computed that far behind from the
 * same origin (the same bits), so no window of the series is ever held.
 *
 * Windows (TRIMA, HMA): running double-double sums (ma_series.h's SMA and WMA sums), counted by
 * the values since the last gap, `run`; a gap (a value that is not finite) empties them and the
 * average is NaN until the window is full again, the windows' rule of the catalog's trima and hma.
 * - TRIMA(p) is the box of p2 of the box of p1 (p1 = (p + 1) / 2, p2 = p / 2 + 1: TA-Lib's two
 *   SMAs): the inner sum F over p1 values, the outer sum T over p2 inner sums, T += F - B, B the
 *   inner sum p2 bars back, slid beside F from the values p2 and p + 1 bars back (the same
 *   operations on the same values, so B has F's bits of then). The average is T / (p1 p2), the
 *   double-double quotient's high part: the weights' sum is p1 p2, trima_tile.h's factor.
 * - HMA(n) is the WMA(s) of `d = 2 WMA(h) - WMA(n)` (h = n / 2, s = floor(sqrt(n)), hma_tile.h):
 *   the two WMAs' sums of the value at hand, the same two s bars behind for the d leaving the
 *   outer window, and the outer WMA's sums over d.
 * Recurrences:
 * - KAMA(p) (kama_tile.h's definition and its deviation form): the noise, the sum of the p moves
 *   `|v[u] - v[u-1]|` ending at u, a running double-double sum (the move in, and the move out
 *   from the values p and p + 1 bars back); the deviation `e = kama - v` seeded 0 at the
 *   (p)th value of a run and then `e = (e - (v - v_prev)) * (1 - sc)`; kama `v + e`. A gap restarts
 *   the definition after it (kama's rule), so a run of NaN before the first value is no gap.
 * - ZLEMA(p): zlema_tile.h's loop, the EMA of `y = 2 v - v[u - lag]`, lag = (p - 1) / 2, seeded
 *   with the mean of the first p finite y; a y that is not finite is skipped (its rule), and so is
 *   one whose lagged value lies before the origin. The catalog kernel's operations, so its bits.
 *
 * Memory: apo__ma_lagged is 10 double-doubles, 4 doubles and 2 counts, 208 bytes, beside
 * apo__ma_series's own state.
 */
#ifndef APO_KERNELS_MA_SERIES_LAGGED_H
#define APO_KERNELS_MA_SERIES_LAGGED_H

#include "dd.h"
#include "hma_tile.h"
#include "kama_tile.h"
#include "ma_type.h"

/* TA-Lib 0.8's MA_Type beyond ma_type.h's nine (kdj's): HMA, no average, the function's own
 * default, ZLEMA and Wilder's smoothing (RMA). */
enum { APO_MA_HMA = 9, APO_MA_NONE = 10, APO_MA_OWN = 11, APO_MA_ZLEMA = 12, APO_MA_WILDER = 13 };

/* The most distances a kind reads back (HMA's five). */
#define APO_MA_SERIES_LAGS 5

typedef struct apo__ma_lagged {
    apo__dd acc[10]; /* TRIMA: F, B, T; HMA: WMA(h), WMA(n), both behind, WMA(s), each S and W;
                      * KAMA: the noise */
    double prev, prev_lag; /* KAMA: the last value and the last lagged value */
    double e, sum;         /* KAMA: the deviation; ZLEMA: the average and the seed's sum */
    size_t run;            /* values since the last gap (ZLEMA: the finite y seen) */
    size_t origin;         /* the series' first index */
} apo__ma_lagged;

/* 1 for the kinds of this file at period p. */
static inline APO_HD int apo__ma_lagged_kind(int matype, size_t p) {
    return p > 1 && (matype == APO_MA_TRIMA || matype == APO_MA_HMA || matype == APO_MA_KAMA ||
                     matype == APO_MA_ZLEMA);
}

/* TRIMA's two boxes. */
static inline APO_HD size_t apo__trima_inner(size_t p) { return (p + 1) / 2; }
static inline APO_HD size_t apo__trima_outer(size_t p) { return p / 2 + 1; }

/* How many distances back the kind reads. */
static inline APO_HD size_t apo__ma_lagged_count(int matype, size_t p) {
    if (!apo__ma_lagged_kind(matype, p))
        return 0;
    if (matype == APO_MA_TRIMA)
        return 3;
    if (matype == APO_MA_HMA)
        return 5;
    if (matype == APO_MA_ZLEMA)
        return (p - 1) / 2 > 0 ? 1 : 0;
    return 1; /* KAMA */
}

/* The i-th distance back (i < apo__ma_lagged_count). */
static inline APO_HD size_t apo__ma_lagged_distance(int matype, size_t p, size_t i) {
    if (matype == APO_MA_TRIMA) {
        const size_t d[3] = {apo__trima_inner(p), apo__trima_outer(p), p + 1};
        return d[i];
    }
    if (matype == APO_MA_HMA) {
        const size_t h = p / 2, s = apo__hma_sqrt_period(p);
        const size_t d[5] = {h, p, s, s + h, s + p};
        return d[i];
    }
    return matype == APO_MA_ZLEMA ? (p - 1) / 2 : p;
}

static inline APO_HD void apo__ma_lagged_start(apo__ma_lagged *l, size_t origin) {
    for (int i = 0; i < 10; i++)
        l->acc[i] = apo__dd_make(0.0, 0.0);
    l->prev = l->prev_lag = l->e = l->sum = 0.0;
    l->run = 0;
    l->origin = origin;
}

/* A box sum of k values at the r-th value of a run (counting v); old leaves it once it is full. */
static inline APO_HD void apo__ma_box_step(apo__dd *s, size_t k, size_t r, double v, double old) {
    *s = r <= k ? apo__dd_add_d(*s, v) : apo__dd_add_d(apo__dd_add_d(*s, v), -old);
}

/* A WMA's sums (s, w: weights 1, oldest, to k) at the r-th value of a run (r > k once full):
 * the steps of ma_series.h's SMA and WMA windows too. */
static inline APO_HD void apo__ma_wma_step(apo__dd *s, apo__dd *w, size_t k, size_t r, double v,
                                           double old) {
    if (r <= k) {
        *w = apo__dd_add(*w, apo__two_prod((double)r, v));
        *s = apo__dd_add_d(*s, v);
    } else {
        *w = apo__dd_add(apo__dd_add(*w, apo__two_prod((double)k, v)), apo__dd_neg(*s));
        *s = apo__dd_add_d(apo__dd_add_d(*s, v), -old);
    }
}

static inline APO_HD double apo__ma_wma_of(apo__dd w, size_t k) {
    const double kd = (double)k;
    return apo__dd_div_d(w, kd * (kd + 1.0) * 0.5).hi;
}

/* TRIMA at the run's r-th value v; lag: the values p1, p2 and p + 1 back. */
static inline APO_HD double apo__ma_trima_step(apo__ma_lagged *l, size_t p, size_t r, double v,
                                               const double *lag) {
    const size_t p1 = apo__trima_inner(p), p2 = apo__trima_outer(p);
    apo__dd *f = &l->acc[0], *b = &l->acc[1], *t = &l->acc[2];
    apo__ma_box_step(f, p1, r, v, lag[0]);
    if (r > p2)
        apo__ma_box_step(b, p1, r - p2, lag[1], lag[2]);
    if (r < p1)
        return NAN;
    *t = r < p1 + p2 ? apo__dd_add(*t, *f) : apo__dd_add(apo__dd_add(*t, *f), apo__dd_neg(*b));
    return r >= p ? apo__dd_div_d(*t, (double)p1 * (double)p2).hi : (double)NAN;
}

/* HMA at the run's r-th value v; lag: the values h, n, s, s + h and s + n back. */
static inline APO_HD double apo__ma_hma_step(apo__ma_lagged *l, size_t n, size_t r, double v,
                                             const double *lag) {
    const size_t h = n / 2, s = apo__hma_sqrt_period(n);
    apo__dd *a = l->acc;
    apo__ma_wma_step(&a[0], &a[1], h, r, v, lag[0]);
    apo__ma_wma_step(&a[2], &a[3], n, r, v, lag[1]);
    if (r > s) {
        apo__ma_wma_step(&a[4], &a[5], h, r - s, lag[2], lag[3]);
        apo__ma_wma_step(&a[6], &a[7], n, r - s, lag[2], lag[4]);
    }
    if (r < n)
        return NAN;
    const size_t q = r - n + 1; /* the d values of the run */
    const double d = 2.0 * apo__ma_wma_of(a[1], h) - apo__ma_wma_of(a[3], n);
    const double d_old = q > s ? 2.0 * apo__ma_wma_of(a[5], h) - apo__ma_wma_of(a[7], n) : 0.0;
    apo__ma_wma_step(&a[8], &a[9], s, q, d, d_old);
    return q >= s ? apo__canonical_nan(apo__ma_wma_of(a[9], s)) : (double)NAN;
}

/* KAMA at the run's r-th value v; lag: the value p back. */
static inline APO_HD double apo__ma_kama_step(apo__ma_lagged *l, size_t p, size_t r, double v,
                                              double lag) {
    apo__dd *noise = &l->acc[0];
    if (r >= 2)
        *noise = apo__dd_add_d(*noise, fabs(v - l->prev));
    if (r >= p + 2)
        *noise = apo__dd_add_d(*noise, -fabs(lag - l->prev_lag));
    double out = NAN;
    if (r > p) {
        const double keep = apo__kama_keep(noise->hi + noise->lo, v - lag);
        l->e = (l->e - (v - l->prev)) * keep;
        out = apo__canonical_nan(v + l->e);
    } else {
        l->e = 0.0;
    }
    l->prev = v;
    l->prev_lag = lag;
    return out;
}

/* ZLEMA at index u of the value v (finite or not); lag: the value (p - 1) / 2 back. */
static inline APO_HD double apo__ma_zlema_step(apo__ma_lagged *l, size_t p, size_t u, double v,
                                               double lag) {
    const size_t back = (p - 1) / 2;
    const double pd = (double)p;
    const double y = back == 0 ? 2.0 * v - v : u >= l->origin + back ? 2.0 * v - lag : NAN;
    if (!isfinite(y))
        return NAN;
    if (l->run < p) {
        l->sum = l->sum + y;
        if (++l->run < p)
            return NAN;
        l->e = l->sum / pd;
    } else {
        l->e = (y - l->e) * (2.0 / (pd + 1.0)) + l->e;
    }
    return apo__canonical_nan(l->e);
}

/* The kind's average at index u of the value v, lag[i] the value apo__ma_lagged_distance(i)
 * back (read only where that lies inside the run, or for ZLEMA from the origin on). */
static inline APO_HD double apo__ma_lagged_step(apo__ma_lagged *l, int matype, size_t p, size_t u,
                                                double v, const double *lag) {
    if (matype == APO_MA_ZLEMA)
        return apo__ma_zlema_step(l, p, u, v, lag[0]);
    if (!isfinite(v)) {
        apo__ma_lagged_start(l, l->origin);
        return NAN;
    }
    const size_t r = ++l->run;
    if (matype == APO_MA_TRIMA)
        return apo__ma_trima_step(l, p, r, v, lag);
    if (matype == APO_MA_HMA)
        return apo__ma_hma_step(l, p, r, v, lag);
    return apo__ma_kama_step(l, p, r, v, lag[0]);
}

#endif /* APO_KERNELS_MA_SERIES_LAGGED_H */
