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

/* tema's stream (catalog_table.h, RUN): its start at `begin` and its run to `end`. */
static inline APO_HD void apo__tema_stream_start(const apo__cat_io *io, size_t begin,
                                                 apo__cat_run *r) {
    apo__ema_chain_start(io, begin, r);
}

static inline APO_HD void apo__tema_stream_run(const apo__cat_io *io, size_t begin, size_t end,
                                               apo__cat_run *r) {
    apo__ema_chain_run(io, begin, end, 3, r);
}

#endif /* APO_KERNELS_TEMA_TILE_H */
