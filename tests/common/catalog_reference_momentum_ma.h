/*
 * catalog_reference_momentum_ma.h: independent long-double references for the catalog's
 * momentum functions built on moving averages (docs/kernels/momentum.md, "Momentum from moving
 * averages": trix, macdfix), written from the definitions: whole series, one sequential pass
 * of each average in long double, nothing shared with kernels/.
 *
 * Each reference has the signature of catalog_reference.h (apo__cat_ref_fn) and gives one
 * output: out[t] (NaN where the definition gives none, with the gap rule of docs/kernels.md)
 * and scale[t], the magnitude the kernel's error is measured against there.
 */
#ifndef APO_TEST_CATALOG_REFERENCE_MOMENTUM_MA_H
#define APO_TEST_CATALOG_REFERENCE_MOMENTUM_MA_H

#include <stddef.h>

void apo__ref_cat_trix(const double *const *in, size_t n, const double *p, double *out,
                       double *scale);
/* macdfix's outputs: macd, macdsignal, macdhist. */
void apo__ref_cat_macdfix_macd(const double *const *in, size_t n, const double *p, double *out,
                               double *scale);
void apo__ref_cat_macdfix_signal(const double *const *in, size_t n, const double *p, double *out,
                                 double *scale);
void apo__ref_cat_macdfix_hist(const double *const *in, size_t n, const double *p, double *out,
                               double *scale);

#endif /* APO_TEST_CATALOG_REFERENCE_MOMENTUM_MA_H */
