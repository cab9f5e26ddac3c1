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

/* The span body apo__<name>_span, and its tile, of one input x: out[t] = expr, an expression of
 * x. */
#define APO_ELEMENTWISE_1(name, expr)                                                              \
    static inline APO_HD void apo__##name##_span(const apo__cat_io *io, size_t begin,              \
                                                 size_t end) {                                     \
        const double *in0 = io->in[0];                                                             \
        double *out = io->out[0];                                                                  \
        for (size_t t = begin; t < end; t++) {                                                     \
            const double x = in0[t];                                                               \
            out[t] = apo__elementwise_out(apo__finite(x), (expr));                                 \
        }                                                                                          \
    }                                                                                              \
    APO_ELEMENTWISE_TILE(name)

/* A tile body of two inputs a, b (x and y). */
#define APO_ELEMENTWISE_2(name, expr)                                                              \
    static inline APO_HD void apo__##name##_span(const apo__cat_io *io, size_t begin,              \
                                                 size_t end) {                                     \
        const double *in0 = io->in[0], *in1 = io->in[1];                                           \
        double *out = io->out[0];                                                                  \
        for (size_t t = begin; t < end; t++) {                                                     \
            const double a = in0[t], b = in1[t];                                                   \
            out[t] = apo__elementwise_out(apo__finite(a) & apo__finite(b), (expr));                \
        }                                                                                          \
    }                                                                                              \
    APO_ELEMENTWISE_TILE(name)

/* A tile body of three inputs h, l, c (high, low, close). */
#define APO_ELEMENTWISE_3(name, expr)                                                              \
    static inline APO_HD void apo__##name##_span(const apo__cat_io *io, size_t begin,              \
                                                 size_t end) {                                     \
        const double *in0 = io->in[0], *in1 = io->in[1], *in2 = io->in[2];                         \
        double *out = io->out[0];                                                                  \
        for (size_t t = begin; t < end; t++) {                                                     \
            const double h = in0[t], l = in1[t], c = in2[t];                                       \
            out[t] =                                                                               \
                apo__elementwise_out(apo__finite(h) & apo__finite(l) & apo__finite(c), (expr));    \
        }                                                                                          \
    }                                                                                              \
    APO_ELEMENTWISE_TILE(name)

/* A tile body of four inputs o, h, l, c (open, high, low, close). */
#define APO_ELEMENTWISE_4(name, expr)                                                              \
    static inline APO_HD void apo__##name##_span(const apo__cat_io *io, size_t begin,              \
                                                 size_t end) {                                     \
        const double *in0 = io->in[0], *in1 = io->in[1], *in2 = io->in[2], *in3 = io->in[3];       \
        double *out = io->out[0];                                                                  \
        for (size_t t = begin; t < end; t++) {                                                     \
            const double o = in0[t], h = in1[t], l = in2[t], c = in3[t];                           \
            out[t] = apo__elementwise_out(                                                         \
                apo__finite(o) & apo__finite(h) & apo__finite(l) & apo__finite(c), (expr));        \
        }                                                                                          \
    }                                                                                              \
    APO_ELEMENTWISE_TILE(name)

#endif /* APO_KERNELS_ELEMENTWISE_H */
