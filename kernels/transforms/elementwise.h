/*
 * elementwise.h: the one loop of the element-wise catalog kernels (price transforms, math
 * operators on two series, math transforms): output t is a function of the inputs at t alone.
 *
 * Tile: lookback and halo 0, no state (a stream keeps its position), and consecutive tiles
 * joined are one loop with each tile's bits.
 *
 * Gaps: output t is NaN (the NAN constant) where an input at t is not finite, the catalog's
 * "NaN where a sample the output reads is a gap" (docs/kernels.md, "Non-finite policy"). A
 * finite input whose result is not finite keeps it: an overflow is an infinity, ln(0) is -inf,
 * and a result without a value (sqrt or ln of a negative number, 0 / 0) the NAN constant,
 * whatever NaN the arithmetic made (apo_hd.h: the CPU's and a GPU's NaN bits differ).
 *
 * The value is computed whatever the inputs and the test applied after it as a select, so
 * that gcc vectorizes the loop of a body of plain arithmetic (a branch around the arithmetic
 * would keep it scalar).
 */
#ifndef APO_KERNELS_ELEMENTWISE_H
#define APO_KERNELS_ELEMENTWISE_H

#include "catalog.h"
#include "tile_vec.h"

/* v where ok, else NaN; a NaN v as the NAN constant. Both tests are evaluated and joined by
 * `&`, not `&&`, so that the select has no branch to keep the loop scalar. */
static inline APO_HD double apo__elementwise_out(int ok, double v) {
    return (ok & (v == v)) ? v : (double)NAN;
}

/* The tile body apo__<name>_tile of a span body apo__<name>_span: on the CPU, the outputs before
 * the first one on a 64-byte line first, then the rest, so that the vector loop's stores (and the
 * loads of inputs at the same offset, as malloc's and numpy's arrays are: 16 bytes past a line)
 * do not straddle lines, which every 512-bit one does. On the Zen 5 VM at 1e6 bars add took a
 * fifth less time and wclprice a tenth, the others level, and ln 0.58 of its time at both sizes:
 * gcc compiles its loop otherwise in the split form, why not looked into
 * (docs/perf-log/2026-12-02-zen5-table.md). On Zen 4, whose 512-bit operations run in halves, the
 * same head measured level (docs/perf-log/2026-12-02-stream-profile-and-trials.md). The same
 * operations on each output: the same bits. A GPU's threads take an output each. */
static inline APO_HD size_t apo__elementwise_head(const double *out, size_t begin, size_t end) {
#ifdef __CUDA_ARCH__
    (void)out, (void)end;
    return begin;
#else
    const size_t head = apo__doubles_to_line(out + begin);
    return end - begin < head ? end : begin + head;
#endif
}
#define APO_ELEMENTWISE_TILE(name)                                                                 \
    static inline APO_HD void apo__##name##_tile(const apo__cat_io *io, size_t begin,              \
                                                 size_t end) {                                     \
        const size_t head = apo__elementwise_head(io->out[0], begin, end);                         \
        apo__##name##_span(io, begin, head);                                                       \
        apo__##name##_span(io, head, end);                                                         \
    }

/* The bar-by-bar loop `fn` over [begin, end) of a body of one input x: out[t] = expr, an
 * expression of x. */
#define APO_ELEMENTWISE_BARS_1(fn, expr)                                                           \
    static inline APO_HD void fn(const apo__cat_io *io, size_t begin, size_t end) {                \
        const double *in0 = io->in[0];                                                             \
        double *out = io->out[0];                                                                  \
        for (size_t t = begin; t < end; t++) {                                                     \
            const double x = in0[t];                                                               \
            out[t] = apo__elementwise_out(apo__finite(x), (expr));                                 \
        }                                                                                          \
    }

/* ... of two inputs a, b (x and y). */
#define APO_ELEMENTWISE_BARS_2(fn, expr)                                                           \
    static inline APO_HD void fn(const apo__cat_io *io, size_t begin, size_t end) {                \
        const double *in0 = io->in[0], *in1 = io->in[1];                                           \
        double *out = io->out[0];                                                                  \
        for (size_t t = begin; t < end; t++) {                                                     \
            const double a = in0[t], b = in1[t];                                                   \
            out[t] = apo__elementwise_out(apo__finite(a) & apo__finite(b), (expr));                \
        }                                                                                          \
    }

/* ... of three inputs h, l, c (high, low, close). */
#define APO_ELEMENTWISE_BARS_3(fn, expr)                                                           \
    static inline APO_HD void fn(const apo__cat_io *io, size_t begin, size_t end) {                \
        const double *in0 = io->in[0], *in1 = io->in[1], *in2 = io->in[2];                         \
        double *out = io->out[0];                                                                  \
        for (size_t t = begin; t < end; t++) {                                                     \
            const double h = in0[t], l = in1[t], c = in2[t];                                       \
            out[t] =                                                                               \
                apo__elementwise_out(apo__finite(h) & apo__finite(l) & apo__finite(c), (expr));    \
        }                                                                                          \
    }

