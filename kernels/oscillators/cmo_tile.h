/*
 * cmo_tile.h: CMO(timeperiod), TA-Lib's Chande momentum oscillator,
 * 100 * (g - l) / (g + l) of Wilder's averages of gains and losses: RSI's body
 * (rsi_tile.h) with the other output formula.
 */
#ifndef APO_KERNELS_CMO_TILE_H
#define APO_KERNELS_CMO_TILE_H

#include "rsi_tile.h"

static inline APO_HD void apo__cmo_tile(const apo__cat_io *io, size_t begin, size_t end) {
    apo__wilder_osc_body(io, begin, end, 1);
}

/* cmo's stream (catalog_table.h, RUN): its start at `begin` and its run to `end`. */
static inline APO_HD void apo__cmo_stream_start(const apo__cat_io *io, size_t begin,
                                                apo__cat_run *r) {
    apo__wilder_osc_start(io, begin, r);
}

static inline APO_HD void apo__cmo_stream_run(const apo__cat_io *io, size_t begin, size_t end,
                                              apo__cat_run *r) {
    apo__wilder_osc_run(io, begin, end, 1, r);
}

#endif /* APO_KERNELS_CMO_TILE_H */
