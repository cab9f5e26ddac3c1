/* Vector lanes for the catalog's tile bodies (kernels/<family>/<name>_tile.h).
 *
 * The catalog's tiles are compiled once per vector path (dispatch/catalog_<path>.c, with
 * -msse2, -mavx2 or -mavx512f) and once for CUDA. lanes.h serves the lanes files, which
 * name their path themselves (APO_LANES); a catalog tile has no such name, so its width
 * comes from the compiler's ISA macros here. A tile that writes a vector loop guards it with
 * `#ifdef APO_TILE_LANES` and keeps its scalar loop for the GPU and the rest of the bars.
 *
 * The GCC/clang vector extensions compute what the scalar code computes, lane for lane
 * (lanes.h says why); only what the compiler would not vectorise by itself (the square root,
 * which may set errno in libm) is written with intrinsics. */
#ifndef APO_KERNELS_TILE_VEC_H
#define APO_KERNELS_TILE_VEC_H

#if defined(__GNUC__) && !defined(__CUDACC__) && (defined(__SSE2__) || defined(__AVX__))
#include <immintrin.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "force_inline.h"
#include "transpose_x86.h"

#if defined(__AVX512F__)
#define APO_TILE_LANES 8
#elif defined(__AVX__)
#define APO_TILE_LANES 4
#else
#define APO_TILE_LANES 2
#endif

/* Vectors of bars a tile body whose outputs are independent chains (a window summed afresh
 * at every bar, in index order) runs side by side: with one vector of bars, each add waits on
 * the one before it (three or four cycles), and the core's two adders are mostly idle; with
 * eight, their chains overlap (trima at 30: 11.6, 4.5 and 2.9 ns a bar with one, four and
 * eight on the Zen 3 VM). Each lane performs the same operations in the same order either
 * way, so the bits do not depend on it. */
#define APO_TV_CHAINS 8

/* APO_TILE_LANES doubles, and the same number of 64-bit lane masks (a comparison's result). */
typedef double apo_tv __attribute__((vector_size(APO_TILE_LANES * sizeof(double))));
typedef int64_t apo_tm __attribute__((vector_size(APO_TILE_LANES * sizeof(int64_t))));

static inline apo_tv apo_tv_load(const double *at) {
    apo_tv v;
    memcpy(&v, at, sizeof v);
    return v;
}

static inline void apo_tv_store(double *at, apo_tv v) { memcpy(at, &v, sizeof v); }

/* Transposes the square of APO_TILE_LANES vectors v in place: lane j of v[i] becomes lane i of
 * v[j] (transpose_x86.h). A body that reads APO_TILE_LANES consecutive samples of each lane's
 * row as one vector turns them into one vector a step this way (and its outputs back), rather
 * than gathering a sample at a time (kama's segments, the rounds' blocks of catalog_lanes.h).
 * Moves only. */
static APO_FORCE_INLINE void apo_tv_transpose(apo_tv *v) {
#if APO_TILE_LANES == 8
    apo__transpose_8x8((__m512d *)v);
#elif APO_TILE_LANES == 4
    apo__transpose_4x4((__m256d *)v);
#else
    apo__transpose_2x2((__m128d *)v);
#endif
}

/* v stored at `at` (16-byte aligned) by non-temporal stores, two lanes at a time: the same
 * bits as apo_tv_store, without reading the lines first or keeping them in the caches (as
 * lanes.h's apo_vd_stream does for the lanes files). Weakly ordered: the writer issues
 * _mm_sfence() after its last one, before anyone may read them or write them again. */
static inline void apo_tv_stream(double *at, apo_tv v) {
    for (int j = 0; j < APO_TILE_LANES; j += 2)
        _mm_stream_pd(at + j, _mm_set_pd(v[j + 1], v[j]));
}

/* Where m is set, a's lanes, else b's: the bits of the one or the other, as a scalar select
 * keeps them (a blend, not arithmetic). */
static inline apo_tv apo_tv_pick(apo_tm m, apo_tv a, apo_tv b) {
    return (apo_tv)(((apo_tm)a & m) | ((apo_tm)b & ~m));
}

/* a > b ? a : b lane for lane, as apo_tv_pick(a > b, a, b) gives it: x86's max is defined as
 * exactly this select (b where either is NaN, b of two zeros of either sign), so the bits are
 * the pick's, in one instruction where the compare and the blend were two. The scored lanes'
 * apo__score_lanes_max (score_lanes_base.h) is the same for lanes.h's vectors. */
static inline apo_tv apo_tv_above_or(apo_tv a, apo_tv b) {
#if APO_TILE_LANES == 8
    return (apo_tv)_mm512_max_pd((__m512d)a, (__m512d)b);
#elif APO_TILE_LANES == 4
    return (apo_tv)_mm256_max_pd((__m256d)a, (__m256d)b);
#else
    return (apo_tv)_mm_max_pd((__m128d)a, (__m128d)b);
#endif
}

/* Every lane v. */
static inline apo_tv apo_tv_splat(double v) {
    apo_tv r;
    for (int k = 0; k < APO_TILE_LANES; k++)
        r[k] = v;
    return r;
}

/* |v| lane for lane: the sign bit cleared, as fabs clears it (NaN's payload kept). */
static inline apo_tv apo_tv_abs(apo_tv v) {
    return (apo_tv)((apo_tm)v & ~(apo_tm)apo_tv_splat(-0.0));
}

