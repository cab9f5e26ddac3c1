/*
 * kc_tile.h: KC(timeperiod, atrperiod, nbdev), TA-Lib 0.8's Keltner channel: the middle band
 * the EMA(p) of the typical price `(high + low + close) / 3.0`, the bands
 * `middle +- atr * nbdev` with atr the ATR(a) of the true ranges (atr_tile.h's step). Lookback
 * L = max(p - 1, a).
 *
 * TA-Lib enters each leg at its own lookback over the range that ends at L: the EMA's seed is
 * the mean of the p typical prices ending at bar L, the ATR's the mean of the a true ranges
 * ending at bar L (not from the series' start, as atr's own seed is), so that both first give a
 * value at L. Where p - 1 and a differ one leg's seed starts later than its own lookback would
 * put it; the catalog keeps TA-Lib's seeds, since the leg's first values differ for a while.
 *
 * Tile: the definition re-run from w0 = max(0, begin - h), h = L + the slower leg's decay
 * (catalog_dispatch.c, KC), both seeds ending at w0 + L: a tile starting at 0 has the
 * definition's operations, later tiles agree with it to 2^-64 of the scale.
 *
 * Gaps (rsi's rule, each leg alone): a non-finite typical price or true range gives NaN in all
 * three bands and its leg skips it; each seed takes the first p (a) finite values from its
 * start.
 *
 * Stream: RUN (run_entries.h): the two legs are the run's state; the start reads nothing and the
 * run writes only from `begin` on, so a stream carries the legs across updates (an update costs
 * its new bars) and takes the next tile's run ahead (the row's AHEAD).
 */
#ifndef APO_KERNELS_KC_TILE_H
#define APO_KERNELS_KC_TILE_H

#include "atr_tile.h"
#include "catalog.h"
#include "run_entries.h"

static inline APO_HD size_t apo__kc_lookback(size_t p, size_t a) { return p - 1 > a ? p - 1 : a; }

/* The definition's loop from r->t to end, writing the bands from `begin` on; each leg enters at
 * its own first bar of the tile at `begin` (its seed ending at w0 + L). The tile's start is the
 * run at its warm-up origin w0 with both legs empty (apo__cat_run: n[0] and n[1] the values the
 * EMA's and the ATR's seeds have seen, v[0] and v[1] the EMA's seed sum and value, v[2] and v[3]
 * the ATR's). */
static inline APO_HD void apo__kc_run(const apo__cat_io *io, size_t begin, size_t end,
                                      apo__cat_run *r) {
    const double *high = io->in[0], *low = io->in[1], *close = io->in[2];
    double *upper = io->out[0], *middle = io->out[1], *lower = io->out[2];
    const size_t p = (size_t)io->p[0], a = (size_t)io->p[1];
    const double nbdev = io->p[2], k = 2.0 / ((double)p + 1.0);
    const double ad = (double)a, keep = APO__WILDER_KEEP(ad), rest = 1.0 - keep;
    const size_t last = apo__kc_lookback(p, a), w0 = apo__cat_origin(io, begin);
    const size_t ema_from = w0 + last + 1 - p, atr_from = w0 + last + 1 - a;
    size_t ema_seen = r->n[0], atr_seen = r->n[1];
    double ema_sum = r->v[0], e = r->v[1], atr_sum = r->v[2], atr = r->v[3];
    for (size_t t = r->t; t < end; t++) {
        double m = NAN, y = NAN;
        if (t >= ema_from) {
            const double typical = (high[t] + low[t] + close[t]) / 3.0;
            if (isfinite(typical)) {
                if (ema_seen < p) {
                    ema_sum = ema_sum + typical;
                    if (++ema_seen == p)
                        m = e = ema_sum / (double)p;
                } else {
                    m = e = (typical - e) * k + e;
                }
            }
        }
        if (t >= atr_from) {
            const double tr = apo__true_range(high, low, close, t);
            if (isfinite(tr))
                APO__WILDER_STEP(atr_seen, a, atr_sum, atr, tr, ad, keep, rest, y);
        }
        if (t < begin)
            continue;
        double up = NAN, mid = NAN, lo = NAN;
        if (isfinite(m) && isfinite(y)) {
            const double band = y * nbdev;
            up = apo__canonical_nan(m + band);
            mid = m;
            lo = apo__canonical_nan(m - band);
        }
        upper[t] = up;
        middle[t] = mid;
        lower[t] = lo;
    }
    r->t = end > r->t ? end : r->t;
    r->n[0] = ema_seen;
    r->n[1] = atr_seen;
    r->v[0] = ema_sum;
    r->v[1] = e;
    r->v[2] = atr_sum;
    r->v[3] = atr;
}

APO_CAT_RUN_ENTRIES(kc, apo__cat_run_from_origin(io, begin, r), apo__kc_run(io, begin, end, r))

#endif /* APO_KERNELS_KC_TILE_H */
