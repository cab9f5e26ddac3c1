/*
 * tsi_tile.h: TSI(firstperiod, secondperiod), TA-Lib 0.8's true strength index (Blau): the
 * one-bar change m = x[t] - x[t-1] and its magnitude abs(m), each smoothed by an EMA of period
 * r (firstperiod) and that by an EMA of period s (secondperiod), TSI = `100 * n / d`, n and d
 * the doubly smoothed change and magnitude, and 0 where d is 0 (no movement reached it). Each
 * EMA is TA-Lib's: seeded with the mean of its first inputs (r changes; s values of the first
 * stage, from its seed on), then TA-Lib 0.8's fused step `e = fma(k, v - e, e)`, k = 2/(period
 * + 1) (ema_tile.h's APO__EMA_STAGE: TA-Lib 0.8.1's bits where its TSI built for FMA runs). Input
 * close; lookback
 * 1 + (r - 1) + (s - 1).
 *
 * Tile: a recurrence (as trix's chain), re-run from w0 = max(0, begin - h), h the lookback plus
 * each stage's decay steps and one more for the chain (catalog_dispatch.c, TSI): the outputs
 * are a pure function of the tile grid, and the first tile has the definition's operations.
 * The run's first position gives no change (at w0 = 0 there is no close before; past it, the
 * close before is outside the halo).
 *
 * Gaps: the EMA family's rule: a change whose x[t] or x[t-1] is not finite gives NaN and moves
 * no stage, so each gap before the seeds moves the first value one bar later.
 *
 * Stream (RUN): apo__cat_run holds n[0], n[1] the values each stage's seed has seen, n[2]
 * whether the run's first position is past, and v[0..3] the stages' numerator and denominator:
 * each seed's sum until its seed, its average after.
 *
 * On the CPU a row's tiles run side by side in vector lanes (apo__tsi_round, as trix's chain:
 * trix_tile.h).
 */
#ifndef APO_KERNELS_TSI_TILE_H
#define APO_KERNELS_TSI_TILE_H

#include "catalog.h"
#include "catalog_lanes.h"
#include "ema_tile.h"
#include "run_entries.h"

/* The chain from r->t to end, writing from `begin` on. */
static inline APO_HD void apo__tsi_run(const apo__cat_io *io, size_t begin, size_t end,
                                       apo__cat_run *r) {
    const double *x = io->in[0];
    double *out = io->out[0];
    const size_t p1 = (size_t)io->p[0], p2 = (size_t)io->p[1];
    const double k1 = 2.0 / ((double)p1 + 1.0), k2 = 2.0 / ((double)p2 + 1.0);
    size_t seen1 = r->n[0], seen2 = r->n[1];
    int past_first = r->n[2] != 0;
    double n1 = r->v[0], d1 = r->v[1], n2 = r->v[2], d2 = r->v[3];
    for (size_t t = r->t; t < end; t++) {
        double y = NAN;
        if (past_first && apo__finite(x[t]) && apo__finite(x[t - 1])) {
            const double m = x[t] - x[t - 1];
            n1 = apo__ema_stage(n1, m, seen1, p1, k1);
            d1 = apo__ema_stage(d1, fabs(m), seen1, p1, k1);
            seen1 += seen1 < p1;
            if (seen1 == p1) {
                n2 = apo__ema_stage(n2, n1, seen2, p2, k2);
                d2 = apo__ema_stage(d2, d1, seen2, p2, k2);
                seen2 += seen2 < p2;
                if (seen2 == p2)
                    y = d2 > 0.0 ? 100.0 * n2 / d2 : 0.0;
            }
        }
        past_first = 1;
        if (t >= begin)
            out[t] = y;
    }
    r->t = end > r->t ? end : r->t;
    r->n[0] = seen1;
    r->n[1] = seen2;
    r->n[2] = (size_t)past_first;
    r->v[0] = n1;
    r->v[1] = d1;
    r->v[2] = n2;
    r->v[3] = d2;
}

#ifdef APO_TILE_LANES
/* The round's steady steps from `step` to sd.to (catalog_lanes.h), both EMAs of each pair seeded
 * and the first bar past: apo__tsi_round's operations for them, in the copy for sd.held (a
 * constant). `before` is finite on entry (the round's loop tested it); a close that is not
 * finite (a gap) stops it. Returns the first step not taken. */
static APO_CAT_SPECIALISED size_t apo__tsi_steady_copy(const apo__cat_io *io,
                                                       const apo__cat_lanes *ln, size_t step,
                                                       const apo__cat_steady *sd, apo_tv k1,
                                                       apo_tv k2, apo_tv st[5], const int held) {
    const double *x[APO_TILE_LANES];
    double *out[APO_TILE_LANES];
    apo__cat_lanes_rows(ln, sd, io->in[0], 0, x);
    apo__cat_lanes_outs(ln, io->out[0], out);
    const apo_tv zero = {0};
    apo_tv n1 = st[0], d1 = st[1], n2 = st[2], d2 = st[3], before = st[4];
    for (; step < sd->to; step++) {
        const apo_tv v = apo__cat_lanes_at(x, sd, step, held);
        if (!apo_tv_all_finite(v))
            break;
        const apo_tv m = v - before;
        before = v;
        n1 = APO__EMA_FUSED(apo_tv_fma, n1, m, k1); /* APO__EMA_STAGE seeded */
        d1 = APO__EMA_FUSED(apo_tv_fma, d1, apo_tv_abs(m), k1);
        n2 = APO__EMA_FUSED(apo_tv_fma, n2, n1, k2);
        d2 = APO__EMA_FUSED(apo_tv_fma, d2, d1, k2);
        apo__cat_lanes_put(out, sd->stores, step, apo_tv_pick(d2 > zero, 100.0 * n2 / d2, zero));
    }
    st[0] = n1;
    st[1] = d1;
    st[2] = n2;
    st[3] = d2;
    st[4] = before;
    return step;
}

