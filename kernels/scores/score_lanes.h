/*
 * score_lanes.h: the fold of up to APO_LANES sets of one shared pass over a tile of bars, one
 * set per lane of a vector (lanes.h), with the bits of apo__score_bar_move (score_tile.h) for
 * each (score_sets.h says why).
 *
 * How a lane keeps the scalar fold's bits:
 *   - the bands of a set's widths are the operations of apo__bollinger_pass_bands_compared;
 *     a run of bars where neither a flat sd nor a NaN band nor a close that is not finite can
 *     occur (apo__score_lanes_clean) skips those tests, whose outcome there is known;
 *   - a position is a double, -1, 0 or +1 (never -0: only those constants are selected), so
 *     (double)prev * move and cost * (double)change are the scalar fold's products of the
 *     same values; the rules' integer arithmetic on comparisons becomes selections of those
 *     constants with the same outcomes, and comparisons are C's (ordered, but !=);
 *   - a set's side (apo__rule_position) is in the constants its rule selects: the long
 *     position is 1, or +0 on a short-only set, the short one -1, or +0 on a long-only set
 *     (apo__score_lanes_sets' up and down), so each lane takes the position its side
 *     allows, flat for the others, with no instruction more than a rule of both sides (the
 *     signal rule's sign is taken twice, of both sides for its test and of the set's) and
 *     none on the chain from one bar's position to the next; lanes of a round may have
 *     different sides;
 *   - the sums, peak and drawdown take the scalar fold's operations in its order, bar after
 *     bar; a lane whose set has not started keeps its state (a select of the old value);
 *   - the counts are doubles, exact below 2^53, turned back into integers at the end.
 * The close, its change and whether the bar scores at all are the same for every set: the
 * tile reads them once per bar.
 *
 * Included by lanes_entry.h after lanes.h; builds APO_LANES_NAME(apo__score_fold_round).
 */
#ifndef APO_SCORE_LANES_H
#define APO_SCORE_LANES_H

#include <float.h>

#include "lanes.h"
#include "score_sets.h"

#if defined(__GNUC__)
#define APO_SCORE_LANES_INLINE inline __attribute__((always_inline))
#else
#define APO_SCORE_LANES_INLINE inline
#endif

/* A fold's state in lanes (apo__score_fold). `started` is 1.0 in a lane whose set has
 * started, else 0.0. */
typedef struct apo__score_lanes {
    apo_vd pos, started, total, shift, dev_sum, dev_sq, peak, drawdown, bars, trades, exposed;
} apo__score_lanes;

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

/* Each set's own values, one lane per set. `up` and `down` are the positions its rule takes
 * for long and short: 1 and -1 on both sides, +0 for the side the set does not trade
 * (apo__score_lanes_side). */
typedef struct apo__score_lanes_sets {
    apo_vd nbdev_up, nbdev_dn, lower, upper, middle, cost, up, down;
} apo__score_lanes_sets;

/* The long and short positions a set of side `side` takes (apo__rule_position): 1 and -1, or
 * +0 where the side does not allow it, the value a product by `keep` 0 gives there. */
static inline void apo__score_lanes_side(int side, double *up, double *down) {
    *up = side == APO_SIDE_SHORT ? 0.0 : 1.0;
    *down = side == APO_SIDE_LONG ? 0.0 : -1.0;
}

/* The constants a bar uses. */
typedef struct apo__score_lanes_k {
    apo_vd zero, one, minus_one, max_finite, inf;
} apo__score_lanes_k;

/* The constants, each in every lane. */
static inline apo__score_lanes_k apo__score_lanes_constants(void) {
    const apo__score_lanes_k k = {apo_vd_splat(0.0), apo_vd_splat(1.0), apo_vd_splat(-1.0),
                                  apo_vd_splat(DBL_MAX), apo_vd_splat(INFINITY)};
    return k;
}

/* Set p's parameters into lane l of `set`. */
static inline void apo__score_lanes_set_lane(apo__score_lanes_sets *set, size_t l,
                                             const apo__score_set *p) {
    set->nbdev_up = apo_vd_with_lane(set->nbdev_up, l, p->nbdev_up);
    set->nbdev_dn = apo_vd_with_lane(set->nbdev_dn, l, p->nbdev_dn);
    set->lower = apo_vd_with_lane(set->lower, l, p->lower);
    set->upper = apo_vd_with_lane(set->upper, l, p->upper);
    set->middle = apo_vd_with_lane(set->middle, l, p->middle);
    set->cost = apo_vd_with_lane(set->cost, l, p->cost);
    double up, down;
    apo__score_lanes_side(p->side, &up, &down);
    set->up = apo_vd_with_lane(set->up, l, up);
    set->down = apo_vd_with_lane(set->down, l, down);
}

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

/* Fold f's state into lane l of `s` (apo__score_lane_store takes it back out). */
static inline void apo__score_lanes_fold_lane(apo__score_lanes *s, size_t l,
                                              const apo__score_fold *f) {
    s->pos = apo_vd_with_lane(s->pos, l, (double)f->pos);
    s->started = apo_vd_with_lane(s->started, l, f->started ? 1.0 : 0.0);
    s->total = apo_vd_with_lane(s->total, l, f->total);
    s->shift = apo_vd_with_lane(s->shift, l, f->shift);
    s->dev_sum = apo_vd_with_lane(s->dev_sum, l, f->dev_sum);
    s->dev_sq = apo_vd_with_lane(s->dev_sq, l, f->dev_sq);
    s->peak = apo_vd_with_lane(s->peak, l, f->peak);
    s->drawdown = apo_vd_with_lane(s->drawdown, l, f->drawdown);
    s->bars = apo_vd_with_lane(s->bars, l, (double)f->bars);
    s->trades = apo_vd_with_lane(s->trades, l, (double)f->trades);
    s->exposed = apo_vd_with_lane(s->exposed, l, (double)f->exposed);
}

