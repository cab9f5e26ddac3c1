/*
 * math_tile.h: TA-Lib's math transforms of one series: CEIL, FLOOR and SQRT (exact or
 * correctly rounded, so libm's bits), EXP, LN, LOG10, SINH, COSH and TANH (exp_log.h: the
 * same bits on the CPU and a GPU, within 1.4 ulps of the exact value where libm's are within
 * about one). Element-wise (elementwise.h): NaN where the sample is not finite; ln and log10
 * of 0 are -inf, of a negative number NaN, sqrt of a negative number NaN, and an overflow of
 * exp, sinh or cosh an infinity.
 */
#ifndef APO_KERNELS_MATH_TILE_H
#define APO_KERNELS_MATH_TILE_H

#include "elementwise.h"
#include "exp_log.h"

/* x rounded to the nearest integer (ties to even), for |x| < 2^52: adding and subtracting
 * 2^52 leaves no bit below the units, and the sign keeps the sum's magnitude at 2^52. */
static inline APO_HD double apo__nearest_integer(double x) {
    return x >= 0.0 ? (x + 0x1p52) - 0x1p52 : (x - 0x1p52) + 0x1p52;
}

/* floor and ceil from +, - and comparisons (libm's are exact too, but apo_hd.h admits sqrt,
 * fabs, isnan and isfinite only). A double of magnitude 2^52 or more is an integer already; a
 * zero result keeps the sign of x, as C99's does (floor(-0) = -0, ceil(-0.5) = -0). */
static inline APO_HD double apo__floor(double x) {
    if (!(fabs(x) < 0x1p52))
        return x;
    double r = apo__nearest_integer(x);
    r = r > x ? r - 1.0 : r;
    return r == 0.0 ? x * 0.0 : r;
}

static inline APO_HD double apo__ceil(double x) {
    if (!(fabs(x) < 0x1p52))
        return x;
    double r = apo__nearest_integer(x);
    r = r < x ? r + 1.0 : r;
    return r == 0.0 ? x * 0.0 : r;
}

APO_ELEMENTWISE_1(ceil, apo__ceil(x))
APO_ELEMENTWISE_1(floor, apo__floor(x))
APO_ELEMENTWISE_1(sqrt, sqrt(x))
/* On the avx2 and avx512 paths exp, ln and log10 run the branchless forms (exp_log.h), whose
 * loops gcc vectorises; the same bits as the branching ones, which the sse2 path and a GPU run. */
#if defined(__AVX2__) && !defined(__CUDACC__)
APO_ELEMENTWISE_1(exp, apo__exp_select(x))
APO_ELEMENTWISE_1(ln, apo__log_select(x))
APO_ELEMENTWISE_1(log10, apo__log10_select(x))
#else
APO_ELEMENTWISE_1(exp, apo__exp(x))
APO_ELEMENTWISE_1(ln, apo__log(x))
APO_ELEMENTWISE_1(log10, apo__log10(x))
#endif
APO_ELEMENTWISE_1(sinh, apo__sinh(x))
APO_ELEMENTWISE_1(cosh, apo__cosh(x))
APO_ELEMENTWISE_1(tanh, apo__tanh(x))

#endif /* APO_KERNELS_MATH_TILE_H */
