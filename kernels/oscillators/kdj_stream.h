/*
 * kdj_stream.h: kdj's stream entries (catalog_table.h, the stream column RUN), and the runs that
 * stoch and stochf take at a matype other than 0, which is kdj's body (stoch_ma.h).
 *
 * Where both averages are recurrences over the value at hand (kinds 13 and 11, kdj's default, 1
 * EMA and 10, and any kind at period 1: apo__kdj_both_recurrences), the body is one loop whose
 * state is the two averages (apo__kdj_ma: the values seen toward the seed, and the value), fastk
 * being a function of its window's bars (apo__fastk_at). A stream carries the two in its
 * apo__cat_run (n[1] and v[0] k's, n[2] and v[1] d's; r->t the next bar the loop takes), and an
 * update runs that loop, apo__kdj_recurrences, over its new bars only: the tile is the same loop
 * from its first fastk with empty averages, so the operations and the bits are the tile's. The
 * start stands at the tile's warm-up origin w0 = max(0, begin - h) with empty averages
 * (apo__cat_run_from's zeros) and reads nothing, so kdj takes the next tile's run ahead while
 * the last h bars of a tile arrive (its row's AHEAD, apo__cpu_catalog_resume) and the tile's
 * first bar does not run the warm-up; before 2026-12-07 every update ran kdj's body from there
 * (5,488 bars a one-bar update at kdj's defaults, 4,096 for stoch at EMA). stoch's and stochf's
 * rows have no AHEAD (their SMA's run writes every bar it passes), so their tile's first piece
 * runs the warm-up, h bars, once. At the other kinds (ma_series.h's windows, which the body
 * keeps in pieces of its own) an update still runs the body over its new positions from the
 * tile's warm-up, the cost of a NONE kernel's update (apo__kdj_from_tile); there the start stands
 * at the tile's first bar, so a run ahead, which stops before it, does nothing.
 */
#ifndef APO_KERNELS_KDJ_STREAM_H
#define APO_KERNELS_KDJ_STREAM_H

#include "catalog.h"
#include "kdj_tile.h"
#include "run_entries.h"

/* A stream's start of the tile at `begin`, kdj's parameters in io->p: at the warm-up origin
 * where the run is carried, at `begin` where each update runs the tile's body again. */
static inline APO_HD void apo__kdj_stream_begin(const apo__cat_io *io, size_t begin,
                                                apo__cat_run *r) {
    apo__cat_run_from(r, apo__kdj_both_recurrences(io->p) ? apo__cat_origin(io, begin) : begin);
}

/* kdj's body over the new positions [r->t, end) from the tile's own warm-up, begin less the
 * halo, as one call of one tile: the batch tile's operations from there. */
static inline APO_HD void apo__kdj_from_tile(const apo__cat_io *io, size_t begin, size_t end,
                                             apo__cat_run *r) {
    apo__cat_io from_tile = *io;
    from_tile.h = io->h + (r->t - begin);
    from_tile.tile = 0;
    apo__kdj_tile(&from_tile, r->t, end);
    r->t = end;
}

/* A stream's run of the tile at `begin` from r->t to `end`, kdj's parameters in io->p (no j
 * where io->out[2] is NULL). */
static inline APO_HD void apo__kdj_stream_go(const apo__cat_io *io, size_t begin, size_t end,
                                             apo__cat_run *r) {
    if (end <= r->t)
        return;
    if (!apo__kdj_both_recurrences(io->p)) {
        apo__kdj_from_tile(io, begin, end, r);
        return;
    }
    /* The tile's NaN lead, its bars before the first fastk, where the piece reaches it. */
    const size_t first = apo__cat_origin(io, begin) + (size_t)io->p[0] - 1;
    size_t t = r->t;
    if (t < first) {
        const size_t lead_end = first < end ? first : end;
        apo__kdj_nan(io, t > begin ? t : begin, lead_end);
        t = lead_end;
    }
    apo__kdj_ma k = apo__kdj_ma_make((int)io->p[2], (size_t)io->p[1]);
    apo__kdj_ma d = apo__kdj_ma_make((int)io->p[4], (size_t)io->p[3]);
    k.seen = r->n[1];
    k.a = r->v[0];
    d.seen = r->n[2];
    d.a = r->v[1];
    apo__kdj_recurrences(io, begin, t, end, &k, &d);
    r->n[1] = k.seen;
    r->v[0] = k.a;
    r->n[2] = d.seen;
    r->v[1] = d.a;
    r->t = end;
}

APO_CAT_STREAM_ENTRIES(kdj, apo__kdj_stream_begin(io, begin, r),
                       apo__kdj_stream_go(io, begin, end, r))

#endif /* APO_KERNELS_KDJ_STREAM_H */
