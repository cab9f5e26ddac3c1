/*
 * catalog_reference_talib_more5.c: see catalog_reference_talib_more5.h.
 */
#include "catalog_reference_talib_more5.h"

#include <math.h>

#include "catalog_reference_common.h"

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
