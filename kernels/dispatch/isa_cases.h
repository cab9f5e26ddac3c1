/*
 * isa_cases.h: the wide vector paths' cases of a switch that hands work to a function built once
 * per path (lanes_<path>.c, catalog_<path>.c: fn_avx512, fn_avx2).
 *
 * What: APO_WIDE_PATH_CASES(fn, args...) is `case APO_CPU_ISA_AVX512: fn_avx512(args); return;`
 * and the same for AVX2, each only where this build has the path (APO_HAVE_LANES_AVX512,
 * APO_HAVE_LANES_AVX2), so that a switch over the paths says once which function it calls and
 * with what; its caller writes sse2's case, which every build has, and the default (sse2 or the
 * scalar tile). For a switch that is its function's last statement and a function returning
 * void.
 */
#ifndef APO_KERNELS_ISA_CASES_H
#define APO_KERNELS_ISA_CASES_H

#include "cpu_isa.h"

#ifdef APO_HAVE_LANES_AVX512
#define APO__AVX512_CASE(fn, ...)                                                                  \
    case APO_CPU_ISA_AVX512:                                                                       \
        fn##_avx512(__VA_ARGS__);                                                                  \
        return;
#else
#define APO__AVX512_CASE(fn, ...)
#endif

#ifdef APO_HAVE_LANES_AVX2
#define APO__AVX2_CASE(fn, ...)                                                                    \
    case APO_CPU_ISA_AVX2:                                                                         \
        fn##_avx2(__VA_ARGS__);                                                                    \
        return;
#else
#define APO__AVX2_CASE(fn, ...)
#endif

#define APO_WIDE_PATH_CASES(fn, ...)                                                               \
    APO__AVX512_CASE(fn, __VA_ARGS__) APO__AVX2_CASE(fn, __VA_ARGS__)

#endif /* APO_KERNELS_ISA_CASES_H */
