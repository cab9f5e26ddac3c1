/*
 * rvol_tile.h: RVOL(timeperiod), TA-Lib 0.8's relative volume: the bar's volume over the mean
 * volume of the p bars before it, `volume[t] / (S / p)`, S the sum of volume[t - p .. t - 1]
 * (TA-Lib's order: the baseline first). Input volume; lookback p.
 *
 * Where S is 0 (p bars without a trade) there is no baseline: NaN, as vwap's window without
 * volume, where TA-Lib 0.8.1 divides by it (+inf, or NaN where the bar's volume is 0 too).
 *
 * Tile: halo p. S is a double-double, summed exactly at the tile's first clean window and
 * after each gap, then slid (window_sum.h), and settled before the quotient. Each output is a
 * function of the tile grid alone. Gaps: a window of the p + 1 bars t - p .. t holding a
 * non-finite volume gives NaN (window.h). Stream: RUN, the window's state in apo__cat_run.
 */
#ifndef APO_KERNELS_RVOL_TILE_H
#define APO_KERNELS_RVOL_TILE_H

#include "window.h"
#include "window_sum.h"

/* The loop from r->t to end, after apo__window_start over the p + 1 bars of a window (n[0] the
 * last gap, n[1] whether v[0] + v[1], the sum of the p volumes before the bar, is the last
 * bar's). */
static inline APO_HD void apo__rvol_run(const apo__cat_io *io, size_t end, apo__cat_run *r) {
    const double *vol = io->in[0];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0];
    size_t bad = r->n[0];
    int valid = r->n[1] != 0;
    apo__dd sum = apo__window_sum(r, 0);
    for (size_t t = r->t; t < end; t++) {
        if (!apo__window_step(apo__finite(vol[t]), out, t, p + 1, &bad, &valid))
            continue;
        if (!valid) {
            sum = apo__dd_make(0.0, 0.0);
            for (size_t i = t - p; i < t; i++)
                sum = apo__dd_add_d(sum, vol[i]);
            valid = 1;
        } else {
            sum = apo__dd_slide(sum, vol[t - 1], vol[t - 1 - p], t);
        }
        const double s = apo__dd_settle(sum).hi;
        out[t] = s != 0.0 ? apo__canonical_nan(vol[t] / (s / (double)p)) : (double)NAN;
    }
    apo__window_keep(r, end, bad, valid);
    apo__window_keep_sum(r, 0, sum);
}

static inline APO_HD void apo__rvol_tile(const apo__cat_io *io, size_t begin, size_t end) {
    apo__cat_run r;
    apo__window_start(io, 1, (size_t)io->p[0] + 1, begin, &r);
    apo__rvol_run(io, end, &r);
}

/* rvol's stream (catalog_table.h, RUN): its start at `begin` and its run to `end`. */
static inline APO_HD void apo__rvol_stream_start(const apo__cat_io *io, size_t begin,
                                                 apo__cat_run *r) {
    apo__window_start(io, 1, (size_t)io->p[0] + 1, begin, r);
}

static inline APO_HD void apo__rvol_stream_run(const apo__cat_io *io, size_t begin, size_t end,
                                               apo__cat_run *r) {
    (void)begin;
    apo__rvol_run(io, end, r);
}

#endif /* APO_KERNELS_RVOL_TILE_H */
