/*
 * bollinger_stage.h: how bollinger's staged kernels set a group's streams, written once for the
 * one-warp kernel (staged_kernels.h) and the pairs of warps (bollinger_split.h), whose units
 * include bollinger_tile.h with different stores; this header includes it after them.
 */
#ifndef APO_BOLLINGER_STAGE_H
#define APO_BOLLINGER_STAGE_H

#include "bollinger_tile.h"
#include "stage.h"

/* Each lane's stream for item 32 group + lane of view v and its cursor at the tile's begin; the
 * halo the runtime staged: a tile reads from begin - (period - 1). Run by one warp. */
static inline APO_HD void apo__bollinger_stage_streams(const apo__stage_warp *w,
                                                       const apo__cuda_view *v, size_t tiles,
                                                       size_t group, size_t period,
                                                       apo__bollinger_cursor *cur) {
    APO_FOR_LANES(lane) {
        apo__chunk_item it;
        if (apo__stage_item(w, v, tiles, group, lane, &it)) {
            w->stream[lane].lo = it.begin > period - 1 ? it.begin - (period - 1) : 0;
            apo__bollinger_cursor_init(&cur[APO_LANE_SLOT(lane)], it.begin, period);
        }
    }
}

#endif /* APO_BOLLINGER_STAGE_H */
