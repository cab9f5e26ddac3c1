/*
 * catalog_reference_talib_more1.h: independent long-double references for TA-Lib 0.8's newer
 * overlap, math and volume kernels of the catalog (docs/kernels/overlap.md, "TA-Lib 0.8's newer
 * averages and channels": cumsum, donchian, vwma, rma, zlema; and vwap), written from the
 * definitions: one window or one sequential pass at a time in long double, nothing shared with
 * kernels/.
 *
 * The signature is catalog_reference_more.h's: out[k][t] for each output k (NaN where the
 * definition gives none, with the gap rule the section states) and scale[k][t], the magnitude
 * the kernel's error is measured against.
 */
#ifndef APO_TEST_CATALOG_REFERENCE_TALIB_MORE1_H
#define APO_TEST_CATALOG_REFERENCE_TALIB_MORE1_H

#include <stddef.h>

#include "catalog_reference_more.h"

/* in: close. The gap bars are taken out of the series (obv's rule). scale: the sum of
 * abs(close) up to t. */
void apo__ref_cat_cumsum(const double *const *in, size_t n, const double *p, double *const *out,
                         double *const *scale);

/* in: high, low; p: timeperiod. Outputs upperband, middleband, lowerband. scale: the larger of
 * abs(upperband) and abs(lowerband). */
void apo__ref_cat_donchian(const double *const *in, size_t n, const double *p, double *const *out,
                           double *const *scale);

/* in: close, volume; p: timeperiod. NaN where the window's volumes sum to 0. scale: the
 * window's sum of abs(close * volume) over abs(sum of volume). */
void apo__ref_cat_vwma(const double *const *in, size_t n, const double *p, double *const *out,
                       double *const *scale);

/* in: high, low, close, volume. The running sums of tp * volume and of the volume from the
 * first bar, tp = (high + low + close) / 3, the gap bars taken out (obv's rule); NaN while the
 * volume's sum is 0. scale: the sum of abs(tp * volume) over abs(sum of volume). */
void apo__ref_cat_vwap(const double *const *in, size_t n, const double *p, double *const *out,
                       double *const *scale);

/* in: close; p: timeperiod. Gap samples skipped (rsi's rule). scale: the largest abs(close) of
 * the series up to t. */
void apo__ref_cat_rma(const double *const *in, size_t n, const double *p, double *const *out,
                      double *const *scale);

/* in: close; p: timeperiod. The de-lagged y rounded to double, as the definition has it; gap
 * values of y skipped (rsi's rule). scale: the largest 2 abs(x[t]) + abs(x[t - lag]) of the
 * series up to t. */
void apo__ref_cat_zlema(const double *const *in, size_t n, const double *p, double *const *out,
                        double *const *scale);

#endif /* APO_TEST_CATALOG_REFERENCE_TALIB_MORE1_H */
