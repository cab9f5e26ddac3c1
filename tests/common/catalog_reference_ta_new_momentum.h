/*
 * catalog_reference_ta_new_momentum.h: independent long-double references for TA-Lib 0.8's
 * newer momentum kernels qstick, ao, ac, dpo, cmou, er, vhf, coppock, eri, tsi, vortex and fosc
 * (docs/kernels/momentum.md, "TA-Lib 0.8's newer momentum indicators"), written from the
 * definitions: one window at a time, or one sequential pass over the whole series for the
 * recurrences (eri's EMA, tsi's two), nothing shared with kernels/. Their signature is
 * catalog_reference_more.h's: out[k][t] (NaN where the definition gives none, with the gap rules of
 * docs/kernels.md) and scale[k][t], the magnitude the kernel's error is measured against.
 */
#ifndef APO_TEST_CATALOG_REFERENCE_TA_NEW_MOMENTUM_H
#define APO_TEST_CATALOG_REFERENCE_TA_NEW_MOMENTUM_H

#include <stddef.h>

#define APO__REF_NEW_MOMENTUM(name)                                                                \
    void apo__ref_cat_##name(const double *const *in, size_t n, const double *p,                   \
                             double *const *out, double *const *scale);

APO__REF_NEW_MOMENTUM(qstick)
APO__REF_NEW_MOMENTUM(ao)
APO__REF_NEW_MOMENTUM(ac)
APO__REF_NEW_MOMENTUM(dpo)
APO__REF_NEW_MOMENTUM(cmou)
APO__REF_NEW_MOMENTUM(er)
APO__REF_NEW_MOMENTUM(vhf)
APO__REF_NEW_MOMENTUM(coppock)
APO__REF_NEW_MOMENTUM(eri)
APO__REF_NEW_MOMENTUM(tsi)
APO__REF_NEW_MOMENTUM(vortex)
APO__REF_NEW_MOMENTUM(fosc)

#endif /* APO_TEST_CATALOG_REFERENCE_TA_NEW_MOMENTUM_H */
