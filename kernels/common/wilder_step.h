/*
 * wilder_step.h: one value into Wilder's average (TA-Lib's order: the seed's sum of the first
 * p values divided by p, then a = (a * (p - 1) + x) / p), written once for a double and for a
 * vector of tiles' lanes, so that every kernel that takes it (atr, natr, kc, supertrend, rma,
 * their lanes) performs the same operations in the same order.
 */
#ifndef APO_KERNELS_WILDER_STEP_H
#define APO_KERNELS_WILDER_STEP_H

/* x into the average: the seed's sum until p values are in (seen counts them), then Wilder's
 * step; y gets the average from the p-th on and is left as it was before (pd is p and keep
 * p - 1, as doubles or splatted lanes). */
#define APO__WILDER_STEP(seen, p, sum, a, x, pd, keep, y)                                          \
    do {                                                                                           \
        if ((seen) < (p)) {                                                                        \
            (sum) = (sum) + (x);                                                                   \
            (seen)++;                                                                              \
            if ((seen) == (p)) {                                                                   \
                (a) = (sum) / (pd);                                                                \
                (y) = (a);                                                                         \
            }                                                                                      \
        } else {                                                                                   \
            (a) = ((a) * (keep) + (x)) / (pd);                                                     \
            (y) = (a);                                                                             \
        }                                                                                          \
    } while (0)

#endif /* APO_KERNELS_WILDER_STEP_H */