/* ... of four inputs o, h, l, c (open, high, low, close). */
#define APO_ELEMENTWISE_BARS_4(fn, expr)                                                           \
    static inline APO_HD void fn(const apo__cat_io *io, size_t begin, size_t end) {                \
        const double *in0 = io->in[0], *in1 = io->in[1], *in2 = io->in[2], *in3 = io->in[3];       \
        double *out = io->out[0];                                                                  \
        for (size_t t = begin; t < end; t++) {                                                     \
            const double o = in0[t], h = in1[t], l = in2[t], c = in3[t];                           \
            out[t] = apo__elementwise_out(                                                         \
                apo__finite(o) & apo__finite(h) & apo__finite(l) & apo__finite(c), (expr));        \
        }                                                                                          \
    }

/* The span body apo__<name>_span, and its tile, of n inputs (1 to 4, named as above). */
#define APO_ELEMENTWISE(n, name, expr)                                                             \
    APO_ELEMENTWISE_BARS_##n(apo__##name##_span, expr) APO_ELEMENTWISE_TILE(name)
#define APO_ELEMENTWISE_1(name, expr) APO_ELEMENTWISE(1, name, expr)
#define APO_ELEMENTWISE_2(name, expr) APO_ELEMENTWISE(2, name, expr)
#define APO_ELEMENTWISE_3(name, expr) APO_ELEMENTWISE(3, name, expr)
#define APO_ELEMENTWISE_4(name, expr) APO_ELEMENTWISE(4, name, expr)

/*
 * A closed body: one whose value is not finite wherever an input is not. Sums and differences
 * of the inputs, scaled by nonzero constants, and products are (an infinity or a NaN carries
 * through + - * and a constant divisor; inf - inf and 0 * inf are NaN); a quotient of inputs is
 * not (x / inf is 0). So where the value is finite every input is, and the output is the value
 * itself: on the CPU two vectors of bars whose values are all finite are stored as computed,
 * with one test of both vectors' values (the sum of v - v, NaN where a lane of either is not
 * finite) in place of each input's test and the select a bar, and any other pair goes bar by
 * bar through the body above (a gap, or an overflow of finite inputs, which keeps its
 * infinity). The lanes perform the scalar expression's operations in its order (the same text,
 * GCC's vector extension), so the bits do not depend on the loop. On the Zen 3 VM the call took
 * 0.77 to 0.95 of its time at 1e4 bars (docs/perf-log/2026-12-04-zen3-closed-bodies-lane-terms.md).
 * The names `a`, `b` (two inputs), `h`, `l`, `c` (three) or `o`, `h`, `l`, `c` (four) are the
 * inputs' vectors in `loads`.
 */
#ifdef APO_TILE_LANES
/* The span of a closed body: the vector loop, then the bars past the last whole vector. */
#define APO_ELEMENTWISE_CLOSED_SPAN(name, n, loads, expr)                                          \
    static inline void apo__##name##_span(const apo__cat_io *io, size_t begin, size_t end) {       \
        const double *in[n];                                                                       \
        for (int i = 0; i < n; i++)                                                                \
            in[i] = io->in[i];                                                                     \
        double *out = io->out[0];                                                                  \
        size_t t = begin;                                                                          \
        for (; t + 2 * APO_TILE_LANES <= end; t += 2 * APO_TILE_LANES) {                           \
            apo_tv v[2];                                                                           \
            for (int k = 0; k < 2; k++) {                                                          \
                const size_t at = t + (size_t)k * APO_TILE_LANES;                                  \
                loads;                                                                             \
                v[k] = (expr);                                                                     \
            }                                                                                      \
            if (apo_tv_all_finite((v[0] - v[0]) + (v[1] - v[1]))) {                                \
                apo_tv_store(out + t, v[0]);                                                       \
                apo_tv_store(out + t + APO_TILE_LANES, v[1]);                                      \
            } else {                                                                               \
                apo__##name##_bars(io, t, t + 2 * APO_TILE_LANES);                                 \
            }                                                                                      \
        }                                                                                          \
        apo__##name##_bars(io, t, end);                                                            \
    }
#define APO_ELEMENTWISE_CLOSED(name, n, loads, expr)                                               \
    APO_ELEMENTWISE_BARS_##n(apo__##name##_bars, expr)                                             \
        APO_ELEMENTWISE_CLOSED_SPAN(name, n, loads, expr) APO_ELEMENTWISE_TILE(name)
#define APO_EW_IN(v, i) const apo_tv v = apo_tv_load(in[i] + at)
#else
#define APO_ELEMENTWISE_CLOSED(name, n, loads, expr) APO_ELEMENTWISE(n, name, expr)
#endif

/* A closed body of two inputs a, b, three h, l, c or four o, h, l, c. */
#define APO_ELEMENTWISE_CLOSED_2(name, expr)                                                       \
    APO_ELEMENTWISE_CLOSED(name, 2, APO_EW_IN(a, 0); APO_EW_IN(b, 1), expr)
#define APO_ELEMENTWISE_CLOSED_3(name, expr)                                                       \
    APO_ELEMENTWISE_CLOSED(name, 3, APO_EW_IN(h, 0); APO_EW_IN(l, 1); APO_EW_IN(c, 2), expr)
#define APO_ELEMENTWISE_CLOSED_4(name, expr)                                                       \
    APO_ELEMENTWISE_CLOSED(name, 4, APO_EW_IN(o, 0); APO_EW_IN(h, 1); APO_EW_IN(l, 2);             \
                           APO_EW_IN(c, 3), expr)

#endif /* APO_KERNELS_ELEMENTWISE_H */
