/*
 * dm_lanes.h: PLUS_DM's and MINUS_DM's tiles side by side, one per vector lane
 * (catalog_lanes.h says how the bits stay each tile's). Each lane performs dm_tile.h's
 * operations in its order: the moves of high and low, the directional movement as a select
 * on the same comparisons, the plain sum before the p-th bar and S - S / p + DM from it.
 */
#ifndef APO_KERNELS_DM_LANES_H
#define APO_KERNELS_DM_LANES_H

#include "catalog_lanes.h"
#include "dm_tile.h"

#ifdef APO_TILE_LANES

/* A round of up to APO_TILE_LANES tiles; which: APO_DMI_PLUS or APO_DMI_MINUS. edges: NULL,
 * or one per tile for its run at its begin and end (catalog_lanes.h). */
static APO_CAT_SPECIALISED void apo__dm_round(const apo__cat_io *io, const apo__tile_span *tiles,
                                              size_t count, int which, apo__cat_edge *edges) {
    apo__cat_lanes ln;
    apo__cat_lanes_start(&ln, io, tiles, count);
    const double *high = io->in[0], *low = io->in[1];
    const size_t p = (size_t)io->p[0];
    const apo_tv zero = {0}, pd = zero + (double)p, nan = zero + (double)NAN;
    apo_tv sum = zero;
    size_t seen = 0, step = 0;
    /* Each bar is gathered once, at its own step, and kept for the next one's moves, as
     * dmi_lanes.h keeps it. */
    apo_tv h_before = apo__cat_lanes_load(high, &ln, 0, 1),
           l_before = apo__cat_lanes_load(low, &ln, 0, 1);
    for (; step < ln.steps; step++) {
        if (edges != NULL && step == ln.edge_step)
            apo__cat_lanes_edges(&ln, tiles, step, &seen, 1, (const apo_tv[]){sum}, 1, edges);
        const apo_tv h = apo__cat_lanes_load(high, &ln, step, 0),
                     l = apo__cat_lanes_load(low, &ln, step, 0);
        const apo_tv up = h - h_before, down = l_before - l;
        h_before = h;
        l_before = l;
        /* The scalar body's gap test, both moves finite, in one: x - x is +0.0 where x is
         * finite, else NaN. */
        if (!apo_tv_all_finite((up - up) + (down - down)))
            break;
        const apo_tv dm = which == APO_DMI_PLUS
                              ? apo_tv_pick((up > zero) & (up > down), up, zero)
                              : apo_tv_pick((down > zero) & (down > up), down, zero);
        seen++;
        sum = seen < p ? sum + dm : sum - sum / pd + dm;
        apo__cat_lanes_store(io->out[0], &ln, tiles, step,
                             seen + 1 >= p ? apo_tv_pick(sum != sum, nan, sum) : nan);
    }
    apo__cat_lanes_stop(&ln, step, &seen, 1);
    for (size_t k = 0; k < count; k++) {
        ln.run[k].v[0] = sum[k];
        apo__dm_run(io, tiles[k].begin, tiles[k].end, which, &ln.run[k]);
        if (edges != NULL)
            apo__cat_lanes_tail(&ln, k, edges);
    }
}

#endif /* APO_TILE_LANES */

#endif /* APO_KERNELS_DM_LANES_H */
