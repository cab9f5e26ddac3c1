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
 *
 * On the CPU a row's tiles run side by side in vector lanes (apo__ema_chain_round, as rma's and
 * the Wilder recurrences' do, catalog_lanes.h), and a lone tile is cut into pieces in them
 * (dispatch/catalog_split.h): a tile's chain waits on three dependent operations a bar, which
 * paced dema and tema at three quarters of TA-Lib's two separate passes of fused steps.
 */
#ifndef APO_KERNELS_DEMA_TILE_H
#define APO_KERNELS_DEMA_TILE_H

#include "catalog.h"
#include "catalog_lanes.h"
#include "run_entries.h"

/* The tile's start: the loop runs from w0 with every stage's seed empty (apo__cat_run: n[s]
 * the values stage s has seen, v[s] its seed's sum, v[3 + s] its average). */
static inline APO_HD void apo__ema_chain_start(const apo__cat_io *io, size_t begin,
                                               apo__cat_run *r) {
    apo__cat_run_from_origin(io, begin, r);
}

/* One finite value v through the stages: stage s, while its seed fills, adds v to sum[s] and
 * at its p-th value takes their mean into e[s]; a seeded stage steps e[s] = (v - e[s]) * k +
 * e[s]; each passes its value on, and `ready` stays 1 when every stage has one. A macro, so
 * that a double and a vector of lanes (the rounds) take the same operations: v, sum[], e[], pd
 * (p as a double) and k of the one type; seen[] and p counts, one for all lanes. trix passes
 * its e[] as sum[] too (its seed's sum and its average share a slot, trix_tile.h). */
#define APO__EMA_STAGES(v, stages, seen, sum, e, p, pd, k, ready)                                  \
    do {                                                                                           \
        for (int s_ = 0; s_ < (stages) && (ready); s_++) {                                         \
            if ((seen)[s_] < (p)) {                                                                \
                (sum)[s_] = (sum)[s_] + (v);                                                       \
                (seen)[s_]++;                                                                      \
                (ready) = (seen)[s_] == (p);                                                       \
                if (ready)                                                                         \
                    (e)[s_] = (sum)[s_] / (pd);                                                    \
            } else {                                                                               \
                (e)[s_] = ((v) - (e)[s_]) * (k) + (e)[s_];                                         \
            }                                                                                      \
            (v) = (e)[s_];                                                                         \
        }                                                                                          \
    } while (0)

/* DEMA's (stages 2) or TEMA's (3) output from the stages' values, in TA-Lib's order. */
#define APO__EMA_CHAIN_OUTPUT(e, stages)                                                           \
    ((stages) == 2 ? (2.0 * (e)[0]) - (e)[1] : (e)[2] + ((3.0 * (e)[0]) - (3.0 * (e)[1])))

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
        APO__EMA_STAGES(v, stages, seen, sum, e, p, (double)p, k, ready);
        double y = NAN;
        if (ready)
            y = APO__EMA_CHAIN_OUTPUT(e, stages);
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

#ifdef APO_TILE_LANES
/* The round's steady steps from `step` to sd.to (catalog_lanes.h), every stage seeded:
 * apo__ema_chain_round's operations for them, in the copy for sd.held (a constant). A value
 * that is not finite (a gap) stops it. Returns the first step not taken. */
static APO_CAT_SPECIALISED size_t apo__ema_chain_steady_copy(const apo__cat_io *io,
                                                             const apo__cat_lanes *ln, size_t step,
                                                             const apo__cat_steady *sd, int stages,
                                                             apo_tv k, apo_tv e_io[3],
                                                             const int held) {
    const double *x[APO_TILE_LANES];
    double *out[APO_TILE_LANES];
    apo__cat_lanes_rows(ln, sd, io->in[0], 0, x);
    apo__cat_lanes_outs(ln, io->out[0], out);
    apo_tv e[3] = {e_io[0], e_io[1], e_io[2]};
    for (; step < sd->to; step++) {
        apo_tv v = apo__cat_lanes_at(x, sd, step, held);
        if (!apo_tv_all_finite(v))
            break;
        for (int s = 0; s < stages; s++) { /* APO__EMA_STAGES seeded */
            e[s] = (v - e[s]) * k + e[s];
            v = e[s];
        }
        apo__cat_lanes_put(out, sd->stores, step, APO__EMA_CHAIN_OUTPUT(e, stages));
    }
    for (int s = 0; s < 3; s++)
        e_io[s] = e[s];
    return step;
}

