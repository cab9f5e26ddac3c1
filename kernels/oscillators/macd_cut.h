/*
 * macd_cut.h: how a macd tile cut into pieces that ran side by side is made the tile's, shared by
 * the CPU's split of a lone tile (apo__cpu_macd_split_tile, dispatch/lanes_dispatch.c: the pieces
 * in vector lanes) and a GPU's cut launch (kernels/cuda/staged_kernels.h: the pieces in the
 * lanes of staged warps). APO_HD.
 *
 * Why it is exact: piece 0 is the tile's own start; piece j > 0 is the tile [cut_j, end_j) of a
 * grid that starts at cut_j, run from its own warm-up, whose seeds have decayed below 2^-64 of
 * the data by cut_j (docs/kernels.md, macd), so its states there are almost always the whole
 * tile's to the bit. Its outputs are those steady steps from its states, so where its states at
 * cut_j are the whole tile's (known once piece j - 1 stands) they are the tile's outputs; where
 * not, the piece is computed again, serially, from the whole tile's states, as the tile's own
 * steps compute it.
 */
#ifndef APO_MACD_CUT_H
#define APO_MACD_CUT_H

#include "lone_tile_cut.h"
#include "macd_tile.h"

/* Whether two EMA states are the same bits (a NaN's payload and a zero's sign included). */
static inline APO_HD int apo__macd_same_states(const double a[3], const double b[3]) {
    return apo__cut_same_bits(a, b, 3);
}

/*
 * The walk over the pieces [0, pieces) of the tile [begin, end) (apo__cut_span with warm-up h),
 * each of which ran from its own start and recorded edges[j]: piece j's outputs stand where it
 * was steady and its head is the whole tile's states at its cut (piece j - 1's tail, once that
 * piece stands); otherwise piece j is computed again from those states with apo__macd_finish,
 * its outputs overwritten. Returns the pieces computed again. Where piece 0 did not run to its
 * end in steady steps (its seeds not done within it: gaps), nothing is done and *whole is set:
 * the caller computes the tile serially (apo__macd_tile_at).
 */
static inline APO_HD size_t apo__macd_mend(apo__in x, size_t begin, size_t end, size_t h,
                                           size_t pieces, const apo__macd_edges *edges,
                                           const apo__macd_rates *r, apo__out macd,
                                           apo__out signal_line, apo__out hist, int *whole) {
    *whole = !edges[0].ran;
    if (*whole) {
        return pieces - 1;
    }
    double states[3]; /* the whole tile's states at the end of the piece before j */
    for (int i = 0; i < 3; i++) {
        states[i] = edges[0].tail[i];
    }
    size_t redone = 0;
    for (size_t j = 1; j < pieces; j++) {
        if (edges[j].steady && apo__macd_same_states(states, edges[j].head)) {
            for (int i = 0; i < 3; i++) {
                states[i] = edges[j].tail[i];
            }
            continue;
        }
        /* Piece j again, serially, from the whole tile's states: the steady steps of
         * apo__macd_step, as the tile itself runs them. */
        const apo__tile_span s = apo__cut_span(begin, end, h, pieces, j);
        apo__macd_state st;
        st.t = s.begin;
        st.end = s.end;
        st.ef = states[0];
        st.es = states[1];
        st.eg = states[2];
        st.macd = macd;
        st.signal_line = signal_line;
        st.hist = hist;
        apo__macd_finish(x, r, &st);
        states[0] = st.ef;
        states[1] = st.es;
        states[2] = st.eg;
        redone++;
    }
    return redone;
}

#endif /* APO_MACD_CUT_H */
