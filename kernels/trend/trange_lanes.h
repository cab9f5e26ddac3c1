/*
 * trange_lanes.h: the true range of each lane of a round of tiles (catalog_lanes.h), for the
 * recurrences that smooth it (atr_lanes.h, dmi_lanes.h). Each lane calls trange_tile.h's
 * scalar function at its own position: the same bits by construction, and the three loads
 * and compares per lane are work beside the chain, which is what bounds a round.
 */
#ifndef APO_KERNELS_TRANGE_LANES_H
#define APO_KERNELS_TRANGE_LANES_H

#include "catalog_lanes.h"
#include "trange_tile.h"

#ifdef APO_TILE_LANES

/* Each lane's true range at its position at `step` (apo__cat_lanes_at). */
static inline apo_tv apo__true_range_lanes(const apo__cat_io *io, const apo__cat_lanes *ln,
                                           size_t step) {
    apo_tv tr = {0};
    for (size_t k = 0; k < APO_TILE_LANES; k++)
        tr[k] = apo__true_range(io->in[0], io->in[1], io->in[2], apo__cat_lanes_at(ln, k, step));
    return tr;
}

#endif /* APO_TILE_LANES */

#endif /* APO_KERNELS_TRANGE_LANES_H */
