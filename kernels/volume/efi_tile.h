/*
 * efi_tile.h: EFI(timeperiod), TA-Lib 0.8's Elder force index: the EMA of rate k = 2/(p+1) of
 * the force `(close[t] - close[t-1]) * volume[t]`, seeded with the mean of the first p forces
 * (their sum in index order over p), then `e = fma(k, force - e, e)` (TA-Lib 0.8's fused step, as
 * its EFI built for FMA computes it: APO__EMA_STAGE, ema_tile.h);
 * at p = 1 the force itself (TA-Lib's: k = 1 would round). Inputs close, volume; lookback p
 * (the first force needs the close before it).
 *
 * Tile: ema's recurrence design ("Recurrences"): a tile [begin, end) runs the definition from
 * w0 = max(0, begin - halo), the halo p plus the steps the EMA takes to forget its seed (to
 * 2^-64), and emits [begin, end) only, so the outputs are a pure function of the tile grid and
 * the first tile has TA-Lib's operations. Gaps: a force whose close, close before or volume is
 * not finite gives NaN and the EMA skips it; the seed is the mean of the first p finite forces.
 * Stream: RUN (run_entries.h): the start reads nothing and the run writes only from `begin` on,
 * so a stream carries the run across updates and takes the next tile's run ahead (AHEAD).
 *
 * The body is a start and a run (apo__cat_run: n[0] the forces the seed has seen, n[1] whether
 * the run's first position is past, v[0] the seed's sum until its p-th force and the average
 * after), so that on the CPU a row's tiles run side by side in vector lanes (apo__efi_round,
 * catalog_lanes.h), each lane with the run's operations (APO__EMA_STAGE, ema_tile.h): a tile's
 * chain waits on a subtraction and a fused multiply-add a bar, as TA-Lib 0.8.1's loop does. A
 * round short of lanes (a 1e4-bar row is three tiles) is cut tile by tile into pieces in the
 * lanes (dispatch/catalog_split.h, the CUT trait).
 */
#ifndef APO_KERNELS_EFI_TILE_H
#define APO_KERNELS_EFI_TILE_H

#include "catalog.h"
#include "catalog_lanes.h"
#include "ema_tile.h"
#include "run_entries.h"

/* The tile's start: the run from its warm-up origin, whose bar gives no force (at 0 there is
 * no close before; past it, the close before is outside the halo). */
static inline APO_HD void apo__efi_start(const apo__cat_io *io, size_t begin, apo__cat_run *r) {
    apo__cat_run_from_origin(io, begin, r);
}

/* The run from r->t to end, writing the positions from `begin` on. At p = 1 the average is the
 * force itself once seeded (k = 1 would round). */
static inline APO_HD void apo__efi_run(const apo__cat_io *io, size_t begin, size_t end,
                                       apo__cat_run *r) {
    const double *close = io->in[0], *volume = io->in[1];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0];
    const double k = 2.0 / ((double)p + 1.0);
    size_t seen = r->n[0];
    int past_first = r->n[1] != 0;
    double e = r->v[0];
    for (size_t t = r->t; t < end; t++) {
        double y = NAN;
        if (past_first) {
            const double c = close[t], prev = close[t - 1], v = volume[t];
            const double force = (c - prev) * v;
            if (apo__finite(c) & apo__finite(prev) & apo__finite(v)) {
                e = p == 1 && seen == p ? force : apo__ema_stage(e, force, seen, p, k);
                seen += seen < p;
                if (seen == p)
                    y = apo__canonical_nan(e);
            }
        }
        past_first = 1;
        if (t >= begin)
            out[t] = y;
    }
    r->t = end > r->t ? end : r->t;
    r->n[0] = seen;
    r->n[1] = (size_t)past_first;
    r->v[0] = e;
}

#ifdef APO_TILE_LANES
/* The round's steady steps from `step` to sd.to (catalog_lanes.h), every lane seeded at p > 1:
 * apo__efi_round's operations for them, in the copy for sd.held (a constant). A force that is
 * not finite stops it (one whose close, close before or volume is not finite is not finite
 * either; an overflow stops it too, and the round's loop then takes the step as before).
 * Returns the first step not taken. */
