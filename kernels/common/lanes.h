/*
 * lanes.h: the vector of doubles of one vector path and the few operations the lane
 * kernels (bollinger_lanes.h, macd_lanes.h, returns_stats_lanes.h) use on it.
 *
 * What: the including file (lanes_sse2.c, lanes_avx2.c, lanes_avx512.c) defines APO_LANES
 * (2, 4 or 8) and APO_LANES_NAME(name), which gives the path's names to the functions it
 * builds, and is compiled for that path (-mavx2, -mavx512f). The vector is a GCC/clang
 * vector extension: +, -, * and / act lane by lane and are single IEEE operations,
 * correctly rounded like their scalar forms, and the build's -ffp-contract=off keeps
 * a * b + c two operations here too. sqrt is the correctly rounded vector square root of
 * the path (or libm's, lane by lane, where there is none). Comparisons follow C's: ordered
 * (false with a NaN) except !=, which is true with a NaN, as are the negations nlt, nle and
 * nge (!(a < b) ...). So a lane computes what the scalar code computes, with the same
 * operations in the same order.
 *
 * Comparisons, masks and selects go through the path's intrinsics: a compiler lowering
 * vector-extension selects on its own may turn them into scalar code lane by lane (GCC
 * does for SSE2), which costs more than the arithmetic. On avx512, and on the 4-lane path
 * built with AVX-512VL, a mask is a k-register (one bit per lane), elsewhere a vector of
 * all-ones or zero lanes.
 */
#ifndef APO_LANES_H
#define APO_LANES_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if !defined(APO_LANES) || !defined(APO_LANES_NAME)
#error "lanes.h: define APO_LANES and APO_LANES_NAME before including it"
#endif

#if APO_LANES != 2 && APO_LANES != 4 && APO_LANES != 8
#error "lanes.h: APO_LANES must be 2, 4 or 8"
#endif

#if APO_LANES == 8 && defined(__AVX512F__)
#define APO_LANES_X86 512
#elif APO_LANES == 4 && defined(__AVX2__)
#define APO_LANES_X86 256
#elif APO_LANES == 2 && defined(__SSE2__)
#define APO_LANES_X86 128
#endif

#ifdef APO_LANES_X86
#include <immintrin.h>

#include "transpose_x86.h"
#endif

/* Masks in the k-registers of AVX-512: the 512-bit path, and the 4-lane path where it is built
 * with AVX-512VL (lanes_avx512_ymm.c). A comparison then writes its mask in one instruction,
 * where AVX2 writes a vector that a select or a test must turn into a mask again; bollinger's
 * step tests five comparisons a step (docs/PERF.md). */
#if APO_LANES_X86 == 512 || (APO_LANES_X86 == 256 && defined(__AVX512VL__))
#define APO_LANES_KMASK 1
#else
#define APO_LANES_KMASK 0
#endif

typedef double apo_vd __attribute__((vector_size(APO_LANES * sizeof(double))));

#if APO_LANES_KMASK
typedef __mmask8 apo_vm;
#else
typedef int64_t apo_vm __attribute__((vector_size(APO_LANES * sizeof(double))));
#endif

/* All lanes set, as apo_vm_bits() gives them. */
#define APO_LANES_ALL ((1u << APO_LANES) - 1u)

static inline apo_vd apo_vd_splat(double v) {
    apo_vd r;
    for (int i = 0; i < APO_LANES; i++)
        r[i] = v;
    return r;
}

static inline apo_vd apo_vd_sqrt(apo_vd v) {
#if APO_LANES_X86 == 512
    return (apo_vd)_mm512_sqrt_pd((__m512d)v);
#elif APO_LANES_X86 == 256
    return (apo_vd)_mm256_sqrt_pd((__m256d)v);
#elif APO_LANES_X86 == 128
    return (apo_vd)_mm_sqrt_pd((__m128d)v);
#else
    apo_vd r;
    for (int i = 0; i < APO_LANES; i++)
        r[i] = sqrt(v[i]);
    return r;
#endif
}

/* |v|: clears the sign bit, exactly as fabs does. */
static inline apo_vd apo_vd_abs(apo_vd v) {
    typedef int64_t vi __attribute__((vector_size(APO_LANES * sizeof(double))));
    vi mask;
    for (int i = 0; i < APO_LANES; i++)
        mask[i] = INT64_MAX;
    return (apo_vd)((vi)v & mask);
}

