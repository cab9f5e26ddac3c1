/*
 * shifted_blocks.h: what var's, correl's and beta's blocks of plain sums have in common
 * (docs/kernels.md, "correl in blocks", "var and stddev in blocks" and "beta in blocks").
 *
 * The bars are cut into blocks anchored to absolute positions. A block's first window is
 * summed directly, its samples shifted by a value c near the window's samples so that the centred
 * sum of squares, sxx - sx^2 / p, loses little to cancellation (a window's sum of squares exceeds
 * p var by p (mean - c)^2, at most (p - 1) var more for a sample of the window). The sums are
 * then slid in plain double to the block's other bars, with a first-order bound on their
 * rounding (apo__shifted_bounds) that says, bar by bar, whether the slid sums keep the digits the
 * output needs; a bar whose bound is too wide is evaluated from its own window instead. So
 * every output is a function of its data and absolute index alone. The direct sums gather the
 * window in the eight partials of partials.h.
 */
#ifndef APO_KERNELS_SHIFTED_BLOCKS_H
#define APO_KERNELS_SHIFTED_BLOCKS_H

#include "catalog.h"
#include "partials.h"

/* The first bar of t's block, blocks of `len` bars starting at multiples of len, the first one
 * at the first full window p - 1. */
static inline APO_HD size_t apo__shifted_anchor(size_t t, size_t p, size_t len) {
    const size_t b = t - t % len;
    return b < p - 1 ? p - 1 : b;
}

/* The longest block of either kernel. */
#define APO_SHIFTED_BLOCK_MAX_LEN 64

/* The value the block of len bars starting at b shifts its sums by, read from its first window
 * only, which any tile or stream holding the block's first bar holds. In blocks of 16 its
 * middle sample. Longer blocks drift further from their shift, and there the mean of eight
 * samples spread evenly over the window, summed in pairs: it lies near the window's mean, where
 * the middle sample of a walk's window may lie far from it (at the tip of a V), and a bar fell
 * back about three times as often with the middle sample (simulated,
 * docs/perf-log/2026-11-25-catalog-round-8.md, "var and stddev in blocks"). In blocks of 16 the
 * fallbacks are rare either way, and the mean's eight loads and additions a block cost correl at
 * period 30 a sixth of its time. */
static inline APO_HD double apo__shifted_center(const double *x, size_t b, size_t p, size_t len) {
    const double *const w = x + b + 1 - p;
    if (len == 16)
        return w[p - 1 - (p - 1) / 2];
    double v[8];
    for (size_t j = 0; j < 8; j++)
        v[j] = w[(2 * j + 1) * p / 16];
    return (((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]))) * 0.125;
}

/* Below this, a centred sum may carry underflow's absolute errors rather than relative ones:
 * such bars are evaluated from their window. */
#define APO_SHIFTED_TINY 0x1p-960

/*
 * The bounds, in units of the largest sum of squares so far, on the errors of the centred sums
 * (vx = sxx - sx sx / p; for pairs also cov = sxy - sx sy / p) k = 0 .. len - 1 bars into a
 * block, into e[k]. With u = 2^-53 and first order in u:
 *  - the window's direct sums: sxx (ceil(p / 8) + 5) u sxx (a partial's additions, the three
 *    levels combining them, each term's three roundings); sx (ceil(p / 8) + 3) u sqrt(p sxx),
 *    as |sx| <= sqrt(p sxx);
 *  - the slide: each addition u |sum| (k u top for sxx, k u sqrt(p top) for sx); each bar's
 *    terms 4 u (n^2 + o^2) (sxx) and 2 u (|n| + |o|) (sx) for the entering and leaving
 *    shifted samples n and o. The k entering samples lie in the last ceil(k / p) windows and
 *    the leaving ones in the first ceil(k / p), so their squares add to at most
 *    2 ceil(k / p) top, and their moduli to 2 ceil(k / p) sqrt(p top) (Cauchy-Schwarz);
 *  - sx's error enters vx doubled, through sx^2 / p (2 |sx| / p <= 2 sqrt(top / p));
 *  - the final product, scaling and difference 4 u.
 * In all (3 ceil(p / 8) + 15 + 3 k + 16 ceil(k / p)) u. A cross sum obeys the same with
 * sqrt(top_xx top_yy) (Cauchy-Schwarz).
 */
static inline APO_HD void apo__shifted_bounds(size_t p, size_t len, double *e) {
    for (size_t k = 0; k < len; k++)
        e[k] = (double)(3 * ((p + 7) / 8) + 15 + 3 * k + 16 * ((k + p - 1) / p)) * 0x1p-53;
}

#endif /* APO_KERNELS_SHIFTED_BLOCKS_H */