static inline size_t apo__tsi_steady(const apo__cat_io *io, const apo__cat_lanes *ln, size_t step,
                                     const apo__cat_steady *sd, apo_tv k1, apo_tv k2,
                                     apo_tv st[5]) {
    return sd->held ? apo__tsi_steady_copy(io, ln, step, sd, k1, k2, st, 1)
                    : apo__tsi_steady_copy(io, ln, step, sd, k1, k2, st, 0);
}

/* A round of up to APO_TILE_LANES tiles side by side, one per vector lane (catalog_lanes.h says
 * how the bits stay each tile's): each lane performs apo__tsi_run's operations in its order
 * (APO__EMA_STAGE, one source for both), the guard on d a select. Every lane starts at its
 * warm-up origin, whose bar gives no change; the close before each later step is the one the
 * step before gathered (a lane past its tile's end re-reads its last close, a change of 0).
 * edges: NULL, or one per tile for its run at its begin and end (a lone tile's cut,
 * catalog_split.h). */
static inline void apo__tsi_round(const apo__cat_io *io, const apo__tile_span *tiles, size_t count,
                                  apo__cat_edge *edges) {
    apo__cat_lanes ln;
    apo__cat_lanes_start_at(&ln, io, tiles, count, 0);
    const double *x = io->in[0];
    const size_t p1 = (size_t)io->p[0], p2 = (size_t)io->p[1];
    const apo_tv zero = {0}, nan = zero + (double)NAN, pd1 = zero + (double)p1,
                 pd2 = zero + (double)p2, k1 = zero + 2.0 / ((double)p1 + 1.0),
                 k2 = zero + 2.0 / ((double)p2 + 1.0);
    apo_tv n1 = zero, d1 = zero, n2 = zero, d2 = zero, before = zero;
    size_t counts[3] = {0, 0, 0}, step = 0; /* seen1, seen2, past the first: n[0 .. 2] */
    for (; step < ln.steps; step++) {
        if (edges != NULL && step == ln.edge_step)
            apo__cat_lanes_edges(&ln, tiles, step, counts, 3, (const apo_tv[]){n1, d1, n2, d2}, 4,
                                 edges);
        const apo__cat_steady sd = counts[2] && counts[0] == p1 && counts[1] == p2
                                       ? apo__cat_lanes_steady(&ln, tiles, step, edges)
                                       : apo__cat_steady_none(step);
        if (sd.to > step) {
            apo_tv st[5] = {n1, d1, n2, d2, before};
            const size_t next = apo__tsi_steady(io, &ln, step, &sd, k1, k2, st);
            n1 = st[0];
            d1 = st[1];
            n2 = st[2];
            d2 = st[3];
            before = st[4];
            if (next > step) {
                step = next - 1; /* the loop's top takes `next` */
                continue;
            }
        }
        const apo_tv v = apo__cat_lanes_load(x, &ln, step, 0);
        apo_tv y = nan;
        if (counts[2]) {
            if (!apo_tv_all_finite(v) || !apo_tv_all_finite(before))
                break;
            const apo_tv m = v - before;
            n1 = APO__EMA_STAGE_TV(n1, m, counts[0], p1, pd1, k1);
            d1 = APO__EMA_STAGE_TV(d1, apo_tv_abs(m), counts[0], p1, pd1, k1);
            counts[0] += counts[0] < p1;
            if (counts[0] == p1) {
                n2 = APO__EMA_STAGE_TV(n2, n1, counts[1], p2, pd2, k2);
                d2 = APO__EMA_STAGE_TV(d2, d1, counts[1], p2, pd2, k2);
                counts[1] += counts[1] < p2;
                if (counts[1] == p2)
                    y = apo_tv_pick(d2 > zero, 100.0 * n2 / d2, zero);
            }
        }
        counts[2] = 1;
        before = v;
        apo__cat_lanes_store_inside(io->out[0], &ln, tiles, step, y);
    }
    apo__cat_lanes_stop(&ln, step, counts, 3);
    for (size_t j = 0; j < count; j++) {
        ln.run[j].v[0] = n1[j];
        ln.run[j].v[1] = d1[j];
        ln.run[j].v[2] = n2[j];
        ln.run[j].v[3] = d2[j];
        apo__tsi_run(io, tiles[j].begin, tiles[j].end, &ln.run[j]);
        if (edges != NULL)
            apo__cat_lanes_tail(&ln, j, edges);
    }
}
#endif

/* tsi's tile and stream (catalog_table.h, RUN): apo__tsi_tile, apo__tsi_stream_start and
 * apo__tsi_stream_run, from the tile's warm-up origin. */
APO_CAT_RUN_ENTRIES(tsi, apo__cat_run_from_origin(io, begin, r), apo__tsi_run(io, begin, end, r))

#endif /* APO_KERNELS_TSI_TILE_H */