/* Each comparison: its AVX predicate, its SSE2 instruction and its C expression. */
#if APO_LANES_X86 == 512
#define APO_LANES_CMP_(name, pred, sse2, expr)                                                     \
    static inline apo_vm name(apo_vd a, apo_vd b) {                                                \
        return _mm512_cmp_pd_mask((__m512d)a, (__m512d)b, pred);                                   \
    }
#elif APO_LANES_X86 == 256 && APO_LANES_KMASK
#define APO_LANES_CMP_(name, pred, sse2, expr)                                                     \
    static inline apo_vm name(apo_vd a, apo_vd b) {                                                \
        return _mm256_cmp_pd_mask((__m256d)a, (__m256d)b, pred);                                   \
    }
#elif APO_LANES_X86 == 256
#define APO_LANES_CMP_(name, pred, sse2, expr)                                                     \
    static inline apo_vm name(apo_vd a, apo_vd b) {                                                \
        return (apo_vm)_mm256_cmp_pd((__m256d)a, (__m256d)b, pred);                                \
    }
#elif APO_LANES_X86 == 128
#define APO_LANES_CMP_(name, pred, sse2, expr)                                                     \
    static inline apo_vm name(apo_vd a, apo_vd b) { return (apo_vm)sse2((__m128d)a, (__m128d)b); }
#else
#define APO_LANES_CMP_(name, pred, sse2, expr)                                                     \
    static inline apo_vm name(apo_vd a, apo_vd b) { return (apo_vm)(expr); }
#endif

APO_LANES_CMP_(apo_vd_lt, _CMP_LT_OQ, _mm_cmplt_pd, a < b)
APO_LANES_CMP_(apo_vd_le, _CMP_LE_OQ, _mm_cmple_pd, a <= b)
APO_LANES_CMP_(apo_vd_gt, _CMP_GT_OQ, _mm_cmpgt_pd, a > b)
APO_LANES_CMP_(apo_vd_ge, _CMP_GE_OQ, _mm_cmpge_pd, a >= b)
APO_LANES_CMP_(apo_vd_ne, _CMP_NEQ_UQ, _mm_cmpneq_pd, a != b)
APO_LANES_CMP_(apo_vd_eq, _CMP_EQ_OQ, _mm_cmpeq_pd, a == b)
/* The negations of <, <= and >=: true where those are false, a NaN included. */
APO_LANES_CMP_(apo_vd_nlt, _CMP_NLT_UQ, _mm_cmpnlt_pd, ~(a < b))
APO_LANES_CMP_(apo_vd_nle, _CMP_NLE_UQ, _mm_cmpnle_pd, ~(a <= b))
APO_LANES_CMP_(apo_vd_nge, _CMP_NGE_UQ, _mm_cmpnge_pd, ~(a >= b))
#undef APO_LANES_CMP_

static inline apo_vm apo_vm_and(apo_vm a, apo_vm b) {
#if APO_LANES_KMASK
    return (apo_vm)(a & b);
#elif APO_LANES_X86 == 256
    return (apo_vm)_mm256_and_pd((__m256d)a, (__m256d)b);
#elif APO_LANES_X86 == 128
    return (apo_vm)_mm_and_pd((__m128d)a, (__m128d)b);
#else
    return a & b;
#endif
}

static inline apo_vm apo_vm_or(apo_vm a, apo_vm b) {
#if APO_LANES_KMASK
    return (apo_vm)(a | b);
#elif APO_LANES_X86 == 256
    return (apo_vm)_mm256_or_pd((__m256d)a, (__m256d)b);
#elif APO_LANES_X86 == 128
    return (apo_vm)_mm_or_pd((__m128d)a, (__m128d)b);
#else
    return a | b;
#endif
}

