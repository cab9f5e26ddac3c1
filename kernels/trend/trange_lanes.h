/*
 * trange_lanes.h: the true range of each lane of a round of tiles (catalog_lanes.h), for the
 * recurrence that smooths it (atr_lanes.h; dmi_lanes.h keeps each bar for the next step and
 * calls the vector body itself). The lanes' three samples are
 * gathered into vectors and compared as trange_tile.h's vector body compares them, lane for
 * lane the scalar function's operations: a lane by lane call cost about a serial step per
 * step of lanes (docs/PERF.md).
 */
#ifndef APO_KERNELS_TRANGE_LANES_H
#define APO_KERNELS_TRANGE_LANES_H

#include "catalog_lanes.h"
#include "trange_tile.h"

#ifdef APO_TILE_LANES

/* Each lane's true range at its position at `step` (apo__cat_lanes_load), from the lanes'
 * samples gathered once into vectors (apo__true_range_of), given the lanes' high and low. */
static inline apo_tv apo__true_range_lanes_of(const apo__cat_io *io, const apo__cat_lanes *ln,
                                              size_t step, apo_tv high, apo_tv low) {
    return apo__true_range_of(high, low, apo__cat_lanes_load(io->in[2], ln, step, 1));
}

/* Each lane's true range at its position at `step` (apo__cat_lanes_load). */
static inline apo_tv apo__true_range_lanes(const apo__cat_io *io, const apo__cat_lanes *ln,
                                           size_t step) {
    return apo__true_range_lanes_of(io, ln, step, apo__cat_lanes_load(io->in[0], ln, step, 0),
                                    apo__cat_lanes_load(io->in[1], ln, step, 0));
}

#endif /* APO_TILE_LANES */

#endif /* APO_KERNELS_TRANGE_LANES_H */
