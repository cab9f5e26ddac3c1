/*
 * catalog_reference_new_volume.h: independent long-double references for TA-Lib 0.8's volume
 * and volatility kernels of the catalog (docs/kernels/volume_statistics.md, "TA-Lib 0.8's volume
 * and volatility kernels": marketfi, pvt, adr, cmf, rvol, efi, pvo), written from the definitions:
 * one bar, one window or one sequential pass at a time in long double, nothing shared with
 * kernels/.
 *
 * The signature is catalog_reference_more.h's: out[k][t] for each output k (NaN where the
 * definition gives none, with the gap rule the section states) and scale[k][t], the magnitude
 * the kernel's error is measured against.
 */
#ifndef APO_TEST_CATALOG_REFERENCE_NEW_VOLUME_H
#define APO_TEST_CATALOG_REFERENCE_NEW_VOLUME_H

#include <stddef.h>

#include "catalog_reference_more.h"

/* in: high, low, volume. scale: (abs(high) + abs(low)) / abs(volume), 1 where the volume is 0. */
void apo__ref_cat_marketfi(const double *const *in, size_t n, const double *p, double *const *out,
                           double *const *scale);

/* in: close, volume. The gap bars are taken out of the series (obv's rule). scale: the sum of
 * the steps' term magnitudes up to t, (abs(close) + abs(prev)) / abs(prev) * abs(volume) each. */
void apo__ref_cat_pvt(const double *const *in, size_t n, const double *p, double *const *out,
                      double *const *scale);

/* in: high, low; p: timeperiod. The ranges rounded to double, as the definition has them.
 * scale: the window's largest abs(range). */
void apo__ref_cat_adr(const double *const *in, size_t n, const double *p, double *const *out,
                      double *const *scale);

/* in: high, low, close, volume; p: timeperiod. scale: the window's sum of abs(volume) times
 * (abs(close - low) + abs(high - close)) / (high - low) over abs(sum of volume), plus abs(cmf). */
void apo__ref_cat_cmf(const double *const *in, size_t n, const double *p, double *const *out,
                      double *const *scale);

/* in: volume; p: timeperiod. scale: abs(rvol). */
void apo__ref_cat_rvol(const double *const *in, size_t n, const double *p, double *const *out,
                       double *const *scale);

/* in: close, volume; p: timeperiod. scale: the largest abs(force) of the series up to t. */
void apo__ref_cat_efi(const double *const *in, size_t n, const double *p, double *const *out,
                      double *const *scale);

/* in: volume; p: fastperiod, slowperiod, matype: ppo's reference of the volume. */
void apo__ref_cat_pvo(const double *const *in, size_t n, const double *p, double *const *out,
                      double *const *scale);

#endif /* APO_TEST_CATALOG_REFERENCE_NEW_VOLUME_H */
