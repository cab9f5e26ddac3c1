/*
 * catalog_reference_talib_more2.c: see catalog_reference_talib_more2.h.
 */
#include "catalog_reference_talib_more2.h"
#include "catalog_reference_common.h"

#include <math.h>
#include <stdlib.h>

/* wad's step: the close's move from the true range's low (a rise) or high (a fall); nothing at
 * the first clean bar. */
static void wad_step(const double *const *in, size_t t, long double prev, int first,
                     long double *sum, long double *bound) {
    if (first)
        return;
    const long double h = in[0][t], l = in[1][t], c = in[2][t];
    /* The true range's high and low: the bar's, stretched to the previous close. */
    const long double top = prev > h ? prev : h, bottom = prev < l ? prev : l;
    long double move = 0;
    if (c > prev)
        move = c - bottom;
    else if (c < prev)
        move = c - top;
    *sum += move;
    *bound += fabsl(c) + fabsl(top) + fabsl(bottom);
}

void apo__ref_cat_wad(const double *const *in, size_t n, const double *p, double *const *out,
                      double *const *scale) {
    (void)p;
    running_reference(in, 3, 2, n, out[0], scale[0], wad_step);
}

void apo__ref_cat_fractal(const double *const *in, size_t n, const double *p, double *const *out,
                          double *const *scale) {
    const size_t left = (size_t)p[0], right = (size_t)p[1], span = left + right;
    nan_fill(out[0], scale[0], n);
    nan_fill(out[1], scale[1], n);
    for (size_t t = span; t < n; t++) {
        if (!clean(in, 2, t - span, t))
            continue;
        const size_t pivot = t - right;
        /* A swing high: the pivot's high above every other high of the window, strictly; a
         * swing low alike below. */
        int high = 1, low = 1;
        for (size_t i = t - span; i <= t; i++) {
            if (i == pivot)
                continue;
            high &= in[0][pivot] > in[0][i];
            low &= in[1][pivot] < in[1][i];
        }
        out[0][t] = high ? 100.0 : 0.0;
        out[1][t] = low ? 100.0 : 0.0;
        scale[0][t] = scale[1][t] = 1.0;
    }
}

static int by_value(const void *a, const void *b) {
    const long double x = *(const long double *)a, y = *(const long double *)b;
    return (x > y) - (x < y);
}

void apo__ref_cat_percentile(const double *const *in, size_t n, const double *p, double *const *out,
                             double *const *scale) {
    const size_t q = (size_t)p[0];
    /* The nearest rank, from exact rational arithmetic: percentile * q / 100 rounded up, the
     * percentile taken as the decimal it is given as (the tests' are integers or halves). */
    const long double exact = (long double)p[1] * (long double)q / 100.0L;
    size_t k = (size_t)ceill(exact);
    k = k < 1 ? 1 : k > q ? q : k;
    nan_fill(out[0], scale[0], n);
    long double *w = malloc((q ? q : 1) * sizeof *w);
    for (size_t t = q - 1; t < n; t++) {
        if (!clean(in, 1, t + 1 - q, t))
            continue;
        for (size_t i = 0; i < q; i++)
            w[i] = in[0][t + 1 - q + i];
        qsort(w, q, sizeof *w, by_value);
        out[0][t] = (double)w[k - 1];
        scale[0][t] = fabs(out[0][t]) > 0 ? fabs(out[0][t]) : 1.0;
    }
    free(w);
}
