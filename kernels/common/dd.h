/*
 * dd.h: double-double arithmetic for the catalog's tile bodies (shared by the CPU and
 * CUDA, apo_hd.h).
 *
 * What: a value hi + lo with |lo| <= ulp(hi) / 2, built from error-free transformations
 * (Knuth's TwoSum, Dekker's split and product) with IEEE +, -, * and / only: no FMA, which
 * both compilers are told not to contract into (gcc -ffp-contract=off, nvcc -fmad=false),
 * so the CPU and the GPU give the same bits. Sums of samples, squares and weighted samples
 * kept this way carry about 106 bits, so a window slid over a whole tile does not drift and
 * the cancellation of a variance costs nothing visible in double (docs/kernels.md,
 * "Sliding windows").
 *
 * Range: Dekker's split multiplies by 2^27 + 1, so the products are exact for |a| below
 * about 1e300 and the squares for |x| below about 1e150 (docs/kernels.md, "Range").
 */
#ifndef APO_KERNELS_DD_H
#define APO_KERNELS_DD_H

#include "apo_hd.h"

typedef struct apo__dd {
    double hi, lo;
} apo__dd;

static APO_HD_STEP APO_HD apo__dd apo__dd_make(double hi, double lo) {
    apo__dd r;
    r.hi = hi;
    r.lo = lo;
    return r;
}

/* a + b = s + e exactly (Knuth). */
static APO_HD_STEP APO_HD apo__dd apo__two_sum(double a, double b) {
    const double s = a + b;
    const double bb = s - a;
    const double e = (a - (s - bb)) + (b - bb);
    return apo__dd_make(s, e);
}

/* a + b = s + e exactly when |a| >= |b| or a is 0 (Dekker). */
static APO_HD_STEP APO_HD apo__dd apo__quick_two_sum(double a, double b) {
    const double s = a + b;
    const double e = b - (s - a);
    return apo__dd_make(s, e);
}

/* a = hi + lo with hi holding the upper 26 bits (Veltkamp). */
static APO_HD_STEP APO_HD apo__dd apo__split(double a) {
    const double c = 134217729.0 * a;
    const double hi = c - (c - a);
    return apo__dd_make(hi, a - hi);
}

/* a * b = p + e exactly (Dekker), without FMA. */
static APO_HD_STEP APO_HD apo__dd apo__two_prod(double a, double b) {
    const double p = a * b;
    const apo__dd as = apo__split(a), bs = apo__split(b);
    const double e = ((as.hi * bs.hi - p) + as.hi * bs.lo + as.lo * bs.hi) + as.lo * bs.lo;
    return apo__dd_make(p, e);
}

/* a + b, a double-double and a double. */
static APO_HD_STEP APO_HD apo__dd apo__dd_add_d(apo__dd a, double b) {
    apo__dd s = apo__two_sum(a.hi, b);
    s.lo = s.lo + a.lo;
    return apo__quick_two_sum(s.hi, s.lo);
}

/* a + b, both double-doubles (the accurate addition, errors relative to |a| + |b|). */
static APO_HD_STEP APO_HD apo__dd apo__dd_add(apo__dd a, apo__dd b) {
    apo__dd s = apo__two_sum(a.hi, b.hi);
    const apo__dd t = apo__two_sum(a.lo, b.lo);
    s.lo = s.lo + t.hi;
    s = apo__quick_two_sum(s.hi, s.lo);
    s.lo = s.lo + t.lo;
    return apo__quick_two_sum(s.hi, s.lo);
}

static APO_HD_STEP APO_HD apo__dd apo__dd_neg(apo__dd a) { return apo__dd_make(-a.hi, -a.lo); }

/* a * b, both double-doubles (the lo * lo term is below the result's precision). */
static APO_HD_STEP APO_HD apo__dd apo__dd_mul(apo__dd a, apo__dd b) {
    apo__dd p = apo__two_prod(a.hi, b.hi);
    p.lo = p.lo + (a.hi * b.lo + a.lo * b.hi);
    return apo__quick_two_sum(p.hi, p.lo);
}

/* a / b, a double-double and a nonzero double: one correction step of the quotient. */
static APO_HD_STEP APO_HD apo__dd apo__dd_div_d(apo__dd a, double b) {
    const double q1 = a.hi / b;
    const apo__dd p = apo__two_prod(q1, b);
    apo__dd r = apo__two_sum(a.hi, -p.hi);
    r.lo = r.lo - p.lo;
    r.lo = r.lo + a.lo;
    const double q2 = (r.hi + r.lo) / b;
    return apo__quick_two_sum(q1, q2);
}

#endif /* APO_KERNELS_DD_H */
