/*
 * willr_tile.h: WILLR(timeperiod), TA-Lib's Williams %R over the window of p bars ending
 * at t: with H the highest high and L the lowest low, (H - close) / ((H - L) / -100), TA-Lib's
 * operation order; 0 where H = L. Inputs high, low, close.
 *
 * Tile: halo p - 1; the indices of the extremes are kept and the window scanned again when
 * one leaves (as max and min), or on the CPU, for blocks of clean windows of up to
 * APO_EXTREME_SPAN_MAX bars, the extremes come from window_extreme.h's doubling (the same
 * values) and the quotients are vectorised, each bar performing the same operations.
 *
 * Gaps, the stochastics' rule (stoch_tile.h): an output is NaN where a sample it reads is not
 * finite, that is a high or a low anywhere in its window (window.h's rule over those two) or
 * its own bar's close. A close before the bar is never read, so its gap costs that bar's
 * output only, as in stochf's fastk (docs/kernels.md, "Non-finite policy").
 */
#ifndef APO_KERNELS_WILLR_TILE_H
#define APO_KERNELS_WILLR_TILE_H

#include "run_entries.h"
#include "window.h"
#include "window_extreme.h"

/* Moves the index *at of the window's extreme (sign 1: largest, -1: smallest) to the window
 * ending at t, scanning again when `fresh` or when it left. Always inlined: a call a bar took
 * a seventh of minmax's time at 1e4 bars on avx512 once gcc stopped inlining it (Zen 4,
 * docs/perf-log/2026-11-27-zen4-catalog.md). */
static APO_CAT_SPECIALISED APO_HD void apo__track_extreme(const double *x, size_t t, size_t p,
                                                          int fresh, double sign, size_t *at) {
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

/* WILLR from the highest high hh and lowest low ll of the window ending at a bar and its
 * close. */
static inline APO_HD double apo__willr_of(double hh, double ll, double close) {
    const double diff = (hh - ll) / -100.0;
    return diff != 0.0 ? (hh - close) / diff : 0.0;
}

/* The inputs whose gaps a window tracks (high, low): the close is read at its own bar only. */
#define APO_WILLR_WINDOW_INPUTS 2

/* The tracking from t to end (s->at: the indices of the highest high and the lowest low;
 * s->bad: one past the last gap of high or low). */
static inline APO_HD void apo__willr_track(const apo__cat_io *io, size_t t, size_t end,
                                           apo__extremes_state *s) {
    const double *high = io->in[0], *low = io->in[1], *close = io->in[2];
    const size_t p = (size_t)io->p[0];
    for (; t < end; t++) {
        if (!apo__window_step(apo__all_finite_at(io->in, APO_WILLR_WINDOW_INPUTS, t), io->out[0], t,
                              p, &s->bad, &s->valid))
            continue;
        /* A gap of the close leaves the extremes tracked: the next bars read this window's
         * highs and lows, not its close. The NAN constant, not the quotient, whose NaN would
         * carry the close's payload (and an infinite close would give an infinity, or the 0
         * of a flat window). */
        apo__track_extreme(high, t, p, !s->valid, 1.0, &s->at[0]);
        apo__track_extreme(low, t, p, !s->valid, -1.0, &s->at[1]);
        s->valid = 1;
        io->out[0][t] = apo__finite(close[t])
                            ? apo__willr_of(high[s->at[0]], low[s->at[1]], close[t])
                            : (double)NAN;
    }
}

/* A block [t, e) of clean windows (apo__extreme_piece, CPU only): the extremes by doubling
 * (window_extreme.h), the same as the tracking's, then apo__willr_of's operations bar by bar,
 * its quotients vectorised (apo__quotients_or_zero). It leaves no indices: the next bar
 * tracked scans its window. */
static inline APO_HD void apo__willr_block(const apo__cat_io *io, size_t t, size_t e,
                                           apo__extremes_state *s) {
#ifdef APO_TILE_LANES
    const size_t p = (size_t)io->p[0], n = e - t;
    const double *close = io->in[2] + t;
    double *out = io->out[0] + t;
    double hh[APO_EXTREME_BLOCK], diff[APO_EXTREME_BLOCK];
    apo__extreme_scratch scratch;
    apo__window_extremes(io->in[0], t, n, p, 1, hh, NULL, &scratch);
    apo__window_extremes(io->in[1], t, n, p, 0, diff, NULL, &scratch);
    for (size_t k = 0; k < n; k++) {
        diff[k] = (hh[k] - diff[k]) / -100.0;
        out[k] = hh[k] - close[k];
    }
    apo__quotients_or_zero(out, diff, n, out);
#else
    (void)io, (void)t, (void)e;
#endif
    s->valid = 0;
}

/* The start of a run from begin (a tile's, a stream's): the last gap of high or low in the
 * p - 1 bars before it. */
static inline APO_HD void apo__willr_start(const apo__cat_io *io, size_t begin, apo__cat_run *r) {
    apo__window_start(io, APO_WILLR_WINDOW_INPUTS, (size_t)io->p[0], begin, r);
}

/* The loop from r->t to end, after apo__willr_start (apo__extremes_state). A block is taken
 * only where the close is finite too, so that a gap of the close, rare, is the tracking's
 * one case and the block has no NaN to select. */
static inline APO_HD void apo__willr_run(const apo__cat_io *io, size_t end, apo__cat_run *r) {
    apo__extremes_state s = apo__extremes_load(r);
    for (size_t t = r->t, stop; t < end; t = stop)
        if (apo__extreme_piece(io->in, 3, (size_t)io->p[0], t, end, s.bad, &stop))
            apo__willr_block(io, t, stop, &s);
        else
            apo__willr_track(io, t, stop, &s);
    apo__extremes_save(&s, end, r);
}

/* willr's tile and stream (catalog_table.h, RUN): apo__willr_tile, apo__willr_stream_start and
 * apo__willr_stream_run, its start at `begin` and its run to `end`. */
APO_CAT_RUN_ENTRIES(willr, apo__willr_start(io, begin, r), apo__willr_run(io, end, r))

#endif /* APO_KERNELS_WILLR_TILE_H */
