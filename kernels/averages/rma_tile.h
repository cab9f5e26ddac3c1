/*
 * rma_tile.h: RMA(timeperiod), TA-Lib 0.8's running moving average (Wilder's smoothing) of the
 * close: the seed is the mean of the first p samples (summed in index order, divided by p),
 * output at p - 1; then TA-Lib 0.8's fused step, `a = fma(a, keep, x * (1 - keep))` with
 * keep = (p - 1) / p (wilder_step.h, atr's too), so TA-Lib 0.8.1's bits where it is built for
 * FMA. Lookback p - 1; at p = 1 the output is the sample itself (keep is 0 and 1 - keep 1).
 *
 * Tile: the definition re-run from w0 = max(0, begin - h), h = p - 1 + D(1/p)
 * (catalog_dispatch.c, WILDER(1)): by `begin` the restarted seed's weight is below 2^-64 of
 * the data's scale, so a tile starting at 0 has the definition's operations and later tiles
 * agree with it to that weight. Each output is a function of the tile grid alone.
 *
 * Gaps (rsi's and atr's rule): a non-finite sample gives NaN and the average skips it; the
 * seed is the mean of the first p finite samples.
 *
 * Stream: RUN (run_entries.h). The start stands at the warm-up origin with an empty seed and
 * reads nothing, and the run writes only from `begin` on, so a stream carries the run across
 * updates (an update costs its new bars) and takes the next tile's run ahead (the row's AHEAD)
 * while a tile's last h bars arrive; a GPU cuts its tiles as atr's (cuda/cut.cu).
 *
 * On the CPU a row's tiles run side by side in vector lanes (apo__rma_round, as atr's: the
 * chain's fused step is at its latency a bar in one tile, and the tiles are independent).
 */
#ifndef APO_KERNELS_RMA_TILE_H
#define APO_KERNELS_RMA_TILE_H

#include "catalog.h"
#include "catalog_lanes.h"
#include "run_entries.h"
#include "wilder_step.h"

/* The definition's loop from r->t to end, writing from `begin` on (apo__cat_run: n[0] the
 * finite samples seen, v[0] their seed sum, v[1] the average). */
static inline APO_HD void apo__rma_run(const apo__cat_io *io, size_t begin, size_t end,
                                       apo__cat_run *r) {
    const double *x = io->in[0];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0];
    const double pd = (double)p, keep = APO__WILDER_KEEP(pd), rest = 1.0 - keep;
    size_t seen = r->n[0];
    double sum = r->v[0], a = r->v[1];
    for (size_t t = r->t; t < end; t++) {
        double y = NAN;
        if (isfinite(x[t]))
            APO__WILDER_STEP(seen, p, sum, a, x[t], pd, keep, rest, y);
        if (t >= begin)
            out[t] = apo__canonical_nan(y);
    }
    r->t = end > r->t ? end : r->t;
    r->n[0] = seen;
    r->v[0] = sum;
    r->v[1] = a;
}

APO_CAT_RUN_ENTRIES(rma, apo__cat_run_from_origin(io, begin, r), apo__rma_run(io, begin, end, r))

#ifdef APO_TILE_LANES
/* The round's steady steps from `step` to sd.to (catalog_lanes.h), every lane's average seeded:
 * apo__rma_round's operations for them, in the copy for sd.held (a constant). A sample that is
 * not finite (a gap) stops it. Returns the first step not taken. */
static APO_CAT_SPECIALISED size_t apo__rma_steady_copy(const apo__cat_io *io,
                                                       const apo__cat_lanes *ln, size_t step,
                                                       const apo__cat_steady *sd, apo_tv keep,
                                                       apo_tv rest, apo_tv *a_io, const int held) {
    const double *x[APO_TILE_LANES];
    double *out[APO_TILE_LANES];
    apo__cat_lanes_rows(ln, sd, io->in[0], 0, x);
    apo__cat_lanes_outs(ln, io->out[0], out);
    const apo_tv nan = apo_tv_splat(NAN);
    apo_tv a = *a_io;
    for (; step < sd->to; step++) {
        const apo_tv v = apo__cat_lanes_at(x, sd, step, held);
        if (!apo_tv_all_finite(v))
            break;
        a = APO__WILDER_NEXT(apo_tv_fma, a, v, keep, rest);
        apo__cat_lanes_put(out, sd->stores, step, apo_tv_pick(a != a, nan, a));
    }
    *a_io = a;
    return step;
}

static inline size_t apo__rma_steady(const apo__cat_io *io, const apo__cat_lanes *ln, size_t step,
                                     const apo__cat_steady *sd, apo_tv keep, apo_tv rest,
                                     apo_tv *a) {
    return sd->held ? apo__rma_steady_copy(io, ln, step, sd, keep, rest, a, 1)
                    : apo__rma_steady_copy(io, ln, step, sd, keep, rest, a, 0);
}

/* A round of up to APO_TILE_LANES tiles side by side, one per vector lane (catalog_lanes.h
 * says how the bits stay each tile's): each lane performs apo__rma_run's operations in its
 * order. Until a lane meets a gap every lane has seen as many samples, so the seed's test is
 * one for all; the round stops before the first gap and each tile's scalar run goes on from
 * its lane. edges: NULL, or one per tile for its run at its begin and end (a lone tile's
 * cut, catalog_split.h). */
static inline void apo__rma_round(const apo__cat_io *io, const apo__tile_span *tiles, size_t count,
                                  apo__cat_edge *edges) {
    apo__cat_lanes ln;
    apo__cat_lanes_start_at(&ln, io, tiles, count, 0);
    const double *x = io->in[0];
    const size_t p = (size_t)io->p[0];
    const double pd_one = (double)p;
    const apo_tv zero = {0}, pd = zero + pd_one, keep = zero + APO__WILDER_KEEP(pd_one),
                 rest = zero + (1.0 - APO__WILDER_KEEP(pd_one)), nan = zero + (double)NAN;
    apo_tv sum = zero, a = zero;
    size_t seen = 0, step = 0;
    for (; step < ln.steps; step++) {
        if (edges != NULL && step == ln.edge_step)
            apo__cat_lanes_edges(&ln, tiles, step, &seen, 1, (const apo_tv[]){sum, a}, 2, edges);
        const apo__cat_steady sd =
            seen >= p ? apo__cat_lanes_steady(&ln, tiles, step, edges) : apo__cat_steady_none(step);
        if (sd.to > step) {
            const size_t next = apo__rma_steady(io, &ln, step, &sd, keep, rest, &a);
            if (next > step) {
                step = next - 1; /* the loop's top takes `next` */
                continue;
            }
        }
        const apo_tv v = apo__cat_lanes_load(x, &ln, step, 0);
        if (!apo_tv_all_finite(v))
            break;
        apo_tv y = nan;
        APO__WILDER_STEP_TV(seen, p, sum, a, v, pd, keep, rest, y);
        apo__cat_lanes_store(io->out[0], &ln, tiles, step, apo_tv_pick(y != y, nan, y));
    }
    apo__cat_lanes_stop(&ln, step, &seen, 1);
    for (size_t k = 0; k < count; k++) {
        ln.run[k].v[0] = sum[k];
        ln.run[k].v[1] = a[k];
        apo__rma_run(io, tiles[k].begin, tiles[k].end, &ln.run[k]);
        if (edges != NULL)
            apo__cat_lanes_tail(&ln, k, edges);
    }
}
#endif

#endif /* APO_KERNELS_RMA_TILE_H */
