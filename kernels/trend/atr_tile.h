/*
 * atr_tile.h: ATR(timeperiod) and NATR(timeperiod), TA-Lib's average true range with
 * Wilder's smoothing, and ATR / close * 100 (0 where close is 0, as TA-Lib).
 *
 * Definition: the true ranges TR[1], TR[2], ... (trange_tile.h); the seed is their plain
 * mean over the first p of them (summed in index order, divided by p), output at index p;
 * then a = fma(a, keep, TR * (1 - keep)) with keep = (p - 1) / p, TA-Lib 0.8's operations
 * (wilder_step.h), so a tile starting at 0 has the bits of TA-Lib 0.8 on a CPU with FMA.
 * p = 1 gives the true range itself.
 *
 * Gaps: a non-finite TR (a gap in high[t], low[t] or close[t-1]) gives NaN and the state
 * skips it; the seed is the mean of the first p finite TRs.
 *
 * Tile: a tile reruns the definition from w0 = max(0, begin - h), its first TR at w0 + 1
 * (TR needs the close before), h = p + D(1/p) (catalog_dispatch.c): by `begin` the restarted
 * seed's weight is below 2^-64 of the data scale.
 */
#ifndef APO_KERNELS_ATR_TILE_H
#define APO_KERNELS_ATR_TILE_H

#include "run_entries.h"
#include "trange_tile.h"
#include "wilder_step.h"

/* normalize 0: ATR; 1: NATR. */
/* The tile's start: NaN at `begin` when the warm-up starts there (no true range yet), the
 * loop from the bar after w0 (apo__cat_run: n[0] the true ranges seen, v[0] the seed's sum,
 * v[1] the average). */
static inline APO_HD void apo__atr_start(const apo__cat_io *io, size_t begin, apo__cat_run *r) {
    apo__cat_run_start_changes(io, begin, r);
}

/* Each true range goes into the average by APO__WILDER_STEP (wilder_step.h). */

/* The loop from r->t to end, writing the positions from `begin` on; normalize 1: NATR. */
static APO_CAT_SPECIALISED APO_HD void apo__atr_run(const apo__cat_io *io, size_t begin, size_t end,
                                                    int normalize, apo__cat_run *r) {
    const double *close = io->in[2];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0];
    const double pd = (double)p, keep = APO__WILDER_KEEP(pd), rest = 1.0 - keep;
    size_t seen = r->n[0];
    double sum = r->v[0], a = r->v[1];
    for (size_t t = r->t; t < end; t++) {
        const double tr = apo__true_range(io->in[0], io->in[1], close, t);
        double y = NAN;
        if (isfinite(tr))
            APO__WILDER_STEP(seen, p, sum, a, tr, pd, keep, rest, y);
        if (normalize && isfinite(y)) {
            const double c = close[t];
            y = c != 0.0 ? apo__canonical_nan(y / c * 100.0) : 0.0;
        }
        if (t >= begin)
            out[t] = y;
    }
    r->t = end > r->t ? end : r->t;
    r->n[0] = seen;
    r->v[0] = sum;
    r->v[1] = a;
}

/* atr's tile and stream (catalog_table.h, RUN): apo__atr_tile, apo__atr_stream_start and
 * apo__atr_stream_run. */
APO_CAT_RUN_ENTRIES(atr, apo__atr_start(io, begin, r), apo__atr_run(io, begin, end, 0, r))

/* natr's tile and stream (catalog_table.h, RUN): apo__natr_tile, apo__natr_stream_start and
 * apo__natr_stream_run. */
APO_CAT_RUN_ENTRIES(natr, apo__atr_start(io, begin, r), apo__atr_run(io, begin, end, 1, r))

#endif /* APO_KERNELS_ATR_TILE_H */
