/*
 * rsi_lanes.h: RSI's and CMO's tiles side by side, one per vector lane (catalog_lanes.h says
 * how the bits stay each tile's). Each lane performs rsi_tile.h's operations in its order:
 * the gain d or +0.0 and the loss -d or +0.0 into both averages.
 */
#ifndef APO_KERNELS_RSI_LANES_H
#define APO_KERNELS_RSI_LANES_H

#include "catalog_lanes.h"
#include "rsi_tile.h"

#ifdef APO_TILE_LANES

/* The round's steady steps from `step` to sd.to (catalog_lanes.h), every lane's averages
 * seeded: apo__wilder_osc_round's operations for them, in the copy for sd.held (a constant). A
 * sample that is not finite (a gap) stops it. Returns the first step not taken. */
static APO_CAT_SPECIALISED size_t apo__wilder_osc_steady_copy(const apo__cat_io *io,
                                                              const apo__cat_lanes *ln, size_t step,
                                                              const apo__cat_steady *sd, int cmo,
                                                              apo_tv pd, apo_tv keep, apo_tv *g_io,
                                                              apo_tv *l_io, apo_tv *before_io,
                                                              const int held) {
    const double *x[APO_TILE_LANES];
    double *out[APO_TILE_LANES];
    apo__cat_lanes_rows(ln, sd, io->in[0], 0, x);
    apo__cat_lanes_outs(ln, io->out[0], out);
    const apo_tv zero = {0}, hundred = zero + 100.0;
    apo_tv g = *g_io, l = *l_io, before = *before_io;
    for (; step < sd->to; step++) {
        const apo_tv now = apo__cat_lanes_at(x, sd, step, held);
        if (!apo_tv_all_finite(now))
            break;
        const apo_tv d = now - before;
        before = now;
        const apo_tm falls = d < zero;
        g = (g * keep + apo_tv_pick(falls, zero, d)) / pd; /* APO__WILDER_OSC_STEP seeded */
        l = (l * keep + apo_tv_pick(falls, -d, zero)) / pd;
        const apo_tv s = g + l;
        const apo_tv ratio = cmo ? hundred * ((g - l) / s) : hundred * (g / s);
        apo__cat_lanes_put(out, sd->stores, step, apo_tv_pick(s == zero, zero, ratio));
    }
    *g_io = g;
    *l_io = l;
    *before_io = before;
    return step;
}

static inline size_t apo__wilder_osc_steady(const apo__cat_io *io, const apo__cat_lanes *ln,
                                            size_t step, const apo__cat_steady *sd, int cmo,
                                            apo_tv pd, apo_tv keep, apo_tv *g, apo_tv *l,
                                            apo_tv *before) {
    return sd->held ? apo__wilder_osc_steady_copy(io, ln, step, sd, cmo, pd, keep, g, l, before, 1)
                    : apo__wilder_osc_steady_copy(io, ln, step, sd, cmo, pd, keep, g, l, before, 0);
}

/* A round of up to APO_TILE_LANES tiles; cmo 0: RSI, 1: CMO. edges: NULL, or one per tile
 * for its run at its begin and end (catalog_lanes.h). */
static APO_CAT_SPECIALISED void apo__wilder_osc_round(const apo__cat_io *io,
                                                      const apo__tile_span *tiles, size_t count,
                                                      int cmo, apo__cat_edge *edges) {
    apo__cat_lanes ln;
    apo__cat_lanes_start(&ln, io, tiles, count);
    const double *x = io->in[0];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0];
    const apo_tv zero = {0}, pd = zero + (double)p, keep = zero + (double)(p - 1),
                 hundred = zero + 100.0, nan = zero + (double)NAN;
    apo_tv g = zero, l = zero;
    size_t seen = 0, step = 0;
    apo_tv before = apo__cat_lanes_load(x, &ln, 0, 1);
    /* Each step's `before` is the last step's `now`, tested there: only the first is tested
     * here, which keeps one test on each step's path. */
    if (!apo_tv_all_finite(before))
        ln.steps = 0;
    for (; step < ln.steps; step++) {
        if (edges != NULL && step == ln.edge_step)
            apo__cat_lanes_edges(&ln, tiles, step, &seen, 1, (const apo_tv[]){g, l}, 2, edges);
        const apo__cat_steady sd =
            seen >= p ? apo__cat_lanes_steady(&ln, tiles, step, edges) : apo__cat_steady_none(step);
        if (sd.to > step) {
            const size_t next =
                apo__wilder_osc_steady(io, &ln, step, &sd, cmo, pd, keep, &g, &l, &before);
            if (next > step) {
                step = next - 1; /* the loop's top takes `next` */
                continue;
            }
        }
        const apo_tv now = apo__cat_lanes_load(x, &ln, step, 0);
        if (!apo_tv_all_finite(now))
            break;
        const apo_tv d = now - before;
        before = now;
        const apo_tm falls = d < zero;
        const apo_tv gain = apo_tv_pick(falls, zero, d);
        const apo_tv loss = apo_tv_pick(falls, -d, zero);
        int ready = 1;
        APO__WILDER_OSC_STEP(seen, p, g, l, gain, loss, pd, keep, ready);
        apo_tv y = nan;
        if (ready) {
            const apo_tv s = g + l;
            const apo_tv ratio = cmo ? hundred * ((g - l) / s) : hundred * (g / s);
            y = apo_tv_pick(s == zero, zero, ratio);
        }
        apo__cat_lanes_store(out, &ln, tiles, step, y);
    }
    apo__cat_lanes_stop(&ln, step, &seen, 1);
    for (size_t k = 0; k < count; k++) {
        ln.run[k].v[0] = g[k];
        ln.run[k].v[1] = l[k];
        apo__wilder_osc_run(io, tiles[k].begin, tiles[k].end, cmo, &ln.run[k]);
        if (edges != NULL)
            apo__cat_lanes_tail(&ln, k, edges);
    }
}

#endif /* APO_TILE_LANES */

#endif /* APO_KERNELS_RSI_LANES_H */
