/*
 * catalog_reference_talib_more5.h: independent long-double references for the last of TA-Lib
 * 0.8's newer functions (docs/kernels.md, "TA-Lib 0.8's newer functions, group 5": rvi, smi,
 * kdj), written from the definitions: one sequential pass at a time in long double, nothing
 * shared with kernels/.
 *
 * The signature is catalog_reference_more.h's: out[k][t] for each output k (NaN where the
 * definition gives none, with the gap rule the section states) and scale[k][t], the magnitude
 * the kernel's error is measured against.
 */
#ifndef APO_TEST_CATALOG_REFERENCE_TALIB_MORE5_H
#define APO_TEST_CATALOG_REFERENCE_TALIB_MORE5_H

#include <stddef.h>

#include "catalog_reference_more.h"

/* in: close; p: timeperiod, stddevperiod. Each bar's population standard deviation over its
 * window, two passes over the window; the up and down legs' Wilder averages seeded with the mean
 * of the first p clean bars. scale: 100, the output's range. */
void apo__ref_cat_rvi(const double *const *in, size_t n, const double *p, double *const *out,
                      double *const *scale);

/* in: high, low, close; p: timeperiod, fastperiod, slowperiod, signalperiod. Outputs smi,
 * smisignal: each window's extremes by a scan, the four EMAs each seeded with the mean of its first
 * inputs, from the bar the definition's lookback names on. scale: 100, the line's range (the close
 * lies within its bar's range). */
void apo__ref_cat_smi(const double *const *in, size_t n, const double *p, double *const *out,
                      double *const *scale);

/* in: high, low, close; p: fastk_period, slowk_period, slowk_matype, slowd_period, slowd_matype
 * (matypes 1, EMA; 10, none; 11 and 13, Wilder's smoothing; 0, 2, 3, 4 and 8, SMA, WMA, DEMA,
 * TEMA and T3; any at period 1). Outputs k, d, j: fastk by a scan of its window, k and d the
 * recurrences seeded with the mean of their first inputs, or the overlap studies' MA reference of
 * the series (catalog_reference_overlap.h) for the other kinds, all three where k and d both
 * have a value. scale: 100 for k and d, 500 for j = 3 k - 2 d. */
void apo__ref_cat_kdj(const double *const *in, size_t n, const double *p, double *const *out,
                      double *const *scale);

/* stoch and stochf at a matype other than 0 (kernels/oscillators/stoch_ma.h): in, as kdj's; p,
 * stoch's parameters (kdj's, in kdj's order) or stochf's (fastk_period, fastd_period,
 * fastd_matype, which are kdj's at (fastk_period, 1, SMA, fastd_period, fastd_matype)). Outputs
 * kdj's k and d: TA-Lib 0.8.1's STOCH and STOCHF are its KDJ's k and d at those parameters, bit
 * for bit (docs/kernels/momentum.md, "stoch and stochf at every matype"). scale: 100. */
void apo__ref_cat_stoch_ma(const double *const *in, size_t n, const double *p, double *const *out,
                           double *const *scale);
void apo__ref_cat_stochf_ma(const double *const *in, size_t n, const double *p, double *const *out,
                            double *const *scale);

#endif /* APO_TEST_CATALOG_REFERENCE_TALIB_MORE5_H */
