/* Long-double references of the oscillators of matype averages; see
 * catalog_reference_momentum_ma2.h. */
#include "catalog_reference_momentum_ma2.h"
#include "catalog_reference_common.h"

#include <math.h>
#include <stdlib.h>

#include "catalog_reference.h"
#include "catalog_reference_overlap.h"

static double *doubles(size_t n) {
    double *v = calloc(n ? n : 1, sizeof *v);
    if (v == NULL)
        abort();
    return v;
}

/* MA(period, matype) of the close and its scale, from the overlap studies' reference. */
static void ma_of(const double *const *in, size_t n, double period, double matype, double *ma,
                  double *scale) {
    const double p[2] = {period, matype};
    double *out[1] = {ma}, *sc[1] = {scale};
    apo__ref_cat_ma(in, n, p, out, sc);
}

/* The fast and slow averages: TA-Lib swaps the periods where slowperiod < fastperiod. Writes
 * out[0][t] = fast - slow (percent 0) or ((fast - slow) / slow) * 100, 0 where slow is 0. */
static void price_osc(const double *const *in, size_t n, const double *p, double *const *out,
                      double *const *scale, int percent) {
    const double fast_p = p[0] < p[1] ? p[0] : p[1], slow_p = p[0] < p[1] ? p[1] : p[0];
    double *fast = doubles(n), *fast_s = doubles(n), *slow = doubles(n), *slow_s = doubles(n);
    ma_of(in, n, fast_p, p[2], fast, fast_s);
    ma_of(in, n, slow_p, p[2], slow, slow_s);
    for (size_t t = 0; t < n; t++) {
        out[0][t] = NAN;
        scale[0][t] = NAN;
        if (!isfinite(fast[t]) || !isfinite(slow[t]))
            continue;
        const long double f = fast[t], s = slow[t], sc = (long double)fast_s[t] + slow_s[t];
        if (!percent) {
            out[0][t] = (double)(f - s);
            scale[0][t] = (double)sc;
        } else if (s == 0) {
            out[0][t] = 0;
            scale[0][t] = 0;
        } else {
            out[0][t] = (double)(((f - s) / s) * 100);
            scale[0][t] = (double)(100 * (sc + fabsl(f - s)) / fabsl(s));
        }
    }
    free(fast);
    free(fast_s);
    free(slow);
    free(slow_s);
}

APO_REF_VARIANT_OUTPUTS(apo__ref_cat_apo, price_osc, 0)
APO_REF_VARIANT_OUTPUTS(apo__ref_cat_ppo, price_osc, 1)

/* TA-Lib's MA lookback (TA_MA_Lookback) of a period and matype. */
static size_t ma_lookback(size_t p, int matype) {
    if (p <= 1)
        return 0;
    switch (matype) {
    case 3:
        return 2 * (p - 1);
    case 4:
        return 3 * (p - 1);
    case 6:
        return p;
    case 8:
        return 6 * (p - 1);
    default:
        return p - 1;
    }
}

/* The MA of v[from ..] (the series as if it began at `from`) into ma[t] and its scale, NaN
 * before `from`. */
static void ma_from(const double *v, size_t n, size_t from, double period, double matype,
                    double *ma, double *scale) {
    for (size_t t = 0; t < n; t++) {
        ma[t] = NAN;
        scale[t] = NAN;
    }
    if (from >= n)
        return;
    const double *in[1] = {v + from};
    ma_of(in, n - from, period, matype, ma + from, scale + from);
}

/* TA-Lib's MACDEXT: the periods and their matypes swapped where slowperiod < fastperiod; each
 * average started at L, the larger lookback (its series taken from L less its own lookback);
 * the signal the MA of the macd line from L. The signal's scale adds 16 times the largest scale
 * of the line so far: an error of the line reaches the signal through weights whose magnitudes
 * sum to at most 14 (T3's at vfactor 0.7). */
