/*
 * pass_lanes_entry.h: bollinger's pass shared by band widths (bollinger_pass.h) in the lanes
 * of one vector path, several tiles at once: the lane kernel of bollinger_lanes.h built with
 * the pass's stores, the scalar windows' (bollinger_pass_stores.h, as bollinger_pass.c) and
 * the vector windows' (below: the sd raw into "upper" and "lower", which are one array, and
 * the mean raw into "middle", as APO_BOLLINGER_PUT_BANDS of the pass stores them). Each
 * lane computes its tile with the operations of the scalar tile body (bollinger_lanes.h),
 * so each window's mean and sd are those of apo__cpu_bollinger_pass_tile, bit for bit.
 *
 * Included once by each pass_lanes_<path>.c, after it has defined APO_LANES and
 * APO_LANES_NAME; a translation unit of its own, since the tile body's stores are fixed per
 * unit (lanes_<path>.c builds the bands).
 */
#ifndef APO_PASS_LANES_ENTRY_H
#define APO_PASS_LANES_ENTRY_H

#include "bollinger_pass.h"
#include "bollinger_pass_stores.h"

#define APO_BOLLINGER_LANES_UPPER(mean, sd, k) (sd)
#define APO_BOLLINGER_LANES_MIDDLE(mean, sd, k) (mean)
#define APO_BOLLINGER_LANES_LOWER(mean, sd, k) (sd)

#include "bollinger_lanes.h"
#include "lanes_paths.h"

void APO_LANES_NAME(apo__bollinger_pass_tiles)(const double *x, size_t cols,
                                               const apo__tile_span *tiles, size_t count,
                                               size_t period, double *mean, double *sd) {
    /* The widths reach no store; "lower" is the sd array, written with the sd only. */
    for (size_t r = 0; r < count; r += APO_LANES)
        APO_LANES_NAME(apo__bollinger_round)
    (x, cols, tiles + r, count - r < APO_LANES ? count - r : APO_LANES, period, 0.0, 0.0, sd, mean,
     sd, 0);
}

#endif /* APO_PASS_LANES_ENTRY_H */