/* m ? a : b, lane by lane, bit for bit (a NaN's payload passes through untouched). */
static inline apo_vd apo_vd_select(apo_vm m, apo_vd a, apo_vd b) {
#if APO_LANES_X86 == 512
    return (apo_vd)_mm512_mask_blend_pd(m, (__m512d)b, (__m512d)a);
#elif APO_LANES_X86 == 256 && APO_LANES_KMASK
    return (apo_vd)_mm256_mask_blend_pd(m, (__m256d)b, (__m256d)a);
#elif APO_LANES_X86 == 256
    return (apo_vd)_mm256_blendv_pd((__m256d)b, (__m256d)a, (__m256d)m);
#elif APO_LANES_X86 == 128
    return (apo_vd)_mm_or_pd(_mm_and_pd((__m128d)m, (__m128d)a),
                             _mm_andnot_pd((__m128d)m, (__m128d)b));
#else
    return (apo_vd)(((apo_vm)a & m) | ((apo_vm)b & ~m));
#endif
}

/* m ? a + b : +0.0, lane by lane: with k-register masks one masked addition. */
static inline apo_vd apo_vd_add_or_zero(apo_vm m, apo_vd a, apo_vd b) {
#if APO_LANES_X86 == 256 && APO_LANES_KMASK
    return (apo_vd)_mm256_maskz_add_pd(m, (__m256d)a, (__m256d)b);
#else
    return apo_vd_select(m, a + b, apo_vd_splat(0.0));
#endif
}

/* apo__canonical_nan() lane by lane (apo_hd.h): v, or the NAN constant where v is a NaN of
 * any sign and payload. */
static inline apo_vd apo_vd_canonical_nan(apo_vd v) {
#if APO_LANES_X86 == 256 && APO_LANES_KMASK
    /* One instruction instead of a comparison and a select (bollinger's three bands a
     * window, docs/perf-log/2026-11-25-catalog-round-6.md, sixth round): VFIXUPIMMPD sorts each
     * lane of v into one of eight classes (QNaN, SNaN, zero, one, -inf, +inf, negative, positive)
     * and takes, by that class's nibble of the table, the lane of its first operand (0: the NAN
     * constant, for both NaN classes) or v's lane as it is (1: every other class; denormals too, as
     * MXCSR.DAZ is off). The 512-bit path keeps the select: not measured there. */
    const __m256i table = _mm256_set1_epi64x(0x11111100);
    return (apo_vd)_mm256_fixupimm_pd((__m256d)apo_vd_splat(NAN), (__m256d)v, table, 0);
#else
    return apo_vd_select(apo_vd_ne(v, v), apo_vd_splat(NAN), v);
#endif
}

/* Bit i set when lane i of m is true. */
static inline unsigned apo_vm_bits(apo_vm m) {
#if APO_LANES_KMASK
    return (unsigned)m;
#elif APO_LANES_X86 == 256
    return (unsigned)_mm256_movemask_pd((__m256d)m);
#elif APO_LANES_X86 == 128
    return (unsigned)_mm_movemask_pd((__m128d)m);
#else
    unsigned bits = 0;
    for (int i = 0; i < APO_LANES; i++)
        bits |= (unsigned)(m[i] != 0) << i;
    return bits;
#endif
}

/* The mask of lane i alone. */
static inline apo_vm apo_vm_lane(size_t i) {
#if APO_LANES_KMASK
    return (apo_vm)(1u << i);
#else
    apo_vm m = {0}; /* set whole first: GCC's -O2 TSan build sees lanes it thinks unset */
    for (int l = 0; l < APO_LANES; l++)
        m[l] = (size_t)l == i ? -1 : 0;
    return m;
#endif
}

/* v with lane i set to x, and lane i of v, by whole-vector operations: an element access
 * would make the compiler keep v in memory, and the lane kernels' states must stay in
 * registers (they carry a chain of additions from step to step). */
static inline apo_vd apo_vd_with_lane(apo_vd v, size_t i, double x) {
    return apo_vd_select(apo_vm_lane(i), apo_vd_splat(x), v);
}

static inline double apo_vd_lane(apo_vd v, size_t i) {
    double lanes[APO_LANES];
    memcpy(lanes, &v, sizeof lanes);
    return lanes[i];
}

