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
#include "tile_vec.h"

/* x rounded to the nearest integer (ties to even), for |x| < 2^52: adding and subtracting
 * 2^52 leaves no bit below the units, and the sign keeps the sum's magnitude at 2^52. */
static inline APO_HD double apo__nearest_integer(double x) {
    return x >= 0.0 ? (x + 0x1p52) - 0x1p52 : (x - 0x1p52) + 0x1p52;
}

/* floor and ceil from +, - and comparisons (libm's are exact too, but apo_hd.h admits sqrt,
 * fabs, isnan and isfinite only). A double of magnitude 2^52 or more (or not finite) is its
 * own result; a zero result keeps the sign of x, as C99's does (floor(-0) = -0, ceil(-0.5) =
 * -0). */
static inline APO_HD double apo__floor(double x) {
    double r = apo__nearest_integer(x);
    r = r > x ? r - 1.0 : r;
    r = r == 0.0 ? x * 0.0 : r;
    return fabs(x) < 0x1p52 ? r : x;
}

static inline APO_HD double apo__ceil(double x) {
    double r = apo__nearest_integer(x);
    r = r < x ? r + 1.0 : r;
    r = r == 0.0 ? x * 0.0 : r;
    return fabs(x) < 0x1p52 ? r : x;
}

#ifdef APO_TILE_LANES
/* apo__floor (up: apo__ceil) in vector lanes, each choice a select of both arms: gcc keeps the
 * scalar loop's choices as branches (it may not compute an arm that could raise a flag), so
 * that loop ran one sample at a time, at 0.5 to 0.6 of TA-Lib's speed on the Zen 3 VM. */
static inline apo_tv apo__round_tv(apo_tv x, int up) {
    const apo_tv big = apo_tv_splat(0x1p52);
    const apo_tv near = apo_tv_pick(x >= 0.0, (x + big) - big, (x - big) + big);
    apo_tv r =
        up ? apo_tv_pick(near < x, near + 1.0, near) : apo_tv_pick(near > x, near - 1.0, near);
    r = apo_tv_pick(r == 0.0, x * 0.0, r);
    return apo_tv_pick(apo_tv_abs(x) < big, r, x);
}
#endif

/* The tile of floor (up: ceil): elementwise.h's loop, whole vectors in lanes on the CPU. */
static inline APO_HD void apo__round_tile(const apo__cat_io *io, size_t begin, size_t end, int up) {
    const double *in0 = io->in[0];
    double *out = io->out[0];
    size_t t = begin;
#ifdef APO_TILE_LANES
    for (; end - t >= APO_TILE_LANES; t += APO_TILE_LANES) {
        const apo_tv x = apo_tv_load(in0 + t), v = apo__round_tv(x, up);
        apo_tv_store(out + t, apo_tv_or_nan(apo_tv_finite(x) & (v == v), v));
    }
#endif
    for (; t < end; t++) {
        const double x = in0[t];
        out[t] = apo__elementwise_out(apo__finite(x), up ? apo__ceil(x) : apo__floor(x));
    }
}

static inline APO_HD void apo__ceil_tile(const apo__cat_io *io, size_t begin, size_t end) {
    apo__round_tile(io, begin, end, 1);
}

static inline APO_HD void apo__floor_tile(const apo__cat_io *io, size_t begin, size_t end) {
    apo__round_tile(io, begin, end, 0);
}
APO_ELEMENTWISE_1(sqrt, sqrt(x))
/* On the avx2 and avx512 paths exp, ln, log10, sinh, cosh and tanh run the branchless forms
 * (exp_log.h), whose loops gcc vectorises; the same bits as the branching ones, which the sse2
 * path and a GPU run. */
#if defined(__AVX2__) && !defined(__CUDACC__)
/* The span of exp, ln, log10, sinh, cosh and tanh there: blocks of `len` samples through their
 * block form (exp_log.h: apo__exp_block, apo__log_block, apo__sinh_block, ..., a series' step
 * at a time across the block), the call `block` filling y[] from in0 + t, and the samples past
 * the last block through the bar loop apo__<name>_bars of the select form `select`: the same
 * bits. */
