/*
 * extremes_tile.h: MINMAX(timeperiod), TA-Lib's lowest and highest value of the p samples
 * ending at t, outputs min and max (TA-Lib's order).
 *
 * Tile: halo p - 1. As max and min (statistics/minmax_tile.h) and willr's two extremes
 * (oscillators/willr_tile.h): the indices of both extremes are tracked and the window scanned
 * again when one leaves, or on the CPU, for blocks of clean windows of up to
 * APO_EXTREME_SPAN_MAX samples, window_extreme.h's doubling gives the same values. Exact:
 * comparisons only. A window holding a non-finite sample gives NaN in both outputs
 * (window.h). Positions t < p - 1 are NaN.
 */
#ifndef APO_KERNELS_EXTREMES_TILE_H
#define APO_KERNELS_EXTREMES_TILE_H

#include "run_entries.h"
#include "willr_tile.h"

/* The tracking from t to end (s->at: the indices of the largest and the smallest sample). */
static inline APO_HD void apo__minmax_track(const apo__cat_io *io, size_t t, size_t end,
                                            apo__extremes_state *s) {
    const double *x = io->in[0];
    const size_t p = (size_t)io->p[0];
    for (; t < end; t++) {
        if (!apo__window_step(apo__finite(x[t]), io->out[1], t, p, &s->bad, &s->valid)) {
            io->out[0][t] = NAN;
            continue;
        }
        apo__track_extreme(x, t, p, !s->valid, 1.0, &s->at[0]);
        apo__track_extreme(x, t, p, !s->valid, -1.0, &s->at[1]);
        s->valid = 1;
        io->out[0][t] = x[s->at[1]];
        io->out[1][t] = x[s->at[0]];
    }
}

/* A block [t, e) of clean windows (apo__extreme_piece, CPU only) by doubling; it leaves no
 * indices: the next bar tracked scans its window. */
static inline APO_HD void apo__minmax_block(const apo__cat_io *io, size_t t, size_t e,
                                            apo__extremes_state *s) {
#ifdef APO_TILE_LANES
    const size_t p = (size_t)io->p[0];
    apo__extreme_scratch scratch;
    apo__window_extremes_both(io->in[0], t, e - t, p, io->out[0] + t, io->out[1] + t, &scratch);
#else
    (void)io, (void)t, (void)e;
#endif
    s->valid = 0;
}

/* The loop from r->t to end, after apo__window_start (apo__extremes_state). */
static inline APO_HD void apo__minmax_run(const apo__cat_io *io, size_t end, apo__cat_run *r) {
    apo__extremes_state s = apo__extremes_load(r);
    for (size_t t = r->t, stop; t < end; t = stop)
        if (apo__extreme_piece(io->in, 1, (size_t)io->p[0], t, end, s.bad, &stop))
            apo__minmax_block(io, t, stop, &s);
        else
            apo__minmax_track(io, t, stop, &s);
    apo__extremes_save(&s, end, r);
}

/* minmax's tile and stream (catalog_table.h, RUN): apo__minmax_tile, apo__minmax_stream_start and
 * apo__minmax_stream_run, its start at `begin` and its run to `end`. */
APO_CAT_RUN_ENTRIES(minmax, apo__window_start(io, 1, (size_t)io->p[0], begin, r),
                    apo__minmax_run(io, end, r))

#endif /* APO_KERNELS_EXTREMES_TILE_H */
