/*
 * ha_tile.h: HA, TA-Lib 0.8's Heikin-Ashi candles of open, high, low, close
 * (docs/kernels/transforms.md, "Heikin-Ashi (TA-Lib 0.8)"), in TA-Lib's operations:
 *
 *   haclose[t] = (((o + h) + l) + c) / 4           (TA-Lib's order, not avgprice's)
 *   haopen[t]  = (o + c) / 2 at the first bar, else (haopen[t-1] + haclose[t-1]) / 2
 *   hahigh[t]  = h, raised to haopen[t] if above it, then to haclose[t] if above that
 *   halow[t]   = l, lowered the same way
 *
 * The extremes are comparisons starting from the bar's own high or low, as TA-Lib's, so a tie
 * of signed zeros keeps the bar's sign. Lookback 0: every bar has all four outputs.
 *
 * Tile: haopen is ema's recurrence at rate 1/2 (a seed's weight halves each bar), so the
 * cheapest split-invariant form is a warm-up, not the whole row: the definition re-run from
 * w0 = max(0, begin - h), h = D(1/2) = 64 bars (catalog_dispatch.c, rule HA), after which the
 * restarted seed weighs 2^-64. A tile starting at 0 has the definition's operations; each output
 * is a function of the tile grid alone. A whole-row tile would cost each tile the row before it
 * for the same bits up to that weight.
 *
 * Gaps: a bar with a price that is not finite gives NaN in all four outputs and the recurrence
 * skips it (haopen at the next clean bar reads the last clean bar's); the first clean bar seeds.
 * Stream: RUN (run_entries.h): the recurrence's state (whether seeded, the last clean bar's
 * haopen and haclose) is the run's, the start reads nothing and the run writes only from `begin`
 * on, so a stream carries it across updates and takes the next tile's run ahead (AHEAD); until
 * 2026-12-07 each update re-ran the tile so far (4096 bars at most). On the CPU clean vectors of
 * bars take everything but haopen's chain in lanes (apo__ha_lanes).
 */
#ifndef APO_KERNELS_HA_TILE_H
#define APO_KERNELS_HA_TILE_H

#include "catalog.h"
#include "run_entries.h"
#include "tile_vec.h"

/* The recurrence's state: whether seeded, and the last clean bar's haopen and haclose. */
typedef struct apo__ha_state {
    int seeded;
    double open, close;
} apo__ha_state;

#ifdef APO_TILE_LANES
/* The vector of bars from t on (all in the tile, the recurrence seeded), when all their prices
 * are finite (else 0, nothing done): haclose and the extremes in vector lanes, only haopen's
 * recurrence a bar at a time, with apo__ha_tile's operations in its order (its bits). One bar
 * at a time, the four finiteness tests and the extremes' comparisons took a branch each. */
static inline int apo__ha_lanes(const apo__cat_io *io, apo__ha_state *st, size_t t) {
    if (!st->seeded)
        return 0;
    const apo_tv o = apo_tv_load(io->in[0] + t), h = apo_tv_load(io->in[1] + t),
                 l = apo_tv_load(io->in[2] + t), c = apo_tv_load(io->in[3] + t);
    if (!apo_tm_all(apo_tv_finite(o) & apo_tv_finite(h) & apo_tv_finite(l) & apo_tv_finite(c)))
        return 0;
    const apo_tv bar_close = (((o + h) + l) + c) / 4.0;
    apo_tv bar_open;
    double last_open = st->open, last_close = st->close;
    for (size_t k = 0; k < APO_TILE_LANES; k++) {
        bar_open[k] = last_open = (last_open + last_close) / 2.0;
        last_close = bar_close[k];
    }
    st->open = last_open;
    st->close = last_close;
    apo_tv top = apo_tv_pick(bar_open > h, bar_open, h);
    top = apo_tv_pick(bar_close > top, bar_close, top);
    apo_tv bottom = apo_tv_pick(bar_open < l, bar_open, l);
    bottom = apo_tv_pick(bar_close < bottom, bar_close, bottom);
    apo_tv_store(io->out[0] + t, apo_tv_or_nan(bar_open == bar_open, bar_open));
    apo_tv_store(io->out[1] + t, top);
    apo_tv_store(io->out[2] + t, bottom);
    apo_tv_store(io->out[3] + t, bar_close);
    return 1;
}
#endif

/* The definition's loop from r->t to end, writing the candles from `begin` on. The tile's start
 * is the run at its warm-up origin w0, unseeded (apo__cat_run: n[0] whether seeded, v[0] and
 * v[1] the last clean bar's haopen and haclose). */
static inline APO_HD void apo__ha_run(const apo__cat_io *io, size_t begin, size_t end,
                                      apo__cat_run *r) {
    const double *open = io->in[0], *high = io->in[1], *low = io->in[2], *close = io->in[3];
    double *ha_open = io->out[0], *ha_high = io->out[1], *ha_low = io->out[2],
           *ha_close = io->out[3];
    apo__ha_state st;
    st.seeded = r->n[0] != 0;
    st.open = r->v[0];
    st.close = r->v[1];
    for (size_t t = r->t; t < end; t++) {
#ifdef APO_TILE_LANES
        while (t >= begin && end - t >= APO_TILE_LANES && apo__ha_lanes(io, &st, t))
            t += APO_TILE_LANES;
        if (t == end)
            break;
#endif
        const double o = open[t], h = high[t], l = low[t], c = close[t];
        if (!(isfinite(o) && isfinite(h) && isfinite(l) && isfinite(c))) {
            if (t >= begin)
                ha_open[t] = ha_high[t] = ha_low[t] = ha_close[t] = NAN;
            continue;
        }
        const double bar_open = st.seeded ? (st.open + st.close) / 2.0 : (o + c) / 2.0;
        const double bar_close = (((o + h) + l) + c) / 4.0;
        st.seeded = 1;
        st.open = bar_open;
        st.close = bar_close;
        if (t < begin)
            continue;
        double top = h, bottom = l;
        if (bar_open > top)
            top = bar_open;
        if (bar_close > top)
            top = bar_close;
        if (bar_open < bottom)
            bottom = bar_open;
        if (bar_close < bottom)
            bottom = bar_close;
        /* Prices near DBL_MAX can overflow haopen's sums to opposite infinities (an infinite
         * haopen meeting the other infinite haclose), whose NaN is stored as the NAN constant
         * (apo_hd.h). The other three cannot be NaN: haclose adds four finite prices, and a
         * partial sum that overflowed keeps its infinity when a finite price is added, so no
         * infinity meets one of the other sign; the extremes start from the finite high or
         * low and take only a value beyond them, which a NaN never is. Canonicalising them
         * too took half the tile's time at 1e4 bars (an L1-resident row). */
        ha_open[t] = apo__canonical_nan(bar_open);
        ha_high[t] = top;
        ha_low[t] = bottom;
        ha_close[t] = bar_close;
    }
    r->t = end > r->t ? end : r->t;
    r->n[0] = (size_t)st.seeded;
    r->v[0] = st.open;
    r->v[1] = st.close;
}

APO_CAT_RUN_ENTRIES(ha, apo__cat_run_from_origin(io, begin, r), apo__ha_run(io, begin, end, r))

#endif /* APO_KERNELS_HA_TILE_H */
