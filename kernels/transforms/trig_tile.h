/*
 * trig_tile.h: TA-Lib's trigonometric math transforms of one series: ACOS, ASIN, ATAN, COS, SIN
 * and TAN, on common/trig.h (the same bits on the CPU and a GPU, within 0.89 ulp of the exact
 * value where libm's are within about one). Element-wise (elementwise.h): NaN where the sample
 * is not finite; asin and acos of a sample outside [-1, 1] are NaN (no value), and sin, cos and
 * tan of a sample beyond 2^20 in magnitude NaN too (trig.h's bound, where libm still gives a
 * value: docs/kernels/transforms.md, "Math operators and transforms"). tan near an odd multiple of
 * pi/2 is large but finite, as libm's.
 */
#ifndef APO_KERNELS_TRIG_TILE_H
#define APO_KERNELS_TRIG_TILE_H

#include "elementwise.h"
#include "trig.h"
#include "trig_tv.h"

/* A tile of a transform with a form in vector lanes (trig_tv.h: every arm in every lane, the
 * scalar function's bits): elementwise.h's loop, whole vectors in lanes on the CPU, the scalar
 * function for the rest of the bars and on a GPU (its branches held gcc's loop to one sample at
 * a time). */
#ifdef APO_TILE_LANES
#define APO__TRIG_TILE_LANES(lanes)                                                                \
    for (; end - t >= APO_TILE_LANES; t += APO_TILE_LANES) {                                       \
        const apo_tv x = apo_tv_load(in0 + t), v = lanes(x);                                       \
        apo_tv_store(out + t, apo_tv_or_nan(apo_tv_finite(x) & (v == v), v));                      \
    }
#else
#define APO__TRIG_TILE_LANES(lanes)
#endif
#define APO__TRIG_TILE(name, scalar, lanes)                                                        \
    static inline APO_HD void apo__##name##_tile(const apo__cat_io *io, size_t begin,              \
                                                 size_t end) {                                     \
        const double *in0 = io->in[0];                                                             \
        double *out = io->out[0];                                                                  \
        size_t t = begin;                                                                          \
        APO__TRIG_TILE_LANES(lanes)                                                                \
        for (; t < end; t++) {                                                                     \
            const double x = in0[t];                                                               \
            out[t] = apo__elementwise_out(apo__finite(x), scalar(x));                              \
        }                                                                                          \
    }

APO__TRIG_TILE(acos, apo__acos, apo__acos_tv)
APO__TRIG_TILE(asin, apo__asin, apo__asin_tv)
/* atan's lanes take the scalar atan's short route where a vector's lanes share a cell (a
 * series of prices does: trig_tv.h), on the paths with FMA. */
#if defined(APO_TILE_LANES) && defined(APO_TRIG_FMA)
#define APO__ATAN_LANES apo__atan_cells_tv
#else
#define APO__ATAN_LANES apo__atan_tv
#endif
APO__TRIG_TILE(atan, apo__atan, APO__ATAN_LANES)
#undef APO__ATAN_LANES
APO__TRIG_TILE(cos, apo__cos, apo__cos_tv)
APO__TRIG_TILE(sin, apo__sin, apo__sin_tv)
APO__TRIG_TILE(tan, apo__tan, apo__tan_tv)

#endif /* APO_KERNELS_TRIG_TILE_H */
