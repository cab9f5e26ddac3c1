/*
 * catalog_reference_talib_more1.c: see catalog_reference_talib_more1.h.
 */
#include "catalog_reference_talib_more1.h"
#include "catalog_reference_common.h"

#include <math.h>

void apo__ref_cat_cumsum(const double *const *in, size_t n, const double *p, double *const *out,
                         double *const *scale) {
    (void)p;
    nan_fill(out[0], scale[0], n);
    long double sum = 0, magnitude = 0;
    for (size_t t = 0; t < n; t++) {
        if (!clean(in, 1, t, t))
            continue;
        sum += in[0][t];
        magnitude += fabsl((long double)in[0][t]);
        out[0][t] = (double)sum;
        scale[0][t] = (double)magnitude;
    }
}

void apo__ref_cat_vwap(const double *const *in, size_t n, const double *p, double *const *out,
                       double *const *scale) {
    (void)p;
    nan_fill(out[0], scale[0], n);
    long double flow = 0, volume = 0, magnitude = 0;
    for (size_t t = 0; t < n; t++) {
        if (!clean(in, 4, t, t))
            continue;
        const long double tp = ((long double)in[0][t] + in[1][t] + in[2][t]) / 3;
        flow += tp * in[3][t];
        volume += in[3][t];
        magnitude += fabsl(tp * in[3][t]);
        if (volume == 0)
            continue;
        out[0][t] = (double)(flow / volume);
        scale[0][t] = (double)(magnitude / fabsl(volume));
    }
}

void apo__ref_cat_donchian(const double *const *in, size_t n, const double *p, double *const *out,
                           double *const *scale) {
    const size_t w = (size_t)p[0];
    for (size_t k = 0; k < 3; k++)
        nan_fill(out[k], scale[k], n);
    for (size_t t = w - 1; t < n; t++) {
        if (!clean(in, 2, t + 1 - w, t))
            continue;
        long double top = in[0][t], bottom = in[1][t];
        for (size_t i = t + 1 - w; i <= t; i++) {
            top = fmaxl(top, in[0][i]);
            bottom = fminl(bottom, in[1][i]);
        }
        out[0][t] = (double)top;
        out[1][t] = (double)((top + bottom) / 2);
        out[2][t] = (double)bottom;
        const double s = (double)fmaxl(fabsl(top), fabsl(bottom));
        for (size_t k = 0; k < 3; k++)
            scale[k][t] = s;
    }
}

void apo__ref_cat_vwma(const double *const *in, size_t n, const double *p, double *const *out,
                       double *const *scale) {
    const size_t w = (size_t)p[0];
    nan_fill(out[0], scale[0], n);
    for (size_t t = w - 1; t < n; t++) {
        if (!clean(in, 2, t + 1 - w, t))
            continue;
        long double weighted = 0, volume = 0, magnitude = 0;
        for (size_t i = t + 1 - w; i <= t; i++) {
            const long double c = in[0][i], v = in[1][i];
            weighted += c * v;
            volume += v;
            magnitude += fabsl(c * v);
        }
        if (volume == 0)
            continue;
        out[0][t] = (double)(weighted / volume);
        scale[0][t] = (double)(magnitude / fabsl(volume));
    }
}

void apo__ref_cat_rma(const double *const *in, size_t n, const double *p, double *const *out,
                      double *const *scale) {
    const size_t w = (size_t)p[0];
    nan_fill(out[0], scale[0], n);
    long double sum = 0, a = 0, largest = 0;
    size_t seen = 0;
    for (size_t t = 0; t < n; t++) {
        if (!clean(in, 1, t, t))
            continue;
        const long double x = in[0][t];
        largest = fmaxl(largest, fabsl(x));
        if (seen < w) {
            sum += x;
            if (++seen < w)
                continue;
            a = sum / w;
        } else {
            a += (x - a) / w;
        }
        out[0][t] = (double)a;
        scale[0][t] = (double)largest;
    }
}

void apo__ref_cat_zlema(const double *const *in, size_t n, const double *p, double *const *out,
                        double *const *scale) {
    const size_t w = (size_t)p[0], lag = (w - 1) / 2;
    nan_fill(out[0], scale[0], n);
    long double sum = 0, e = 0, largest = 0;
    const long double k = 2.0L / (w + 1);
    size_t seen = 0;
    for (size_t t = lag; t < n; t++) {
        const double x = in[0][t], lagged = in[0][t - lag];
        if (!isfinite(x) || !isfinite(lagged))
            continue;
        const double y = 2.0 * x - lagged;
        largest = fmaxl(largest, 2 * fabsl((long double)x) + fabsl((long double)lagged));
        if (seen < w) {
            sum += y;
            if (++seen < w)
                continue;
            e = sum / w;
        } else {
            e += (y - e) * k;
        }
        out[0][t] = (double)e;
        scale[0][t] = (double)largest;
    }
}
