/*
 * mom_tile.h: MOM(timeperiod) = x[t] - x[t - p], TA-Lib's momentum. Halo p; positions
 * t < p are NaN. A non-finite sample at either end is a gap: the output is NaN (the NAN
 * constant, apo_hd.h); nothing else is affected.
 */
#ifndef APO_KERNELS_MOM_TILE_H
#define APO_KERNELS_MOM_TILE_H

#include "catalog.h"
#include "window_sum.h"

/* Bars per block of the plain-difference pass below: short enough that a block redone for
 * a gap costs little, long enough that the per-block test is noise. */
#define APO_MOM_BLOCK 512

/* The exact rule, one bar at a time. Branch-free, so that gcc vectorizes it: (a - a) +
 * (b - b) is +0 when both samples are finite and NaN when either is not, the same test as
 * apo__finite on each; and the difference is computed before the select, where the
 * compiler, which must not move a subtraction that may trap out from under a condition,
 * would otherwise leave it and keep a branch per output. */
static inline APO_HD void apo__mom_exact(const double *x, double *out, size_t p, size_t t,
                                         size_t end) {
    for (; t < end; t++) {
        const double a = x[t], b = x[t - p];
        const double diff = a - b;
        const double gap = (a - a) + (b - b);
        out[t] = isnan(gap) ? (double)NAN : diff;
    }
}

/* The rows' usual case, no gap, costs a subtraction a bar, as TA-Lib's loop does: each block
 * stores the plain differences and tests its own samples x[t] on the bits in the same loop;
 * a block whose x[t] or x[t - p] may hold a gap is computed (again) by the exact rule. Where
 * every sample a block reads is finite the exact rule stores the plain difference, so the
 * bits are the exact rule's everywhere (docs/kernels-vector-paths.md, "Vector paths"). */
static inline APO_HD void apo__mom_tile(const apo__cat_io *io, size_t begin, size_t end) {
    const double *x = io->in[0];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0];
    size_t t = apo__cat_nan_lead(out, begin, end, p);
    if (t >= end)
        return;
    /* The samples read as x[t - p] but never as a block's x[t]: the halo, up to t (fewer
     * where p exceeds the span). gap_end is past the last position known to hold a gap;
     * a block whose x[t - p] reach below it takes the exact rule. */
    const size_t halo_end = end - p < t ? end - p : t;
    size_t gap_end = apo__block_finite(x, t - p, halo_end) ? 0 : halo_end;
    /* On a span of several blocks the first ends where the outputs reach a 64-byte line,
     * so that every later block's vector stores start on one and none straddles two lines:
     * at 1e4 bars, where the loop runs at the speed of L2, stores that straddle cost some
     * 10 % of it (docs/perf-log/2026-11-25-catalog-round-6.md, sixth round). A short span, in L1,
     * keeps one block. Where the blocks end changes no bit: each block is tested, and redone by the
     * exact rule, on its own. */
    size_t block = end - t >= 2 * APO_MOM_BLOCK ? apo__doubles_to_line(out + t) : 0;
    if (block == 0)
        block = APO_MOM_BLOCK;
    while (t < end) {
        const size_t stop = end - t > block ? t + block : end;
        block = APO_MOM_BLOCK;
        int exact = gap_end > t - p;
        if (!exact) {
            /* The samples tested on the bits, integer work beside the subtraction: an
             * exponent of all ones plus one unit of exponent carries into the sign bit, any
             * other exponent does not. */
            const uint64_t exponent = 0x7ff0000000000000u, exponent_unit = 0x0010000000000000u;
            uint64_t carry = 0;
            for (size_t i = t; i < stop; i++) {
                const double a = x[i];
                out[i] = a - x[i - p];
                carry |= (apo__bits_of(a) & exponent) + exponent_unit;
            }
            exact = (int)(carry >> 63);
        }
        if (exact) {
            apo__mom_exact(x, out, p, t, stop);
            if (!apo__block_finite(x, t, stop))
                gap_end = stop;
        }
        t = stop;
    }
}

#endif /* APO_KERNELS_MOM_TILE_H */
