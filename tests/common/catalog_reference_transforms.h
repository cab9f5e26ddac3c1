/*
 * catalog_reference_transforms.h: independent long-double references for the catalog's price
 * transforms, math operators and math transforms (docs/kernels/transforms.md, "Math operators and
 * transforms"), written from the definitions with libm's long-double functions (expl, logl,
 * ...), one bar or one window at a time, nothing shared with kernels/. The signature is
 * catalog_reference_more.h's: out[k][t] (NaN where the definition gives none, with the gap
 * rule: NaN where a sample read is not finite) and scale[k][t] (0 where the kernel must be
 * exact).
 */
#ifndef APO_TEST_CATALOG_REFERENCE_TRANSFORMS_H
#define APO_TEST_CATALOG_REFERENCE_TRANSFORMS_H

#include <stddef.h>

#define APO__REF_TRANSFORM(name)                                                                   \
    void apo__ref_cat_##name(const double *const *in, size_t n, const double *p,                   \
                             double *const *out, double *const *scale);
APO__REF_TRANSFORM(avgprice)
APO__REF_TRANSFORM(medprice)
APO__REF_TRANSFORM(typprice)
APO__REF_TRANSFORM(wclprice)
APO__REF_TRANSFORM(add)
APO__REF_TRANSFORM(sub)
APO__REF_TRANSFORM(mult)
APO__REF_TRANSFORM(div)
APO__REF_TRANSFORM(sum)
APO__REF_TRANSFORM(minmax)
APO__REF_TRANSFORM(ceil)
APO__REF_TRANSFORM(floor)
APO__REF_TRANSFORM(sqrt)
APO__REF_TRANSFORM(exp)
APO__REF_TRANSFORM(ln)
APO__REF_TRANSFORM(log10)
APO__REF_TRANSFORM(sinh)
APO__REF_TRANSFORM(cosh)
APO__REF_TRANSFORM(tanh)
APO__REF_TRANSFORM(acos)
APO__REF_TRANSFORM(asin)
APO__REF_TRANSFORM(atan)
APO__REF_TRANSFORM(cos)
APO__REF_TRANSFORM(sin)
APO__REF_TRANSFORM(tan)
APO__REF_TRANSFORM(maxindex)
APO__REF_TRANSFORM(minindex)
APO__REF_TRANSFORM(minmaxindex)
#undef APO__REF_TRANSFORM

#endif
