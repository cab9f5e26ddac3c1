/*
 * aroon_tile.h: AROON(timeperiod), TA-Lib's Aroon lines over the p + 1 bars ending at t:
 * aroonup = (100 / p) * (p - (t - index of the highest high)), aroondown the same with the
 * lowest low; the most recent bar wins a tie (TA-Lib's >= and <=). Inputs high, low;
 * outputs aroondown, aroonup (TA-Lib's order). Lookback and halo p.
 *
 * Tile: the extremes' indices are kept and the window scanned again when one leaves
 * (willr_tile.h). A gap in either input inside the window gives NaN for both (window.h).
 */
#ifndef APO_KERNELS_AROON_TILE_H
#define APO_KERNELS_AROON_TILE_H

#include "catalog.h"
#include "willr_tile.h"

/* The loop from r->t to end, after apo__window_start over the 2 inputs and p + 1 samples
 * (apo__cat_run: n[0] the last gap, n[1] whether n[2] and n[3], the indices of the highest
 * high and the lowest low, are the last window's). */
static inline APO_HD void apo__aroon_run(const apo__cat_io *io, size_t end, apo__cat_run *r) {
    const double *high = io->in[0], *low = io->in[1];
    double *down = io->out[0], *up = io->out[1];
    const size_t p = (size_t)io->p[0], w = p + 1;
    const double factor = 100.0 / (double)p;
    size_t bad = r->n[0];
    int valid = r->n[1] != 0;
    size_t hi = r->n[2], lo = r->n[3];
    for (size_t t = r->t; t < end; t++) {
        if (!apo__all_finite_at(io->in, 2, t))
            bad = t + 1;
        if (!apo__window_clean(t, w, bad)) {
            down[t] = NAN;
            up[t] = NAN;
            valid = 0;
            continue;
        }
        apo__track_extreme(high, t, w, !valid, 1.0, &hi);
        apo__track_extreme(low, t, w, !valid, -1.0, &lo);
        valid = 1;
        up[t] = factor * (double)(p - (t - hi));
        down[t] = factor * (double)(p - (t - lo));
    }
    r->t = end > r->t ? end : r->t;
    r->n[0] = bad;
    r->n[1] = (size_t)valid;
    r->n[2] = hi;
    r->n[3] = lo;
}

static inline APO_HD void apo__aroon_tile(const apo__cat_io *io, size_t begin, size_t end) {
    apo__cat_run r;
    apo__window_start(io, 2, (size_t)io->p[0] + 1, begin, &r);
    apo__aroon_run(io, end, &r);
}

#endif /* APO_KERNELS_AROON_TILE_H */
