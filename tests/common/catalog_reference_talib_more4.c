/*
 * catalog_reference_talib_more4.c: see catalog_reference_talib_more4.h.
 */
#include "catalog_reference_talib_more4.h"

#include <math.h>
#include <stdlib.h>

void apo__ref_cat_cvi(const double *const *in, size_t n, const double *p, double *const *out,
                      double *const *scale) {
    const size_t w = (size_t)p[0], r = (size_t)p[1];
    for (size_t t = 0; t < n; t++) {
        out[0][t] = NAN;
        scale[0][t] = 0.0;
    }
    /* ema[t]: the EMA after bar t; seeded[t]: whether it had its p ranges by then. */
    long double *ema = malloc((n ? n : 1) * sizeof *ema);
    char *seeded = malloc(n ? n : 1);
    if (!ema || !seeded)
        abort();
    long double e = 0, sum = 0, widest = 0;
    const long double k = 2.0L / (w + 1);
    size_t seen = 0;
    for (size_t t = 0; t < n; t++) {
        const long double range = (long double)in[0][t] - (long double)in[1][t];
        const int finite = isfinite(in[0][t]) && isfinite(in[1][t]);
        if (finite) {
            widest = fmaxl(widest, fabsl(range));
            if (seen < w) {
                sum += range;
                if (++seen == w)
                    e = sum / w;
            } else {
                e += (range - e) * k;
            }
        }
        ema[t] = e;
        seeded[t] = seen == w;
        if (!finite || t < r || !seeded[t - r])
            continue;
        const long double before = ema[t - r];
        out[0][t] = before != 0 ? (double)(100 * (e - before) / before) : 0.0;
        scale[0][t] = before != 0 ? (double)(100 * widest / fabsl(before)) : 1.0;
    }
    free(ema);
    free(seeded);
}

/* The true range of bar t (t >= 1) in long double, TA-Lib's definition. */
static long double true_range(const double *high, const double *low, const double *close,
                              size_t t) {
    const long double h = high[t], l = low[t], c = close[t - 1];
    return fmaxl(h - l, fmaxl(fabsl(c - h), fabsl(c - l)));
}

void apo__ref_cat_kc(const double *const *in, size_t n, const double *p, double *const *out,
                     double *const *scale) {
    const size_t w = (size_t)p[0], a = (size_t)p[1];
    const long double nbdev = p[2], k = 2.0L / (w + 1);
    for (size_t o = 0; o < 3; o++)
        for (size_t t = 0; t < n; t++) {
            out[o][t] = NAN;
            scale[o][t] = 0.0;
        }
    /* Both seeds end at the lookback bar: the EMA's p typical prices, the ATR's a true ranges. */
    const size_t last = w - 1 > a ? w - 1 : a;
    long double e = 0, e_sum = 0, atr = 0, atr_sum = 0, largest_typical = 0, widest = 0;
    size_t e_seen = 0, atr_seen = 0;
    const size_t e_from = last + 1 - w, atr_from = last + 1 - a;
    for (size_t t = e_from < atr_from ? e_from : atr_from; t < n; t++) {
        const long double typical =
            ((long double)in[0][t] + (long double)in[1][t] + (long double)in[2][t]) / 3;
        int have_mid = 0, have_atr = 0;
        if (t >= e_from && isfinite(in[0][t]) && isfinite(in[1][t]) && isfinite(in[2][t])) {
            largest_typical = fmaxl(largest_typical, fabsl(typical));
            if (e_seen < w) {
                e_sum += typical;
                e = e_sum / w;
                have_mid = ++e_seen == w;
            } else {
                e += (typical - e) * k;
                have_mid = 1;
            }
        }
        if (t >= atr_from && isfinite(in[0][t]) && isfinite(in[1][t]) && isfinite(in[2][t - 1])) {
            const long double tr = true_range(in[0], in[1], in[2], t);
            widest = fmaxl(widest, tr);
            if (atr_seen < a) {
                atr_sum += tr;
                atr = atr_sum / a;
                have_atr = ++atr_seen == a;
            } else {
                atr = (atr * (a - 1) + tr) / a;
                have_atr = 1;
            }
        }
        if (!have_mid || !have_atr)
            continue;
        out[0][t] = (double)(e + atr * nbdev);
        out[1][t] = (double)e;
        out[2][t] = (double)(e - atr * nbdev);
        scale[1][t] = (double)largest_typical;
        scale[0][t] = scale[2][t] = (double)(largest_typical + fabsl(nbdev) * widest);
    }
}

void apo__ref_cat_supertrend(const double *const *in, size_t n, const double *p,
                             double *const *out) {
    const size_t w = (size_t)p[0];
    const double multiplier = p[1];
    for (size_t t = 0; t < n; t++)
        out[0][t] = out[1][t] = NAN;
    /* The clean bars, in order: the definition runs over the series with its gap bars out. */
    size_t *bar = malloc((n ? n : 1) * sizeof *bar), m = 0;
    if (!bar)
        abort();
    for (size_t t = 0; t < n; t++)
        if (isfinite(in[0][t]) && isfinite(in[1][t]) && isfinite(in[2][t]))
            bar[m++] = t;
    const double *high = in[0], *low = in[1], *close = in[2];
    double atr = 0, upper = 0, lower = 0;
    int up = 1;
    for (size_t j = 1; j < m; j++) {
        const size_t t = bar[j];
        const double c = close[bar[j - 1]];
        double tr = high[t] - low[t];
        if (fabs(c - high[t]) > tr)
            tr = fabs(c - high[t]);
        if (fabs(c - low[t]) > tr)
            tr = fabs(c - low[t]);
        if (j < w) {
            atr += tr;
            continue;
        }
        if (j == w) {
            atr = (atr + tr) / (double)w;
        } else {
            /* TA-Lib 0.8's fused step (as its SUPERTREND built for FMA computes it). */
            const double keep = (double)(w - 1) / (double)w;
            atr = fma(atr, keep, tr * (1.0 - keep));
        }
        const double median = (high[t] + low[t]) / 2.0, band = multiplier * atr;
        if (j == w) {
            upper = median + band;
            lower = median - band;
        } else {
            if (median + band < upper || c > upper)
                upper = median + band;
            if (median - band > lower || c < lower)
                lower = median - band;
            if (up && close[t] < lower)
                up = 0;
            else if (!up && close[t] > upper)
                up = 1;
        }
        out[0][t] = up ? lower : upper;
        out[1][t] = up ? 1.0 : -1.0;
    }
    free(bar);
}
