/*
 * catalog_reference_talib_more4.h: independent long-double references for TA-Lib 0.8's newer
 * volatility and channel kernels of the catalog (docs/kernels.md, "TA-Lib 0.8's newer functions,
 * group 4": cvi, kc, supertrend), written from the definitions: one sequential pass at a time in
 * long double, nothing shared with kernels/.
 *
 * The signature is catalog_reference_more.h's: out[k][t] for each output k (NaN where the
 * definition gives none, with the gap rule the section states) and scale[k][t], the magnitude
 * the kernel's error is measured against.
 */
#ifndef APO_TEST_CATALOG_REFERENCE_TALIB_MORE4_H
#define APO_TEST_CATALOG_REFERENCE_TALIB_MORE4_H

#include <stddef.h>

#include "catalog_reference_more.h"

/* in: high, low; p: timeperiod, rocperiod. The EMA of the ranges kept for every bar (a gap bar
 * keeps the value before it) and the rate of change read from that record r bars back.
 * scale: 100 times the largest range up to t over abs(E[t - r]). */
void apo__ref_cat_cvi(const double *const *in, size_t n, const double *p, double *const *out,
                      double *const *scale);

/* in: high, low, close; p: timeperiod, atrperiod, nbdev. Outputs upperband, middleband,
 * lowerband; both legs seeded over the bars ending at the lookback max(p - 1, a), TA-Lib's.
 * scale: the largest abs(typical price) up to t, plus abs(nbdev) times the widest true range for
 * the bands. */
void apo__ref_cat_kc(const double *const *in, size_t n, const double *p, double *const *out,
                     double *const *scale);

/* in: high, low, close; p: timeperiod, multiplier. Outputs supertrend and trend (1, -1). In
 * double, TA-Lib's operations in its order, 0.8's fused ATR step (the bands are compared, so a
 * reference in another precision would take other branches), over the series with its gap bars
 * taken out (obv's rule): a kernel has its bits exactly. */
void apo__ref_cat_supertrend(const double *const *in, size_t n, const double *p,
                             double *const *out);

#endif /* APO_TEST_CATALOG_REFERENCE_TALIB_MORE4_H */
