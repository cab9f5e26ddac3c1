/*
 * catalog_reference_talib_more5.c: see catalog_reference_talib_more5.h.
 */
#include "catalog_reference_talib_more5.h"

#include <math.h>
#include <stdlib.h>

#include "catalog_reference_common.h"
#include "catalog_reference_overlap.h"
#include "catalog_reference_talib_more1.h"
#include "catalog_reference_talib_more3.h"

/* The population standard deviation of x[t - s + 1 .. t], mean first, then the squared
 * deviations from it. */
static long double window_sigma(const double *x, size_t t, size_t s) {
    long double mean = 0, m2 = 0;
    for (size_t j = t + 1 - s; j <= t; j++)
        mean += x[j];
    mean /= s;
    for (size_t j = t + 1 - s; j <= t; j++)
        m2 += ((long double)x[j] - mean) * ((long double)x[j] - mean);
    return sqrtl(m2 / s);
}

void apo__ref_cat_rvi(const double *const *in, size_t n, const double *p, double *const *out,
                      double *const *scale) {
    const size_t w = (size_t)p[0], s = (size_t)p[1];
    const double *x = in[0];
    nan_fill(out[0], scale[0], n);
    long double up = 0, down = 0;
    size_t seen = 0;
    for (size_t t = s - 1; t < n; t++) {
        if (!clean(in, 1, t + 1 - s, t))
            continue;
        const long double sigma = window_sigma(x, t, s);
        const long double u = x[t] > x[t - 1] ? sigma : 0, d = x[t] < x[t - 1] ? sigma : 0;
        if (seen < w) {
            up += u;
            down += d;
            if (++seen < w)
                continue;
            up /= w;
            down /= w;
        } else {
            up = (up * (w - 1) + u) / w;
            down = (down * (w - 1) + d) / w;
        }
        out[0][t] = up + down == 0 ? 50.0 : (double)(100 * up / (up + down));
        scale[0][t] = 100.0;
    }
}

/* An EMA of period n in long double: the mean of its first n inputs, then e += (v - e) k. */
typedef struct {
    size_t n, seen;
    long double sum, e;
} ref_ema;

/* Takes v; returns whether the EMA has its value after it. */
static int ref_ema_take(ref_ema *a, long double v) {
    if (a->seen < a->n) {
        a->sum += v;
        if (++a->seen < a->n)
            return 0;
        a->e = a->sum / a->n;
        return 1;
    }
    a->e += (v - a->e) * (2.0L / (a->n + 1));
    return 1;
}

void apo__ref_cat_smi(const double *const *in, size_t n, const double *p, double *const *out,
                      double *const *scale) {
    const size_t w = (size_t)p[0];
    nan_fill(out[0], scale[0], n);
    nan_fill(out[1], scale[1], n);
    ref_ema slow_num = {(size_t)p[2], 0, 0, 0}, slow_den = slow_num;
    ref_ema fast_num = {(size_t)p[1], 0, 0, 0}, fast_den = fast_num;
    ref_ema signal = {(size_t)p[3], 0, 0, 0};
    for (size_t t = w - 1; t < n; t++) {
        if (!clean(in, 2, t + 1 - w, t) || !isfinite(in[2][t]))
            continue;
        long double hh = in[0][t], ll = in[1][t];
        for (size_t j = t + 1 - w; j < t; j++) {
            hh = fmaxl(hh, in[0][j]);
            ll = fminl(ll, in[1][j]);
        }
        const int a = ref_ema_take(&slow_num, in[2][t] - (hh + ll) / 2);
        ref_ema_take(&slow_den, hh - ll);
        if (!a)
            continue;
        const int b = ref_ema_take(&fast_num, slow_num.e);
        ref_ema_take(&fast_den, slow_den.e);
        if (!b)
            continue;
        const long double line = fast_den.e > 0 ? 100 * fast_num.e / (fast_den.e / 2) : 0;
        if (!ref_ema_take(&signal, line))
            continue;
        out[0][t] = (double)line;
        out[1][t] = (double)signal.e;
        scale[0][t] = scale[1][t] = 100.0;
    }
}

/* An average of TA-Lib's MA_Type as kdj takes it: the value itself (period 1, matype 10), else
 * the mean of the first p values, then EMA's step (matype 1) or Wilder's (11, 13). */
typedef struct {
    size_t p, seen;
    int kind;
    long double a;
} ref_kdj_ma;

static int ref_kdj_ma_take(ref_kdj_ma *m, long double v) {
    if (m->p <= 1 || m->kind == 10) {
        m->a = v;
        return 1;
    }
    if (m->seen < m->p) {
        m->a += v;
        if (++m->seen < m->p)
            return 0;
        m->a /= m->p;
    } else if (m->kind == 1) {
        m->a += (v - m->a) * (2.0L / (m->p + 1));
    } else {
        m->a = (m->a * (m->p - 1) + v) / m->p;
    }
    return 1;
}

/* 1 where kdj's average is a kind of TA-Lib's MA that is not a recurrence over the value at
 * hand: SMA, WMA, DEMA, TEMA, TRIMA, KAMA, T3, HMA and ZLEMA above period 1. */
static int kdj_by_ma_reference(double period, double matype) {
    return period > 1 &&
           ((matype >= 0 && matype <= 6) || matype == 8 || matype == 9 || matype == 12) &&
           matype != 1;
}