#define APO_BLOCK_SPAN(name, select, len, block)                                                   \
    APO_ELEMENTWISE_BARS_1(apo__##name##_bars, select(x))                                          \
    static inline void apo__##name##_span(const apo__cat_io *io, size_t begin, size_t end) {       \
        const double *in0 = io->in[0];                                                             \
        double *out = io->out[0];                                                                  \
        size_t t = begin;                                                                          \
        for (; end - t >= (len); t += (len)) {                                                     \
            double y[len];                                                                         \
            block;                                                                                 \
            for (size_t i = 0; i < (len); i++)                                                     \
                out[t + i] = apo__elementwise_out(apo__finite(in0[t + i]), y[i]);                  \
        }                                                                                          \
        apo__##name##_bars(io, t, end);                                                            \
    }
APO_BLOCK_SPAN(exp, apo__exp_select, APO_EXP_BLOCK, apo__exp_block(in0 + t, y))
APO_ELEMENTWISE_TILE(exp)
APO_BLOCK_SPAN(ln, apo__log_select, APO_LOG_BLOCK, apo__log_block(in0 + t, y, 0))
APO_ELEMENTWISE_TILE(ln)
APO_BLOCK_SPAN(log10, apo__log10_select, APO_LOG_BLOCK, apo__log_block(in0 + t, y, 1))
APO_ELEMENTWISE_TILE(log10)
/* The tiles of tanh, sinh and cosh there: blocks of APO_SATURATED_BLOCK samples, where a block
 * whose samples are all at least 22 in magnitude (each one's last arm: a series of prices, say)
 * takes that arm alone (`far`), a loop that vectorises as well, and any other block the
 * branchless form through APO_BLOCK_SPAN's span, which computes every arm for every sample:
 * about nine times a saturated block's time over prices for tanh
 * (docs/perf-log/2026-12-01-talib-table-xeon5.md), about 1.6 for cosh and 1.4 for sinh
 * (docs/perf-log/2026-12-06-zen3-ppo-chunks.md), the same bits. */
#define APO_SATURATED_BLOCK 64
#define APO_SATURATING_TILE(name, far)                                                             \
    APO_BLOCK_SPAN(name, apo__##name##_select, APO_EXP_BLOCK, apo__##name##_block(in0 + t, y))     \
    static inline void apo__##name##_tile(const apo__cat_io *io, size_t begin, size_t end) {       \
        const double *in0 = io->in[0];                                                             \
        double *out = io->out[0];                                                                  \
        for (size_t t = begin; t < end;) {                                                         \
            const size_t stop = end - t < APO_SATURATED_BLOCK ? end : t + APO_SATURATED_BLOCK;     \
            int saturated = 1;                                                                     \
            for (size_t i = t; i < stop; i++)                                                      \
                saturated &= fabs(in0[i]) >= 22.0;                                                 \
            if (saturated)                                                                         \
                for (size_t i = t; i < stop; i++) {                                                \
                    const double x = in0[i];                                                       \
                    out[i] = apo__elementwise_out(apo__finite(x), far);                            \
                }                                                                                  \
            else                                                                                   \
                apo__##name##_span(io, t, stop);                                                   \
            t = stop;                                                                              \
        }                                                                                          \
    }
APO_SATURATING_TILE(sinh, apo__hyperbolic_far_select(x, 1))
APO_SATURATING_TILE(cosh, apo__hyperbolic_far_select(x, 0))
/* tanh's last arm is +-1 exactly. */
APO_SATURATING_TILE(tanh, apo__double_of(APO_BITS_ONE | (apo__bits_of(x) & APO_BITS_NEG_ZERO)))
#else
APO_ELEMENTWISE_1(exp, apo__exp(x))
APO_ELEMENTWISE_1(ln, apo__log(x))
APO_ELEMENTWISE_1(log10, apo__log10(x))
APO_ELEMENTWISE_1(sinh, apo__sinh(x))
APO_ELEMENTWISE_1(cosh, apo__cosh(x))
APO_ELEMENTWISE_1(tanh, apo__tanh(x))
#endif

#endif /* APO_KERNELS_MATH_TILE_H */
