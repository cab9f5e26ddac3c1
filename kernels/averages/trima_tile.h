/*
 * trima_tile.h: TRIMA(timeperiod), TA-Lib's triangular moving average.
 *
 * Definition: the window of the p samples ending at t weighted min(j + 1, p - j) for j = 0
 * (oldest) .. p - 1, which is the SMA of an SMA (periods (p + 1) / 2 twice for an odd p, p / 2
 * and p / 2 + 1 for an even one), times TA-Lib's factor 1 / ((n + 1)^2) for an odd p and
 * 1 / (n (n + 1)) for an even one, n = p / 2 (the weights' sum). Positions t < p - 1 are NaN.
 *
 * Evaluation: each window's weighted sum afresh, its terms in index order, one product by the
 * factor: about p eps of the window's largest sample, with no error carried from bar to bar
 * (TA-Lib slides three running sums in plain double, which drift with the series). O(p) a
 * bar; every output is a function of its window alone, so tiles, streams (the position) and
 * devices give the same bits.
 *
 * Gaps: a window holding a non-finite sample gives NaN (its sum is not finite, or inf - inf).
 */
#ifndef APO_KERNELS_TRIMA_TILE_H
#define APO_KERNELS_TRIMA_TILE_H

#include "catalog.h"
#include "tile_vec.h"

/* The factor: 1 over the sum of the weights. */
static inline APO_HD double apo__trima_factor(size_t p) {
    const size_t n = p / 2;
    const double weights =
        p % 2 == 1 ? (double)(n + 1) * (double)(n + 1) : (double)n * (double)(n + 1);
    return 1.0 / weights;
}

/* TRIMA(p) of the row x at t >= p - 1, or NaN where its window holds a gap. */
static inline APO_HD double apo__trima_at(const double *x, size_t p, double factor, size_t t) {
    const size_t from = t + 1 - p;
    double s = 0.0;
    for (size_t j = 0; j < p; j++) {
        const size_t w = j + 1 < p - j ? j + 1 : p - j;
        s = s + (double)w * x[from + j];
    }
    return isfinite(s) ? s * factor : (double)NAN;
}

/* TRIMA of row x into row out over [begin, end), period p >= 1. */
static inline APO_HD void apo__trima_span(const double *x, double *out, size_t p, size_t begin,
                                          size_t end) {
    const double factor = apo__trima_factor(p);
    size_t t = begin;
#ifdef APO_TILE_LANES
    /* apo__trima_at for the bars t .. t + APO_TILE_LANES - 1, one lane each: the same products
     * added in the same order, the gap's NaN as a select. */
    for (; t < end && t + 1 < p; t++)
        out[t] = NAN;
    /* APO_TV_CHAINS vectors of bars at a time (tile_vec.h): each lane's sum is a chain of p
     * dependent adds, which overlap when several vectors run side by side. Each lane's
     * operations are the same either way. */
    for (; end - t >= APO_TV_CHAINS * APO_TILE_LANES; t += APO_TV_CHAINS * APO_TILE_LANES) {
        const double *from = x + (t + 1 - p);
        apo_tv s[APO_TV_CHAINS];
        for (size_t c = 0; c < APO_TV_CHAINS; c++)
            s[c] = apo_tv_splat(0.0);
        for (size_t j = 0; j < p; j++) {
            const double w = (double)(j + 1 < p - j ? j + 1 : p - j);
            for (size_t c = 0; c < APO_TV_CHAINS; c++)
                s[c] = s[c] + w * apo_tv_load(from + j + c * APO_TILE_LANES);
        }
        for (size_t c = 0; c < APO_TV_CHAINS; c++)
            apo_tv_store(out + t + c * APO_TILE_LANES,
                         apo_tv_or_nan(apo_tv_finite(s[c]), s[c] * factor));
    }
    for (; end - t >= APO_TILE_LANES; t += APO_TILE_LANES) {
        const size_t from = t + 1 - p;
        apo_tv s = apo_tv_splat(0.0);
        for (size_t j = 0; j < p; j++) {
            const size_t w = j + 1 < p - j ? j + 1 : p - j;
            s = s + (double)w * apo_tv_load(x + from + j);
        }
        apo_tv_store(out + t, apo_tv_or_nan(apo_tv_finite(s), s * factor));
    }
#endif
    for (; t < end; t++)
        out[t] = t + 1 >= p ? apo__trima_at(x, p, factor, t) : (double)NAN;
}

static inline APO_HD void apo__trima_tile(const apo__cat_io *io, size_t begin, size_t end) {
    apo__trima_span(io->in[0], io->out[0], (size_t)io->p[0], begin, end);
}

#endif /* APO_KERNELS_TRIMA_TILE_H */
