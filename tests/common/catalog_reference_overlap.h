/*
 * catalog_reference_overlap.h: independent long-double references for the catalog's overlap
 * studies trima, t3, midpoint, midprice, ma, mavp, accbands and bbands (docs/kernels/overlap.md,
 * "Overlap studies and TA-Lib's matype"), written from the definitions: one window or one
 * sequential pass over the whole series at a time, nothing shared with kernels/.
 *
 * The signature is catalog_reference_more.h's: out[k][t] for each output k (NaN where the
 * definition gives none, with the gap rule of docs/kernels.md) and scale[k][t], the magnitude
 * the kernel's error is measured against (0 where it must be exact).
 */
#ifndef APO_TEST_CATALOG_REFERENCE_OVERLAP_H
#define APO_TEST_CATALOG_REFERENCE_OVERLAP_H

#include <stddef.h>

#include "catalog_reference_more.h"

void apo__ref_cat_trima(const double *const *in, size_t n, const double *p, double *const *out,
                        double *const *scale);
void apo__ref_cat_t3(const double *const *in, size_t n, const double *p, double *const *out,
                     double *const *scale);
void apo__ref_cat_midpoint(const double *const *in, size_t n, const double *p, double *const *out,
                           double *const *scale);
void apo__ref_cat_midprice(const double *const *in, size_t n, const double *p, double *const *out,
                           double *const *scale);
/* p: timeperiod, matype. */
void apo__ref_cat_ma(const double *const *in, size_t n, const double *p, double *const *out,
                     double *const *scale);
/* p: minperiod, maxperiod, matype; in: close, periods. */
void apo__ref_cat_mavp(const double *const *in, size_t n, const double *p, double *const *out,
                       double *const *scale);
void apo__ref_cat_accbands(const double *const *in, size_t n, const double *p, double *const *out,
                           double *const *scale);
/* p: timeperiod, nbdevup, nbdevdn, matype. */
void apo__ref_cat_bbands(const double *const *in, size_t n, const double *p, double *const *out,
                         double *const *scale);

#endif /* APO_TEST_CATALOG_REFERENCE_OVERLAP_H */
