/*
 * catalog_reference_cumulative.h: independent long-double references for the catalog's
 * running sums obv and ad (docs/kernels/volume_statistics.md, "Cumulative indicators: obv, ad
 * and vwap"; vwap's is catalog_reference_talib_more1.c's), written from the definitions and
 * nothing shared with kernels/.
 *
 * They state the gap policy their own way: the gap bars are taken out of the series, TA-Lib's
 * definition runs over the bars left, and its values go back to those bars' places, NaN
 * elsewhere. The kernels skip gaps inside one running pass instead; agreement says the two
 * readings are one policy.
 *
 * Signature and outputs as catalog_reference_more.h: out[0][t] and scale[0][t], the scale
 * being the largest magnitude a double running sum has met up to t (below).
 */
#ifndef APO_TEST_CATALOG_REFERENCE_CUMULATIVE_H
#define APO_TEST_CATALOG_REFERENCE_CUMULATIVE_H

#include <stddef.h>

#include "catalog_reference_more.h"

/* OBV; in: close, volume. scale: the largest abs(OBV) of the clean bars up to t. */
void apo__ref_cat_obv(const double *const *in, size_t n, const double *p, double *const *out,
                      double *const *scale);

/* AD; in: high, low, close, volume. scale: the largest abs(AD) or abs(volume) of the clean
 * bars up to t (a bar's rounded step is off by up to an ulp of its volume where its
 * numerator cancels). */
void apo__ref_cat_ad(const double *const *in, size_t n, const double *p, double *const *out,
                     double *const *scale);

#endif /* APO_TEST_CATALOG_REFERENCE_CUMULATIVE_H */
