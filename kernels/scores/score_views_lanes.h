/*
 * score_views_lanes.h: the `/compound`, `/log` and `/more` views of the scored fold in vector
 * lanes (score_lanes.h, score_lone_lanes.h): the compounded equity and the `/more` view's book
 * of trades (apo__score_more, score_more.h) in lanes, each step the scalar body's operations
 * in its order.
 *
 * Included by score_lanes.h, once per vector path (lanes.h).
 */
#ifndef APO_SCORE_VIEWS_LANES_H
#define APO_SCORE_VIEWS_LANES_H

#include "score_lanes_base.h"

/* The compounded equity of the `/compound` and `/log` views in lanes (apo__score_more's
 * equity, epeak, dd_num and dd_den), beside the plain fold's state. */
typedef struct apo__score_lanes_more {
    apo_vd equity, epeak, dd_num, dd_den;
} apo__score_lanes_more;

/* The rest of the `/more` view's statistics in lanes, its book of trades (apo__score_more's
 * down_sq, units, trade, won, lost, held, closed and wins): the counts and the held side as
 * doubles, exact (the counts below 2^53, the side -1, 0 or +1, never -0, as a position). */
typedef struct apo__score_lanes_book {
    apo_vd down_sq, units, trade, won, lost, held, closed, wins;
} apo__score_lanes_book;

/* The compounded equity of m into lane l of `c` (apo__score_fold_round takes it back out). */
static inline void apo__score_lanes_more_lane(apo__score_lanes_more *c, size_t l,
                                              const apo__score_more *m) {
    c->equity = apo_vd_with_lane(c->equity, l, m->equity);
    c->epeak = apo_vd_with_lane(c->epeak, l, m->epeak);
    c->dd_num = apo_vd_with_lane(c->dd_num, l, m->dd_num);
    c->dd_den = apo_vd_with_lane(c->dd_den, l, m->dd_den);
}

/* The book of m into lane l of `b` (apo__score_fold_round takes it back out). */
static inline void apo__score_lanes_book_lane(apo__score_lanes_book *b, size_t l,
                                              const apo__score_more *m) {
    b->down_sq = apo_vd_with_lane(b->down_sq, l, m->down_sq);
    b->units = apo_vd_with_lane(b->units, l, m->units);
    b->trade = apo_vd_with_lane(b->trade, l, m->trade);
    b->won = apo_vd_with_lane(b->won, l, m->won);
    b->lost = apo_vd_with_lane(b->lost, l, m->lost);
    b->held = apo_vd_with_lane(b->held, l, (double)m->held);
    b->closed = apo_vd_with_lane(b->closed, l, (double)m->closed);
    b->wins = apo_vd_with_lane(b->wins, l, (double)m->wins);
}

/* Lane l of `b` written back into m's book. */
static inline void apo__score_lanes_book_store(const apo__score_lanes_book *b, size_t l,
                                               apo__score_more *m) {
    m->down_sq = apo_vd_lane(b->down_sq, l);
    m->units = apo_vd_lane(b->units, l);
    m->trade = apo_vd_lane(b->trade, l);
    m->won = apo_vd_lane(b->won, l);
    m->lost = apo_vd_lane(b->lost, l);
    m->held = (int)apo_vd_lane(b->held, l);
    m->closed = (int64_t)apo_vd_lane(b->closed, l);
    m->wins = (int64_t)apo_vd_lane(b->wins, l);
}

/* apo__score_more_compound lane by lane: the same products, comparison and selections, the
 * peak as x86's max takes it (the scalar selection's bits, apo__score_lanes_max). */
static inline void apo__score_lanes_compound(apo__score_lanes_more *c, apo_vd one, apo_vd r) {
    c->equity = c->equity * (one + r);
    c->epeak = apo__score_lanes_max(c->equity, c->epeak);
    const apo_vd fall = c->epeak - c->equity;
    const apo_vm deeper = apo_vd_gt(fall * c->dd_den, c->dd_num * c->epeak);
    c->dd_num = apo_vd_select(deeper, fall, c->dd_num);
    c->dd_den = apo_vd_select(deeper, c->epeak, c->dd_den);
}

/* apo__score_lanes_compound in the lanes where `on` is set; the others keep their state. */
static inline void apo__score_lanes_compound_on(apo__score_lanes_more *c, apo_vm on, apo_vd one,
                                                apo_vd r) {
    apo__score_lanes_more next = *c;
    apo__score_lanes_compound(&next, one, r);
    c->equity = apo_vd_select(on, next.equity, c->equity);
    c->epeak = apo_vd_select(on, next.epeak, c->epeak);
    c->dd_num = apo_vd_select(on, next.dd_num, c->dd_num);
    c->dd_den = apo_vd_select(on, next.dd_den, c->dd_den);
}

/* apo__score_more_close lane by lane: the open trade ends where `ends` is set. Each sum adds
 * the scalar body's value, the trade's return or +0 (apo__score_lanes_if), so a lane whose
 * trade does not end adds +0 as it does; the counts add 1 or +0. */