static APO_CAT_SPECIALISED size_t apo__efi_steady_copy(const apo__cat_io *io,
                                                       const apo__cat_lanes *ln, size_t step,
                                                       const apo__cat_steady *sd, apo_tv k,
                                                       apo_tv *e_io, apo_tv *before_io,
                                                       const int held) {
    const double *close[APO_TILE_LANES], *close_before[APO_TILE_LANES], *volume[APO_TILE_LANES];
    double *out[APO_TILE_LANES];
    apo__cat_lanes_rows(ln, sd, io->in[0], 0, close);
    apo__cat_lanes_rows(ln, sd, io->in[0], 1, close_before);
    apo__cat_lanes_rows(ln, sd, io->in[1], 0, volume);
    apo__cat_lanes_outs(ln, io->out[0], out);
    apo_tv e = *e_io, before = *before_io;
    const size_t first = step;
    /* APO_CAT_BLOCK steps at a time: the forces computed on the samples of a block
     * (apo__cat_lanes_terms_block; a moving lane's close before a step is its row's bar before,
     * the one the step before gathered), one test of the block's forces, then the same EMA
     * steps. A held lane (past its tile's end, its outputs not stored) reads its last bar
     * before it here, where the loop below gives it a force of 0: its values are never used. */
    while (step + APO_CAT_BLOCK <= sd->to) {
        apo_tv c[APO_CAT_BLOCK], cb[APO_CAT_BLOCK], v[APO_CAT_BLOCK], y[APO_CAT_BLOCK];
        apo__cat_lanes_terms_block(close, sd, step, held, c);
        apo__cat_lanes_terms_block(close_before, sd, step, held, cb);
        apo__cat_lanes_terms_block(volume, sd, step, held, v);
        apo_tv gaps = {0};
        for (size_t j = 0; j < APO_CAT_BLOCK; j++) {
            v[j] = (c[j] - cb[j]) * v[j]; /* the force */
            gaps = gaps + (v[j] - v[j]);
        }
        if (!apo_tv_all_finite(gaps))
            break;
        apo__cat_lanes_terms_steps(v);
        for (size_t j = 0; j < APO_CAT_BLOCK; j++) {
            e = APO__EMA_FUSED(apo_tv_fma, e, v[j], k);
            y[j] = apo_tv_or_nan(e == e, e);
        }
        apo__cat_lanes_put_block(out, sd->stores, step, y);
        step += APO_CAT_BLOCK;
    }
    if (step > first) /* the close the last step gathered, as the loop below carries it */
        before = apo__cat_lanes_at(close, sd, step - 1, held);
    for (; step < sd->to; step++) {
        const apo_tv c = apo__cat_lanes_at(close, sd, step, held);
        const apo_tv force = (c - before) * apo__cat_lanes_at(volume, sd, step, held);
        if (!apo_tv_all_finite(force))
            break;
        e = APO__EMA_FUSED(apo_tv_fma, e, force, k); /* APO__EMA_STAGE seeded */
        apo__cat_lanes_put(out, sd->stores, step, apo_tv_or_nan(e == e, e));
        before = c;
    }
    *e_io = e;
    *before_io = before;
    return step;
}

static inline size_t apo__efi_steady(const apo__cat_io *io, const apo__cat_lanes *ln, size_t step,
                                     const apo__cat_steady *sd, apo_tv k, apo_tv *e,
                                     apo_tv *before) {
    return sd->held ? apo__efi_steady_copy(io, ln, step, sd, k, e, before, 1)
                    : apo__efi_steady_copy(io, ln, step, sd, k, e, before, 0);
}

/* A round of up to APO_TILE_LANES tiles side by side, one per vector lane (catalog_lanes.h says
 * how the bits stay each tile's): each lane performs apo__efi_run's operations in its order.
 * Every lane starts at its warm-up origin, whose bar gives no force; the close before each later
 * step is the one the step before gathered (a lane past its tile's end re-reads its last bar, a
 * force of 0). The round stops before the first step where a lane's close, close before or
 * volume is not finite, and each tile's scalar run goes on from its lane. edges: NULL, or one
 * per tile for its run at its begin and end (a lone tile's cut, catalog_split.h). */
static inline void apo__efi_round(const apo__cat_io *io, const apo__tile_span *tiles, size_t count,
                                  apo__cat_edge *edges) {
    apo__cat_lanes ln;
    apo__cat_lanes_start_at(&ln, io, tiles, count, 0);
    const size_t p = (size_t)io->p[0];
    const apo_tv zero = {0}, nan = zero + (double)NAN, pd = zero + (double)p,
                 k = zero + 2.0 / ((double)p + 1.0);
    apo_tv e = zero, before = zero;
    size_t counts[2] = {0, 0}, step = 0; /* seen, past the first: n[0 .. 1] */
    for (; step < ln.steps; step++) {
        if (edges != NULL && step == ln.edge_step)
            apo__cat_lanes_edges(&ln, tiles, step, counts, 2, &e, 1, edges);
        const apo__cat_steady sd = p > 1 && counts[0] == p && counts[1]
                                       ? apo__cat_lanes_steady(&ln, tiles, step, edges)
                                       : apo__cat_steady_none(step);
        if (sd.to > step) {
            const size_t next = apo__efi_steady(io, &ln, step, &sd, k, &e, &before);
            if (next > step) {
                step = next - 1; /* the loop's top takes `next` */
                continue;
            }
        }
        const apo_tv c = apo__cat_lanes_load(io->in[0], &ln, step, 0);
        const apo_tv v = apo__cat_lanes_load(io->in[1], &ln, step, 0);
        apo_tv y = nan;
        if (counts[1]) {
            if (!apo_tv_all_finite(c) || !apo_tv_all_finite(before) || !apo_tv_all_finite(v))
                break;
            const apo_tv force = (c - before) * v;
            e = p == 1 && counts[0] == p ? force : APO__EMA_STAGE_TV(e, force, counts[0], p, pd, k);
            counts[0] += counts[0] < p;
            if (counts[0] == p)
                y = apo_tv_or_nan(e == e, e);
        }
        counts[1] = 1;
        before = c;
        apo__cat_lanes_store(io->out[0], &ln, tiles, step, y);
    }
    apo__cat_lanes_stop(&ln, step, counts, 2);
    for (size_t j = 0; j < count; j++) {
        ln.run[j].v[0] = e[j];
        apo__efi_run(io, tiles[j].begin, tiles[j].end, &ln.run[j]);
        if (edges != NULL)
            apo__cat_lanes_tail(&ln, j, edges);
    }
}
#endif

APO_CAT_RUN_ENTRIES(efi, apo__efi_start(io, begin, r), apo__efi_run(io, begin, end, r))

#endif /* APO_KERNELS_EFI_TILE_H */
