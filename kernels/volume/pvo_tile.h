/*
 * pvo_tile.h: PVO(fastperiod, slowperiod, matype), TA-Lib 0.8's percentage volume oscillator:
 * ppo's definition applied to the volume, `((fast - slow) / slow) * 100` of the fast and slow
 * MA(matype) of the volume, 0 where the slow MA is exactly 0; the periods swapped where
 * slowperiod < fastperiod, as TA-Lib does (its PVO and PPO agree bit for bit on a volume). Input
 * volume; TA-Lib 0.8's default matype is 1 (EMA), as ppo's. The body is ppo's
 * (oscillators/apo_tile.h: the two averages, its halo and gaps; its stream, apo_stream.h),
 * reading the volume as its one input.
 */
#ifndef APO_KERNELS_PVO_TILE_H
#define APO_KERNELS_PVO_TILE_H

#include "apo_stream.h"
#include "apo_tile.h"

static inline APO_HD void apo__pvo_tile(const apo__cat_io *io, size_t begin, size_t end) {
    apo__ppo_tile(io, begin, end);
}

APO_CAT_STREAM_ENTRIES(pvo, apo__price_osc_stream_begin(io, begin, r),
                       apo__price_osc_stream_go(io, begin, end, 1, r))

#endif /* APO_KERNELS_PVO_TILE_H */
