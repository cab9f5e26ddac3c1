/*
 * atr_lanes.h: ATR's and NATR's tiles side by side, one per vector lane (catalog_lanes.h says
 * how the bits stay each tile's). Each lane's true range is trange_tile.h's (trange_lanes.h),
 * and its average and normalisation are atr_tile.h's operations in the same order.
 */
#ifndef APO_KERNELS_ATR_LANES_H
#define APO_KERNELS_ATR_LANES_H

#include "atr_tile.h"
#include "catalog_lanes.h"
#include "trange_lanes.h"

#ifdef APO_TILE_LANES

/* NATR's y / close * 100 where y is finite (NaN made canonical, 0 where close is 0), as
 * apo__atr_run writes it. */
static inline apo_tv apo__natr_lanes(apo_tv y, apo_tv close) {
    const apo_tv zero = {0};
    apo_tv ratio = y / close * (zero + 100.0);
    ratio = apo_tv_pick(ratio != ratio, zero + (double)NAN, ratio);
    ratio = apo_tv_pick(close == zero, zero, ratio);
    return apo_tv_pick((y - y) == (y - y), ratio, y);
}

/* The round's steady steps from `step` to sd.to (catalog_lanes.h), every lane's average seeded:
 * apo__atr_round's operations for them, in the copy for sd.held (a constant). A true range
 * that is not finite (a gap) stops it. Returns the first step not taken. */
static APO_CAT_SPECIALISED size_t apo__atr_steady_copy(const apo__cat_io *io,
                                                       const apo__cat_lanes *ln, size_t step,
                                                       const apo__cat_steady *sd, int normalize,
                                                       apo_tv keep, apo_tv rest, apo_tv *a_io,
                                                       const int held) {
    const double *high[APO_TILE_LANES], *low[APO_TILE_LANES], *before[APO_TILE_LANES],
        *close[APO_TILE_LANES];
    double *out[APO_TILE_LANES];
    apo__cat_lanes_rows(ln, sd, io->in[0], 0, high);
    apo__cat_lanes_rows(ln, sd, io->in[1], 0, low);
    apo__cat_lanes_rows(ln, sd, io->in[2], 1, before);
    apo__cat_lanes_rows(ln, sd, io->in[2], 0, close);
    apo__cat_lanes_outs(ln, io->out[0], out);
    apo_tv a = *a_io;
    /* APO_CAT_BLOCK steps at a time: the same operations, the true ranges computed on the
     * samples of a block (apo__cat_lanes_terms_block), and one test of the block: the sum of each
     * bar's three differences is finite only where its high, low and close before are and none of
     * the differences overflows, and there apo__true_range_of is its finite form. A block that
     * fails the test (it may fail where the sum alone overflows) is left to the loop below,
     * which takes its steps one by one and stops at a true range that is not finite. */
    while (step + APO_CAT_BLOCK <= sd->to) {
        apo_tv h[APO_CAT_BLOCK], l[APO_CAT_BLOCK], b[APO_CAT_BLOCK], c[APO_CAT_BLOCK],
            tr[APO_CAT_BLOCK], y[APO_CAT_BLOCK];
        apo__cat_lanes_terms_block(high, sd, step, held, h);
        apo__cat_lanes_terms_block(low, sd, step, held, l);
        apo__cat_lanes_terms_block(before, sd, step, held, b);
        apo_tv gaps = {0};
        for (size_t j = 0; j < APO_CAT_BLOCK; j++) {
            const apo_tv sum = (h[j] - l[j]) + (b[j] - h[j]) + (l[j] - b[j]);
            gaps = gaps + (sum - sum);
            tr[j] = apo__true_range_of_finite(h[j], l[j], b[j]);
        }
        apo__cat_lanes_terms_steps(tr);
        if (!apo_tv_all_finite(gaps))
            break;
        if (normalize)
            apo__cat_lanes_block(close, sd, step, held, c);
        for (size_t j = 0; j < APO_CAT_BLOCK; j++) {
            a = APO__WILDER_NEXT(apo_tv_fma, a, tr[j], keep, rest);
            y[j] = normalize ? apo__natr_lanes(a, c[j]) : a;
        }
        apo__cat_lanes_put_block(out, sd->stores, step, y);
        step += APO_CAT_BLOCK;
    }
    for (; step < sd->to; step++) {
        const apo_tv tr = apo__true_range_of(apo__cat_lanes_at(high, sd, step, held),
                                             apo__cat_lanes_at(low, sd, step, held),
                                             apo__cat_lanes_at(before, sd, step, held));
        if (!apo_tv_all_finite(tr))
            break;
        a = APO__WILDER_NEXT(apo_tv_fma, a, tr, keep, rest);
        apo__cat_lanes_put(out, sd->stores, step,
                           normalize ? apo__natr_lanes(a, apo__cat_lanes_at(close, sd, step, held))
                                     : a);
    }
    *a_io = a;
    return step;
}

static inline size_t apo__atr_steady(const apo__cat_io *io, const apo__cat_lanes *ln, size_t step,
                                     const apo__cat_steady *sd, int normalize, apo_tv keep,
                                     apo_tv rest, apo_tv *a) {
    return sd->held ? apo__atr_steady_copy(io, ln, step, sd, normalize, keep, rest, a, 1)
                    : apo__atr_steady_copy(io, ln, step, sd, normalize, keep, rest, a, 0);
}

/* A round of up to APO_TILE_LANES tiles; normalize 1: NATR. edges: NULL, or one per tile for
 * its run at its begin and end (catalog_lanes.h). */
static APO_CAT_SPECIALISED void apo__atr_round(const apo__cat_io *io, const apo__tile_span *tiles,
                                               size_t count, int normalize, apo__cat_edge *edges) {
    apo__cat_lanes ln;
    apo__cat_lanes_start(&ln, io, tiles, count);
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
            const size_t next = apo__atr_steady(io, &ln, step, &sd, normalize, keep, rest, &a);
            if (next > step) {
                step = next - 1; /* the loop's top takes `next` */
                continue;
            }
        }
        const apo_tv tr = apo__true_range_lanes(io, &ln, step);
        if (!apo_tv_all_finite(tr))
            break;
        apo_tv y = nan;
        APO__WILDER_STEP_TV(seen, p, sum, a, tr, pd, keep, rest, y);
        if (normalize && seen >= p)
            y = apo__natr_lanes(y, apo__cat_lanes_load(io->in[2], &ln, step, 0));
        apo__cat_lanes_store(io->out[0], &ln, tiles, step, y);
    }
    apo__cat_lanes_stop(&ln, step, &seen, 1);
    for (size_t k = 0; k < count; k++) {
        ln.run[k].v[0] = sum[k];
        ln.run[k].v[1] = a[k];
        apo__atr_run(io, tiles[k].begin, tiles[k].end, normalize, &ln.run[k]);
        if (edges != NULL)
            apo__cat_lanes_tail(&ln, k, edges);
    }
}

#endif /* APO_TILE_LANES */

#endif /* APO_KERNELS_ATR_LANES_H */
