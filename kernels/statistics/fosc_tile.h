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
 * t - 1 holds a non-finite close (tsf's NaN) or x[t] is not finite. The stream re-runs its tile
 * (NONE): tsf's run state is one bar behind FOSC's positions.
 */
#ifndef APO_KERNELS_FOSC_TILE_H
#define APO_KERNELS_FOSC_TILE_H

#include "linearreg_tile.h"

static inline APO_HD void apo__fosc_tile(const apo__cat_io *io, size_t begin, size_t end) {
    const double *x = io->in[0];
    double *out = io->out[0];
    size_t t = begin;
    if (t == 0 && t < end)
        out[t++] = NAN;
    if (t >= end)
        return;
    apo__cat_io shifted = *io;
    shifted.out[0] = out + 1;
    apo__tsf_tile(&shifted, t - 1, end - 1);
    for (; t < end; t++) {
        const double f = out[t], v = x[t];
        out[t] = !(apo__finite(f) & apo__finite(v)) ? (double)NAN
                 : v == 0.0                         ? 0.0
                                                    : 100.0 * (v - f) / v;
    }
}

#endif /* APO_KERNELS_FOSC_TILE_H */
