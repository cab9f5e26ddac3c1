/*
 * supertrend_tile.h: SUPERTREND(timeperiod, multiplier), TA-Lib 0.8's SuperTrend. Inputs high,
 * low, close; outputs the line and the trend (1 up, -1 down). Lookback p.
 *
 * Definition (TA-Lib's): atr's average true range (Wilder's, seeded with the mean of the first p
 * true ranges, atr_tile.h's step); at each bar from the seed's the bands
 * `(high + low) / 2.0 +- multiplier * atr`. At the seed's bar both bands take that value and the
 * trend starts up. After it each band ratchets: the upper band takes the new one where that is
 * lower or where the close before was above the band, the lower band the new one where that is
 * higher or where the close before was below it; then an up trend turns down where the close is
 * below the lower band, a down trend up where it is above the upper band. The line is the lower
 * band in an up trend, the upper band in a down trend. Every operation is TA-Lib's, in its order.
 *
 * Tiles: the bands and the trend at t depend on every bar before it, and bands restarted from a
 * halo are other bands for as long as the first trend lasts (which nothing bounds). So, as sar,
 * the kernel is whole-row: every tile runs the definition from the row's first bar, storing
 * nothing before `begin`, and its bits do not depend on the grid.
 *
 * Gaps (obv's and sar's rule): a bar with a non-finite high, low or close gives NaN in both
 * outputs, changes nothing and is not a bar before: the clean bars' outputs are TA-Lib's of the
 * series with its gap bars taken out. A stream carries the state (apo__supertrend_carry).
 * Past the seeds, bars with finite prices run a loop of their own (apo__supertrend_steady).
 */
#ifndef APO_KERNELS_SUPERTREND_TILE_H
#define APO_KERNELS_SUPERTREND_TILE_H

#include "atr_tile.h"
#include "catalog.h"

/* The running state, in the order a stream carries it: the true ranges taken toward the ATR's
 * seed (up to p), the seed's sum, the ATR, the clean bars seen (0, 1, then 2 for any more), the
 * last clean close, the upper and lower bands, the trend (1 up, -1 down, 0 before the first
 * output). */
#define APO_SUPERTREND_CARRY 8
typedef struct apo__supertrend_state {
    double seen, sum, atr, bars, close, upper, lower, trend;
} apo__supertrend_state;

/* The parameters as the step uses them, taken once a run: read in the step, they were read
 * again through io->p at every bar (the output stores may alias it) and converted. */
typedef struct apo__supertrend_params {
    size_t p;
    double pd, keep, rest, multiplier;
} apo__supertrend_params;

static inline APO_HD apo__supertrend_params apo__supertrend_params_of(const apo__cat_io *io) {
    apo__supertrend_params k;
    k.p = (size_t)io->p[0];
    k.pd = (double)k.p;
    k.keep = APO__WILDER_KEEP(k.pd);
    k.rest = 1.0 - k.keep;
    k.multiplier = io->p[1];
    return k;
}

/* The bands and the trend after a bar past the trend's seed: a band moves to the bar's where
 * that tightens it or the close before crossed it, and the trend turns where the close crosses
 * the band it follows. One form for the step and the steady loop, so their bits agree. TA-Lib's
 * `if (upper < up || before > up) up = upper` is the select `before > up ? upper : (upper < up
 * ? upper : up)`, whose inner select is x86's min (apo__below_or): selects, where gcc's
 * branches on the bands were mispredicted as the walk went (half of a long row's time on the
 * Zen 3 VM). The trend's turn, rare, stays a branch. */
static inline APO_HD void apo__supertrend_bands(double median, double band, double before,
                                                double close, double *up, double *down,
                                                double *trend) {
    const double upper = median + band, lower = median - band;
    const double tighter_up = apo__below_or(upper, *up), tighter_down = apo__above_or(lower, *down);
    *up = before > *up ? upper : tighter_up;
    *down = before < *down ? lower : tighter_down;
    if (*trend > 0.0 ? close < *down : close > *up)
        *trend = -*trend;
}

