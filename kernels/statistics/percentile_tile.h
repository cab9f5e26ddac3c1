/*
 * percentile_tile.h: PERCENTILE, TA-Lib 0.8's percentile by nearest rank. Input close; one
 * output; parameters timeperiod (30, 2..10000, TA-Lib's bounds) and percentile (50, 0..100); the
 * lookback is timeperiod - 1.
 *
 * Definition (TA-Lib's): the rank `k = ceil(percentile * p / 100)` (the product before the
 * division, TA-Lib's order: 7% of 100 is rank 7, where 0.07 * 100 rounds above 7), clamped to
 * 1 .. p; the output at t is the k-th smallest of the p samples ending at t. The output is one of
 * the window's samples, so it is TA-Lib's value exactly.
 *
 * Tiles: each position reads its own window, so any grid gives the same values. The k-th
 * smallest is found by counting, with no scratch memory (the body is shared with the GPU): a
 * sample x of the window is the answer when fewer than k samples are below it and at least k
 * are at or below it. A window costs up to p^2 comparisons, stopping at the first sample that
 * qualifies; TA-Lib keeps the window sorted and costs about p a bar, so this kernel is slower
 * than TA-Lib's at long periods (docs/kernels.md says by how much).
 *
 * Gaps: a window holding a non-finite sample gives NaN.
 */
#ifndef APO_KERNELS_PERCENTILE_TILE_H
#define APO_KERNELS_PERCENTILE_TILE_H

#include "catalog.h"
#include "window.h"

/* The nearest rank of `percentile` (0 .. 100) in a window of p samples, 1 .. p: the quotient
 * rounded up, by a cast and a comparison (apo_hd.h allows no ceil). */
static inline APO_HD size_t apo__percentile_rank(double percentile, size_t p) {
    const double q = percentile * (double)p / 100.0;
    size_t r = q > 0.0 ? (size_t)q : 0;
    r += (double)r < q;
    if (r < 1)
        return 1;
    return r > p ? p : r;
}

/* The k-th smallest of x[from .. from + p), all finite. */
static inline APO_HD double apo__percentile_select(const double *x, size_t from, size_t p,
                                                   size_t k) {
    for (size_t i = from; i < from + p; i++) {
        const double v = x[i];
        size_t below = 0, at_or_below = 0;
        for (size_t j = from; j < from + p; j++) {
            below += x[j] < v;
            at_or_below += x[j] <= v;
        }
        if (below < k && at_or_below >= k)
            return v;
    }
    return NAN; /* not reached for finite samples */
}

static inline APO_HD void apo__percentile_tile(const apo__cat_io *io, size_t begin, size_t end) {
    const double *x = io->in[0];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0], k = apo__percentile_rank(io->p[1], p);
    /* One past the last non-finite sample seen, so a window's gap test is one comparison;
     * first those of the window before `begin` (window.h). */
    size_t gap_end = apo__last_gap(&x, 1, begin >= p - 1 ? begin - (p - 1) : 0, begin);
    for (size_t t = begin; t < end; t++) {
        if (!isfinite(x[t]))
            gap_end = t + 1;
        if (t + 1 < p || gap_end > t + 1 - p) {
            out[t] = NAN;
            continue;
        }
        out[t] = apo__percentile_select(x, t + 1 - p, p, k);
    }
}

#endif /* APO_KERNELS_PERCENTILE_TILE_H */
