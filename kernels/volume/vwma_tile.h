/*
 * vwma_tile.h: VWMA(timeperiod), TA-Lib 0.8's volume-weighted moving average: the sum of
 * close * volume over the p bars t - p + 1 .. t over the sum of their volumes. Inputs close,
 * volume; lookback p - 1. Where the volumes sum to 0 (p bars without a trade) there is no
 * weight and the output is NaN, as vwap's window without volume (TA-Lib 0.8.1 divides: NaN
 * where the products sum to 0 too, which they then do for non-negative volumes).
 *
 * Tile: halo p - 1. Both sums are double-doubles, the products exact (apo__two_prod), summed
 * exactly at the tile's first clean window and after each gap, then slid (window_sum.h, as
 * cmf's), so they do not drift along the series as TA-Lib's running sums do; each is settled
 * before the quotient. Each output is a function of the tile grid alone. Gaps: a window
 * holding a non-finite close or volume gives NaN (window.h). Stream: RUN, the window's state
 * in apo__cat_run.
 */
#ifndef APO_KERNELS_VWMA_TILE_H
#define APO_KERNELS_VWMA_TILE_H

#include "run_entries.h"
#include "window.h"
#include "window_sum.h"

/* Bar t's close * volume, exactly. */
static inline APO_HD apo__dd apo__vwma_weighted(const apo__cat_io *io, size_t t) {
    return apo__two_prod(io->in[0][t], io->in[1][t]);
}

/* The quotient of the window's settled sums: NaN where the volumes sum to 0. */
static inline APO_HD double apo__vwma_of(apo__dd weighted, apo__dd volume) {
    const double v = apo__dd_settle(volume).hi;
    return v != 0.0 ? apo__canonical_nan(apo__dd_settle(weighted).hi / v) : (double)NAN;
}

/* The loop from r->t to end, after apo__window_start over the 2 inputs (n[0] the last gap,
 * n[1] whether v[0] + v[1] (the products) and v[2] + v[3] (the volumes) are the last
 * window's). */
static inline APO_HD void apo__vwma_run(const apo__cat_io *io, size_t end, apo__cat_run *r) {
    const double *vol = io->in[1];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0];
    size_t bad = r->n[0];
    int valid = r->n[1] != 0;
    apo__dd weighted = apo__window_sum(r, 0), volume = apo__window_sum(r, 1);
    for (size_t t = r->t; t < end; t++) {
        if (!apo__window_step(apo__all_finite_at(io->in, 2, t), out, t, p, &bad, &valid))
            continue;
        if (!valid) {
            weighted = volume = apo__dd_make(0.0, 0.0);
            for (size_t i = t + 1 - p; i <= t; i++) {
                weighted = apo__dd_add(weighted, apo__vwma_weighted(io, i));
                volume = apo__dd_add_d(volume, vol[i]);
            }
            valid = 1;
        } else {
            weighted = apo__dd_slide_dd(weighted, apo__vwma_weighted(io, t),
                                        apo__vwma_weighted(io, t - p), t);
            volume = apo__dd_slide(volume, vol[t], vol[t - p], t);
        }
        out[t] = apo__vwma_of(weighted, volume);
    }
    apo__window_keep(r, end, bad, valid);
    apo__window_keep_sum(r, 0, weighted);
    apo__window_keep_sum(r, 1, volume);
}

/* vwma's tile and stream (catalog_table.h, RUN): apo__vwma_tile, apo__vwma_stream_start and
 * apo__vwma_stream_run, its start at `begin` and its run to `end`. */
APO_CAT_RUN_ENTRIES(vwma, apo__window_start(io, 2, (size_t)io->p[0], begin, r),
                    apo__vwma_run(io, end, r))

#endif /* APO_KERNELS_VWMA_TILE_H */
