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
 * Tiles: each position reads its own window, so any grid gives the same values. The answer is
 * defined by counting: the first sample x of the window, in time order, of which fewer than k
 * samples are below and at least k at or below. A GPU (and the CPU where the window is longer
 * than APO_PERCENTILE_SORTED_MAX) counts so, with no scratch memory, up to p^2 comparisons a
 * window. The CPU's tiles (APO_TILE_LANES) keep the clean windows sorted instead in a buffer
 * on the stack, the sample leaving replaced by the one entering a bar, as TA-Lib does: the k-th of
 * the sorted window has the value of the counting's answer, and equal doubles have the same bits
 * except +0 and -0, so where that value is zero the window is scanned for its first zero in time
 * order, which is the counting's sample. Both give the same bits.
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

#ifdef APO_TILE_LANES
/* The longest window the CPU keeps sorted (4 KiB of stack); a longer one is counted. */
#define APO_PERCENTILE_SORTED_MAX 512

/* The position in sorted[0 .. n) of the first value not below v. */
static inline size_t apo__percentile_lower_bound(const double *sorted, size_t n, double v) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (sorted[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Inserts v into sorted[0 .. n), which has room for one more. */
static inline void apo__percentile_insert(double *sorted, size_t n, double v) {
    const size_t at = apo__percentile_lower_bound(sorted, n, v);
    memmove(sorted + at + 1, sorted + at, (n - at) * sizeof *sorted);
    sorted[at] = v;
}

/* Replaces one value equal to `old` (present) by v in sorted[0 .. n): the hole left by `old`
 * moves towards v's place, shifting only the values between the two (a bar of a walk moves
 * few). */
static inline void apo__percentile_replace(double *sorted, size_t n, double old, double v) {
    size_t i = apo__percentile_lower_bound(sorted, n, old);
    if (v > old) {
        for (; i + 1 < n && sorted[i + 1] < v; i++)
            sorted[i] = sorted[i + 1];
    } else {
        for (; i > 0 && sorted[i - 1] > v; i--)
            sorted[i] = sorted[i - 1];
    }
    sorted[i] = v;
}

/* The counting's answer from the sorted window: its k-th value, or, for a zero, the window's
 * first zero in time order (+0 or -0: the only equal doubles whose bits differ). */
static inline double apo__percentile_of_sorted(const double *sorted, const double *x, size_t from,
                                               size_t k) {
    const double v = sorted[k - 1];
    if (v != 0.0)
        return v;
    size_t i = from;
    while (x[i] != 0.0)
        i++;
    return x[i];
}
#endif

static inline APO_HD void apo__percentile_tile(const apo__cat_io *io, size_t begin, size_t end) {
    const double *x = io->in[0];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0], k = apo__percentile_rank(io->p[1], p);
    /* One past the last non-finite sample seen, so a window's gap test is one comparison;
     * first those of the window before `begin` (window.h). */
    size_t gap_end = apo__last_gap(&x, 1, begin >= p - 1 ? begin - (p - 1) : 0, begin);
#ifdef APO_TILE_LANES
    double sorted[APO_PERCENTILE_SORTED_MAX];
    int kept = 0; /* sorted[] holds the window ending at t - 1 */
#endif
    for (size_t t = begin; t < end; t++) {
        if (!isfinite(x[t]))
            gap_end = t + 1;
        if (t + 1 < p || gap_end > t + 1 - p) {
            out[t] = NAN;
#ifdef APO_TILE_LANES
            kept = 0;
#endif
            continue;
        }
#ifdef APO_TILE_LANES
        if (p <= APO_PERCENTILE_SORTED_MAX) {
            if (kept) {
                apo__percentile_replace(sorted, p, x[t - p], x[t]);
            } else {
                for (size_t i = 0; i < p; i++)
                    apo__percentile_insert(sorted, i, x[t + 1 - p + i]);
                kept = 1;
            }
            out[t] = apo__percentile_of_sorted(sorted, x, t + 1 - p, k);
            continue;
        }
#endif
        out[t] = apo__percentile_select(x, t + 1 - p, p, k);
    }
}

#endif /* APO_KERNELS_PERCENTILE_TILE_H */
