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
 * Included by lanes_entry.h after lanes.h; builds APO_LANES_NAME(apo__score_fold_round). The
 * pieces every view takes are score_lanes_base.h's, the views' own state score_views_lanes.h's.
 */
#ifndef APO_SCORE_LANES_H
#define APO_SCORE_LANES_H

#include "score_lanes_base.h"
#include "score_views_lanes.h"

/* Bar i of a set whose lanes have all started: its position after the bar, and on a scored
 * bar its return, stored in *ret, with the bar's trade and exposure added to *trades and
 * *exposed; `clean` as apo__score_lanes_position takes it. With `book` (a constant: the `/more`
 * view), a scored bar also adds its units to *units, stores its ends in *end
 * (apo__score_lanes_ends) and makes its position the held side *held. */
static APO_FORCE_INLINE apo_vd apo__score_lanes_started_book(
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
static APO_FORCE_INLINE apo_vd apo__score_lanes_started_step(
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
static APO_FORCE_INLINE void
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
static APO_FORCE_INLINE void apo__score_lanes_warm_bar(const int kind, const int widths,
                                                       const apo__score_sets_tile *tile,
                                                       const apo__score_lanes_sets *set,
                                                       const apo__score_lanes_k *k,
                                                       apo__score_lanes *s, size_t i) {
    apo__score_lanes_warm_bar_more(kind, widths, tile, set, k, s, NULL, NULL, i);
}

/* One scored return r added to the sums, peak and drawdown of apo__score_bar_pos, in its
 * order: the step both loops below take (inlined, so their state stays in registers). */
static APO_FORCE_INLINE void apo__score_lanes_sum_step(apo_vd r, apo_vd shift, apo_vd *total,
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
static APO_FORCE_INLINE void apo__score_lanes_sums_book_run(const int gaps, apo__score_lanes *s,
                                                            apo__score_lanes_more *c,
                                                            apo__score_lanes_book *b,
                                                            const apo_vd *returns,
                                                            const apo_vd *ends, size_t m) {
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
 * step (apo__score_lanes_position): every close, and every mean and sd the rounds read
 * (apo__score_lanes_sets' sd and mean: one a bar, or one a lane and bar on an
 * APO_SCORE_WIDTHS_OWN tile read as such), finite, and no sd flat (< 0). Then each band is the
 * width's sum, never NaN (a finite mean plus or minus a finite width times a finite sd is
 * finite or an infinity), and the rule is asked at every bar: the checked step's outcome at
 * every bar, for a vector load and test per APO_LANES values of each array. */
static inline int apo__score_lanes_clean(const int widths, const apo__score_sets_tile *tile,
                                         const apo__score_lanes_sets *set, int rounds,
                                         const apo__score_lanes_k *k, size_t i, size_t stop) {
    const size_t per_bar = widths == APO_SCORE_WIDTHS_OWN ? APO_LANES : 1;
    for (int r = -1; r < rounds; r++) {
        if (r > 0 && set[r].sd == set[r - 1].sd && set[r].mean == set[r - 1].mean)
            continue; /* the same pass as the round before */
        /* r -1: the closes, checked as a mean would be, with no sd */
        const double *sd = r < 0 ? NULL : set[r].sd;
        const double *mean = r < 0 ? tile->close : set[r].mean;
        const size_t first = r < 0 ? i : i * per_bar, end = r < 0 ? stop : stop * per_bar;
        size_t t = first;
        for (; t + APO_LANES <= end; t += APO_LANES) {
            const apo_vd v = sd != NULL ? apo_vd_loadu(sd + t) : k->zero;
            const apo_vm ok =
                apo_vm_and(apo__score_lanes_finite(k, apo_vd_loadu(mean + t)),
                           apo_vm_and(apo_vd_ge(v, k->zero), apo_vd_le(v, k->max_finite)));
            if (apo_vm_bits(ok) != APO_LANES_ALL)
                return 0;
        }
        for (; t < end; t++)
            if (!isfinite(mean[t]) || (sd != NULL && !(sd[t] >= 0.0 && sd[t] <= DBL_MAX)))
                return 0;
    }
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
static APO_FORCE_INLINE size_t apo__score_lanes_chunk(
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
static APO_FORCE_INLINE void
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
        if (widths && finite_widths &&
            apo__score_lanes_clean(widths, tile, set, rounds, k, i, stop))
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
static APO_FORCE_INLINE void
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

/* Whether a rule of kind `kind` folds on an APO_SCORE_WIDTHS_OWN tile: the kinds of
 * bollinger's own rules (runtime/catalog/scored_kernels.c forms such tiles for no other),
 * which alone compile its copies. */
#define APO_SCORE_LANES_OWN_KIND(kind)                                                             \
    ((kind) == APO_RULE_BANDS_REVERT || (kind) == APO_RULE_BANDS_ZONE)

/* apo__score_lanes_tile for one kind (a constant), with `widths`, the rounds and `book` as
 * constants too: each compiles to loops of their own, as the scalar fold's per-kind loops
 * did. One function a kind, kept out of apo__score_fold_round (APO_NOINLINE): with every
 * kind's copies in that one function gcc took about 115 s for lanes_sse2.c at -O3, most of
 * it in passes whose cost grows faster than a function's size; a call a tile is all it costs
 * at run time. */
#define APO_SCORE_LANES_KIND_TILE(kind)                                                            \
    static APO_NOINLINE void apo__score_lanes_tile_##kind(                                         \
        const int book, const int rounds, const apo__score_sets_tile *tile,                        \
        const apo__score_lanes_sets *set, const apo__score_lanes_k *k, apo__score_lanes *s,        \
        apo__score_lanes_more *c, apo__score_lanes_book *b) {                                      \
        if (APO_SCORE_LANES_OWN_KIND(kind) && tile->widths == APO_SCORE_WIDTHS_OWN)                \
            apo__score_lanes_tile_views(kind, APO_SCORE_WIDTHS_OWN, book, rounds, tile, set, k, s, \
                                        c, b);                                                     \
        else if (tile->widths)                                                                     \
            apo__score_lanes_tile_views(kind, 1, book, rounds, tile, set, k, s, c, b);             \
        else                                                                                       \
            apo__score_lanes_tile_views(kind, 0, book, rounds, tile, set, k, s, c, b);             \
    }

/* apo__score_lanes_tile, the copy for the values of `book` and the rounds as constants. */
static APO_FORCE_INLINE void
apo__score_lanes_tile_views(const int kind, const int widths, const int book, const int rounds,
                            const apo__score_sets_tile *tile, const apo__score_lanes_sets *set,
                            const apo__score_lanes_k *k, apo__score_lanes *s,
                            apo__score_lanes_more *c, apo__score_lanes_book *b) {
    if (book && rounds == 2)
        apo__score_lanes_tile(kind, widths, 2, 1, tile, set, k, s, c, b);
    else if (book)
        apo__score_lanes_tile(kind, widths, 1, 1, tile, set, k, s, c, b);
    else if (rounds == 2)
        apo__score_lanes_tile(kind, widths, 2, 0, tile, set, k, s, c, NULL);
    else
        apo__score_lanes_tile(kind, widths, 1, 0, tile, set, k, s, c, NULL);
}

APO_SCORE_LANES_KINDS(APO_SCORE_LANES_KIND_TILE)
#undef APO_SCORE_LANES_KIND_TILE

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

/* The tile's bars folded by its kind's function (above) into the rounds' lanes. */
static void APO_LANES_NAME(apo__score_fold_kind)(const apo__score_sets_tile *tile, int book,
                                                 int rounds, const apo__score_lanes_sets *set,
                                                 const apo__score_lanes_k *k, apo__score_lanes *s,
                                                 apo__score_lanes_more *more,
                                                 apo__score_lanes_book *b) {
/* A case of the switch below: the kind's function (above). */
#define APO_SCORE_LANES_CASE(kind)                                                                 \
    case kind:                                                                                     \
        apo__score_lanes_tile_##kind(book, rounds, tile, set, k, s, more, b);                      \
        break;
    switch (tile->kind) {
        APO_SCORE_LANES_KINDS(APO_SCORE_LANES_CASE)
    default:
        break;
    }
#undef APO_SCORE_LANES_CASE
}

/* Bars an APO_SCORE_WIDTHS_OWN tile folds at a time: each round's passes, lane beside lane,
 * in two arrays of this many bars on the stack (32 KiB for two rounds of eight lanes). */
#define APO_SCORE_OWN_CHUNK 128

/* apo__score_fold_kind on an APO_SCORE_WIDTHS_OWN tile. Rounds whose lanes all read one pass
 * (sets[j].pass; a lane past the round's sets reads its first set's, as it folds its copy)
 * read it as a `widths` tile's, each round its own; otherwise a chunk of bars at a time, the
 * sd and mean of each lane's pass are laid lane beside lane, bar after bar (a round of one
 * pass: its value in every lane), and the chunk folded reading them. The fold keeps its
 * whole state in the lanes between chunks, so each set's bits are those of the tile folded
 * whole with its pass alone. */
static void APO_LANES_NAME(apo__score_fold_own)(const apo__score_sets_tile *tile,
                                                const apo__score_set *sets, size_t n, int rounds,
                                                int book, apo__score_lanes_sets *set,
                                                const apo__score_lanes_k *k, apo__score_lanes *s,
                                                apo__score_lanes_more *more,
                                                apo__score_lanes_book *b) {
    const double *const *pass[APO_SCORE_LANES_ROUNDS][APO_LANES];
    int one_pass[APO_SCORE_LANES_ROUNDS], every_one = 1;
    for (int r = 0; r < rounds; r++) {
        const size_t first = (size_t)r * APO_LANES;
        const size_t in_round = n - first < APO_LANES ? n - first : APO_LANES;
        one_pass[r] = 1;
        for (size_t l = 0; l < APO_LANES; l++) {
            pass[r][l] = sets[first + (l < in_round ? l : 0)].pass;
            one_pass[r] &= pass[r][l] == pass[r][0];
        }
        every_one &= one_pass[r];
    }
    if (every_one) {
        apo__score_sets_tile one = *tile;
        one.widths = 1;
        for (int r = 0; r < rounds; r++) {
            set[r].sd = pass[r][0][0];
            set[r].mean = pass[r][0][1];
        }
        APO_LANES_NAME(apo__score_fold_kind)(&one, book, rounds, set, k, s, more, b);
        return;
    }
    double sd[APO_SCORE_LANES_ROUNDS][APO_SCORE_OWN_CHUNK * APO_LANES];
    double mean[APO_SCORE_LANES_ROUNDS][APO_SCORE_OWN_CHUNK * APO_LANES];
    for (int r = 0; r < rounds; r++) {
        set[r].sd = sd[r];
        set[r].mean = mean[r];
    }
    for (size_t c0 = 0; c0 < tile->n; c0 += APO_SCORE_OWN_CHUNK) {
        const size_t m = tile->n - c0 < APO_SCORE_OWN_CHUNK ? tile->n - c0 : APO_SCORE_OWN_CHUNK;
        for (int r = 0; r < rounds; r++) {
            if (one_pass[r]) {
                const double *from_sd = pass[r][0][0] + c0, *from_mean = pass[r][0][1] + c0;
                for (size_t i = 0; i < m; i++) {
                    apo_vd_storeu(&sd[r][i * APO_LANES], apo__score_lanes_load1(&from_sd[i]));
                    apo_vd_storeu(&mean[r][i * APO_LANES], apo__score_lanes_load1(&from_mean[i]));
                }
                continue;
            }
            for (size_t l = 0; l < APO_LANES; l++) {
                const double *from_sd = pass[r][l][0] + c0, *from_mean = pass[r][l][1] + c0;
                for (size_t i = 0; i < m; i++) {
                    sd[r][i * APO_LANES + l] = from_sd[i];
                    mean[r][i * APO_LANES + l] = from_mean[i];
                }
            }
        }
        apo__score_sets_tile chunk = *tile;
        chunk.close = tile->close + c0;
        chunk.move = tile->move + c0;
        chunk.finite = tile->finite + c0;
        chunk.n = m;
        APO_LANES_NAME(apo__score_fold_kind)(&chunk, book, rounds, set, k, s, more, b);
    }
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
    apo__score_lanes_tile_pass(set, rounds, tile);
    apo__score_lanes_more *const more = compound ? c : NULL;
    if (tile->widths == APO_SCORE_WIDTHS_OWN)
        APO_LANES_NAME(apo__score_fold_own)(tile, sets, n, rounds, book, set, &k, s, more, b);
    else
        APO_LANES_NAME(apo__score_fold_kind)(tile, book, rounds, set, &k, s, more, b);
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
