/*
 * catalog_reference_momentum_dm.h: independent long-double references for the catalog's
 * momentum and directional movement kernels plus_dm, minus_dm, dx, adxr, aroonosc, bop, imi,
 * ultosc, rocp, rocr and rocr100 (docs/kernels/momentum.md, "Momentum and directional movement"),
 * written from the definitions: whole series, one window or one sequential pass at a time,
 * nothing shared with kernels/. Their signature is catalog_reference_more.h's: out[0][t]
 * (NaN where the definition gives none, with the gap rules of docs/kernels.md) and
 * scale[0][t], the magnitude the kernel's error is measured against (0: exact).
 */
#ifndef APO_TEST_CATALOG_REFERENCE_MOMENTUM_DM_H
#define APO_TEST_CATALOG_REFERENCE_MOMENTUM_DM_H

#include <stddef.h>

#define APO__REF_MOMENTUM_DM(name)                                                                 \
    void apo__ref_cat_##name(const double *const *in, size_t n, const double *p,                   \
                             double *const *out, double *const *scale);

APO__REF_MOMENTUM_DM(plus_dm)
APO__REF_MOMENTUM_DM(minus_dm)
APO__REF_MOMENTUM_DM(dx)
APO__REF_MOMENTUM_DM(adxr)
APO__REF_MOMENTUM_DM(aroonosc)
APO__REF_MOMENTUM_DM(bop)
APO__REF_MOMENTUM_DM(imi)
APO__REF_MOMENTUM_DM(ultosc)
APO__REF_MOMENTUM_DM(rocp)
APO__REF_MOMENTUM_DM(rocr)
APO__REF_MOMENTUM_DM(rocr100)

/* Wilder's directional movement in one pass (gap bars skipped), the reference that dx, adxr
 * and catalog_reference_more.c's +DI, -DI and ADX share: per bar +DI, -DI, DX (the last
 * defined one where it is undefined, 0 before any) and ADX, NaN where they have none. An
 * output that is NULL is not written. */
void apo__ref_dmi_pass(const double *const *in, size_t n, size_t q, long double *pdi_out,
                       long double *mdi_out, long double *dx_out, long double *adx_out);

#endif /* APO_TEST_CATALOG_REFERENCE_MOMENTUM_DM_H */