/* The lanes where v is finite: v - v is +0 exactly there (NaN for an infinity or a NaN). */
static inline apo_tm apo_tv_finite(apo_tv v) { return (v - v) == 0.0; }

/* 1 when every lane of v is finite. Tested once per step of every round of catalog_lanes.h and
 * per vector of the element-wise loops: the lanes' sign bits in one mask, where apo_tm_all's
 * lane by lane test cost a scalar extract and branch a lane. */
static inline int apo_tv_all_finite(apo_tv v) {
    const apo_tv zero_where_finite = v - v;
#if APO_TILE_LANES == 8
    return _mm512_cmp_pd_mask((__m512d)zero_where_finite, (__m512d)zero_where_finite, _CMP_EQ_OQ) ==
           0xFF;
#elif APO_TILE_LANES == 4
    const apo_tm finite = zero_where_finite == zero_where_finite;
    return _mm256_movemask_pd((__m256d)finite) == 0xF;
#else
    const apo_tm finite = zero_where_finite == zero_where_finite;
    return _mm_movemask_pd((__m128d)finite) == 0x3;
#endif
}

/* v where `keep` is set, else the NAN constant, as a scalar body stores a gap's output. */
static inline apo_tv apo_tv_or_nan(apo_tm keep, apo_tv v) {
    return apo_tv_pick(keep, v, apo_tv_splat(NAN));
}

/* 1 when every lane of m is set; m is a comparison's result, or such results joined by & and |,
 * each lane 0 or all ones (every caller's), so its sign bits say it: one movemask, where a test
 * lane by lane cost a scalar extract a lane (GCC 12), 15% of adosc's round at 1e4 bars
 * (docs/perf-log/2026-12-04-zen3-closed-bodies-lane-terms.md). */
static inline int apo_tm_all(apo_tm m) {
#if APO_TILE_LANES == 8
    return _mm512_test_epi64_mask((__m512i)m, (__m512i)m) == 0xFF;
#elif APO_TILE_LANES == 4
    return _mm256_movemask_pd((__m256d)m) == 0xF;
#else
    return _mm_movemask_pd((__m128d)m) == 0x3;
#endif
}

/* No lane set. */
static inline apo_tm apo_tm_zero(void) {
    apo_tm m;
    for (int k = 0; k < APO_TILE_LANES; k++)
        m[k] = 0;
    return m;
}

/* 1 when the sign bit of some lane of m is set (a comparison's set lane, or a carry into it). */
static inline int apo_tm_any(apo_tm m) {
    int64_t any = 0;
    for (int k = 0; k < APO_TILE_LANES; k++)
        any |= m[k];
    return any < 0;
}

/* For c < nv (a constant where this is inlined, at most APO_TV_CHAINS): lane l of s[c] the
 * sum of the window base[c L + l .. c L + l + k), from +0 in index order: the scalar loop's
 * operations, the nv vectors' chains side by side. */
static inline void apo_tv_window_sums(const double *base, size_t k, size_t nv, apo_tv *s) {
    for (size_t c = 0; c < nv; c++)
        s[c] = apo_tv_splat(0.0);
    for (size_t i = 0; i < k; i++)
        for (size_t c = 0; c < nv; c++)
            s[c] = s[c] + apo_tv_load(base + c * APO_TILE_LANES + i);
}

/* For c < nv (a constant where this is inlined, at most APO_TV_CHAINS): lane l of s[c] the
 * window base[c L + l .. c L + l + k) weighted 1 (oldest) .. k (newest), a WMA's numerator,
 * summed from +0 in that order, `s = s + x * i`: the scalar loop's operations, the nv
 * vectors' chains side by side. */
static inline void apo_tv_rising_sums(const double *base, size_t k, size_t nv, apo_tv *s) {
    for (size_t c = 0; c < nv; c++)
        s[c] = apo_tv_splat(0.0);
    for (size_t i = 1; i <= k; i++)
        for (size_t c = 0; c < nv; c++)
            s[c] = s[c] + apo_tv_load(base + c * APO_TILE_LANES + i - 1) * (double)i;
}

/* The correctly rounded square root of each lane. */
static inline apo_tv apo_tv_sqrt(apo_tv v) {
#if APO_TILE_LANES == 8
    return (apo_tv)_mm512_sqrt_pd((__m512d)v);
#elif APO_TILE_LANES == 4
    return (apo_tv)_mm256_sqrt_pd((__m256d)v);
#else
    return (apo_tv)_mm_sqrt_pd((__m128d)v);
#endif
}

/* a * b + c with one rounding in each lane, as fma() gives it (wilder_step.h): the FMA
 * instruction where the path has it (avx512, and avx2, whose files are built with -mfma and
 * chosen only on a CPU that has it, cpu_isa.c), else libm's fma lane by lane, the same bits
 * for a call a lane. */
static inline apo_tv apo_tv_fma(apo_tv a, apo_tv b, apo_tv c) {
#if APO_TILE_LANES == 8
    return (apo_tv)_mm512_fmadd_pd((__m512d)a, (__m512d)b, (__m512d)c);
#elif APO_TILE_LANES == 4 && defined(__FMA__)
    return (apo_tv)_mm256_fmadd_pd((__m256d)a, (__m256d)b, (__m256d)c);
#else
    apo_tv r;
    for (int k = 0; k < APO_TILE_LANES; k++)
        r[k] = fma(a[k], b[k], c[k]);
    return r;
#endif
}
#endif

#endif /* APO_KERNELS_TILE_VEC_H */
