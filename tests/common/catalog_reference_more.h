/*
 * catalog_reference_more.h: independent long-double references for the catalog kernels
 * zscore, plus_di, minus_di, adx, mfi, mvwap, kama and adosc
 * (docs/kernels/volume_statistics.md, "More kernels"), written from the definitions: whole
 * series, one window or one sequential pass at a time, nothing shared with kernels/.
 *
 * Each reference writes out[k][t] for each output k (NaN where the definition gives none,
 * with the gap policy of docs/kernels.md) and scale[k][t], the magnitude the kernel's error
 * is measured against there (0 where the kernel must be exact).
 */
#ifndef APO_TEST_CATALOG_REFERENCE_MORE_H
#define APO_TEST_CATALOG_REFERENCE_MORE_H

#include <stddef.h>

/* in: the kernel's inputs in its order; p: its parameters in its order. */
typedef void (*apo__cat_ref_more_fn)(const double *const *in, size_t n, const double *p,
                                     double *const *out, double *const *scale);

void apo__ref_cat_zscore(const double *const *in, size_t n, const double *p, double *const *out,
                         double *const *scale);
void apo__ref_cat_plus_di(const double *const *in, size_t n, const double *p, double *const *out,
                          double *const *scale);
void apo__ref_cat_minus_di(const double *const *in, size_t n, const double *p, double *const *out,
                           double *const *scale);
void apo__ref_cat_adx(const double *const *in, size_t n, const double *p, double *const *out,
                      double *const *scale);
void apo__ref_cat_mfi(const double *const *in, size_t n, const double *p, double *const *out,
                      double *const *scale);
void apo__ref_cat_mvwap(const double *const *in, size_t n, const double *p, double *const *out,
                        double *const *scale);
void apo__ref_cat_adosc(const double *const *in, size_t n, const double *p, double *const *out,
                        double *const *scale);
void apo__ref_cat_kama(const double *const *in, size_t n, const double *p, double *const *out,
                       double *const *scale);

#endif /* APO_TEST_CATALOG_REFERENCE_MORE_H */
