/*
 * bollinger_split_emulation.c: the host emulation of bollinger's pairs of warps
 * (bollinger_split.cu), for the unit tests; a unit of its own, since bollinger_split.h sets the
 * tile body's stores.
 *
 * What: the launcher of bollinger_split.cu with its launch replaced by a loop over the groups
 * that calls the same pair function (bollinger_split.h), the two warps' phases of each trip in
 * turn, the chain's first (so the finish reads a segment after the chain has computed the next
 * one, as the GPU may). Where the pair does not apply (a period above 32), what the launcher
 * then runs: apo__emulate_bollinger.
 */
#define APO_STAGED_ACCESS 1

#include "staged_emulation.h"

#define APO_STAGE_NOTE_PASS(uniform) apo__emulate_note_pass(uniform)

#include <stdlib.h>

#include "bollinger_split.h"

int apo__emulate_bollinger_split(const apo__cuda_view *v, size_t period, double nbdev_up,
                                 double nbdev_dn) {
    apo__stage_geom g;
    if (v == NULL || v->tile == 0 || v->x == NULL || period < 1 || v->out[0] == NULL ||
        v->out[1] == NULL || v->out[2] == NULL || v->rows == 0 || v->begin >= v->end ||
        !apo__bollinger_split_geom(&g, period)) {
        return apo__emulate_bollinger(v, period, nbdev_up, nbdev_dn);
    }
    void *block = malloc(apo__bollinger_split_bytes(&g));
    if (block == NULL) {
        return -1;
    }
    apo__stage_warp w;
    apo__stage_warp_init(&w, block, &g);
    const size_t tiles = apo__chunk_tiles(v);
    const size_t groups = (v->rows * tiles + APO_STAGE_LANES - 1) / APO_STAGE_LANES;
    for (size_t group = 0; group < groups; ++group) {
        apo__bollinger_split_pair(&w, v, tiles, group, period, nbdev_up, nbdev_dn);
    }
    free(block);
    return APO_EMULATED_SPLIT;
}
