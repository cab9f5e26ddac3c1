#!/usr/bin/env python3
"""Writes kernels/common/trig_atan_cells.h: the Taylor coefficients of atan about each cell's
centre c = k/16 (k = 0..16) that the short route of a scalar atan reads (kernels/common/trig.h,
apo__trig_atan01_short_value).

How: with g = atan', g(x) = 1 / (1 + x^2), so (1 + x^2) g = 1. Written in h = x - c,
(1 + c^2 + 2 c h + h^2) sum b_n h^n = 1 gives b_0 = 1 / (1 + c^2), then
(1 + c^2) b_1 = -2 c b_0 and (1 + c^2) b_n = -(2 c b_(n-1) + b_(n-2)), and
atan(c + h) = atan c + sum_n b_n h^(n+1) / (n + 1). c is rational, so every coefficient is an
exact fraction here, rounded once to the nearest double; the first (b_0) is written in two
parts, hi + lo, because its term is the largest after atan c.

Usage: scripts/atan-cells.py > kernels/common/trig_atan_cells.h && scripts/check-format.sh --fix
"""

from fractions import Fraction

CELLS = 17  # k = 0..16: c = k/16 covers [0, 1] with |h| <= 1/32
DEGREE = 13  # the first term left out, h^14 / 14 at |h| = 1/32, is below 2^-73


def two_parts(value):
    hi = float(value)
    return hi, float(value - Fraction(hi))


def coefficients(k):
    """[b_0 hi, b_0 lo, a_2, ..., a_DEGREE] of atan(c + h) - atan c, c = k / 16."""
    c = Fraction(k, 16)
    d = 1 + c * c
    b = [1 / d, -2 * c / (d * d)]
    while len(b) < DEGREE:
        b.append(-(2 * c * b[-1] + b[-2]) / d)
    hi, lo = two_parts(b[0])
    return [hi, lo] + [float(b[m - 1] / m) for m in range(2, DEGREE + 1)]


def main():
    print(
        """/*
 * trig_atan_cells.h: the Taylor coefficients of atan about c = k/16, k = 0..16, for the short
 * route of a scalar atan on the CPU (trig.h, apo__trig_atan01_short_value): row k holds
 * b0 = 1 / (1 + c^2) in two parts (hi, lo), then a_2 ... a_13 of
 * atan(c + h) = atan c + b0 h + a_2 h^2 + ... + a_13 h^13, each the nearest double to the exact
 * fraction.
 *
 * Written by scripts/atan-cells.py (the recurrence is there) and laid out by clang-format; run
 * both again rather than edit.
 * Included by trig.h alone, and only where the short route is built (FMA, not CUDA's device
 * code, which takes the double-double route).
 */
#ifndef APO_KERNELS_TRIG_ATAN_CELLS_H
#define APO_KERNELS_TRIG_ATAN_CELLS_H

#define APO_TRIG_ATAN_CELL_TERMS 14

static const double apo__trig_atan_cells[17][APO_TRIG_ATAN_CELL_TERMS] = {"""
    )
    for k in range(CELLS):
        values = ", ".join(v.hex() for v in coefficients(k))
        print("    {%s}," % values)
    print("};\n\n#endif /* APO_KERNELS_TRIG_ATAN_CELLS_H */")


if __name__ == "__main__":
    main()
