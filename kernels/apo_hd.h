/*
 * apo_hd.h: the one switch that lets a tile body be compiled by both gcc and nvcc.
 *
 * What: APO_HD marks the static inline tile bodies of kernels/<name>_tile.h. Under nvcc
 * (__CUDACC__) it is __host__ __device__, so the CUDA kernels of kernels/<name>.cu call the
 * very source the CPU kernels of kernels/<name>.c call; under a C compiler it is empty.
 *
 * Rules for code marked APO_HD, so that it is valid C11 and valid CUDA C++ and rounds the
 * same on both sides: no assert (the exported C functions check their preconditions on the
 * host), no allocation, no C-only syntax (compound literals, designated initializers,
 * restrict, implicit conversions from void *), and from libm only sqrt, fabs, isnan and
 * isfinite, which are exact or correctly rounded on both sides; no log, exp, pow or other
 * transcendental, whose CPU and GPU results may differ in the last bit.
 *
 * Determinism: the marked code is compiled without FMA contraction on both sides (gcc
 * -ffp-contract=off, nvcc -fmad=false), and IEEE double +, -, *, / and sqrt are correctly
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

#ifdef __CUDACC__
#define APO_HD __host__ __device__
#else
#define APO_HD
#endif

/* NaN canonicalisation: `v`, or the NAN constant when it is a NaN of any sign and payload.
 * Applied where arithmetic can make a NaN that reaches an output (bollinger's bands, the
 * moments' merge), so the CPU and the GPU store the same bits for it. */
static inline APO_HD double apo__canonical_nan(double v) { return isnan(v) ? (double)NAN : v; }

#endif /* APO_HD_H */
