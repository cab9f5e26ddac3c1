/*
 * score_lanes_base.h: the pieces of the scored fold in vector lanes (score_lanes.h) that every
 * view takes: a fold's state and a round's sets in lanes, the constants, the lane inserts, the
 * selections and comparisons with the scalar fold's bits, and a bar's return and position
 * (score_lanes.h says how each keeps the scalar bits). The views' own state in lanes is
 * score_views_lanes.h's.
 *
 * Included by score_lanes.h and score_views_lanes.h, once per vector path (lanes.h).
 */
#ifndef APO_SCORE_LANES_BASE_H
#define APO_SCORE_LANES_BASE_H

#include <float.h>

#include "force_inline.h"
#include "lanes.h"
#include "score_sets.h"

/* Every kind of rule (score_tile.h), X(kind) a kind: the lane folds compile one function a
 * kind (score_lanes.h, score_lone_lanes.h, score_ride_lanes.h). */
#define APO_SCORE_LANES_KINDS(X)                                                                   \
    X(APO_RULE_BANDS_REVERT)                                                                       \
    X(APO_RULE_BANDS_ZONE)                                                                         \
    X(APO_RULE_MACD_CROSS)                                                                         \
    X(APO_RULE_ZONE)                                                                               \
    X(APO_RULE_REVERT)                                                                             \
    X(APO_RULE_CROSS)                                                                              \
    X(APO_RULE_PRICE_CROSS)                                                                        \
    X(APO_RULE_SIGNAL)

/* A fold's state in lanes (apo__score_fold). `started` is 1.0 in a lane whose set has
 * started, else 0.0. */
typedef struct apo__score_lanes {
    apo_vd pos, started, total, shift, dev_sum, dev_sq, peak, drawdown, bars, trades, exposed;
} apo__score_lanes;

/* Each set's own values, one lane per set. `up` and `down` are the positions its rule takes
 * for long and short: 1 and -1 on both sides, +0 for the side the set does not trade
 * (apo__score_lanes_side). `sd` and `mean`: on a `widths` tile, the pass every lane of the
 * round reads, bar i's at [i] (the tile's out[0] and out[1], or the round's pass of several
 * on an APO_SCORE_WIDTHS_OWN tile); on a tile of that kind read as such, each lane's own
 * pass, bar i's in [i * APO_LANES, (i + 1) * APO_LANES) (score_lanes.h lays them out). */
typedef struct apo__score_lanes_sets {
    apo_vd nbdev_up, nbdev_dn, lower, upper, middle, cost, up, down;
    const double *sd, *mean;
} apo__score_lanes_sets;

/* The rounds' sd and mean on a `widths` tile whose sets all read its pass: its out[0] and
 * out[1]. */
static inline void apo__score_lanes_tile_pass(apo__score_lanes_sets *set, int rounds,
                                              const apo__score_sets_tile *tile) {
    for (int r = 0; r < rounds && tile->widths == 1; r++) {
        set[r].sd = tile->out[0];
        set[r].mean = tile->out[1];
    }
}

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
static APO_FORCE_INLINE apo_vd apo__score_lanes_return(const apo__score_lanes_k *k,
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
static APO_FORCE_INLINE apo_vd apo__score_lanes_position(const int kind, const int widths,
                                                         const int clean,
                                                         const apo__score_sets_tile *tile,
                                                         const apo__score_lanes_sets *set,
                                                         const apo__score_lanes_k *k, apo_vd prev,
                                                         size_t i, apo_vd *o) {
    const double *const *out = tile->out;
    /* The outputs the rule reads: o[0 .. 3) for the bands and macd's histogram, oa and ob
     * for the generic kinds. */
    apo_vd oa = k->zero, ob = k->zero;
    o[0] = o[1] = o[2] = k->zero;
    if (widths) {
        /* apo__bollinger_pass_bands_compared: upper, middle, lower; of every set's own pass on
         * an APO_SCORE_WIDTHS_OWN tile. */
        const int own = widths == APO_SCORE_WIDTHS_OWN;
        const apo_vd mean =
            own ? apo_vd_loadu(set->mean + i * APO_LANES) : apo__score_lanes_load1(&set->mean[i]);
        const apo_vd sd =
            own ? apo_vd_loadu(set->sd + i * APO_LANES) : apo__score_lanes_load1(&set->sd[i]);
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

#endif /* APO_SCORE_LANES_BASE_H */
