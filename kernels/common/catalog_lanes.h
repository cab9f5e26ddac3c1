/*
 * catalog_lanes.h: the frame of a round of catalog tiles computed side by side, one tile per
 * vector lane (tile_vec.h), for the recurrences over bar-to-bar changes whose tiles start
 * with apo__cat_run_start_changes (rsi, cmo, atr, natr, plus_di, minus_di, adx).
 *
 * Why: a recurrence's chain (a multiply, an add and a divide per bar) is serial within a
 * tile, so one tile runs at the latency of that chain and leaves the divider mostly idle.
 * The tiles of a group are independent chains: in lanes, one vector chain advances up to
 * APO_TILE_LANES of them for the latency of one.
 *
 * How the bits stay a tile's: every tile starts empty at its own warm-up origin, so as long
 * as no lane meets a gap, the lanes are at the same step of the same definition (the same
 * seed counts), and each lane performs the scalar body's IEEE operations on its own tile's
 * samples. The round runs in lock-step for the steps every lane has and stops before the
 * first step where any lane meets a gap; then each tile's run state (apo__cat_run) is set to
 * where its lane stopped and the tile's scalar run goes on from there, as a stream's piece
 * would (catalog.h). Lanes past `count` repeat lane 0's tile and store nothing.
 *
 * Host only: the GPU runs one tile per thread already (kernels/<family>/<family>.cu).
 */
#ifndef APO_KERNELS_CATALOG_LANES_H
#define APO_KERNELS_CATALOG_LANES_H

#include "catalog.h"
#include "tile_span.h"
#include "tile_vec.h"

#ifdef APO_TILE_LANES

/* A round: each lane's run as its tile's start left it, and the lock-step length. */
typedef struct apo__cat_lanes {
    apo__cat_run run[APO_TILE_LANES]; /* lane k's run; run[k].t is the lane's first position */
    size_t count;                     /* lanes that hold a tile of their own and store */
    size_t steps;                     /* positions every lane has before its tile's end */
} apo__cat_lanes;

/* Starts the round's tiles (count of them, 1 <= count <= APO_TILE_LANES), as their scalar
 * bodies would (apo__cat_run_start_changes). */
static inline void apo__cat_lanes_start(apo__cat_lanes *ln, const apo__cat_io *io,
                                        const apo__tile_span *tiles, size_t count) {
    ln->count = count;
    ln->steps = (size_t)-1;
    for (size_t k = 0; k < APO_TILE_LANES; k++) {
        if (k < count) {
            apo__cat_run_start_changes(io, tiles[k].begin, &ln->run[k]);
            const size_t t = ln->run[k].t, end = tiles[k].end;
            const size_t have = end > t ? end - t : 0;
            ln->steps = have < ln->steps ? have : ln->steps;
        } else {
            ln->run[k] = ln->run[0];
        }
    }
}

/* Each lane's sample of `row` at its first position plus `step` minus `back`. */
static inline apo_tv apo__cat_lanes_load(const double *row, const apo__cat_lanes *ln, size_t step,
                                         size_t back) {
    apo_tv v;
    for (size_t k = 0; k < APO_TILE_LANES; k++)
        v[k] = row[ln->run[k].t + step - back];
    return v;
}

/* 1 when every lane of v is finite. */
static inline int apo__cat_lanes_all_finite(apo_tv v) { return apo_tm_all((v - v) == (v - v)); }

/* Writes step `step`'s outputs y of the lanes that store, at the positions in their tiles. */
static inline void apo__cat_lanes_store(double *out, const apo__cat_lanes *ln,
                                        const apo__tile_span *tiles, size_t step, apo_tv y) {
    for (size_t k = 0; k < ln->count; k++) {
        const size_t t = ln->run[k].t + step;
        if (t >= tiles[k].begin)
            out[t] = y[k];
    }
}

/* Moves each storing lane's run to the position after `done` lock-step steps, its counts
 * to n (the same in every lane: no lane met a gap), ready for its values and the scalar run. */
static inline void apo__cat_lanes_stop(apo__cat_lanes *ln, size_t done, const size_t *n,
                                       size_t n_count) {
    for (size_t k = 0; k < ln->count; k++) {
        ln->run[k].t += done;
        for (size_t c = 0; c < n_count; c++)
            ln->run[k].n[c] = n[c];
    }
}

#endif /* APO_TILE_LANES */

#endif /* APO_KERNELS_CATALOG_LANES_H */
