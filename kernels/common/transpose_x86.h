/*
 * transpose_x86.h: the square transposes of x86 vector registers of doubles (2 x 2 SSE2,
 * 4 x 4 AVX, 8 x 8 AVX-512): lane j of v[i] becomes lane i of v[j]. Moves only. The two vector
 * families of kernels/common, lanes.h's apo_vd (whose width its file names) and tile_vec.h's
 * apo_tv (whose width the compiler's ISA macros set), both transpose through these: the same
 * shuffles written once. Host only, each under the ISA macro it needs; always inlined, as a
 * call took its vectors through the stack (atr's rows of 1e4 bars 4% slower).
 */
#ifndef APO_KERNELS_TRANSPOSE_X86_H
#define APO_KERNELS_TRANSPOSE_X86_H

#if defined(__GNUC__) && !defined(__CUDACC__) && defined(__SSE2__)
#include <immintrin.h>

#include "force_inline.h"

static APO_FORCE_INLINE void apo__transpose_2x2(__m128d *v) {
    const __m128d lo = _mm_unpacklo_pd(v[0], v[1]);
    v[1] = _mm_unpackhi_pd(v[0], v[1]);
    v[0] = lo;
}

#ifdef __AVX__
static APO_FORCE_INLINE void apo__transpose_4x4(__m256d *v) {
    const __m256d lo01 = _mm256_unpacklo_pd(v[0], v[1]), hi01 = _mm256_unpackhi_pd(v[0], v[1]),
                  lo23 = _mm256_unpacklo_pd(v[2], v[3]), hi23 = _mm256_unpackhi_pd(v[2], v[3]);
    v[0] = _mm256_permute2f128_pd(lo01, lo23, 0x20);
    v[1] = _mm256_permute2f128_pd(hi01, hi23, 0x20);
    v[2] = _mm256_permute2f128_pd(lo01, lo23, 0x31);
    v[3] = _mm256_permute2f128_pd(hi01, hi23, 0x31);
}
#endif

#ifdef __AVX512F__
static APO_FORCE_INLINE void apo__transpose_8x8(__m512d *v) {
    __m512d t[8], u[8];
    for (int i = 0; i < 4; i++) {
        t[2 * i] = _mm512_unpacklo_pd(v[2 * i], v[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_pd(v[2 * i], v[2 * i + 1]);
    }
    /* u[0], u[1]: rows 0-3, even columns (0 4 | 2 6); u[2], u[3]: odd columns (1 5 | 3 7);
     * u[4] .. u[7]: the same for rows 4-7. */
    for (int h = 0; h < 2; h++) {
        u[4 * h] = _mm512_shuffle_f64x2(t[4 * h], t[4 * h + 2], 0x88);
        u[4 * h + 1] = _mm512_shuffle_f64x2(t[4 * h], t[4 * h + 2], 0xDD);
        u[4 * h + 2] = _mm512_shuffle_f64x2(t[4 * h + 1], t[4 * h + 3], 0x88);
        u[4 * h + 3] = _mm512_shuffle_f64x2(t[4 * h + 1], t[4 * h + 3], 0xDD);
    }
    v[0] = _mm512_shuffle_f64x2(u[0], u[4], 0x88);
    v[4] = _mm512_shuffle_f64x2(u[0], u[4], 0xDD);
    v[2] = _mm512_shuffle_f64x2(u[1], u[5], 0x88);
    v[6] = _mm512_shuffle_f64x2(u[1], u[5], 0xDD);
    v[1] = _mm512_shuffle_f64x2(u[2], u[6], 0x88);
    v[5] = _mm512_shuffle_f64x2(u[2], u[6], 0xDD);
    v[3] = _mm512_shuffle_f64x2(u[3], u[7], 0x88);
    v[7] = _mm512_shuffle_f64x2(u[3], u[7], 0xDD);
}
#endif

#endif
#endif /* APO_KERNELS_TRANSPOSE_X86_H */
