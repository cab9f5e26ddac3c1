/*
 * catalog_reference_talib_more3.c: see catalog_reference_talib_more3.h.
 */
#include "catalog_reference_talib_more3.h"
#include "catalog_reference_common.h"

#include <math.h>
#include <stdlib.h>

/* 1 when the first k inputs are finite at every bar of [from, to]. */
static int all_finite(const double *const *in, size_t k, size_t from, size_t to) {
    for (size_t i = from; i <= to; i++)
        for (size_t j = 0; j < k; j++)
            if (!isfinite(in[j][i]))
                return 0;
    return 1;
}

void apo__ref_cat_percentrank(const double *const *in, size_t n, const double *p,
                              double *const *out, double *const *scale) {
    const size_t q = (size_t)p[0];
    nan_fill(out[0], scale[0], n);
    for (size_t t = q; t < n; t++) {
        if (!all_finite(in, 1, t - q, t))
            continue;
        /* The rank's definition read the other way round: every earlier sample is compared
         * with the current one, in long double. */
        long double below = 0;
        for (size_t back = 1; back <= q; back++)
            if ((long double)in[0][t] > (long double)in[0][t - back])
                below += 1;
        out[0][t] = (double)(100.0L * below / (long double)q);
        scale[0][t] = 100.0;
    }
}

/* WMA(k) at u of v, in long double: the newest sample weighs k, the oldest 1. */
static long double wma_at(const long double *v, size_t u, size_t k) {
    long double sum = 0;
    for (size_t back = 0; back < k; back++)
        sum += (long double)(k - back) * v[u - back];
    return sum / ((long double)k * (long double)(k + 1) / 2.0L);
}

void apo__ref_cat_hma(const double *const *in, size_t n, const double *p, double *const *out,
                      double *const *scale) {
    const size_t q = (size_t)p[0];
    nan_fill(out[0], scale[0], n);
    size_t s = 0;
    while ((s + 1) * (s + 1) <= q)
        s++;
    const size_t half = q / 2, lead = q <= 1 ? 0 : (q - 1) + (s - 1);
    long double *x = malloc((n ? n : 1) * sizeof *x), *d = malloc((n ? n : 1) * sizeof *d);
    for (size_t t = 0; t < n; t++)
        x[t] = in[0][t];
    /* The de-lagged series wherever its windows are inside the row (NaN samples only make
     * NaN values there, which the clean test below never reads). */
    for (size_t u = q - 1; q > 1 && u < n; u++)
        d[u] = 2.0L * wma_at(x, u, half) - wma_at(x, u, q);
    for (size_t t = lead; t < n; t++) {
        if (!all_finite(in, 1, t - lead, t))
            continue;
        long double hi = 0;
        for (size_t i = t - lead; i <= t; i++)
            hi = fabsl(x[i]) > hi ? fabsl(x[i]) : hi;
        out[0][t] = (double)(q <= 1 ? x[t] : wma_at(d, t, s));
        /* The de-lag's 2 |WMA(h)| + |WMA(n)|, at most three times the window's largest sample. */
        scale[0][t] = hi > 0 ? (double)(3.0L * hi) : 1.0;
    }
    free(x);
    free(d);
}

void apo__ref_cat_massi(const double *const *in, size_t n, const double *p, double *const *out,
                        double *const *scale) {
    const size_t f = (size_t)p[0], s = (size_t)p[1];
    const long double alpha = 2.0L / ((long double)f + 1.0L);
    nan_fill(out[0], scale[0], n);
    long double *ratio = malloc((n ? n : 1) * sizeof *ratio);
    /* Each EMA seeded with the mean of its first f inputs, gap bars skipped by both. */
    long double e1 = 0, e2 = 0, seed1 = 0, seed2 = 0;
    size_t clean_bars = 0;
    for (size_t t = 0; t < n; t++) {
        ratio[t] = NAN;
        if (!all_finite(in, 2, t, t))
            continue;
        const long double range = (long double)in[0][t] - (long double)in[1][t];
        clean_bars++;
        if (clean_bars <= f) {
            seed1 += range;
            e1 = seed1 / (long double)f;
        } else {
            e1 += alpha * (range - e1);
        }
        if (clean_bars < f)
            continue;
        if (clean_bars - f + 1 <= f) {
            seed2 += e1;
            e2 = seed2 / (long double)f;
        } else {
            e2 += alpha * (e1 - e2);
        }
        if (clean_bars >= 2 * f - 1)
            ratio[t] = e2 == 0 ? 1.0L : e1 / e2;
    }
    for (size_t t = s - 1; t < n; t++) {
        long double sum = 0, size = 0;
        int whole = 1;
        for (size_t i = t + 1 - s; i <= t && whole; i++) {
            whole = !isnan(ratio[i]);
            sum += ratio[i];
            size += fabsl(ratio[i]);
        }
        if (!whole)
            continue;
        out[0][t] = (double)sum;
        scale[0][t] = size > 0 ? (double)size : 1.0;
    }
    free(ratio);
}
