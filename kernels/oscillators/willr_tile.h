/*
 * willr_tile.h: WILLR(timeperiod), TA-Lib's Williams %R over the window of p bars ending
 * at t: with H the highest high and L the lowest low, (H - close) / ((H - L) / -100), TA-Lib's
 * operation order; 0 where H = L. Inputs high, low, close.
 *
 * Tile: halo p - 1; the indices of the extremes are kept and the window scanned again when
 * one leaves (as max and min). A window holding a gap in any input gives NaN (window.h).
 */
#ifndef APO_KERNELS_WILLR_TILE_H
#define APO_KERNELS_WILLR_TILE_H

#include "catalog.h"
#include "window.h"

/* Moves the index *at of the window's extreme (sign 1: largest, -1: smallest) to the window
 * ending at t, scanning again when `fresh` or when it left. */
static inline APO_HD void apo__track_extreme(const double *x, size_t t, size_t p, int fresh,
                                             double sign, size_t *at) {
    if (fresh || *at + p <= t) {
        size_t a = t + 1 - p;
        for (size_t i = a + 1; i <= t; i++)
            if (sign * x[i] >= sign * x[a])
                a = i;
        *at = a;
    } else if (sign * x[t] >= sign * x[*at]) {
        *at = t;
    }
}

/* The loop from r->t to end, after apo__window_start over the 3 inputs (apo__cat_run: n[0]
 * the last gap, n[1] whether n[2] and n[3], the indices of the highest high and the lowest
 * low, are the last window's). */
static inline APO_HD void apo__willr_run(const apo__cat_io *io, size_t end, apo__cat_run *r) {
    const double *high = io->in[0], *low = io->in[1], *close = io->in[2];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0];
    size_t bad = r->n[0];
    int valid = r->n[1] != 0;
    size_t hi = r->n[2], lo = r->n[3];
    for (size_t t = r->t; t < end; t++) {
        if (!apo__all_finite_at(io->in, 3, t))
            bad = t + 1;
        if (!apo__window_clean(t, p, bad)) {
            out[t] = NAN;
            valid = 0;
            continue;
        }
        apo__track_extreme(high, t, p, !valid, 1.0, &hi);
        apo__track_extreme(low, t, p, !valid, -1.0, &lo);
        valid = 1;
        const double diff = (high[hi] - low[lo]) / -100.0;
        out[t] = diff != 0.0 ? (high[hi] - close[t]) / diff : 0.0;
    }
    r->t = end > r->t ? end : r->t;
    r->n[0] = bad;
    r->n[1] = (size_t)valid;
    r->n[2] = hi;
    r->n[3] = lo;
}

static inline APO_HD void apo__willr_tile(const apo__cat_io *io, size_t begin, size_t end) {
    apo__cat_run r;
    apo__window_start(io, 3, (size_t)io->p[0], begin, &r);
    apo__willr_run(io, end, &r);
}

#endif /* APO_KERNELS_WILLR_TILE_H */
