/*
 * apo_hd.h: the one switch that lets a tile body be compiled by both gcc and nvcc.
 *
 * What: APO_HD marks the static inline tile bodies of kernels/<room>/<name>_tile.h. Under nvcc
 * (__CUDACC__) it is __host__ __device__, so the CUDA kernels of kernels/<room>/<name>.cu call the
 * very source the CPU kernels of kernels/<room>/<name>.c call; under a C compiler it is empty.
 *
 * Rules for code marked APO_HD, so that it is valid C11 and valid CUDA C++ and rounds the
 * same on both sides: no assert (the exported C functions check their preconditions on the
 * host), no allocation, no C-only syntax (compound literals, designated initializers,
 * restrict, implicit conversions from void *), and from libm only sqrt, fabs, isnan and
 * isfinite, and fma where a definition writes one (wilder_step.h), which are exact or
 * correctly rounded on both sides; no log, exp, pow or other
 * transcendental, whose CPU and GPU results may differ in the last bit.
 *
 * Determinism: the marked code is compiled without FMA contraction on both sides (gcc
 * -ffp-contract=off, nvcc -fmad=false), and IEEE double +, -, *, /, sqrt and fma are correctly
 * rounded on both, so the same source gives the same bits (docs/determinism.md). One thing
 * no source can pin down is the sign and payload of a NaN that arithmetic creates (inf -
 * inf, 0 / 0, 0 * inf) or passes on: IEEE 754 leaves them open, x86 gives
 * 0xFFF8000000000000 or its first NaN operand, an NVIDIA GPU a canonical NaN of its own. A
 * NaN written as the NAN macro has the same bits on both, so the tile bodies write NaN
 * outputs as constants where their semantics allow (bollinger, macd), and pass the values
 * that arithmetic may turn into NaN through apo__canonical_nan() before they are stored
 * (bollinger's bands, whose 0 * inf comes from nbdev 0 and an M2 that overflows; the
 * moments' merge of infinite partials); bootstrap_tile.h does the same for its means. Only
 * macd's EMAs of samples near DBL_MAX still store an arithmetic NaN (macd_tile.h).
 */
#ifndef APO_HD_H
#define APO_HD_H

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define APO_HD __host__ __device__
#else
#define APO_HD
#endif

/*
 * APO_HD_STEP marks a helper of a few operations that the bodies call once or more a sample
 * (a TwoSum, a double-double step, a window sum's slide, a bar's term): always inlined by gcc
 * (force_inline.h), since in the catalog's dispatch units, which hold every body of a path,
 * gcc's unit growth limit left them calls, each returning its two doubles through the stack:
 * a store of 8 bytes read back as 16, a failed store forwarding on every sample's chain (adr
 * at 22 ns a bar on a Zen 3 where TA-Lib's loop takes 2.8; docs/kernels/talib.md). nvcc
 * inlines such device functions itself; the operations are the same either way.
 */
#ifdef __CUDACC__
#define APO_HD_STEP inline
#else
#include "force_inline.h"
#define APO_HD_STEP APO_FORCE_INLINE
#endif

/*
 * Sample and output accessors. A tile body reads sample i of its row as APO_IN(x, i) and
 * writes output t as APO_OUT(out, t) = v, so the same body can read the row in memory or a
 * window of it staged elsewhere. By default (the CPU kernels, the lanes, the simple CUDA
 * kernels) apo__in and apo__out are plain pointers and the accessors plain subscripts, so
 * the CPU compiles exactly the loads and stores it did before. A translation unit that
 * defines APO_STAGED_ACCESS before its first include of this header (kernels/cuda/staged.cu and
 * its host emulation, kernels/cuda/staged_emulation.c; see kernels/cuda/stage.h) gets rings
 * instead: index i lives at p[i & mask], which reads a per-lane ring in shared memory on the GPU,
 * and with mask = SIZE_MAX (apo__in_at, apo__out_at) reads memory like a pointer. A unit that
 * defines APO_STRIDED_ACCESS instead (kernels/scores/scored.cu) gets strides: index i lives at
 * p[i * stride], so that the windows of the threads of a launch can be interleaved (thread k's
 * index i next to thread k + 1's), and with stride 1 (apo__in_at, apo__out_at) a pointer's
 * subscript again. Only where the data is read from changes, never an operation on it.
 */
#if defined(APO_STAGED_ACCESS) && defined(APO_STRIDED_ACCESS)
#error "apo_hd.h: a unit stages its windows in rings or strides them, not both"
#endif
#ifdef APO_STAGED_ACCESS
typedef struct apo__in {
    const double *p;
    size_t mask;
} apo__in;
typedef struct apo__out {
    double *p;
    size_t mask;
} apo__out;
#define APO_IN(a, i) ((a).p[(size_t)(i) & (a).mask])
#define APO_OUT(a, i) ((a).p[(size_t)(i) & (a).mask])
static inline APO_HD apo__in apo__in_ring(const double *p, size_t mask) {
    apo__in a;
    a.p = p;
    a.mask = mask;
    return a;
}
static inline APO_HD apo__out apo__out_ring(double *p, size_t mask) {
    apo__out a;
    a.p = p;
    a.mask = mask;
    return a;
}
static inline APO_HD apo__in apo__in_at(const double *p) { return apo__in_ring(p, SIZE_MAX); }
static inline APO_HD apo__out apo__out_at(double *p) { return apo__out_ring(p, SIZE_MAX); }
#elif defined(APO_STRIDED_ACCESS)
typedef struct apo__in {
    const double *p;
    size_t stride;
} apo__in;
typedef struct apo__out {
    double *p;
    size_t stride;
} apo__out;
#define APO_IN(a, i) ((a).p[(size_t)(i) * (a).stride])
#define APO_OUT(a, i) ((a).p[(size_t)(i) * (a).stride])
static inline APO_HD apo__in apo__in_strided(const double *p, size_t stride) {
    apo__in a;
    a.p = p;
    a.stride = stride;
    return a;
}
static inline APO_HD apo__out apo__out_strided(double *p, size_t stride) {
    apo__out a;
    a.p = p;
    a.stride = stride;
    return a;
}
static inline APO_HD apo__in apo__in_at(const double *p) { return apo__in_strided(p, 1); }
static inline APO_HD apo__out apo__out_at(double *p) { return apo__out_strided(p, 1); }
#else
typedef const double *apo__in;
typedef double *apo__out;
#define APO_IN(a, i) ((a)[i])
#define APO_OUT(a, i) ((a)[i])
static inline APO_HD apo__in apo__in_at(const double *p) { return p; }
static inline APO_HD apo__out apo__out_at(double *p) { return p; }
#endif

