/*
 * ma_tile.h: MA(timeperiod, matype) and MAVP(minperiod, maxperiod, matype), TA-Lib's moving
 * average of a chosen kind (ma_type.h) at a fixed period and at a period read per bar.
 *
 * ma: the average of its matype (ma_type.h) over the tile, by that kind's own body, so ma at
 * matype m has the bits of the catalog kernel of that kind (sma, ema, ...) at the same grid.
 *
 * mavp: out[t] is MA(P_t, matype) at t, P_t the period input at t truncated to an integer
 * (as TA-Lib's (int) cast) and held to [minperiod, maxperiod]; NaN where the period input is
 * not finite, and before TA-Lib's lookback, that of maxperiod. Each bar is its own span of the
 * average (apo__ma_span over [t, t + 1)): a window kind reads that bar's window, a
 * recurrence runs from the bar's own warm-up t - h (h the halo of maxperiod, at least the
 * halo of every period it may take), so every output is a function of its absolute index
 * and the samples before it: tiles, streams (the position) and devices give the same bits.
 * A recurrence costs h steps a bar, where TA-Lib runs one whole average per distinct period
 * (the default, matype 0, costs its window a bar).
 */
#ifndef APO_KERNELS_MA_TILE_H
#define APO_KERNELS_MA_TILE_H

#include "ma_type.h"

static inline APO_HD void apo__ma_tile(const apo__cat_io *io, size_t begin, size_t end) {
    apo__ma_span((int)io->p[1], io->in[0], io->out[0], (size_t)io->p[0], io->h, begin, end);
}

/* The period of bar t: the input truncated and held to [lo, hi], 0 where it is not finite. */
static inline APO_HD size_t apo__mavp_period(double v, size_t lo, size_t hi) {
    if (!isfinite(v))
        return 0;
    if (v <= (double)lo)
        return lo;
    if (v >= (double)hi)
        return hi;
    return (size_t)v;
}

static inline APO_HD void apo__mavp_tile(const apo__cat_io *io, size_t begin, size_t end) {
    const size_t lo = (size_t)io->p[0], hi = (size_t)io->p[1];
    const int matype = (int)io->p[2];
    const size_t lead = apo__ma_lookback(matype, hi);
    for (size_t t = begin; t < end; t++) {
        const size_t p = apo__mavp_period(io->in[1][t], lo, hi);
        if (t < lead || p == 0)
            io->out[0][t] = NAN;
        else
            apo__ma_span(matype, io->in[0], io->out[0], p, io->h, t, t + 1);
    }
}

#endif /* APO_KERNELS_MA_TILE_H */
