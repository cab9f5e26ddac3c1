/*
 * aroon_tile.h: AROON(timeperiod), TA-Lib's Aroon lines over the p + 1 bars ending at t:
 * aroonup = (100 / p) * (p - (t - index of the highest high)), aroondown the same with the
 * lowest low; the most recent bar wins a tie (TA-Lib's >= and <=). Inputs high, low;
 * outputs aroondown, aroonup (TA-Lib's order). Lookback and halo p.
 *
 * Tile: the extremes' indices are kept and the window scanned again when one leaves
 * (willr_tile.h), or on the CPU, for blocks of clean windows of up to APO_EXTREME_SPAN_MAX
 * bars, the latest extremes' positions come from window_extreme.h's doubling (the same
 * positions: both keep the latest of equal samples). A gap in either input inside the window
 * gives NaN for both (window.h). AROONOSC (below apo__aroon_tile) shares the tracking.
 */
#ifndef APO_KERNELS_AROON_TILE_H
#define APO_KERNELS_AROON_TILE_H

#include "run_entries.h"
#include "willr_tile.h"
#include "window_extreme.h"

/* The tracking from t to end (s->at: the indices of the highest high and the lowest low);
 * osc: aroonosc's one output instead of aroon's two. */
static inline APO_HD void apo__aroon_track(const apo__cat_io *io, size_t t, size_t end,
                                           apo__extremes_state *s, int osc) {
    const double *high = io->in[0], *low = io->in[1];
    double *down = io->out[0], *up = io->out[1];
    const size_t p = (size_t)io->p[0], w = p + 1;
    const double factor = 100.0 / (double)p;
    for (; t < end; t++) {
        if (!apo__all_finite_at(io->in, 2, t))
            s->bad = t + 1;
        if (!apo__window_clean(t, w, s->bad)) {
            down[t] = NAN;
            if (!osc)
                up[t] = NAN;
            s->valid = 0;
            continue;
        }
        apo__track_extreme(high, t, w, !s->valid, 1.0, &s->at[0]);
        apo__track_extreme(low, t, w, !s->valid, -1.0, &s->at[1]);
        s->valid = 1;
        if (osc) {
            down[t] = factor * ((double)s->at[0] - (double)s->at[1]);
            continue;
        }
        up[t] = factor * (double)(p - (t - s->at[0]));
        down[t] = factor * (double)(p - (t - s->at[1]));
    }
}

#ifdef APO_TILE_LANES
/* factor * (at[k] - k) into line[k], k < n: with at[k] the extreme's position from the
 * block's first window's first sample, at[k] - k is p - (t - index) of the tracking, an
 * integer held exactly, so the product is the tracking's. */
static inline void apo__aroon_line(const double *at, size_t n, double factor, double *line) {
    const apo_tv lane = apo__tv_lane_offsets();
    size_t k = 0;
    for (; k + APO_TILE_LANES <= n; k += APO_TILE_LANES)
        apo_tv_store(line + k, factor * (apo_tv_load(at + k) - (lane + (double)k)));
    for (; k < n; k++)
        line[k] = factor * (at[k] - (double)k);
}

/* aroonosc's factor * (high_at[k] - low_at[k]) into line[k], k < n: the difference of the two
 * positions, as the tracking's. */
static inline void apo__aroonosc_line(const double *high_at, const double *low_at, size_t n,
                                      double factor, double *line) {
    size_t k = 0;
    for (; k + APO_TILE_LANES <= n; k += APO_TILE_LANES)
        apo_tv_store(line + k, factor * (apo_tv_load(high_at + k) - apo_tv_load(low_at + k)));
    for (; k < n; k++)
        line[k] = factor * (high_at[k] - low_at[k]);
}
#endif

/* A block [t, e) of clean windows (apo__extreme_piece, CPU only): the latest extremes'
 * positions by doubling (window_extreme.h), which leaves no indices: the next bar tracked
 * scans its window. */
static inline APO_HD void apo__aroon_block(const apo__cat_io *io, size_t t, size_t e,
                                           apo__extremes_state *s, int osc) {
#ifdef APO_TILE_LANES
    const size_t p = (size_t)io->p[0], n = e - t;
    const double factor = 100.0 / (double)p;
    double ext[APO_EXTREME_BLOCK], at[APO_EXTREME_BLOCK];
    apo__extreme_scratch scratch;
    if (osc) {
        double low_at[APO_EXTREME_BLOCK];
        apo__window_extremes(io->in[0], t, n, p + 1, 1, ext, at, &scratch);
        apo__window_extremes(io->in[1], t, n, p + 1, 0, ext, low_at, &scratch);
        apo__aroonosc_line(at, low_at, n, factor, io->out[0] + t);
    } else {
        apo__window_extremes(io->in[0], t, n, p + 1, 1, ext, at, &scratch);
        apo__aroon_line(at, n, factor, io->out[1] + t);
        apo__window_extremes(io->in[1], t, n, p + 1, 0, ext, at, &scratch);
        apo__aroon_line(at, n, factor, io->out[0] + t);
    }
#else
    (void)io, (void)t, (void)e, (void)osc;
#endif
    s->valid = 0;
}

/* The loop from r->t to end, after apo__window_start over the 2 inputs and p + 1 samples
 * (apo__extremes_state). */
static inline APO_HD void apo__aroon_run(const apo__cat_io *io, size_t end, apo__cat_run *r,
                                         int osc) {
    apo__extremes_state s = apo__extremes_load(r);
    for (size_t t = r->t, stop; t < end; t = stop)
        if (apo__extreme_piece(io->in, 2, (size_t)io->p[0] + 1, t, end, s.bad, &stop))
            apo__aroon_block(io, t, stop, &s, osc);
        else
            apo__aroon_track(io, t, stop, &s, osc);
    apo__extremes_save(&s, end, r);
}

/* aroon's tile and stream (catalog_table.h, RUN): apo__aroon_tile, apo__aroon_stream_start and
 * apo__aroon_stream_run. */
APO_CAT_RUN_ENTRIES(aroon, apo__window_start(io, 2, (size_t)io->p[0] + 1, begin, r),
                    apo__aroon_run(io, end, r, 0))

/* AROONOSC(timeperiod) = aroonup - aroondown, in TA-Lib's form (100 / p) * (index of the
 * highest high - index of the lowest low): one rounding of the factor's product, where the
 * difference of the two lines would round three times. */
/* aroonosc's tile and stream (catalog_table.h, RUN): apo__aroonosc_tile, apo__aroonosc_stream_start
 * and apo__aroonosc_stream_run. */
APO_CAT_RUN_ENTRIES(aroonosc, apo__window_start(io, 2, (size_t)io->p[0] + 1, begin, r),
                    apo__aroon_run(io, end, r, 1))

#endif /* APO_KERNELS_AROON_TILE_H */