/* Unaligned loads and stores of a whole vector. */
static inline apo_vd apo_vd_loadu(const double *p) {
    apo_vd v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline void apo_vd_storeu(double *p, apo_vd v) { memcpy(p, &v, sizeof v); }

/*
 * A whole-vector store to p, non-temporal (streaming) when p is aligned to the vector's
 * size on a path that streams (APO_LANES_STREAM, below), an ordinary store otherwise. A
 * streaming store writes the line to memory without reading it first and without keeping it
 * in the caches: for outputs larger than the caches it saves the read for ownership of every
 * output line (3 outputs of 8 B per sample: 24 B read that the kernel never uses) and leaves
 * the caches to the input. It stores the same bits; only when another thread may see them
 * changes, hence apo_lanes_fence(). Which calls stream: kernels.h, APO_*_STREAM_MIN_BYTES.
 */
static inline void apo_vd_stream(double *p, apo_vd v) {
#if APO_LANES_X86 == 512
    if (((uintptr_t)p & (sizeof v - 1)) == 0) {
        _mm512_stream_pd(p, (__m512d)v);
        return;
    }
#endif
    apo_vd_storeu(p, v);
}

/*
 * Whether a round of this path writes its outputs with streaming stores when its call asks for
 * them (kernels.h, APO_*_STREAM_MIN_BYTES): only on 8 lanes of AVX-512, where a block's
 * aligned store of one lane and output is one whole 64-byte line. On 2 and 4 lanes it is half
 * or a quarter of a line, the rest following a block later after the other lanes' and outputs'
 * stores (macd: 12 lines in flight on avx2), and on the Zen 3 VM of 2026-11-29 macd and
 * bollinger took 3 to 4 times as long with such stores as with ordinary ones; gathering a line
 * of blocks first, so that each line's stores followed each other, still left macd about twice
 * as slow as ordinary stores there, at 1e6 and at 1e7 samples (docs/kernels-vector-paths.md,
 * "Streaming stores"). So the narrower paths store as usual.
 */
#if APO_LANES_X86 == 512
#define APO_LANES_STREAM 1
#else
#define APO_LANES_STREAM 0
#endif

/* Orders the streaming stores before every later store and before the return: a round that
 * streamed calls it before it writes over a streamed line with an ordinary store and before
 * it returns, so that the runtime's merge and the other threads see the outputs. */
static inline void apo_lanes_fence(int streamed) {
#ifdef APO_LANES_X86
    if (streamed)
        _mm_sfence();
#else
    (void)streamed;
#endif
}

/*
 * Transposes the APO_LANES x APO_LANES block m in place: lane j of m[i] becomes lane i of
 * m[j]. The lane kernels load APO_LANES consecutive samples of each lane's tile as one
 * vector and transpose them into one vector per step (and their outputs back), instead of
 * moving every sample through a lane insert or extract of its own. Moves only.
 */
static inline void apo_vd_transpose(apo_vd *m) {
#if APO_LANES_X86 == 512
    apo__transpose_8x8((__m512d *)m);
#elif APO_LANES_X86 == 256
    apo__transpose_4x4((__m256d *)m);
#elif APO_LANES_X86 == 128
    apo__transpose_2x2((__m128d *)m);
#else
    for (int i = 0; i < APO_LANES; i++) {
        for (int j = i + 1; j < APO_LANES; j++) {
            const double v = m[i][j];
            m[i][j] = m[j][i];
            m[j][i] = v;
        }
    }
#endif
}

/* What lanes that do not move read (before their first step, after their last, or without
 * a tile): NaN, which the kernels' states ignore or at worst carry (a lane fed zeros could
 * decay towards 0 and reach denormal numbers, which cost a hundred cycles an operation).
 * Such lanes store nothing, and a lane takes up its state again when it starts. */
static const double apo_lanes_idle[APO_LANES] = {
    NAN, NAN,
#if APO_LANES > 2
    NAN, NAN,
#endif
#if APO_LANES > 4
    NAN, NAN, NAN, NAN,
#endif
};

/*
 * Lanes start this many samples apart (lane i waits i * APO_LANES_STAGGER steps before its
 * first). Tiles are multiples of 4 KiB apart, so lanes in lockstep would touch addresses
 * that share their low 12 bits: every lane's input and outputs would fall into the same
 * L1 cache set and evict each other at every step. One cache line of offset per lane
 * spreads them over different sets, for a few idle steps per round.
 */
#define APO_LANES_STAGGER 8

#endif /* APO_LANES_H */