/* v where m is set, +0 elsewhere: one instruction where a select of two vectors takes three
 * on sse2, for the rules' and the fold's many choices between a constant and 0. */
static inline apo_vd apo__score_lanes_if(apo_vm m, apo_vd v) {
#if APO_LANES_X86 == 512
    return (apo_vd)_mm512_maskz_mov_pd(m, (__m512d)v);
#elif APO_LANES_X86 == 256
    return (apo_vd)_mm256_and_pd((__m256d)m, (__m256d)v);
#elif APO_LANES_X86 == 128
    return (apo_vd)_mm_and_pd((__m128d)m, (__m128d)v);
#else
    return (apo_vd)((apo_vm)v & m);
#endif
}

/* a > b ? a : b, lane by lane, as the scalar fold's peak and drawdown take it: one max
 * instruction, where a comparison and a select took two in the sums' loop, whose every bar
 * every chain of ranges pays (score_ride_lanes.h). x86's max returns its second operand
 * unless the first is greater, NaN and zeros of either sign included: the select's bits. */
static inline apo_vd apo__score_lanes_max(apo_vd a, apo_vd b) {
#if APO_LANES_X86 == 512
    return (apo_vd)_mm512_max_pd((__m512d)a, (__m512d)b);
#elif APO_LANES_X86 == 256
    return (apo_vd)_mm256_max_pd((__m256d)a, (__m256d)b);
#elif APO_LANES_X86 == 128
    return (apo_vd)_mm_max_pd((__m128d)a, (__m128d)b);
#else
    return apo_vd_select(apo_vd_gt(a, b), a, b);
#endif
}

/* a < b ? a : b, lane by lane: x86's min, the mirror of apo__score_lanes_max (its second
 * operand unless the first is less). */
static inline apo_vd apo__score_lanes_min(apo_vd a, apo_vd b) {
#if APO_LANES_X86 == 512
    return (apo_vd)_mm512_min_pd((__m512d)a, (__m512d)b);
#elif APO_LANES_X86 == 256
    return (apo_vd)_mm256_min_pd((__m256d)a, (__m256d)b);
#elif APO_LANES_X86 == 128
    return (apo_vd)_mm_min_pd((__m128d)a, (__m128d)b);
#else
    return apo_vd_select(apo_vd_lt(a, b), a, b);
#endif
}

/* apo__rule_zone on a side: `up` (+1, or +0 short-only) below `lower`, else `down` (-1, or +0
 * long-only) above `upper`, else 0. Below wins, as in the scalar rule, before the side makes
 * it flat: the scalar rule's 1 kept by the side's product, or 0. */
static inline apo_vd apo__score_lanes_zone(apo_vd v, apo_vd lower, apo_vd upper, apo_vd up,
                                           apo_vd down) {
    return apo_vd_select(apo_vd_lt(v, lower), up, apo__score_lanes_if(apo_vd_gt(v, upper), down));
}

/* apo__rule_sign on a side: `up` where a > b, `down` where a < b, 0 when either is NaN. The two
 * tests exclude each other, so the sum is up + 0, 0 + down or 0 + 0 (+0; +0 + +0 where the
 * side makes the sign flat). */
static inline apo_vd apo__score_lanes_sign(apo_vd a, apo_vd b, apo_vd up, apo_vd down) {
    return apo__score_lanes_if(apo_vd_gt(a, b), up) + apo__score_lanes_if(apo_vd_lt(a, b), down);
}

/* apo__rule_revert_step on a side (apo__rule_position): from flat the zone; long, `up` while v
 * is below the middle; short, `down` while v is above it; else 0. What each side would become
 * does not depend on prev, so only two comparisons of prev and two selections wait on the
 * previous bar's position: the bars' chain, and fewer instructions a bar than the held sides'
 * sum (docs/perf-log/2026-11-26-score-rival.md). Each outcome is the same constant, +0
 * included, and the side's flat is taken off that chain, in the constants. */
static inline apo_vd apo__score_lanes_revert(const apo__score_lanes_k *k, apo_vd prev, apo_vd v,
                                             apo_vd lower, apo_vd middle, apo_vd upper, apo_vd up,
                                             apo_vd down) {
    const apo_vd stay_long = apo__score_lanes_if(apo_vd_lt(v, middle), up);
    const apo_vd stay_short = apo__score_lanes_if(apo_vd_gt(v, middle), down);
    const apo_vd from_flat = apo__score_lanes_zone(v, lower, upper, up, down);
    return apo_vd_select(apo_vd_gt(prev, k->zero), stay_long,
                         apo_vd_select(apo_vd_lt(prev, k->zero), stay_short, from_flat));
}

/* isfinite, lane by lane: |v| <= DBL_MAX is false for infinities and NaN. */
static inline apo_vm apo__score_lanes_finite(const apo__score_lanes_k *k, apo_vd v) {
    return apo_vd_le(apo_vd_abs(v), k->max_finite);
}

/* Not NaN, lane by lane: |v| <= inf. */
static inline apo_vm apo__score_lanes_not_nan(const apo__score_lanes_k *k, apo_vd v) {
    return apo_vd_le(apo_vd_abs(v), k->inf);
}

/* A double at p in every lane: one broadcast. */
static inline apo_vd apo__score_lanes_load1(const double *p) {
#if APO_LANES_X86 == 512
    return (apo_vd)_mm512_set1_pd(*p);
#elif APO_LANES_X86 == 256
    return (apo_vd)_mm256_broadcast_sd(p);
#else
    return apo_vd_splat(*p);
#endif
}

/* What a scored bar adds, from the previous position and this bar's (apo__score_bar_pos): the
 * return r = prev * move - cost * change, and 1 or 0 for a trade and for exposure. */