/* One of kdj's averages of the whole series v (NaN where it has no value) into avg: the overlap
 * studies' MA reference of its kind (an SMA's or WMA's window holding a NaN gives NaN, the EMA
 * family skips it, so k's warm-up delays d as TA-Lib's d taken from k's first value), else
 * ref_kdj_ma over the finite values. */
static void kdj_average(const double *v, size_t n, double period, double matype, double *avg,
                        double *scratch) {
    if (kdj_by_ma_reference(period, matype)) {
        const double *in[1] = {v}, mp[2] = {period, matype};
        double *o[1] = {avg}, *sc[1] = {scratch};
        /* HMA and ZLEMA (TA-Lib 0.8's kinds 9 and 12) are kernels of their own, not ma's. */
        if (matype == 9)
            apo__ref_cat_hma(in, n, mp, o, sc);
        else if (matype == 12)
            apo__ref_cat_zlema(in, n, mp, o, sc);
        else
            apo__ref_cat_ma(in, n, mp, o, sc);
        return;
    }
    ref_kdj_ma m = {(size_t)period, 0, (int)matype, 0};
    for (size_t t = 0; t < n; t++)
        avg[t] = isfinite(v[t]) && ref_kdj_ma_take(&m, v[t]) ? (double)m.a : NAN;
}

/* kdj with an average of the whole series kinds: fastk, k and d as series in double, then the
 * outputs where k and d both have a value. */
static void kdj_of_series(const double *const *in, size_t n, const double *p, double *const *out,
                          double *const *scale) {
    const size_t fk = (size_t)p[0];
    double *buf = malloc(4 * (n + 1) * sizeof *buf);
    if (buf == NULL)
        abort();
    double *fastk = buf, *k = buf + (n + 1), *d = buf + 2 * (n + 1), *scratch = buf + 3 * (n + 1);
    for (size_t t = 0; t < n; t++) {
        fastk[t] = NAN;
        if (t + 1 < fk || !clean(in, 2, t + 1 - fk, t) || !isfinite(in[2][t]))
            continue;
        long double hh = in[0][t], ll = in[1][t];
        for (size_t j = t + 1 - fk; j < t; j++) {
            hh = fmaxl(hh, in[0][j]);
            ll = fminl(ll, in[1][j]);
        }
        fastk[t] = (double)(hh != ll ? 100 * (in[2][t] - ll) / (hh - ll) : 0);
    }
    kdj_average(fastk, n, p[1], p[2], k, scratch);
    kdj_average(k, n, p[3], p[4], d, scratch);
    for (size_t t = 0; t < n; t++) {
        if (!isfinite(k[t]) || !isfinite(d[t]))
            continue;
        out[0][t] = k[t];
        out[1][t] = d[t];
        out[2][t] = (double)(3 * (long double)k[t] - 2 * (long double)d[t]);
        scale[0][t] = scale[1][t] = 100.0;
        scale[2][t] = 500.0;
    }
    free(buf);
}

void apo__ref_cat_kdj(const double *const *in, size_t n, const double *p, double *const *out,
                      double *const *scale) {
    const size_t fk = (size_t)p[0];
    for (size_t o = 0; o < 3; o++)
        nan_fill(out[o], scale[o], n);
    if (kdj_by_ma_reference(p[1], p[2]) || kdj_by_ma_reference(p[3], p[4])) {
        kdj_of_series(in, n, p, out, scale);
        return;
    }
    ref_kdj_ma k = {(size_t)p[1], 0, (int)p[2], 0}, d = {(size_t)p[3], 0, (int)p[4], 0};
    for (size_t t = fk - 1; t < n; t++) {
        if (!clean(in, 2, t + 1 - fk, t) || !isfinite(in[2][t]))
            continue;
        long double hh = in[0][t], ll = in[1][t];
        for (size_t j = t + 1 - fk; j < t; j++) {
            hh = fmaxl(hh, in[0][j]);
            ll = fminl(ll, in[1][j]);
        }
        const long double fastk = hh != ll ? 100 * (in[2][t] - ll) / (hh - ll) : 0;
        if (!ref_kdj_ma_take(&k, fastk) || !ref_kdj_ma_take(&d, k.a))
            continue;
        out[0][t] = (double)k.a;
        out[1][t] = (double)d.a;
        out[2][t] = (double)(3 * k.a - 2 * d.a);
        scale[0][t] = scale[1][t] = 100.0;
        scale[2][t] = 500.0;
    }
}

/* kdj's reference at kdj's parameters q, its j written to a scratch row. */
static void kd_of_kdj(const double *const *in, size_t n, const double *q, double *const *out,
                      double *const *scale) {
    double *j = malloc((n > 0 ? n : 1) * sizeof *j), *js = malloc((n > 0 ? n : 1) * sizeof *js);
    if (j == NULL || js == NULL)
        abort();
    double *kdj_out[3] = {out[0], out[1], j}, *kdj_scale[3] = {scale[0], scale[1], js};
    apo__ref_cat_kdj(in, n, q, kdj_out, kdj_scale);
    free(j);
    free(js);
}

void apo__ref_cat_stoch_ma(const double *const *in, size_t n, const double *p, double *const *out,
                           double *const *scale) {
    kd_of_kdj(in, n, p, out, scale);
}

void apo__ref_cat_stochf_ma(const double *const *in, size_t n, const double *p, double *const *out,
                            double *const *scale) {
    const double q[5] = {p[0], 1, 0, p[1], p[2]};
    kd_of_kdj(in, n, q, out, scale);
}