/* NaN canonicalisation: `v`, or the NAN constant when it is a NaN of any sign and payload.
 * Applied where arithmetic can make a NaN that reaches an output (bollinger's bands, the
 * moments' merge), so the CPU and the GPU store the same bits for it. */
static APO_HD_STEP APO_HD double apo__canonical_nan(double v) { return isnan(v) ? (double)NAN : v; }

/* Host code of GCC (or clang) on x86-64: where the asm statements below apply. */
#if defined(__GNUC__) && !defined(__CUDA_ARCH__) && defined(__x86_64__)
#define APO_HD_X86_GNU 1
#else
#define APO_HD_X86_GNU 0
#endif

/* v as a value the compiler must take as it is, for a product that feeds a sum: GCC 12's SLP
 * vectorizer fuses a pair of products into an fmaddsub or fmsubadd on the avx2 path despite
 * -ffp-contract=off where a sum and a difference of products have a complex product's shape
 * (a b + c d beside a d - c b: hilbert.h's Re and Im), a rounding fewer than sse2, avx512 and
 * the GPU take; an empty asm statement holding v in a vector register leaves nothing to fuse
 * (catalog_simt's every_vector_path_gives_the_bits_of_sse2 finds such a fusion). A no-op
 * elsewhere: nvcc's device code, whose -fmad=false has no such exception, and other targets. */
static APO_HD_STEP APO_HD double apo__unfused(double v) {
#if APO_HD_X86_GNU
    __asm__("" : "+x"(v));
#endif
    return v;
}

/* a < b ? a : b and a > b ? a : b. x86's minsd and maxsd are defined as exactly these selects
 * (b where either is NaN, b of two equal values, zeros of either sign included), so on x86
 * each is one instruction, where gcc compiles the select as a compare and a branch that a
 * serial chain mispredicts (sar_tile.h's stop, whose clamps to the last lows followed the
 * walk). The asm keeps gcc from moving the operands through a zeroing of their upper lanes,
 * which intrinsics add to the chain. Elsewhere the select as written. */
static APO_HD_STEP APO_HD double apo__below_or(double a, double b) {
#if APO_HD_X86_GNU && defined(__AVX__)
    double r;
    __asm__("vminsd %2, %1, %0" : "=x"(r) : "x"(a), "x"(b));
    return r;
#elif APO_HD_X86_GNU
    __asm__("minsd %1, %0" : "+x"(a) : "x"(b));
    return a;
#else
    return a < b ? a : b;
#endif
}
static APO_HD_STEP APO_HD double apo__above_or(double a, double b) {
#if APO_HD_X86_GNU && defined(__AVX__)
    double r;
    __asm__("vmaxsd %2, %1, %0" : "=x"(r) : "x"(a), "x"(b));
    return r;
#elif APO_HD_X86_GNU
    __asm__("maxsd %1, %0" : "+x"(a) : "x"(b));
    return a;
#else
    return a > b ? a : b;
#endif
}

/* 1 when v is finite, else 0. isfinite() promises only a nonzero value (CUDA's and some C
 * libraries' may be another than 1), so bodies that combine the tests with `&`, to avoid a
 * branch after each, combine these. */
static inline APO_HD int apo__finite(double v) { return isfinite(v) != 0; }

/* The bits of a double and back (memcpy, which both compilers reduce to a move). A select
 * written on the bits is integer work, which gcc if-converts and vectorizes where a select
 * between double values computed from a trapping operation would keep a branch
 * (roc_tile.h). */
static inline APO_HD uint64_t apo__bits_of(double v) {
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}
static inline APO_HD double apo__double_of(uint64_t u) {
    double v;
    memcpy(&v, &u, sizeof v);
    return v;
}

/* The bits of a where c, else b, by a mask: no condition is left for gcc to turn back into a
 * branch, which a ternary on the bits can become where two selects on the same condition feed
 * the same comparisons (candle_settings.h's bodies and shadows: gcc merged two ternaries on a
 * candle's colour in cdlshootingstar's loop into the arms of a branch on it, mispredicted on
 * every other candle of a long series). */
static inline APO_HD uint64_t apo__pick_bits(int c, uint64_t a, uint64_t b) {
    const uint64_t m = (uint64_t)0 - (uint64_t)(c != 0);
    return (a & m) | (b & ~m);
}

/* a where c, else b: apo__pick_bits on doubles (no arithmetic, so any value's bits pass). */
static APO_HD_STEP APO_HD double apo__pick_double(int c, double a, double b) {
    return apo__double_of(apo__pick_bits(c, apo__bits_of(a), apo__bits_of(b)));
}

#endif /* APO_HD_H */
