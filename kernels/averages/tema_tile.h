/*
 * tema_tile.h: TEMA(timeperiod), TA-Lib's triple EMA, e3 + ((3 * e1) - (3 * e2)): the chain
 * of dema_tile.h with three stages.
 */
#ifndef APO_KERNELS_TEMA_TILE_H
#define APO_KERNELS_TEMA_TILE_H

#include "dema_tile.h"

static inline APO_HD void apo__tema_tile(const apo__cat_io *io, size_t begin, size_t end) {
    apo__ema_chain_body(io, begin, end, 3);
}

#endif /* APO_KERNELS_TEMA_TILE_H */
