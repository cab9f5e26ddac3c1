/*
 * bop_tile.h: BOP, TA-Lib's balance of power, (close - open) / (high - low) of each bar, 0
 * where high - low <= 0 (TA-Lib's: a bar without range, or with its high below its low, has
 * no balance; its test of "zero or below" is below 1e-8, here exactly 0). Inputs open, high,
 * low, close; no parameter; lookback 0. A bar with any of its four samples not finite is a
 * gap: NaN. Each output reads its own bar alone (stream: the position).
 */
#ifndef APO_KERNELS_BOP_TILE_H
#define APO_KERNELS_BOP_TILE_H

#include "catalog.h"

/* Branch-free, so that gcc vectorizes it (marketfi_tile.h's shape): the quotient is computed
 * for every bar and the 0 and the NaN selected after. The quotient is also read outside those
 * selects, by the test of a NaN quotient: otherwise gcc sinks the division into the arm of a
 * bar with a range, a division under a condition it may not run unconditionally, and the loop
 * stays scalar. That test is also what stores the NAN constant (apo_hd.h) for the one quotient
 * of finite samples that is NaN: c - o and h - l both overflowing, infinity over infinity. */
static inline APO_HD void apo__bop_tile(const apo__cat_io *io, size_t begin, size_t end) {
    const double *open = io->in[0], *high = io->in[1], *low = io->in[2], *close = io->in[3];
    double *out = io->out[0];
    for (size_t t = begin; t < end; t++) {
        const double o = open[t], h = high[t], l = low[t], c = close[t];
        const double range = h - l;
        const double quotient = (c - o) / range;
        const int ranged = range > 0.0;
        const double bop = ranged ? quotient : 0.0;
        const int ok = apo__finite(o) & apo__finite(h) & apo__finite(l) & apo__finite(c) &
                       ((quotient == quotient) | !ranged);
        out[t] = ok ? bop : (double)NAN;
    }
}

#endif /* APO_KERNELS_BOP_TILE_H */
