/*
 * catalog_reference_talib_more3.c: see catalog_reference_talib_more3.h.
 */
#include "catalog_reference_talib_more3.h"

#include <math.h>
#include <stdlib.h>

static void nan_fill(double *out, double *scale, size_t n) {
    for (size_t t = 0; t < n; t++) {
        out[t] = NAN;
        scale[t] = 0.0;
    }
}

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
