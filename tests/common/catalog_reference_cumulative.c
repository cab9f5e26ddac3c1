/* Long-double references of the catalog's running sums; see catalog_reference_cumulative.h. */
#include "catalog_reference_cumulative.h"
#include "catalog_reference_common.h"

#include <math.h>

/* The two running sums are steps of running_reference (catalog_reference_common.h), which
 * walks the clean bars for them; each bound is the largest |sum| so far. */

/* TA-Lib's OBV over the clean bars: the first one's volume, then plus or minus each volume as
 * its close (input 0) is above or below the clean bar's before it (prev). */
static void obv_step(const double *const *in, size_t t, long double prev, int first,
                     long double *sum, long double *bound) {
    const double close = in[0][t], volume = in[1][t];
    if (first)
        *sum = volume;
    else if (close > prev)
        *sum += volume;
    else if (close < prev)
        *sum -= volume;
    *bound = fabsl(*sum) > *bound ? fabsl(*sum) : *bound;
}

void apo__ref_cat_obv(const double *const *in, size_t n, const double *p, double *const *out,
                      double *const *scale) {
    (void)p;
    running_reference(in, 2, 0, n, out[0], scale[0], obv_step);
}

/* TA-Lib's AD over the clean bars: the close location value (where the close lies in the
 * bar's range, -1 at the low to 1 at the high) times the volume, summed; a bar without a
 * positive range adds nothing. Its bound also holds each |volume|. */
static void ad_step(const double *const *in, size_t t, long double prev, int first,
                    long double *sum, long double *bound) {
    (void)prev;
    (void)first;
    const long double h = in[0][t], l = in[1][t], c = in[2][t];
    if (h > l)
        *sum += ((c - l) - (h - c)) / (h - l) * in[3][t];
    const long double v = fabsl((long double)in[3][t]);
    *bound = fabsl(*sum) > *bound ? fabsl(*sum) : *bound;
    *bound = v > *bound ? v : *bound;
}

void apo__ref_cat_ad(const double *const *in, size_t n, const double *p, double *const *out,
                     double *const *scale) {
    (void)p;
    running_reference(in, 4, 2, n, out[0], scale[0], ad_step);
}