static APO_SCORE_LANES_INLINE apo_vd apo__score_lanes_return(const apo__score_lanes_k *k,
                                                             const apo__score_lanes_sets *set,
                                                             apo_vd prev, apo_vd pos, apo_vd move,
                                                             apo_vd *traded, apo_vd *exposed) {
    /* |pos - prev|: +0 (x - x is +0), 1 for a change, 2 for a flip, the scalar fold's
     * integers; a trade where it is not 0, exposure where pos is not: 1 or +0 each, the
     * constants a comparison and a selection gave, in two instructions fewer. */
    const apo_vd change = apo_vd_abs(pos - prev);
    *traded = apo__score_lanes_min(change, k->one);
    *exposed = apo_vd_abs(pos);
    return prev * move - set->cost * change;
}

/* The rule's position at bar i from the previous one `prev` (apo__score_bar_move): the rule's
 * at a finite close, else prev. Leaves in o[0 .. 3) the bands of a `widths` pass, which say
 * whether a set may start. `clean` (a constant, for a `widths` pass only): the bar is one of
 * a run that apo__score_lanes_clean has checked, so the bands need neither their flat case
 * nor their NaN test, nor the close its own: the same values, fewer instructions. */
static APO_SCORE_LANES_INLINE apo_vd apo__score_lanes_position(const int kind, const int widths,
                                                               const int clean,
                                                               const apo__score_sets_tile *tile,
                                                               const apo__score_lanes_sets *set,
                                                               const apo__score_lanes_k *k,
                                                               apo_vd prev, size_t i, apo_vd *o) {
    const double *const *out = tile->out;
    /* The outputs the rule reads: o[0 .. 3) for the bands and macd's histogram, oa and ob
     * for the generic kinds. */
    apo_vd oa = k->zero, ob = k->zero;
    o[0] = o[1] = o[2] = k->zero;
    if (widths) {
        /* apo__bollinger_pass_bands_compared: upper, middle, lower. */
        const apo_vd mean = apo__score_lanes_load1(&out[1][i]);
        const apo_vd sd = apo__score_lanes_load1(&out[0][i]);
        if (clean) {
            o[0] = mean + set->nbdev_up * sd;
            o[2] = mean - set->nbdev_dn * sd;
        } else {
            const apo_vm flat = apo_vd_lt(sd, k->zero);
            o[0] = apo_vd_select(flat, mean, mean + set->nbdev_up * sd);
            o[2] = apo_vd_select(flat, mean, mean - set->nbdev_dn * sd);
        }
        o[1] = mean;
        if (kind == APO_RULE_CROSS || kind == APO_RULE_ZONE || kind == APO_RULE_REVERT ||
            kind == APO_RULE_PRICE_CROSS || kind == APO_RULE_SIGNAL)
            oa = o[tile->a < 3 ? tile->a : 0];
        if (kind == APO_RULE_CROSS)
            ob = o[tile->b < 3 ? tile->b : 0];
    } else if (kind == APO_RULE_BANDS_REVERT || kind == APO_RULE_BANDS_ZONE ||
               kind == APO_RULE_MACD_CROSS) {
        for (int j = 0; j < 3; j++)
            o[j] = apo__score_lanes_load1(&out[j][i]);
    } else {
        oa = apo__score_lanes_load1(&out[tile->a][i]);
        if (kind == APO_RULE_CROSS)
            ob = apo__score_lanes_load1(&out[tile->b][i]);
    }
    if (!clean && !isfinite(tile->close[i]))
        return prev;
    const apo_vd c = apo__score_lanes_load1(&tile->close[i]);
    const apo_vd up = set->up, down = set->down;
    switch (kind) {
    case APO_RULE_BANDS_REVERT: {
        if (clean)
            return apo__score_lanes_revert(k, prev, c, o[2], o[1], o[0], up, down);
        const apo_vm bands = apo_vm_and(
            apo_vm_and(apo__score_lanes_not_nan(k, o[0]), apo__score_lanes_not_nan(k, o[1])),
            apo__score_lanes_not_nan(k, o[2]));
        return apo__score_lanes_if(bands,
                                   apo__score_lanes_revert(k, prev, c, o[2], o[1], o[0], up, down));
    }
    case APO_RULE_BANDS_ZONE:
        return apo__score_lanes_zone(c, o[2], o[0], up, down);
    case APO_RULE_MACD_CROSS:
        return apo__score_lanes_sign(o[2], k->zero, up, down);
    case APO_RULE_ZONE:
        return apo__score_lanes_zone(oa, set->lower, set->upper, up, down);
    case APO_RULE_REVERT:
        return apo__score_lanes_revert(k, prev, oa, set->lower, set->middle, set->upper, up, down);
    case APO_RULE_CROSS:
        return apo__score_lanes_sign(oa, ob, up, down);
    case APO_RULE_SIGNAL: {
        /* An event is the sign of both sides (an event of the side a set does not trade
         * leaves it flat, as apo__rule_signal_step's position then the side's product); no
         * event keeps prev, which is already on the set's side. */
        const apo_vd s = apo__score_lanes_sign(oa, k->zero, k->one, k->minus_one);
        return apo_vd_select(apo_vd_eq(s, k->zero), prev,
                             apo__score_lanes_sign(oa, k->zero, up, down));
    }
    default: /* APO_RULE_PRICE_CROSS */
        return apo__score_lanes_sign(c, oa, up, down);
    }
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
static APO_SCORE_LANES_INLINE void
apo__score_lanes_close(apo__score_lanes_book *b, const apo__score_lanes_k *k, apo_vm ends) {
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
static APO_SCORE_LANES_INLINE void apo__score_lanes_book_step(apo__score_lanes_book *b,
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
static APO_SCORE_LANES_INLINE void apo__score_lanes_book_step_held(apo__score_lanes_book *b,
                                                                   const apo__score_lanes_k *k,
                                                                   apo_vd r, apo_vm change) {
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
static APO_SCORE_LANES_INLINE void apo__score_lanes_book_on(apo__score_lanes_book *b,
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

/* Bar i of a set whose lanes have all started: its position after the bar, and on a scored
 * bar its return, stored in *ret, with the bar's trade and exposure added to *trades and
 * *exposed; `clean` as apo__score_lanes_position takes it. With `book` (a constant: the `/more`
 * view), a scored bar also adds its units to *units, stores its ends in *end
 * (apo__score_lanes_ends) and makes its position the held side *held. */
static APO_SCORE_LANES_INLINE apo_vd apo__score_lanes_started_book(
    const int kind, const int widths, const int clean, const int book,
    const apo__score_sets_tile *tile, const apo__score_lanes_sets *set, const apo__score_lanes_k *k,
    apo_vd pos, size_t i, int scored, apo_vd *ret, apo_vd *trades, apo_vd *exposed, apo_vd *held,
    apo_vd *units, apo_vd *end) {
    apo_vd o[3];
    const apo_vd next = apo__score_lanes_position(kind, widths, clean, tile, set, k, pos, i, o);
    if (scored) {
        apo_vd traded, in_market;
        *ret = apo__score_lanes_return(k, set, pos, next, apo__score_lanes_load1(&tile->move[i]),
                                       &traded, &in_market);
        *trades = *trades + traded;
        *exposed = *exposed + in_market;
        if (book) {
            *units = *units + apo_vd_abs(next - pos);
            *end = apo__score_lanes_ends(k, *held, pos, next);
            *held = next;
        }
    }
    return next;
}

/* apo__score_lanes_started_book without the book (the ride's reference fold). */
static APO_SCORE_LANES_INLINE apo_vd apo__score_lanes_started_step(
    const int kind, const int widths, const int clean, const apo__score_sets_tile *tile,
    const apo__score_lanes_sets *set, const apo__score_lanes_k *k, apo_vd pos, size_t i, int scored,
    apo_vd *ret, apo_vd *trades, apo_vd *exposed) {
    apo_vd unused;
    return apo__score_lanes_started_book(kind, widths, clean, 0, tile, set, k, pos, i, scored, ret,
                                         trades, exposed, &unused, &unused, &unused);
}

/* Bar i while some set has not started (apo__score_bar_pos, lane by lane): a lane scores the
 * bar if its set has started and both closes are finite, else keeps its state; then a set
 * starts after a bar whose outputs are all finite. `c` (NULL: the plain view) takes the
 * scored bar's return into the compounded equity, and `b` (NULL but for the `/more` view)
 * into the book (apo__score_bar_more). */
static APO_SCORE_LANES_INLINE void
apo__score_lanes_warm_bar_more(const int kind, const int widths, const apo__score_sets_tile *tile,
                               const apo__score_lanes_sets *set, const apo__score_lanes_k *k,
                               apo__score_lanes *s, apo__score_lanes_more *c,
                               apo__score_lanes_book *b, size_t i) {
    apo_vd o[3];
    const apo_vd pos = apo__score_lanes_position(kind, widths, 0, tile, set, k, s->pos, i, o);
    const apo_vm on = apo_vd_gt(s->started, k->zero);
    if (tile->finite[i] && apo_vm_bits(on) != 0) {
        apo_vd traded, exposed;
        const apo_vd r = apo__score_lanes_return(
            k, set, s->pos, pos, apo__score_lanes_load1(&tile->move[i]), &traded, &exposed);
        s->shift = apo_vd_select(apo_vm_and(on, apo_vd_le(s->bars, k->zero)), r, s->shift);
        s->bars = apo_vd_select(on, s->bars + k->one, s->bars);
        const apo_vd total = s->total + r;
        const apo_vd dev = r - s->shift;
        const apo_vd peak = apo_vd_select(apo_vd_gt(total, s->peak), total, s->peak);
        const apo_vd fall = peak - total;
        s->total = apo_vd_select(on, total, s->total);
        s->dev_sum = apo_vd_select(on, s->dev_sum + dev, s->dev_sum);
        s->dev_sq = apo_vd_select(on, s->dev_sq + dev * dev, s->dev_sq);
        s->peak = apo_vd_select(on, peak, s->peak);
        s->drawdown = apo_vd_select(
            on, apo_vd_select(apo_vd_gt(fall, s->drawdown), fall, s->drawdown), s->drawdown);
        s->trades = apo_vd_select(on, s->trades + traded, s->trades);
        s->exposed = apo_vd_select(on, s->exposed + exposed, s->exposed);
        if (c != NULL)
            apo__score_lanes_compound_on(c, on, k->one, r);
        if (b != NULL)
            apo__score_lanes_book_on(b, k, on, s->pos, pos, r);
    }
    apo_vm all_finite;
    if (widths) {
        all_finite = apo_vm_and(
            apo_vm_and(apo__score_lanes_finite(k, o[0]), apo__score_lanes_finite(k, o[1])),
            apo__score_lanes_finite(k, o[2]));
    } else {
        int finite = 1;
        for (size_t j = 0; j < tile->n_out; j++)
            finite &= isfinite(tile->out[j][i]) ? 1 : 0;
        all_finite = apo_vd_gt(apo_vd_splat(finite ? 1.0 : 0.0), k->zero);
    }
    s->started = apo_vd_select(all_finite, k->one, s->started);
    s->pos = pos;
}

/* apo__score_lanes_warm_bar_more of the plain view. */
static APO_SCORE_LANES_INLINE void apo__score_lanes_warm_bar(const int kind, const int widths,
                                                             const apo__score_sets_tile *tile,
                                                             const apo__score_lanes_sets *set,
                                                             const apo__score_lanes_k *k,
                                                             apo__score_lanes *s, size_t i) {
    apo__score_lanes_warm_bar_more(kind, widths, tile, set, k, s, NULL, NULL, i);
}

/* One scored return r added to the sums, peak and drawdown of apo__score_bar_pos, in its
 * order: the step both loops below take (inlined, so their state stays in registers). */
static APO_SCORE_LANES_INLINE void apo__score_lanes_sum_step(apo_vd r, apo_vd shift, apo_vd *total,
                                                             apo_vd *dev_sum, apo_vd *dev_sq,
                                                             apo_vd *peak, apo_vd *drawdown) {
    *total = *total + r;
    const apo_vd dev = r - shift;
    *dev_sum = *dev_sum + dev;
    *dev_sq = *dev_sq + dev * dev;
    *peak = apo__score_lanes_max(*total, *peak);
    const apo_vd fall = *peak - *total;
    *drawdown = apo__score_lanes_max(fall, *drawdown);
}

/* The sums, peak and drawdown of apo__score_bar_pos over the returns of m scored bars, in
 * order, once every set has started and has its shift. A function of its own, not inlined:
 * compiled inside the loop of positions, its chains went through memory (the compiler kept
 * the state the other loop does not use on the stack); here they stay in registers. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void
apo__score_lanes_sums(apo__score_lanes *s, const apo_vd *returns, size_t m) {
    apo_vd total = s->total, dev_sum = s->dev_sum, dev_sq = s->dev_sq;
    apo_vd peak = s->peak, drawdown = s->drawdown;
    const apo_vd shift = s->shift;
    for (size_t j = 0; j < m; j++) {
        const apo_vd r = returns[j];
        apo__score_lanes_sum_step(r, shift, &total, &dev_sum, &dev_sq, &peak, &drawdown);
    }
    s->total = total, s->dev_sum = dev_sum, s->dev_sq = dev_sq;
    s->peak = peak, s->drawdown = drawdown;
}

/* apo__score_lanes_sums and the compounded equity of the `/compound` and `/log` views over the
 * same returns, in one loop: each chain's operations in its order (apo__score_more_compound's
 * for the equity), the state in registers. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void
apo__score_lanes_sums_more(apo__score_lanes *s, apo__score_lanes_more *c, const apo_vd *returns,
                           size_t m) {
    apo_vd total = s->total, dev_sum = s->dev_sum, dev_sq = s->dev_sq;
    apo_vd peak = s->peak, drawdown = s->drawdown;
    apo__score_lanes_more e = *c;
    const apo_vd shift = s->shift, one = apo_vd_splat(1.0);
    for (size_t j = 0; j < m; j++) {
        const apo_vd r = returns[j];
        apo__score_lanes_sum_step(r, shift, &total, &dev_sum, &dev_sq, &peak, &drawdown);
        apo__score_lanes_compound(&e, one, r);
    }
    s->total = total, s->dev_sum = dev_sum, s->dev_sq = dev_sq;
    s->peak = peak, s->drawdown = drawdown;
    *c = e;
}

/* apo__score_lanes_sums_more and the `/more` view's book over the same returns and their ends
 * (apo__score_lanes_ends: 2 for a trade ended in a gap, plus 1 for one that ends at the bar),
 * in one loop, each chain's operations in apo__score_more_return's order. Without `gaps` (a
 * constant: no trade of these bars ended in a gap, every end is 0 or 1), the close of a gap's
 * trade is left out (apo__score_lanes_book_step_held). */
static APO_SCORE_LANES_INLINE void
apo__score_lanes_sums_book_run(const int gaps, apo__score_lanes *s, apo__score_lanes_more *c,
                               apo__score_lanes_book *b, const apo_vd *returns, const apo_vd *ends,
                               size_t m) {
    apo_vd total = s->total, dev_sum = s->dev_sum, dev_sq = s->dev_sq;
    apo_vd peak = s->peak, drawdown = s->drawdown;
    apo__score_lanes_more e = *c;
    apo__score_lanes_book q = *b;
    const apo__score_lanes_k k = apo__score_lanes_constants();
    const apo_vd shift = s->shift, two = apo_vd_splat(2.0);
    for (size_t j = 0; j < m; j++) {
        const apo_vd r = returns[j], end = ends[j];
        apo__score_lanes_sum_step(r, shift, &total, &dev_sum, &dev_sq, &peak, &drawdown);
        apo__score_lanes_compound(&e, k.one, r);
        if (gaps) {
            const apo_vm gap = apo_vd_gt(end, k.one);
            const apo_vm change = apo_vd_gt(end - apo__score_lanes_if(gap, two), k.zero);
            apo__score_lanes_book_step(&q, &k, r, gap, change);
        } else {
            apo__score_lanes_book_step_held(&q, &k, r, apo_vd_gt(end, k.zero));
        }
    }
    s->total = total, s->dev_sum = dev_sum, s->dev_sq = dev_sq;
    s->peak = peak, s->drawdown = drawdown;
    *c = e;
    *b = q;
}

/* apo__score_lanes_sums_book_run, `gaps` a constant of each loop. Not inlined, as
 * apo__score_lanes_sums. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void
apo__score_lanes_sums_book(int gaps, apo__score_lanes *s, apo__score_lanes_more *c,
                           apo__score_lanes_book *b, const apo_vd *returns, const apo_vd *ends,
                           size_t m) {
    if (gaps)
        apo__score_lanes_sums_book_run(1, s, c, b, returns, ends, m);
    else
        apo__score_lanes_sums_book_run(0, s, c, b, returns, ends, m);
}

/* Bars a chunk of the loop below holds: their returns fit in the L1 cache. */
#define APO_SCORE_LANES_CHUNK 256

/* Rounds a loop below folds side by side, at most: two rounds' chains of positions overlap,
 * where one round's leaves the core waiting on it (the fifth set of a pass cost as much as
 * the other four). */
#define APO_SCORE_LANES_ROUNDS 2

/* Whether bars [i, stop) of a `widths` pass whose sets' widths are finite may take the clean
 * step (apo__score_lanes_position): every close, mean and sd finite and no sd flat (< 0). Then
 * each band is the width's sum, never NaN (a finite mean plus or minus a finite width times a
 * finite sd is finite or an infinity), and the rule is asked at every bar: the checked step's
 * outcome at every bar, for a vector load and test per APO_LANES bars of each array. */
static inline int apo__score_lanes_clean(const apo__score_sets_tile *tile,
                                         const apo__score_lanes_k *k, size_t i, size_t stop) {
    const double *close = tile->close, *sd = tile->out[0], *mean = tile->out[1];
    size_t t = i;
    for (; t + APO_LANES <= stop; t += APO_LANES) {
        const apo_vd v = apo_vd_loadu(sd + t);
        const apo_vm ok =
            apo_vm_and(apo_vm_and(apo__score_lanes_finite(k, apo_vd_loadu(close + t)),
                                  apo__score_lanes_finite(k, apo_vd_loadu(mean + t))),
                       apo_vm_and(apo_vd_ge(v, k->zero), apo_vd_le(v, k->max_finite)));
        if (apo_vm_bits(ok) != APO_LANES_ALL)
            return 0;
    }
    for (; t < stop; t++)
        if (!isfinite(close[t]) || !isfinite(mean[t]) || !(sd[t] >= 0.0 && sd[t] <= DBL_MAX))
            return 0;
    return 1;
}

/* Whether every lane of the rounds' sets has finite widths (apo__score_lanes_clean). */
static inline int apo__score_lanes_finite_widths(const apo__score_lanes_sets *set, int rounds,
                                                 const apo__score_lanes_k *k) {
    for (int r = 0; r < rounds; r++)
        if (apo_vm_bits(apo_vm_and(apo__score_lanes_finite(k, set[r].nbdev_up),
                                   apo__score_lanes_finite(k, set[r].nbdev_dn))) != APO_LANES_ALL)
            return 0;
    return 1;
}

/* What a chunk of the `/more` view keeps of each round beside its returns (a constant
 * `book`: unused otherwise): the held side and the units, and each scored bar's ends. */
typedef struct apo__score_lanes_chunk_book {
    apo_vd held[APO_SCORE_LANES_ROUNDS], units[APO_SCORE_LANES_ROUNDS];
    apo_vd ends[APO_SCORE_LANES_ROUNDS][APO_SCORE_LANES_CHUNK];
} apo__score_lanes_chunk_book;

/* The positions of bars [i, stop) of `rounds` rounds, each scored bar's return into
 * returns[r][0 ..), its trade and exposure added to trades[r] and exposed[r] (and with `book`
 * its units, ends and held side into cb); returns the bars scored. `clean` as
 * apo__score_lanes_position takes it. */
static APO_SCORE_LANES_INLINE size_t apo__score_lanes_chunk(
    const int kind, const int widths, const int clean, const int rounds, const int book,
    const apo__score_sets_tile *tile, const apo__score_lanes_sets *set, const apo__score_lanes_k *k,
    apo_vd *pos, apo_vd (*returns)[APO_SCORE_LANES_CHUNK], apo_vd *trades, apo_vd *exposed,
    apo__score_lanes_chunk_book *cb, size_t i, size_t stop) {
    size_t m = 0;
    for (; i < stop; i++) {
        const int scored = tile->finite[i] != 0;
        for (int r = 0; r < rounds; r++)
            pos[r] = apo__score_lanes_started_book(
                kind, widths, clean, book, tile, &set[r], k, pos[r], i, scored, &returns[r][m],
                &trades[r], &exposed[r], &cb->held[r], &cb->units[r], &cb->ends[r][m]);
        m += (size_t)scored;
    }
    return m;
}

/* Bars [i, end) of `rounds` rounds (1 or 2, a constant) whose sets have all started: a chunk
 * at a time in two loops, the positions and each scored bar's return, then the sums, peak
 * and drawdown over those returns (apo__score_lanes_sums). Each loop's state fits in
 * registers, where one loop with both spilled its chains to memory; a value is computed from
 * the same values by the same operations either way, and each chain takes its bars in
 * order. The bars scored are the same in every lane and round, counted once. A chunk of a
 * `widths` pass that apo__score_lanes_clean passes takes the clean step. With `book` (a
 * constant, the `/more` view, c and b not NULL), the first loop also keeps each scored bar's
 * ends, whose previous and new positions the second does not see, and the second folds the
 * book beside the equity (apo__score_lanes_sums_book). */
static APO_SCORE_LANES_INLINE void
apo__score_lanes_hot(const int kind, const int widths, const int rounds, const int book,
                     const apo__score_sets_tile *tile, const apo__score_lanes_sets *set,
                     const apo__score_lanes_k *k, apo__score_lanes *s, apo__score_lanes_more *c,
                     apo__score_lanes_book *b, size_t i, size_t end) {
    apo_vd pos[APO_SCORE_LANES_ROUNDS], trades[APO_SCORE_LANES_ROUNDS],
        exposed[APO_SCORE_LANES_ROUNDS];
    int fresh[APO_SCORE_LANES_ROUNDS];
    apo__score_lanes_chunk_book cb;
    for (int r = 0; r < rounds; r++) {
        pos[r] = s[r].pos, trades[r] = s[r].trades, exposed[r] = s[r].exposed;
        /* A lane that has scored no bar yet takes its shift at the next scored bar. */
        fresh[r] = apo_vm_bits(apo_vd_le(s[r].bars, k->zero)) != 0;
        cb.held[r] = book ? b[r].held : k->zero;
        cb.units[r] = book ? b[r].units : k->zero;
    }
    size_t counted = 0;
    apo_vd returns[APO_SCORE_LANES_ROUNDS][APO_SCORE_LANES_CHUNK];
    const int finite_widths = widths && apo__score_lanes_finite_widths(set, rounds, k);
    while (i < end) {
        const size_t stop = end - i < APO_SCORE_LANES_CHUNK ? end : i + APO_SCORE_LANES_CHUNK;
        /* A trade ends in a gap only after a bar that does not score changed the position: in
         * a chunk whose every bar scores, at its first bar if the held side is not the
         * position then. */
        int gaps = 0;
        for (int r = 0; r < rounds && book; r++)
            gaps |= apo_vm_bits(apo_vd_ne(cb.held[r], pos[r])) != 0;
        size_t m;
        if (widths && finite_widths && apo__score_lanes_clean(tile, k, i, stop))
            m = apo__score_lanes_chunk(kind, widths, 1, rounds, book, tile, set, k, pos, returns,
                                       trades, exposed, &cb, i, stop);
        else
            m = apo__score_lanes_chunk(kind, widths, 0, rounds, book, tile, set, k, pos, returns,
                                       trades, exposed, &cb, i, stop);
        gaps |= m != stop - i;
        i = stop;
        for (int r = 0; r < rounds; r++) {
            if (m > 0 && fresh[r]) {
                s[r].shift =
                    apo_vd_select(apo_vd_le(s[r].bars, k->zero), returns[r][0], s[r].shift);
                fresh[r] = 0;
            }
            if (book)
                apo__score_lanes_sums_book(gaps, &s[r], &c[r], &b[r], returns[r], cb.ends[r], m);
            else if (c != NULL)
                apo__score_lanes_sums_more(&s[r], &c[r], returns[r], m);
            else
                apo__score_lanes_sums(&s[r], returns[r], m);
        }
        counted += m;
    }
    for (int r = 0; r < rounds; r++) {
        s[r].pos = pos[r], s[r].trades = trades[r], s[r].exposed = exposed[r];
        s[r].bars = s[r].bars + apo_vd_splat((double)counted);
        if (book)
            b[r].held = cb.held[r], b[r].units = cb.units[r];
    }
}

/* The tile's bars under a rule of kind `kind` for `rounds` rounds (constants: each kind,
 * `widths` and count compile to loops of their own, as the scalar fold's per-kind loops
 * did): each round's bars masked while one of its sets has not started, then, once all
 * have (they stay started), bars with no mask and no test of the outputs
 * (apo__score_lanes_hot), a round alone up to where the other's sets have all started, then
 * both side by side. */
static APO_SCORE_LANES_INLINE void
apo__score_lanes_tile(const int kind, const int widths, const int rounds, const int book,
                      const apo__score_sets_tile *tile, const apo__score_lanes_sets *set,
                      const apo__score_lanes_k *k, apo__score_lanes *s, apo__score_lanes_more *c,
                      apo__score_lanes_book *b) {
    size_t warm[APO_SCORE_LANES_ROUNDS];
    size_t joint = 0; /* the bar from which every round is hot */
    for (int r = 0; r < rounds; r++) {
        size_t i = 0;
        for (; i < tile->n && apo_vm_bits(apo_vd_gt(s[r].started, k->zero)) != APO_LANES_ALL; i++)
            apo__score_lanes_warm_bar_more(kind, widths, tile, &set[r], k, &s[r],
                                           c != NULL ? &c[r] : NULL, book ? &b[r] : NULL, i);
        warm[r] = i;
        joint = i > joint ? i : joint;
    }
    if (rounds > 1)
        for (int r = 0; r < rounds; r++)
            if (warm[r] < joint)
                apo__score_lanes_hot(kind, widths, 1, book, tile, &set[r], k, &s[r],
                                     c != NULL ? &c[r] : NULL, book ? &b[r] : NULL, warm[r], joint);
    if (joint < tile->n)
        apo__score_lanes_hot(kind, widths, rounds, book, tile, set, k, s, c, b, joint, tile->n);
}

/* apo__score_lanes_tile for the pass's kind, the kind, `widths`, the rounds and `book` as
 * constants: each compiles to loops of its own, as the scalar fold's per-kind loops did. */
static APO_SCORE_LANES_INLINE void
apo__score_lanes_tile_of(const int book, const int rounds, const apo__score_sets_tile *tile,
                         const apo__score_lanes_sets *set, const apo__score_lanes_k *k,
                         apo__score_lanes *s, apo__score_lanes_more *c, apo__score_lanes_book *b) {
/* A case of the switch below: the kind and whether the pass is bollinger's, as constants. */
#define APO_SCORE_LANES_CASE(kind)                                                                 \
    case kind:                                                                                     \
        if (tile->widths)                                                                          \
            apo__score_lanes_tile(kind, 1, rounds, book, tile, set, k, s, c, b);                   \
        else                                                                                       \
            apo__score_lanes_tile(kind, 0, rounds, book, tile, set, k, s, c, b);                   \
        break
    switch (tile->kind) {
        APO_SCORE_LANES_CASE(APO_RULE_BANDS_REVERT);
        APO_SCORE_LANES_CASE(APO_RULE_BANDS_ZONE);
        APO_SCORE_LANES_CASE(APO_RULE_MACD_CROSS);
        APO_SCORE_LANES_CASE(APO_RULE_ZONE);
        APO_SCORE_LANES_CASE(APO_RULE_REVERT);
        APO_SCORE_LANES_CASE(APO_RULE_CROSS);
        APO_SCORE_LANES_CASE(APO_RULE_PRICE_CROSS);
        APO_SCORE_LANES_CASE(APO_RULE_SIGNAL);
    default:
        break;
    }
#undef APO_SCORE_LANES_CASE
}

/* Lane l of `from` written back as one set's fold: the one place the lanes' fields map to
 * apo__score_fold's (the fold rounds and the ranged calls' ride, score_ride_lanes.h). */
static inline void APO_LANES_NAME(apo__score_lane_store)(const apo__score_lanes *from, size_t l,
                                                         apo__score_fold *f) {
    f->pos = (int)apo_vd_lane(from->pos, l);
    f->started = apo_vd_lane(from->started, l) > 0.0;
    f->total = apo_vd_lane(from->total, l);
    f->shift = apo_vd_lane(from->shift, l);
    f->dev_sum = apo_vd_lane(from->dev_sum, l);
    f->dev_sq = apo_vd_lane(from->dev_sq, l);
    f->peak = apo_vd_lane(from->peak, l);
    f->drawdown = apo_vd_lane(from->drawdown, l);
    f->bars = (int64_t)apo_vd_lane(from->bars, l);
    f->trades = (int64_t)apo_vd_lane(from->trades, l);
    f->exposed = (int64_t)apo_vd_lane(from->exposed, l);
}

/* Folds the tile into folds[0 .. n) (n <= APO_SCORE_LANES_ROUNDS * APO_LANES) with
 * sets[0 .. n), in rounds of APO_LANES side by side, and into each set's compounded equity
 * where the sets have one (score_sets.h). Lanes past a round's sets fold a copy of its first
 * set, whose state is not stored. */
static void APO_LANES_NAME(apo__score_fold_round)(const apo__score_sets_tile *tile,
                                                  const apo__score_set *sets, size_t n,
                                                  apo__score_fold *folds) {
    const apo__score_lanes_k k = apo__score_lanes_constants();
    apo__score_lanes_sets set[APO_SCORE_LANES_ROUNDS];
    apo__score_lanes s[APO_SCORE_LANES_ROUNDS];
    apo__score_lanes_more c[APO_SCORE_LANES_ROUNDS];
    apo__score_lanes_book b[APO_SCORE_LANES_ROUNDS];
    memset(set, 0, sizeof set);
    memset(s, 0, sizeof s);
    memset(c, 0, sizeof c);
    memset(b, 0, sizeof b);
    const int rounds = n > APO_LANES ? 2 : 1;
    /* Every set's, alike: a view's statistics, and of the `/more` view all of them. */
    const int compound = n > 0 && sets[0].compound != NULL;
    const int book = compound && sets[0].compound->view == APO_SCORE_VIEW_MORE;
    for (int r = 0; r < rounds; r++) {
        const size_t first = (size_t)r * APO_LANES;
        const size_t in_round = n - first < APO_LANES ? n - first : APO_LANES;
        for (size_t l = 0; l < APO_LANES; l++) {
            const size_t j = first + (l < in_round ? l : 0);
            const apo__score_set *p = &sets[j];
            const apo__score_fold *f = &folds[j];
            apo__score_lanes_set_lane(&set[r], l, p);
            apo__score_lanes_fold_lane(&s[r], l, f);
            if (compound)
                apo__score_lanes_more_lane(&c[r], l, p->compound);
            if (book)
                apo__score_lanes_book_lane(&b[r], l, p->compound);
        }
    }
    apo__score_lanes_more *const more = compound ? c : NULL;
    if (book && rounds == 2)
        apo__score_lanes_tile_of(1, 2, tile, set, &k, s, more, b);
    else if (book)
        apo__score_lanes_tile_of(1, 1, tile, set, &k, s, more, b);
    else if (rounds == 2)
        apo__score_lanes_tile_of(0, 2, tile, set, &k, s, more, NULL);
    else
        apo__score_lanes_tile_of(0, 1, tile, set, &k, s, more, NULL);
    for (size_t j = 0; j < n; j++) {
        APO_LANES_NAME(apo__score_lane_store)(&s[j / APO_LANES], j % APO_LANES, &folds[j]);
        if (compound) {
            apo__score_more *m = sets[j].compound;
            const apo__score_lanes_more *from = &c[j / APO_LANES];
            m->equity = apo_vd_lane(from->equity, j % APO_LANES);
            m->epeak = apo_vd_lane(from->epeak, j % APO_LANES);
            m->dd_num = apo_vd_lane(from->dd_num, j % APO_LANES);
            m->dd_den = apo_vd_lane(from->dd_den, j % APO_LANES);
        }
        if (book)
            apo__score_lanes_book_store(&b[j / APO_LANES], j % APO_LANES, sets[j].compound);
    }
}

/* apo__score_move for bars [t0, t1) of a row of closes: move[t - t0] and finite[t - t0], a
 * vector of bars at a time. The same division and subtraction of the same values; a bar
 * whose closes are not both finite divides 1 by 1 instead, so no operation sees a value the
 * scalar code would not divide (no flag raised that it would not raise), and stores 0. */
static void APO_LANES_NAME(apo__score_moves_run)(const double *close, size_t t0, size_t t1,
                                                 double *move, unsigned char *finite) {
    const apo_vd one = apo_vd_splat(1.0), zero = apo_vd_splat(0.0);
    const apo_vd max_finite = apo_vd_splat(DBL_MAX);
    size_t t = t0;
    if (t == 0 && t < t1) { /* no close before the first: not finite */
        move[0] = 0.0;
        finite[0] = 0;
        t++;
    }
    for (; t + APO_LANES <= t1; t += APO_LANES) {
        const apo_vd c = apo_vd_loadu(close + t), p = apo_vd_loadu(close + t - 1);
        const apo_vm ok =
            apo_vm_and(apo_vd_le(apo_vd_abs(c), max_finite), apo_vd_le(apo_vd_abs(p), max_finite));
        const apo_vd q = apo_vd_select(ok, c, one) / apo_vd_select(ok, p, one) - one;
        apo_vd_storeu(move + (t - t0), apo_vd_select(ok, q, zero));
        const unsigned bits = apo_vm_bits(ok);
        for (size_t l = 0; l < APO_LANES; l++)
            finite[t - t0 + l] = (unsigned char)(bits >> l & 1u);
    }
    for (; t < t1; t++) {
        double m;
        finite[t - t0] = (unsigned char)apo__score_move(close[t - 1], close[t], &m);
        move[t - t0] = m;
    }
}

#endif /* APO_SCORE_LANES_H */
