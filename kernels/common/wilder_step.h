/*
 * wilder_step.h: one value into Wilder's average, written once for a double and for a vector
 * of tiles' lanes, so that every kernel that takes it (atr, natr, kc, supertrend, rma, their
 * lanes, and kdj's and rvi's Wilder averages) performs the same operations in the same order.
 *
 * The operations are TA-Lib 0.8's where the CPU has fused multiply-add (its TA_ATR.fma): the
 * seed's sum of the first p values divided by p, then a = fma(a, keep, x * rest) with
 * keep = (p - 1) / p and rest = 1 - keep, each rounded once as a double. TA-Lib 0.6 divided at
 * every bar, (a * (p - 1) + x) / p, as the catalog did until 2026-12-01: a division on the
 * average's chain, whose latency paced a tile, where the fused step waits for one multiply-add
 * (docs/kernels.md, "Recurrences"); TA-Lib 0.8's build for CPUs without FMA rounds the two
 * products apart. All are within a few ulps times p of the exact average.
 * Every path computes the fused product with one rounding: the FMA instruction on avx2 and
 * avx512 (and a GPU's fma), libm's fma() on sse2, so the bits are the same everywhere.
 */
#ifndef APO_KERNELS_WILDER_STEP_H
#define APO_KERNELS_WILDER_STEP_H

#include <math.h>

#include "tile_vec.h"

/* The share of the average that a step keeps, (p - 1) / p, from pd = p as a double (or
 * splatted lanes); the new value's share is 1 - that, as TA-Lib 0.8 takes it. */
#define APO__WILDER_KEEP(pd) (((pd)-1.0) / (pd))

/* Wilder's step once seeded, through `fused` (fma for doubles, apo_tv_fma for lanes). */
#define APO__WILDER_NEXT(fused, a, x, keep, rest) fused((a), (keep), (x) * (rest))

/* x into the average: the seed's sum until p values are in (seen counts them), then Wilder's
 * step; y gets the average from the p-th on and is left as it was before (pd is p, keep
 * APO__WILDER_KEEP(pd) and rest 1 - keep, as doubles or splatted lanes). */
#define APO__WILDER_STEP_BY(fused, seen, p, sum, a, x, pd, keep, rest, y)                          \
    do {                                                                                           \
        if ((seen) < (p)) {                                                                        \
            (sum) = (sum) + (x);                                                                   \
            (seen)++;                                                                              \
            if ((seen) == (p)) {                                                                   \
                (a) = (sum) / (pd);                                                                \
                (y) = (a);                                                                         \
            }                                                                                      \
        } else {                                                                                   \
            (a) = APO__WILDER_NEXT(fused, a, x, keep, rest);                                       \
            (y) = (a);                                                                             \
        }                                                                                          \
    } while (0)

/* The step on doubles, and on a vector of lanes (tile_vec.h). */
#define APO__WILDER_STEP(seen, p, sum, a, x, pd, keep, rest, y)                                    \
    APO__WILDER_STEP_BY(fma, seen, p, sum, a, x, pd, keep, rest, y)
#define APO__WILDER_STEP_TV(seen, p, sum, a, x, pd, keep, rest, y)                                 \
    APO__WILDER_STEP_BY(apo_tv_fma, seen, p, sum, a, x, pd, keep, rest, y)

#endif /* APO_KERNELS_WILDER_STEP_H */