void apo__ref_cat_macdext(const double *const *in, size_t n, const double *p, double *const *out,
                          double *const *scale) {
    size_t fast = (size_t)p[0], slow = (size_t)p[2];
    int fast_ma = (int)p[1], slow_ma = (int)p[3];
    if (slow < fast) {
        const size_t q = fast;
        const int m = fast_ma;
        fast = slow;
        fast_ma = slow_ma;
        slow = q;
        slow_ma = m;
    }
    const size_t lb_fast = ma_lookback(fast, fast_ma), lb_slow = ma_lookback(slow, slow_ma);
    const size_t line = lb_fast > lb_slow ? lb_fast : lb_slow;
    double *f = doubles(n), *f_s = doubles(n), *s = doubles(n), *s_s = doubles(n);
    double *macd = doubles(n), *macd_s = doubles(n), *sig = doubles(n), *sig_s = doubles(n);
    ma_from(in[0], n, line - lb_fast, (double)fast, fast_ma, f, f_s);
    ma_from(in[0], n, line - lb_slow, (double)slow, slow_ma, s, s_s);
    for (size_t t = 0; t < n; t++) {
        const int ok = t >= line && isfinite(f[t]) && isfinite(s[t]);
        macd[t] = ok ? (double)((long double)f[t] - s[t]) : (double)NAN;
        macd_s[t] = ok ? (double)((long double)f_s[t] + s_s[t]) : 0.0;
    }
    ma_from(macd, n, line, p[4], p[5], sig, sig_s);
    const size_t lookback = line + ma_lookback((size_t)p[4], (int)p[5]);
    long double line_scale = 0;
    for (size_t t = 0; t < n; t++) {
        line_scale = macd_s[t] > line_scale ? macd_s[t] : line_scale;
        for (int o = 0; o < 3; o++) {
            out[o][t] = NAN;
            scale[o][t] = NAN;
        }
        /* TA-Lib's three outputs start together, at the signal's first. */
        if (t < lookback)
            continue;
        if (isfinite(macd[t])) {
            out[0][t] = macd[t];
            scale[0][t] = macd_s[t];
        }
        if (isfinite(sig[t])) {
            const long double sc = sig_s[t] + 16 * line_scale;
            out[1][t] = sig[t];
            scale[1][t] = (double)sc;
            if (isfinite(macd[t])) {
                out[2][t] = (double)((long double)macd[t] - sig[t]);
                scale[2][t] = (double)(sc + macd_s[t]);
            }
        }
    }
    free(f);
    free(f_s);
    free(s);
    free(s_s);
    free(macd);
    free(macd_s);
    free(sig);
    free(sig_s);
}

/* TA-Lib's STOCHRSI: the RSI's reference (catalog_reference.c), fastk of its window of
 * fastk_period values from bar p on, fastd the MA of fastk taken from p + fastk_period - 1.
 * fastk's scale: an error e of the RSI values moves it by up to about 3 e 100 / (H - L)
 * (e of the RSI's scale, 100, times a few ulps), so the scale is (100 + |fastk|) 100 / (H - L),
 * 0 where H = L; fastd's adds 16 times the largest fastk scale so far, as macdext's signal. */
void apo__ref_cat_stochrsi(const double *const *in, size_t n, const double *p, double *const *out,
                           double *const *scale) {
    const size_t period = (size_t)p[0], fk = (size_t)p[1];
    double *rsi = doubles(n), *rsi_s = doubles(n), *k = doubles(n), *k_s = doubles(n);
    double *d = doubles(n), *d_s = doubles(n);
    const double rp[1] = {p[0]};
    apo__ref_cat_rsi(in, n, rp, rsi, rsi_s);
    const size_t fastk_start = period + fk - 1;
    for (size_t t = 0; t < n; t++) {
        k[t] = NAN;
        k_s[t] = 0;
        if (t < fastk_start)
            continue;
        long double hh = -INFINITY, ll = INFINITY;
        int ok = 1;
        for (size_t j = t + 1 - fk; j <= t; j++) {
            ok = ok && isfinite(rsi[j]);
            hh = rsi[j] > hh ? rsi[j] : hh;
            ll = rsi[j] < ll ? rsi[j] : ll;
        }
        if (!ok)
            continue;
        const long double range = hh - ll;
        const long double v = range == 0 ? 0 : (rsi[t] - ll) / range * 100;
        k[t] = (double)v;
        k_s[t] = range == 0 ? 0 : (double)((100 + fabsl(v)) * 100 / range);
    }
    ma_from(k, n, fastk_start, p[2], p[3], d, d_s);
    const size_t lookback = fastk_start + ma_lookback((size_t)p[2], (int)p[3]);
    long double k_scale = 0;
    for (size_t t = 0; t < n; t++) {
        k_scale = k_s[t] > k_scale ? k_s[t] : k_scale;
        for (int o = 0; o < 2; o++) {
            out[o][t] = NAN;
            scale[o][t] = NAN;
        }
        if (t < lookback)
            continue;
        if (isfinite(k[t])) {
            out[0][t] = k[t];
            scale[0][t] = k_s[t];
        }
        if (isfinite(d[t])) {
            out[1][t] = d[t];
            scale[1][t] = (double)(d_s[t] + 16 * k_scale);
        }
    }
    free(rsi);
    free(rsi_s);
    free(k);
    free(k_s);
    free(d);
    free(d_s);
}
