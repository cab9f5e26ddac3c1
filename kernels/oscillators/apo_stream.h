/*
 * apo_stream.h: the stream entries of apo and ppo (catalog_table.h, the stream column RUN), and
 * pvo's, which is ppo's body over the volume (volume/pvo_tile.h).
 *
 * At two EMAs (matype 1, TA-Lib 0.8's default, both periods above 1: apo__price_osc_ema_loop)
 * the body is one loop whose state is the two averages (apo__price_osc_emas, apo_tile.h). A
 * stream carries them in its apo__cat_run and an update runs that loop over its new bars only:
 * the tile is the same loop from its warm-up origin with empty averages, so the operations and
 * the bits are the tile's. The start stands at that origin and reads nothing, so the rows take
 * the next tile's run ahead (AHEAD, apo__cpu_catalog_resume) and a tile's first bar does not run
 * the warm-up. Until 2026-12-07 every update ran the tile again from its warm-up. At the other
 * matypes (ma_pieces.h's averages, kept in pieces of their own) an update still does (the
 * cost of a NONE kernel's update); there the start stands at the tile's first bar, so a run
 * ahead, which stops before it, does nothing.
 */
#ifndef APO_KERNELS_APO_STREAM_H
#define APO_KERNELS_APO_STREAM_H

#include "apo_tile.h"
#include "catalog.h"
#include "run_entries.h"

/* A stream's start of the tile at `begin`: at the warm-up origin where the EMAs' loop is
 * carried, at `begin` where each update runs the tile's body again. */
static inline APO_HD void apo__price_osc_stream_begin(const apo__cat_io *io, size_t begin,
                                                      apo__cat_run *r) {
    const size_t origin = apo__cat_origin(io, begin);
    apo__cat_run_from(r, apo__price_osc_ema_loop(io->p) ? origin : begin);
}

/* A stream's run of the tile at `begin` from r->t to `end`: the EMAs' loop from where the last
 * update stopped, or the whole tile to `end` again, its outputs from `begin` (a stream's rows
 * hold the tile from its start): an SMA's or a WMA's pieces start at the tile's `begin` with
 * their first window's sums (ma_pieces.h), so a body started at a later bar would be another
 * tile's and give other bits. */
static inline APO_HD void apo__price_osc_stream_go(const apo__cat_io *io, size_t begin, size_t end,
                                                   int percent, apo__cat_run *r) {
    if (end <= r->t)
        return;
    if (apo__price_osc_ema_loop(io->p)) {
        size_t fast, slow;
        apo__price_osc_periods(io->p, &fast, &slow);
        apo__price_osc_emas(io, fast, slow, begin, end, percent, r);
        return;
    }
    apo__price_osc_tile(io, begin, end, percent);
    r->t = end;
}

APO_CAT_STREAM_ENTRIES(apo, apo__price_osc_stream_begin(io, begin, r),
                       apo__price_osc_stream_go(io, begin, end, 0, r))
APO_CAT_STREAM_ENTRIES(ppo, apo__price_osc_stream_begin(io, begin, r),
                       apo__price_osc_stream_go(io, begin, end, 1, r))

#endif /* APO_KERNELS_APO_STREAM_H */