/* Bar t's step: the outputs (NaN before the seed) into line and trend. */
static inline APO_HD void apo__supertrend_step(apo__supertrend_state *s,
                                               const apo__supertrend_params *k, double high,
                                               double low, double close, double *line,
                                               double *trend) {
    *line = NAN;
    *trend = NAN;
    if (!(isfinite(high) && isfinite(low) && isfinite(close)))
        return;
    if (s->bars > 0.0) {
        const double tr = apo__true_range_values(high, low, s->close);
        size_t seen = (size_t)s->seen;
        double atr = NAN;
        APO__WILDER_STEP(seen, k->p, s->sum, s->atr, tr, k->pd, k->keep, k->rest, atr);
        s->seen = (double)seen;
        if (isfinite(atr)) {
            const double median = (high + low) / 2.0, band = k->multiplier * atr;
            if (s->trend == 0.0) {
                s->upper = median + band;
                s->lower = median - band;
                s->trend = 1.0;
            } else {
                apo__supertrend_bands(median, band, s->close, close, &s->upper, &s->lower,
                                      &s->trend);
            }
            *line = apo__canonical_nan(s->trend > 0.0 ? s->lower : s->upper);
            *trend = s->trend;
        }
    }
    s->bars = s->bars > 0.0 ? 2.0 : 1.0;
    s->close = close;
}

/* Bars t, t + 1, ... of a state past its seeds (the average seeded, the trend set) while their
 * prices and the average stay finite: apo__supertrend_step's operations for that case, so its
 * bits, without the seeds' tests at every bar and with the state in locals. (The comparisons
 * as selects on the bits, in integer registers, were twice as slow; the bands' selects of
 * apo__supertrend_bands stay in vector registers.) Returns the first bar not taken (a
 * gap, an average that is not finite, or end), which the step then takes. */
static inline APO_HD size_t apo__supertrend_steady(apo__supertrend_state *s,
                                                   const apo__supertrend_params *k,
                                                   const apo__cat_io *io, size_t t, size_t begin,
                                                   size_t end) {
    const double *high = io->in[0], *low = io->in[1], *close = io->in[2];
    double *out_line = io->out[0], *out_trend = io->out[1];
    double atr = s->atr, before = s->close, up = s->upper, down = s->lower, trend = s->trend;
    for (; t < end; t++) {
        const double h = high[t], l = low[t], c = close[t];
        if (!(apo__finite(h) & apo__finite(l) & apo__finite(c)))
            break;
        const double next =
            APO__WILDER_NEXT(fma, atr, apo__true_range_values(h, l, before), k->keep, k->rest);
        if (!isfinite(next)) /* APO__WILDER_STEP seeded */
            break;
        atr = next;
        apo__supertrend_bands((h + l) / 2.0, k->multiplier * atr, before, c, &up, &down, &trend);
        if (t >= begin) {
            out_line[t] = apo__canonical_nan(trend > 0.0 ? down : up);
            out_trend[t] = trend;
        }
        before = c;
    }
    s->atr = atr;
    s->close = before;
    s->upper = up;
    s->lower = down;
    s->trend = trend;
    return t;
}

/* Steps the state over bars [from, end), writing the outputs of those from `begin` on: the tile
 * and a stream's carried run both are this loop. The state is stepped in a local copy, which the
 * output stores cannot alias, so that it stays in registers. */
static inline APO_HD void apo__supertrend_run(apo__supertrend_state *s, const apo__cat_io *io,
                                              size_t from, size_t begin, size_t end) {
    const apo__supertrend_params k = apo__supertrend_params_of(io);
    const double *high = io->in[0], *low = io->in[1], *close = io->in[2];
    double *out_line = io->out[0], *out_trend = io->out[1];
    apo__supertrend_state st = *s;
    for (size_t t = from; t < end; t++) {
        if (st.trend != 0.0 && (size_t)st.seen == k.p) {
            t = apo__supertrend_steady(&st, &k, io, t, begin, end);
            if (t >= end)
                break;
        }
        double line, trend;
        apo__supertrend_step(&st, &k, high[t], low[t], close[t], &line, &trend);
        if (t >= begin) {
            out_line[t] = line;
            out_trend[t] = trend;
        }
    }
    *s = st;
}

static inline APO_HD void apo__supertrend_tile(const apo__cat_io *io, size_t begin, size_t end) {
    apo__supertrend_state s = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    apo__supertrend_run(&s, io, 0, begin, end);
}

/*
 * A stream's series fed on from bar `begin` to `stop` - 1, going on from the state `c` its last
 * piece left at `begin` (all zeros before the first bar: the tile's start state), in
 * apo__supertrend_state's order (runtime/streaming/stream.c).
 */
static inline void apo__supertrend_carry(const apo__cat_io *io, double *c, size_t begin,
                                         size_t stop) {
    apo__supertrend_state s = {c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]};
    apo__supertrend_run(&s, io, begin, begin, stop);
    const double kept[APO_SUPERTREND_CARRY] = {s.seen,  s.sum,   s.atr,   s.bars,
                                               s.close, s.upper, s.lower, s.trend};
    for (int i = 0; i < APO_SUPERTREND_CARRY; i++)
        c[i] = kept[i];
}

#endif /* APO_KERNELS_SUPERTREND_TILE_H */
