/*
 * catalog_reference_talib_more3.h: independent long-double references for TA-Lib 0.8's newer
 * kernels of docs/kernels.md, "TA-Lib 0.8's newer functions, group 3" (percentrank, hma, massi),
 * written from the definitions there, one bar or one window at a time, nothing shared with
 * kernels/.
 *
 * The signature is catalog_reference_more.h's: out[k][t] for each output k (NaN where the
 * definition gives none, with the gap rule of docs/kernels.md) and scale[k][t], the magnitude
 * the kernel's error is measured against.
 */
#ifndef APO_TEST_CATALOG_REFERENCE_TALIB_MORE3_H
#define APO_TEST_CATALOG_REFERENCE_TALIB_MORE3_H

#include <stddef.h>

#include "catalog_reference_more.h"

/* in: close; p: timeperiod. The share of the p samples before t below x[t], in percent
 * (scale 100). */
void apo__ref_cat_percentrank(const double *const *in, size_t n, const double *p,
                              double *const *out, double *const *scale);

/* in: close; p: timeperiod. The WMA(floor(sqrt(n))) of 2 WMA(floor(n/2)) - WMA(n), each weighted
 * sum from the definition; the sample itself at n = 1. Scale: three times the window's largest
 * sample. */
void apo__ref_cat_hma(const double *const *in, size_t n, const double *p, double *const *out,
                      double *const *scale);

/* in: high, low; p: fastperiod, slowperiod. The sum of the slowperiod ratios ending at t of the
 * range's EMA to the EMA of that EMA, both EMAs with the exact factor 2 / (f + 1) in long double.
 * Scale: the sum of the ratios' magnitudes. */
void apo__ref_cat_massi(const double *const *in, size_t n, const double *p, double *const *out,
                        double *const *scale);

#endif /* APO_TEST_CATALOG_REFERENCE_TALIB_MORE3_H */
