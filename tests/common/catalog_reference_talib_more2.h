/*
 * catalog_reference_talib_more2.h: independent long-double references for TA-Lib 0.8's newer
 * kernels of docs/kernels/momentum.md, "TA-Lib 0.8's newer functions, group 2" (wad, fractal,
 * percentile), written from the definitions there, one bar or one window at a time, nothing shared
 * with kernels/.
 *
 * The signature is catalog_reference_more.h's: out[k][t] for each output k (NaN where the
 * definition gives none, with the gap rule of docs/kernels.md) and scale[k][t], the magnitude
 * the kernel's error is measured against.
 */
#ifndef APO_TEST_CATALOG_REFERENCE_TALIB_MORE2_H
#define APO_TEST_CATALOG_REFERENCE_TALIB_MORE2_H

#include <stddef.h>

#include "catalog_reference_more.h"

/* in: high, low, close; no parameters. */
void apo__ref_cat_wad(const double *const *in, size_t n, const double *p, double *const *out,
                      double *const *scale);

/* in: high, low; p: leftbars, rightbars. Outputs 100 or 0 (scale 1). */
void apo__ref_cat_fractal(const double *const *in, size_t n, const double *p, double *const *out,
                          double *const *scale);

/* in: close; p: timeperiod, percentile. The window's k-th smallest sample, sorted afresh. */
void apo__ref_cat_percentile(const double *const *in, size_t n, const double *p, double *const *out,
                             double *const *scale);

#endif /* APO_TEST_CATALOG_REFERENCE_TALIB_MORE2_H */
