/*
 * catalog_split.h: a lone tile of a Wilder recurrence (rsi, cmo, atr, natr, plus_di,
 * minus_di, adx, dx, plus_dm, minus_dm, rma) or of an EMA (zlema, efi) or EMA chain (dema,
 * tema, t3, tsi: the kernels of apo__catalog_cuts) cut into pieces that run as one round of lanes
 * (catalog_lanes.h), for the vector path whose catalog_entry.h includes it.
 *
 * Why: a row of fewer bars than two tiles (1e4 bars at timeperiod 50: one tile of 11230) is
 * one serial chain, a multiply, an add and a divide a bar, while the lanes idle. The cut is
 * lone_tile_cut.h's: piece 0 is the tile's own start; piece j > 0 is the tile [cut_j,
 * cut_j+1) of the grid, started at its own warm-up origin cut_j - h as every tile is, so its
 * seeds' influence has decayed below 2^-64 of the data by cut_j (the halo's definition,
 * catalog_dispatch.c) and its run at cut_j is almost always the whole tile's to the bit.
 *
 * How the bits stay the scalar tile's: the round records each piece's run where its outputs
 * start (head) and where its tile ends (tail); piece j's outputs stand when its head is the
 * whole tile's run at cut_j, that is the tail of piece j - 1 when that piece stands. Where
 * it is not (a seed not forgotten to the bit, a gap in the warm-up or the lock-step stopped
 * before the head), piece j is computed again by the scalar run from piece j - 1's tail, the
 * step a stream's resumed piece takes (apo__catalog_run_to), and the next piece is checked
 * against that. The check is what makes the cut exact, the warm-up only what makes it pay.
 */
#ifndef APO_KERNELS_CATALOG_SPLIT_H
#define APO_KERNELS_CATALOG_SPLIT_H

#include "catalog_dispatch.h"
#include "catalog_paths.h"
#include "catalog_rounds.h"
#include "lone_tile_cut.h"

#ifdef APO_TILE_LANES

/* The tile [begin, end) of a kernel apo__catalog_cuts() takes, cut where that pays
 * (apo__cut_pieces); returns the pieces computed again serially, or (size_t)-1 when the tile
 * is not cut (and nothing was computed: the caller runs its scalar body). */
static size_t apo__catalog_cut_tile(apo__cat_id id, const apo__cat_io *io, size_t begin,
                                    size_t end) {
    const size_t pieces =
        apo__catalog_cuts(id)
            ? apo__cut_pieces(end - begin, io->h, APO_TILE_LANES, APO_CATALOG_CUT_QUARTERS)
            : 1;
    if (pieces < 2)
        return (size_t)-1;
    apo__tile_span spans[APO_CUT_MAX_PIECES];
    apo__cat_edge edges[APO_CUT_MAX_PIECES];
    apo__cut_spans(begin, end, io->h, pieces, spans);
    apo__cat_edges_clear(edges, pieces);
    if (!apo__catalog_edge_round(id, io, spans, pieces, edges))
        return (size_t)-1; /* no round of lanes: nothing computed, the scalar body runs */
    /* run: the whole tile's run at the end of piece j - 1, known as piece 0's tail (piece 0
     * is the tile's own start) and then piece by piece. */
    const size_t p = (size_t)io->p[0];
    apo__cat_run run = edges[0].tail;
    size_t redone = 0;
    for (size_t j = 1; j < pieces; j++) {
        if (edges[j].has_head && apo__cat_runs_alike(id, &run, &edges[j].head, p)) {
            run = edges[j].tail;
            continue;
        }
        apo__catalog_run_to(id, io, spans[j].begin, spans[j].end, &run);
        redone++;
    }
    return redone;
}

#endif /* APO_TILE_LANES */

#endif /* APO_KERNELS_CATALOG_SPLIT_H */
