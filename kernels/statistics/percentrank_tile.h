/*
 * percentrank_tile.h: PERCENTRANK, TA-Lib 0.8's percent rank. Input close; one output;
 * parameter timeperiod (100, 2..10000, TA-Lib's bounds); the lookback is timeperiod.
 *
 * Definition (TA-Lib's): the output at t is the share of the p samples before t
 * (t-p .. t-1) that are strictly below x[t], in percent: `count / p * 100`, the division
 * before the product as TA-Lib rounds it (`100 * count / p` is another double at some counts).
 * A count and two roundings, so every output has TA-Lib's bits.
 *
 * Tiles: each position reads its own window of p + 1 samples, so any grid gives the same
 * values. A window costs p comparisons, as TA-Lib's.
 *
 * Gaps: a window holding a non-finite sample, x[t] included, gives NaN.
 */
#ifndef APO_KERNELS_PERCENTRANK_TILE_H
#define APO_KERNELS_PERCENTRANK_TILE_H

#include "catalog.h"
#include "window.h"

static inline APO_HD void apo__percentrank_tile(const apo__cat_io *io, size_t begin, size_t end) {
    const double *x = io->in[0];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0];
    /* One past the last non-finite sample seen, so a window's gap test is one comparison;
     * first those of the window before `begin` (window.h). */
    size_t gap_end = apo__last_gap(&x, 1, begin >= p ? begin - p : 0, begin);
    for (size_t t = begin; t < end; t++) {
        if (!isfinite(x[t]))
            gap_end = t + 1;
        if (t < p || gap_end > t - p) {
            out[t] = NAN;
            continue;
        }
        const double current = x[t];
        size_t below = 0;
        for (size_t i = t - p; i < t; i++)
            below += x[i] < current;
        out[t] = (double)below / (double)p * 100.0;
    }
}

#endif /* APO_KERNELS_PERCENTRANK_TILE_H */