static inline size_t apo__ema_chain_steady(const apo__cat_io *io, const apo__cat_lanes *ln,
                                           size_t step, const apo__cat_steady *sd, int stages,
                                           apo_tv k, apo_tv e[3]) {
    return sd->held ? apo__ema_chain_steady_copy(io, ln, step, sd, stages, k, e, 1)
                    : apo__ema_chain_steady_copy(io, ln, step, sd, stages, k, e, 0);
}

/* A round of up to APO_TILE_LANES tiles of DEMA (stages 2) or TEMA (3) side by side, one per
 * vector lane (catalog_lanes.h says how the bits stay each tile's): each lane performs
 * apo__ema_chain_run's operations in its order. Until a lane meets a gap every lane's stages
 * have seen as many values, so the seeds' tests are one for all; the round stops before the
 * first gap and each tile's scalar run goes on from its lane. edges: NULL, or one per tile for
 * its run at its begin and end (a lone tile's cut, catalog_split.h). */
static APO_CAT_SPECIALISED void apo__ema_chain_round(const apo__cat_io *io,
                                                     const apo__tile_span *tiles, size_t count,
                                                     int stages, apo__cat_edge *edges) {
    apo__cat_lanes ln;
    apo__cat_lanes_start_at(&ln, io, tiles, count, 0);
    const double *x = io->in[0];
    const size_t p = (size_t)io->p[0];
    const double k_one = 2.0 / ((double)p + 1.0);
    const apo_tv zero = {0}, k = zero + k_one, pd = zero + (double)p, nan = zero + (double)NAN;
    apo_tv sum[3] = {zero, zero, zero}, e[3] = {zero, zero, zero};
    size_t seen[3] = {0, 0, 0}, step = 0;
    for (; step < ln.steps; step++) {
        if (edges != NULL && step == ln.edge_step)
            apo__cat_lanes_edges(&ln, tiles, step, seen, 3,
                                 (const apo_tv[]){sum[0], sum[1], sum[2], e[0], e[1], e[2]}, 6,
                                 edges);
        const apo__cat_steady sd = seen[stages - 1] >= p
                                       ? apo__cat_lanes_steady(&ln, tiles, step, edges)
                                       : apo__cat_steady_none(step);
        if (sd.to > step) {
            const size_t next = apo__ema_chain_steady(io, &ln, step, &sd, stages, k, e);
            if (next > step) {
                step = next - 1; /* the loop's top takes `next` */
                continue;
            }
        }
        apo_tv v = apo__cat_lanes_load(x, &ln, step, 0);
        if (!apo_tv_all_finite(v))
            break;
        int ready = 1;
        APO__EMA_STAGES(v, stages, seen, sum, e, p, pd, k, ready);
        apo_tv y = nan;
        if (ready)
            y = APO__EMA_CHAIN_OUTPUT(e, stages);
        apo__cat_lanes_store_inside(io->out[0], &ln, tiles, step, y);
    }
    apo__cat_lanes_stop(&ln, step, seen, 3);
    for (size_t j = 0; j < count; j++) {
        for (int s = 0; s < 3; s++) {
            ln.run[j].v[s] = sum[s][j];
            ln.run[j].v[3 + s] = e[s][j];
        }
        apo__ema_chain_run(io, tiles[j].begin, tiles[j].end, stages, &ln.run[j]);
        if (edges != NULL)
            apo__cat_lanes_tail(&ln, j, edges);
    }
}
#endif

/* dema's tile and stream (catalog_table.h, RUN): apo__dema_tile, apo__dema_stream_start and
 * apo__dema_stream_run. */
APO_CAT_RUN_ENTRIES(dema, apo__ema_chain_start(io, begin, r),
                    apo__ema_chain_run(io, begin, end, 2, r))

#endif /* APO_KERNELS_DEMA_TILE_H */