static APO_FORCE_INLINE void apo__score_lanes_close(apo__score_lanes_book *b,
                                                    const apo__score_lanes_k *k, apo_vm ends) {
    const apo_vd t = b->trade;
    const apo_vm won = apo_vm_and(ends, apo_vd_gt(t, k->zero));
    b->closed = b->closed + apo__score_lanes_if(ends, k->one);
    b->wins = b->wins + apo__score_lanes_if(won, k->one);
    b->won = b->won + apo__score_lanes_if(won, t);
    b->lost = b->lost + apo__score_lanes_if(apo_vm_and(ends, apo_vd_lt(t, k->zero)), t);
    b->trade = apo_vd_select(ends, k->zero, t);
}

/* What apo__score_more_return adds to the book from a scored return r, but the units and the
 * held side: the downside's square, then the trade that ended in a gap closed where `gap` is
 * set, r added to the open trade, and the trade closed where `change` is set, in its order.
 * min(r, 0) is r < 0 ? r : 0 (x86's min: apo__score_lanes_min), the scalar selection. */
static APO_FORCE_INLINE void apo__score_lanes_book_step(apo__score_lanes_book *b,
                                                        const apo__score_lanes_k *k, apo_vd r,
                                                        apo_vm gap, apo_vm change) {
    const apo_vd down = apo__score_lanes_min(r, k->zero);
    b->down_sq = b->down_sq + down * down;
    apo__score_lanes_close(b, k, gap);
    b->trade = b->trade + r;
    apo__score_lanes_close(b, k, change);
}

/* apo__score_lanes_book_step where no lane's trade ended in a gap: the close of a gap's trade
 * left out, which with no lane ending adds +0 to counts and to sums that are never -0 (won
 * adds values above 0 to +0, lost values below 0) and keeps the trade, so it changes no bit. */
static APO_FORCE_INLINE void apo__score_lanes_book_step_held(apo__score_lanes_book *b,
                                                             const apo__score_lanes_k *k, apo_vd r,
                                                             apo_vm change) {
    const apo_vd down = apo__score_lanes_min(r, k->zero);
    b->down_sq = b->down_sq + down * down;
    b->trade = b->trade + r;
    apo__score_lanes_close(b, k, change);
}

/* Whether the trade held at the last scored bar ended in a gap before this one (its side
 * `held`, not flat, is not the position `prev` before the bar), and whether the position
 * changes at this bar from a side (prev, not flat, is not pos): apo__score_more_return's
 * two ends. */
static inline apo_vm apo__score_lanes_gap_end(const apo__score_lanes_k *k, apo_vd held,
                                              apo_vd prev) {
    return apo_vm_and(apo_vd_ne(held, prev), apo_vd_ne(held, k->zero));
}
static inline apo_vm apo__score_lanes_change_end(const apo__score_lanes_k *k, apo_vd prev,
                                                 apo_vd pos) {
    return apo_vm_and(apo_vd_ne(pos, prev), apo_vd_ne(prev, k->zero));
}

/* apo__score_more_return's book of a scored bar from prev to pos with return r, in the lanes
 * where `on` is set (the others keep their book): the units (|pos - prev|, the scalar body's
 * integer), the step above and the held side. */
static APO_FORCE_INLINE void apo__score_lanes_book_on(apo__score_lanes_book *b,
                                                      const apo__score_lanes_k *k, apo_vm on,
                                                      apo_vd prev, apo_vd pos, apo_vd r) {
    apo__score_lanes_book next = *b;
    next.units = next.units + apo_vd_abs(pos - prev);
    apo__score_lanes_book_step(&next, k, r, apo__score_lanes_gap_end(k, b->held, prev),
                               apo__score_lanes_change_end(k, prev, pos));
    next.held = pos;
    b->down_sq = apo_vd_select(on, next.down_sq, b->down_sq);
    b->units = apo_vd_select(on, next.units, b->units);
    b->trade = apo_vd_select(on, next.trade, b->trade);
    b->won = apo_vd_select(on, next.won, b->won);
    b->lost = apo_vd_select(on, next.lost, b->lost);
    b->held = apo_vd_select(on, next.held, b->held);
    b->closed = apo_vd_select(on, next.closed, b->closed);
    b->wins = apo_vd_select(on, next.wins, b->wins);
}

/* A scored bar's two ends as one double of the chunk's (apo__score_lanes_chunk): 2 where the
 * trade ended in a gap, plus 1 where it ends at the bar; apo__score_lanes_sums_book reads
 * them back. */
static inline apo_vd apo__score_lanes_ends(const apo__score_lanes_k *k, apo_vd held, apo_vd prev,
                                           apo_vd pos) {
    return apo__score_lanes_if(apo__score_lanes_gap_end(k, held, prev), k->one + k->one) +
           apo__score_lanes_if(apo__score_lanes_change_end(k, prev, pos), k->one);
}

#endif /* APO_SCORE_VIEWS_LANES_H */
