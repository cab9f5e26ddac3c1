/*
 * lone_tile_cut.h: how a lone tile of a recurrence is cut into pieces that run side by side
 * in vector lanes, shared by macd (apo__cpu_macd_split_tile, lanes_dispatch.c) and the Wilder
 * recurrences (catalog_split.h).
 *
 * Why: a lone tile is one serial chain, paced by the latency of its step, while the lanes
 * of its path idle. Each piece after the first starts from its own warm-up of h samples, so
 * its states at its cut are almost always the whole tile's to the bit; the caller checks
 * that they are and computes a piece again serially from the piece before's where not, so
 * the outputs are the scalar tile's whatever the data (docs/kernels-vector-paths.md, "A lone macd
 * tile in lanes", "A lone Wilder tile in lanes").
 */
#ifndef APO_KERNELS_LONE_TILE_CUT_H
#define APO_KERNELS_LONE_TILE_CUT_H

#include <stddef.h>

#include "tile_span.h"

/* The fewest outputs of a piece: every piece must have some (a recurrence with no warm-up
 * would otherwise cut a tile of 2 bars), and a cut of a shorter tile saves less than the
 * round's setup. */
#define APO_CUT_MIN_PIECE 64

/* The most pieces: the lanes of the widest path. */
#define APO_CUT_MAX_PIECES 8

/* The pieces a lone tile of len samples with warm-up h is cut into on a path of `lanes`
 * lanes: all of them, or 1 (no cut). A piece runs its warm-up h and len / lanes outputs and
 * a lane step costs about what a scalar step does (both wait on the chain's latency), so the
 * cut pays when that is at most `quarters` / 4 of len: macd cuts at half (2), measured when
 * its cut was built; the Wilder recurrences at three quarters (3), where their pieces
 * measured 0.58 of the serial time at 0.59 of its steps (docs/PERF.md). */
static inline size_t apo__cut_pieces(size_t len, size_t h, size_t lanes, size_t quarters) {
    if (lanes < 2 || lanes > APO_CUT_MAX_PIECES || len < APO_CUT_MIN_PIECE * lanes ||
        h + len / lanes > len / 4 * quarters)
        return 1;
    return lanes;
}

/* spans[0 .. pieces) of row 0: the cut of [begin, end). Every piece but the first runs a
 * whole warm-up before its outputs, the first only what lies before `begin` (none at a row's
 * start): the first gets that much more of the outputs, so that all lanes run about the same
 * number of steps. */
static inline void apo__cut_spans(size_t begin, size_t end, size_t h, size_t pieces,
                                  apo__tile_span *spans) {
    const size_t len = end - begin;
    const size_t h0 = begin < h ? begin : h;
    const size_t first = (len + h0 + (pieces - 1) * h) / pieces - h0;
    const size_t rest = len - first;
    for (size_t j = 0; j < pieces; j++) {
        spans[j].row = 0;
        spans[j].begin = j == 0 ? begin : begin + first + rest * (j - 1) / (pieces - 1);
        spans[j].end = begin + first + rest * j / (pieces - 1);
    }
}

#endif /* APO_KERNELS_LONE_TILE_CUT_H */
