/*
 * catalog_reference_momentum_ma2.h: independent long-double references for the catalog's
 * oscillators of TA-Lib's matype averages (docs/kernels/momentum.md, "Oscillators of matype
 * averages": apo, ppo), written from the definitions, nothing shared with kernels/: each average is
 * the overlap studies' reference of its kind (catalog_reference_overlap.c, one sequential pass or
 * one window at a time in long double), combined here in long double.
 *
 * The signature is catalog_reference_more.h's: out[k][t] for each output k (NaN where the
 * definition gives none, with the gap rule of docs/kernels.md) and scale[k][t], the magnitude
 * the kernel's error is measured against.
 */
#ifndef APO_TEST_CATALOG_REFERENCE_MOMENTUM_MA2_H
#define APO_TEST_CATALOG_REFERENCE_MOMENTUM_MA2_H

#include <stddef.h>

#include "catalog_reference_more.h"

/* p: fastperiod, slowperiod, matype. */
void apo__ref_cat_apo(const double *const *in, size_t n, const double *p, double *const *out,
                      double *const *scale);
void apo__ref_cat_ppo(const double *const *in, size_t n, const double *p, double *const *out,
                      double *const *scale);

/* p: fastperiod, fastmatype, slowperiod, slowmatype, signalperiod, signalmatype. */
void apo__ref_cat_macdext(const double *const *in, size_t n, const double *p, double *const *out,
                          double *const *scale);

/* p: timeperiod, fastk_period, fastd_period, fastd_matype. */
void apo__ref_cat_stochrsi(const double *const *in, size_t n, const double *p, double *const *out,
                           double *const *scale);

#endif /* APO_TEST_CATALOG_REFERENCE_MOMENTUM_MA2_H */
