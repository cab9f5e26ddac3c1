/*
 * marketfi_tile.h: MARKETFI, TA-Lib 0.8's market facilitation index (Bill Williams'):
 * (high - low) / volume of each bar, 0 where the volume is exactly 0 (TA-Lib's: an untraded
 * bar facilitated no movement). Inputs high, low, volume; no parameter; lookback 0. A bar
 * with any of its three samples not finite is a gap: NaN. Each output reads its own bar
 * alone (stream: the position; tiles join).
 */
#ifndef APO_KERNELS_MARKETFI_TILE_H
#define APO_KERNELS_MARKETFI_TILE_H

#include "catalog.h"

/* Branch-free, so that gcc vectorizes it: the quotient is computed for every bar and the 0
 * and the NaN selected after. The quotient must also be read outside those selects (here by
 * the test of a NaN quotient, which no bar with finite samples and a volume not 0 fails):
 * otherwise gcc sinks the division into the arm of a traded bar, and a division under a
 * condition is one it may not run unconditionally (it can raise a floating-point flag), so
 * the loop stays scalar. */
static inline APO_HD void apo__marketfi_tile(const apo__cat_io *io, size_t begin, size_t end) {
    const double *high = io->in[0], *low = io->in[1], *volume = io->in[2];
    double *out = io->out[0];
    for (size_t t = begin; t < end; t++) {
        const double h = high[t], l = low[t], v = volume[t];
        const double quotient = (h - l) / v;
        const double mfi = v != 0.0 ? quotient : 0.0;
        const int ok = apo__finite(h) & apo__finite(l) & apo__finite(v) &
                       ((quotient == quotient) | (v == 0.0));
        out[t] = ok ? mfi : (double)NAN;
    }
}

#endif /* APO_KERNELS_MARKETFI_TILE_H */
