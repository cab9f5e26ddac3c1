/*
 * fosc_tile.h: FOSC(timeperiod), TA-Lib 0.8's forecast oscillator: the close's distance from
 * the forecast made a bar earlier, `100 * (x[t] - f) / x[t]`, f = TSF(p) at t - 1 (the
 * least-squares line of the p closes ending at t - 1, one bar past its end), and 0 where x[t]
 * is 0. Input close; lookback p.
 *
 * The forecast is tsf's body (linearreg_tile.h: its designs by period, its accuracy and its
 * gap rule) over the span [begin - 1, end - 1), written one row further on, so that position t
 * of the output row receives tsf at t - 1; the output is formed from it in place. FOSC's
 * outputs are so a function of the tile grid, as tsf's. Gaps: NaN where the window ending at
 * t - 1 holds a non-finite close (tsf's NaN) or x[t] is not finite.
 *
 * Stream: RUN. The state is tsf's run over the shifted row (its window's last gap and sums), its
 * position one bar behind FOSC's: a stream starts tsf's tile at begin - 1 (0 for the first tile)
 * and an update runs it to end - 1, then forms the new positions in place, the tile's operations
 * in its order, so its bits. No AHEAD: tsf's start reads the window before its tile. Until
 * 2026-12-07 each update re-ran the tile so far.
 */
#ifndef APO_KERNELS_FOSC_TILE_H
#define APO_KERNELS_FOSC_TILE_H

#include "linearreg_tile.h"
#include "run_entries.h"

/* FOSC at [from, end) from the forecasts tsf wrote there (out[t] tsf at t - 1), in place. */
static inline APO_HD void apo__fosc_form(const double *x, double *out, size_t from, size_t end) {
    for (size_t t = from; t < end; t++) {
        const double f = out[t], v = x[t];
        out[t] = !(apo__finite(f) & apo__finite(v)) ? (double)NAN
                 : v == 0.0                         ? 0.0
                                                    : 100.0 * (v - f) / v;
    }
}

/* The io of tsf's body written one place further on: out[t + 1] receives tsf at t. */
static inline APO_HD apo__cat_io apo__fosc_shifted(const apo__cat_io *io) {
    apo__cat_io shifted = *io;
    shifted.out[0] = io->out[0] + 1;
    return shifted;
}

static inline APO_HD void apo__fosc_tile(const apo__cat_io *io, size_t begin, size_t end) {
    const double *x = io->in[0];
    double *out = io->out[0];
    size_t t = begin;
    if (t == 0 && t < end)
        out[t++] = NAN;
    if (t >= end)
        return;
    const apo__cat_io shifted = apo__fosc_shifted(io);
    apo__tsf_tile(&shifted, t - 1, end - 1);
    apo__fosc_form(x, out, t, end);
}

/* A stream's start of the tile at `begin`: tsf's tile at begin - 1 (the first tile's: at 0). */
static inline APO_HD void apo__fosc_stream_begin(const apo__cat_io *io, size_t begin,
                                                 apo__cat_run *r) {
    const apo__cat_io shifted = apo__fosc_shifted(io);
    apo__tsf_stream_start(&shifted, begin > 0 ? begin - 1 : 0, r);
}

/* A stream's run to `end`: bar 0's NaN where the first tile reaches it, tsf's run from r->t (a
 * bar behind FOSC's positions) to end - 1, then FOSC at the positions it moved past. */
static inline APO_HD void apo__fosc_stream_go(const apo__cat_io *io, size_t begin, size_t end,
                                              apo__cat_run *r) {
    if (begin == 0 && r->t == 0 && end > 0)
        io->out[0][0] = NAN;
    if (end <= r->t + 1)
        return;
    const apo__cat_io shifted = apo__fosc_shifted(io);
    const size_t from = r->t + 1;
    apo__tsf_stream_run(&shifted, begin > 0 ? begin - 1 : 0, end - 1, r);
    apo__fosc_form(io->in[0], io->out[0], from, end);
}

APO_CAT_STREAM_ENTRIES(fosc, apo__fosc_stream_begin(io, begin, r),
                       apo__fosc_stream_go(io, begin, end, r))

#endif /* APO_KERNELS_FOSC_TILE_H */
