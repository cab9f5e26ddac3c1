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

#endif /* APO_TEST_CATALOG_REFERENCE_MOMENTUM_DM_H */
