/*
 * catalog_reference_stats_sar.h: independent long-double references for the catalog kernels
 * linearreg_intercept, tsf, linearreg_angle, avgdev (docs/kernels/volume_statistics.md, "Statistics
 * of the line and average deviation"), sar, sarext ("Parabolic SAR") and nvi, pvi ("Volume
 * indexes"), written from the definitions: one window or one sequential pass at a time, nothing
 * shared with kernels/.
 *
 * The window statistics take catalog_reference.h's signature (one output, its scale); the
 * running ones catalog_reference_more.h's, and state their gap policy as
 * catalog_reference_cumulative.h does: the gap bars are taken out of the series, the definition
 * runs over the bars left, and its values go back to those bars' places, NaN elsewhere.
 */
#ifndef APO_TEST_CATALOG_REFERENCE_STATS_SAR_H
#define APO_TEST_CATALOG_REFERENCE_STATS_SAR_H

#include <stddef.h>

/* in: close; p: timeperiod. scale: the window's largest abs(x). */
void apo__ref_cat_linearreg_intercept(const double *const *in, size_t n, const double *p,
                                      double *out, double *scale);
void apo__ref_cat_tsf(const double *const *in, size_t n, const double *p, double *out,
                      double *scale);

/* in: close; p: timeperiod. scale: the slope's (the window's largest abs(x) over p) times atan's
 * derivative in degrees, plus abs(angle). */
void apo__ref_cat_linearreg_angle(const double *const *in, size_t n, const double *p, double *out,
                                  double *scale);

/* in: close; p: timeperiod. scale: the window's largest abs(x - mean) (the kernel's roundings
 * are relative to the window's spread, not its level). */
void apo__ref_cat_avgdev(const double *const *in, size_t n, const double *p, double *out,
                         double *scale);

/* in: high, low; p: sar's (acceleration, maximum) or sarext's eight parameters in TA-Lib's
 * order. scale: the largest abs(high) or abs(low) of the clean bars up to t. */
void apo__ref_cat_sar(const double *const *in, size_t n, const double *p, double *const *out,
                      double *const *scale);
void apo__ref_cat_sarext(const double *const *in, size_t n, const double *p, double *const *out,
                         double *const *scale);

/* in: close, volume. scale: a bound on the magnitudes the index's steps have rounded, carried
 * through the later ratios (the index itself where the closes stay away from 0). */
void apo__ref_cat_nvi(const double *const *in, size_t n, const double *p, double *const *out,
                      double *const *scale);
void apo__ref_cat_pvi(const double *const *in, size_t n, const double *p, double *const *out,
                      double *const *scale);

#endif /* APO_TEST_CATALOG_REFERENCE_STATS_SAR_H */
