/*
 * adr_tile.h: ADR(timeperiod), TA-Lib 0.8's average daily range: the mean of high - low over
 * the p bars t - p + 1 .. t (TA-Lib's SMA of the ranges, each range rounded once). Inputs high,
 * low; lookback p - 1.
 *
 * Tile: halo p - 1. The sum of the window's ranges is a double-double, summed exactly at the
 * tile's first clean window and after each gap, then slid (window_sum.h, as vwap's volume), so
 * its error does not grow with the series as TA-Lib's running sum does; the mean is the settled
 * sum over p. Each output is a function of the tile grid alone. Gaps: a window holding a
 * non-finite high or low gives NaN (window.h). Stream: RUN, the window's state in apo__cat_run.
 */
#ifndef APO_KERNELS_ADR_TILE_H
#define APO_KERNELS_ADR_TILE_H

#include "window.h"
#include "window_sum.h"

/* The range of bar t, TA-Lib's high - low. */
static inline APO_HD double apo__bar_range(const apo__cat_io *io, size_t t) {
    return io->in[0][t] - io->in[1][t];
}

/* The loop from r->t to end, after apo__window_start over the 2 inputs (n[0] the last gap,
 * n[1] whether v[0] + v[1], the ranges' sum, is the last window's). */
static inline APO_HD void apo__adr_run(const apo__cat_io *io, size_t end, apo__cat_run *r) {
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0];
    size_t bad = r->n[0];
    int valid = r->n[1] != 0;
    apo__dd sum = apo__window_sum(r, 0);
    for (size_t t = r->t; t < end; t++) {
        if (!apo__window_step(apo__all_finite_at(io->in, 2, t), out, t, p, &bad, &valid))
            continue;
        if (!valid) {
            sum = apo__dd_make(0.0, 0.0);
            for (size_t i = t + 1 - p; i <= t; i++)
                sum = apo__dd_add_d(sum, apo__bar_range(io, i));
            valid = 1;
        } else {
            sum = apo__dd_slide(sum, apo__bar_range(io, t), apo__bar_range(io, t - p), t);
        }
        out[t] = apo__canonical_nan(apo__dd_settle(sum).hi / (double)p);
    }
    apo__window_keep(r, end, bad, valid);
    apo__window_keep_sum(r, 0, sum);
}

static inline APO_HD void apo__adr_tile(const apo__cat_io *io, size_t begin, size_t end) {
    apo__cat_run r;
    apo__window_start(io, 2, (size_t)io->p[0], begin, &r);
    apo__adr_run(io, end, &r);
}

/* adr's stream (catalog_table.h, RUN): its start at `begin` and its run to `end`. */
static inline APO_HD void apo__adr_stream_start(const apo__cat_io *io, size_t begin,
                                                apo__cat_run *r) {
    apo__window_start(io, 2, (size_t)io->p[0], begin, r);
}

static inline APO_HD void apo__adr_stream_run(const apo__cat_io *io, size_t begin, size_t end,
                                              apo__cat_run *r) {
    (void)begin;
    apo__adr_run(io, end, r);
}

#endif /* APO_KERNELS_ADR_TILE_H */
