/*
 * minmax_tile.h: MAX(timeperiod) and MIN(timeperiod), TA-Lib's highest and lowest value of
 * the p samples ending at t.
 *
 * Tile: halo p - 1. The index of the extreme is kept while it stays inside the window; a
 * new sample at least as extreme replaces it, and when it leaves the window the window is
 * scanned again (TA-Lib's method: O(1) per sample on average, O(p) after a new extreme
 * leaves). Exact: comparisons only. The state between two calls (streams) is the last gap,
 * the validity and the extreme's index: bounded, whatever p. A window holding a non-finite sample
 * gives NaN (window.h). Positions t < p - 1 are NaN.
 */
#ifndef APO_KERNELS_MINMAX_TILE_H
#define APO_KERNELS_MINMAX_TILE_H

#include "catalog.h"
#include "window.h"

/* The loop from r->t to end (n[0] the last gap, n[1] whether n[2], the index of the
 * extreme, is the last window's). sign 1: MAX, -1: MIN (the comparisons run on sign * x,
 * which is exact). */
static inline APO_HD void apo__extreme_run(const apo__cat_io *io, size_t end, double sign,
                                           apo__cat_run *r) {
    const double *x = io->in[0];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0];
    size_t bad = r->n[0];
    int valid = r->n[1] != 0;
    size_t at = r->n[2];
    for (size_t t = r->t; t < end; t++) {
        if (!isfinite(x[t]))
            bad = t + 1;
        if (!apo__window_clean(t, p, bad)) {
            out[t] = NAN;
            valid = 0;
            continue;
        }
        if (!valid || at + p <= t) {
            at = t + 1 - p;
            for (size_t i = at + 1; i <= t; i++)
                if (sign * x[i] >= sign * x[at])
                    at = i;
            valid = 1;
        } else if (sign * x[t] >= sign * x[at]) {
            at = t;
        }
        out[t] = x[at];
    }
    r->t = end > r->t ? end : r->t;
    r->n[0] = bad;
    r->n[1] = (size_t)valid;
    r->n[2] = at;
}

static inline APO_HD void apo__extreme_body(const apo__cat_io *io, size_t begin, size_t end,
                                            double sign) {
    apo__cat_run r;
    apo__window_start(io, 1, (size_t)io->p[0], begin, &r);
    apo__extreme_run(io, end, sign, &r);
}

static inline APO_HD void apo__max_tile(const apo__cat_io *io, size_t begin, size_t end) {
    apo__extreme_body(io, begin, end, 1.0);
}

static inline APO_HD void apo__min_tile(const apo__cat_io *io, size_t begin, size_t end) {
    apo__extreme_body(io, begin, end, -1.0);
}

#endif /* APO_KERNELS_MINMAX_TILE_H */
