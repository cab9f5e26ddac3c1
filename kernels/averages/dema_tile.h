/*
 * dema_tile.h: DEMA(timeperiod) and the chain of EMAs it shares with TEMA (tema_tile.h).
 *
 * Definition (TA-Lib's): e1 = EMA(p) of x, e2 = EMA(p) of e1, e3 = EMA(p) of e2, each
 * seeded with the plain mean of the first p values of its input (ema_tile.h), so e2 starts
 * at 2(p-1) and e3 at 3(p-1); DEMA = (2 * e1) - e2, TEMA = e3 + ((3 * e1) - (3 * e2)), in
 * TA-Lib's operation order.
 *
 * Gaps: a non-finite sample gives NaN and no stage moves.
 *
 * Tile: the tile reruns the chain from w0 = max(0, begin - h), h = S (p - 1) + (S + 1) D(k)
 * for S stages (catalog_dispatch.c): each stage's seed has been forgotten to below 2^-64 before the
 * next one's is, with a stage of margin for the chain's polynomial factor.
 */
#ifndef APO_KERNELS_DEMA_TILE_H
#define APO_KERNELS_DEMA_TILE_H

#include "catalog.h"
#include "run_entries.h"

/* The tile's start: the loop runs from w0 with every stage's seed empty (apo__cat_run: n[s]
 * the values stage s has seen, v[s] its seed's sum, v[3 + s] its average). */
static inline APO_HD void apo__ema_chain_start(const apo__cat_io *io, size_t begin,
                                               apo__cat_run *r) {
    apo__cat_run_from(r, begin > io->h ? begin - io->h : 0);
}

/* The loop from r->t to end, writing the positions from `begin` on. stages 2: DEMA; 3:
 * TEMA. */
static inline APO_HD void apo__ema_chain_run(const apo__cat_io *io, size_t begin, size_t end,
                                             int stages, apo__cat_run *r) {
    const double *x = io->in[0];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0];
    const double k = 2.0 / ((double)p + 1.0);
    size_t seen[3] = {r->n[0], r->n[1], r->n[2]};
    double sum[3] = {r->v[0], r->v[1], r->v[2]}, e[3] = {r->v[3], r->v[4], r->v[5]};
    for (size_t t = r->t; t < end; t++) {
        double v = x[t];
        int ready = isfinite(v);
        for (int s = 0; s < stages && ready; s++) {
            if (seen[s] < p) {
                sum[s] = sum[s] + v;
                seen[s]++;
                ready = seen[s] == p;
                if (ready)
                    e[s] = sum[s] / (double)p;
            } else {
                e[s] = (v - e[s]) * k + e[s];
            }
            v = e[s];
        }
        double y = NAN;
        if (ready)
            y = stages == 2 ? (2.0 * e[0]) - e[1] : e[2] + ((3.0 * e[0]) - (3.0 * e[1]));
        if (t >= begin)
            out[t] = y;
    }
    r->t = end > r->t ? end : r->t;
    for (int s = 0; s < 3; s++) {
        r->n[s] = seen[s];
        r->v[s] = sum[s];
        r->v[3 + s] = e[s];
    }
}

/* dema's tile and stream (catalog_table.h, RUN): apo__dema_tile, apo__dema_stream_start and
 * apo__dema_stream_run. */
APO_CAT_RUN_ENTRIES(dema, apo__ema_chain_start(io, begin, r),
                    apo__ema_chain_run(io, begin, end, 2, r))

#endif /* APO_KERNELS_DEMA_TILE_H */
