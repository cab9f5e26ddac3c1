/*
 * minmax_tile.h: MAX(timeperiod) and MIN(timeperiod), TA-Lib's highest and lowest value of
 * the p samples ending at t.
 *
 * Tile: halo p - 1. The index of the extreme is kept while it stays inside the window; a
 * new sample at least as extreme replaces it, and when it leaves the window the window is
 * scanned again (TA-Lib's method: O(1) per sample on average, O(p) after a new extreme
 * leaves). On the CPU, windows up to APO_EXTREME_SPAN_MAX samples go instead by blocks of
 * clean windows through window_extreme.h's doubling, vectorised and branch-free; a block with a
 * gap, a longer window, a short piece (a stream's update) and the GPU keep the tracking. Exact:
 * comparisons only, and both keep the latest of equal samples, so the outputs do not depend on
 * which one computed them. The state between two calls (streams) is the last gap, the validity
 * and the extreme's index: bounded, whatever p. A window holding a non-finite sample gives NaN
 * (window.h). Positions t < p - 1 are NaN.
 */
#ifndef APO_KERNELS_MINMAX_TILE_H
#define APO_KERNELS_MINMAX_TILE_H

#include "run_entries.h"
#include "window.h"
#include "window_extreme.h"

/* The tracking from t to end (s->at[0]: the index of the extreme). sign 1: MAX, -1: MIN (the
 * comparisons run on sign * x, which is exact). */
static inline APO_HD void apo__extreme_track(const double *x, double *out, size_t p, size_t t,
                                             size_t end, double sign, apo__extremes_state *s) {
    for (; t < end; t++) {
        if (!apo__window_step(isfinite(x[t]), out, t, p, &s->bad, &s->valid))
            continue;
        size_t at = s->at[0];
        if (!s->valid || at + p <= t) {
            at = t + 1 - p;
            for (size_t i = at + 1; i <= t; i++)
                if (sign * x[i] >= sign * x[at])
                    at = i;
            s->valid = 1;
        } else if (sign * x[t] >= sign * x[at]) {
            at = t;
        }
        s->at[0] = at;
        out[t] = x[at];
    }
}

/* A block [t, e) of clean windows (apo__extreme_piece, CPU only) by doubling
 * (window_extreme.h), which leaves no index: the next bar tracked scans its window. */
static inline APO_HD void apo__extreme_block(const double *x, double *out, size_t p, size_t t,
                                             size_t e, double sign, apo__extremes_state *s) {
#ifdef APO_TILE_LANES
    apo__extreme_scratch scratch;
    apo__window_extremes(x, t, e - t, p, sign > 0.0, out + t, NULL, &scratch);
#else
    (void)x, (void)out, (void)p, (void)t, (void)e, (void)sign;
#endif
    s->valid = 0;
}

/* The loop from r->t to end, after apo__window_start (apo__extremes_state). The outputs are
 * the tracking's, bit for bit, wherever the blocks fall (both keep the latest of equal
 * samples). */
static inline APO_HD void apo__extreme_run(const apo__cat_io *io, size_t end, double sign,
                                           apo__cat_run *r) {
    const double *x = io->in[0];
    const size_t p = (size_t)io->p[0];
    apo__extremes_state s = apo__extremes_load(r);
    for (size_t t = r->t, stop; t < end; t = stop)
        if (apo__extreme_piece(io->in, 1, p, t, end, s.bad, &stop))
            apo__extreme_block(x, io->out[0], p, t, stop, sign, &s);
        else
            apo__extreme_track(x, io->out[0], p, t, stop, sign, &s);
    apo__extremes_save(&s, end, r);
}

/* max's tile and stream (catalog_table.h, RUN): apo__max_tile, apo__max_stream_start and
 * apo__max_stream_run. */
APO_CAT_RUN_ENTRIES(max, apo__window_start(io, 1, (size_t)io->p[0], begin, r),
                    apo__extreme_run(io, end, 1.0, r))

/* min's tile and stream (catalog_table.h, RUN): apo__min_tile, apo__min_stream_start and
 * apo__min_stream_run. */
APO_CAT_RUN_ENTRIES(min, apo__window_start(io, 1, (size_t)io->p[0], begin, r),
                    apo__extreme_run(io, end, -1.0, r))

#endif /* APO_KERNELS_MINMAX_TILE_H */
