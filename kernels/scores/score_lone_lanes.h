/*
 * score_lone_lanes.h: the fold of a lone set of a pass over a tile of bars, with its bars in
 * the lanes of a vector (docs/perf-log/2026-11-23-scored-sweeps.md, "A lone set's bars in vector
 * lanes").
 *
 * Why: a lone set in score_lanes.h would take one lane of the narrowest path, the other
 * idle, and walk the tile bar by bar. Most of a bar's work does not chain from one bar to the next:
 * the bands of the set's widths, a stateless rule's position (bands_zone, macd_cross, zone,
 * cross, price_cross read bar t only), the return prev * move - cost * |pos - prev| from two
 * known positions, the counts of trades and exposed bars. Those take APO_LANES bars a vector
 * here. Only the sums (total, the shifted sums, the running peak and drawdown) add the
 * returns one after another, in bar order, with apo__score_fold_return (score_tile.h), the
 * scalar fold's own operations, so the scores keep every bit. A stateful rule (bands_revert,
 * revert) takes its positions bar by bar with apo__rule_position; its returns and sums are
 * split as a stateless rule's.
 *
 * How each step keeps the scalar fold's bits:
 *   - the bands and positions are score_lanes.h's lane operations, the same ones a set's lane
 *     takes there, on bars rather than sets; a bar whose close is not finite then carries the
 *     previous position over, in order, as apo__score_bar_move does;
 *   - a return is the product and difference of the same values (positions -1, 0, +1 as
 *     doubles); bars that do not score are left out of the returns, which are packed in bar
 *     order;
 *   - the counts are sums of 0 and 1, exact in any order.
 *
 * Included by lanes_entry.h after score_lanes.h; builds APO_LANES_NAME(apo__score_fold_lone).
 */
#ifndef APO_SCORE_LONE_LANES_H
#define APO_SCORE_LONE_LANES_H

#include "bollinger_pass.h"
#include "score_lanes.h"

/* Bars a chunk of the lone fold holds: their positions and returns fit in the L1 cache. */
#define APO_SCORE_LONE_CHUNK 512

/* Outputs a rule reads without a pass of widths, at most (apportion.h's APO_MAX_IO). */
#define APO_SCORE_LONE_MAX_OUT 8

/* The outputs the scalar fold sees at bar i (score_sets.h): the set's bands for a `widths`
 * pass (apo__bollinger_pass_bands_compared), else the pass's outputs. Returns their count. */
static inline size_t apo__score_lone_outputs(const apo__score_sets_tile *tile,
                                             const apo__score_set *set, size_t i, double *o) {
    if (tile->widths) {
        apo__bollinger_pass_bands_compared(tile->out[1][i], tile->out[0][i], set->nbdev_up,
                                           set->nbdev_dn, o);
        return 3;
    }
    for (size_t k = 0; k < tile->n_out; k++)
        o[k] = tile->out[k][i];
    return tile->n_out;
}

/* The outputs a rule of kind `kind` reads at bars [i, i + APO_LANES), one bar a lane: o[0 .. 3)
 * the bands (a `widths` pass's, as apo__score_lanes_position takes them) or the kernel's first
 * three outputs, oa and ob the generic kinds' outputs a and b. */
static APO_FORCE_INLINE void apo__score_lone_load(const int kind, const int widths,
                                                  const apo__score_sets_tile *tile,
                                                  const apo__score_lanes_sets *set,
                                                  const apo__score_lanes_k *k, size_t i, apo_vd *o,
                                                  apo_vd *oa, apo_vd *ob) {
    const double *const *out = tile->out;
    o[0] = o[1] = o[2] = *oa = *ob = k->zero;
    if (widths) {
        /* apo__bollinger_pass_bands_compared, as in apo__score_lanes_position. */
        const apo_vd mean = apo_vd_loadu(out[1] + i), sd = apo_vd_loadu(out[0] + i);
        const apo_vm flat = apo_vd_lt(sd, k->zero);
        o[0] = apo_vd_select(flat, mean, mean + set->nbdev_up * sd);
        o[1] = mean;
        o[2] = apo_vd_select(flat, mean, mean - set->nbdev_dn * sd);
        *oa = o[tile->a < 3 ? tile->a : 0];
        *ob = o[tile->b < 3 ? tile->b : 0];
    } else if (kind == APO_RULE_BANDS_ZONE || kind == APO_RULE_MACD_CROSS ||
               kind == APO_RULE_BANDS_REVERT) {
        for (int j = 0; j < 3; j++)
            o[j] = apo_vd_loadu(out[j] + i);
    } else {
        *oa = apo_vd_loadu(out[tile->a] + i);
        if (kind == APO_RULE_CROSS)
            *ob = apo_vd_loadu(out[tile->b] + i);
    }
}

/* A stateless rule's position at bars [i, i + APO_LANES), one bar a lane, as if every close
 * were finite (the caller carries the position over those that are not). */
static APO_FORCE_INLINE apo_vd apo__score_lone_stateless(const int kind, const int widths,
                                                         const apo__score_sets_tile *tile,
                                                         const apo__score_lanes_sets *set,
                                                         const apo__score_lanes_k *k, size_t i) {
    apo_vd o[3], oa, ob;
    apo__score_lone_load(kind, widths, tile, set, k, i, o, &oa, &ob);
    const apo_vd up = set->up, down = set->down; /* the set's side (score_lanes.h) */
    switch (kind) {
    case APO_RULE_BANDS_ZONE:
        return apo__score_lanes_zone(apo_vd_loadu(tile->close + i), o[2], o[0], up, down);
    case APO_RULE_MACD_CROSS:
        return apo__score_lanes_sign(o[2], k->zero, up, down);
    case APO_RULE_ZONE:
        return apo__score_lanes_zone(oa, set->lower, set->upper, up, down);
    case APO_RULE_CROSS:
        return apo__score_lanes_sign(oa, ob, up, down);
    default: /* APO_RULE_PRICE_CROSS */
        return apo__score_lanes_sign(apo_vd_loadu(tile->close + i), oa, up, down);
    }
}

/* The identity among the transitions below: a bar whose close is not finite keeps the
 * position. */
#define APO_SCORE_LONE_KEEP (0.0 + 4.0 * 1.0 + 16.0 * 2.0)

/*
 * A stateful rule's transitions at bars [i, i + APO_LANES), one bar a lane, from their outputs
 * (apo__score_lone_load) and closes c: the position it takes from each previous one, all
 * three known before the previous is. Packed as
 * (from short + 1) + 4 (from flat + 1) + 16 (from long + 1), a double (exact), so the
 * automaton's step is a shift and a mask of an integer (apo__score_lone_positions), a few
 * cycles a bar where apo__rule_position's was tens. The values are apo__rule_revert_step's:
 * from flat the zone, from long 1 while v is below the middle, from short -1 while above;
 * bands_revert's all 0 while a band is NaN; the signal rule's an event's side from any
 * position and, without one, the position kept; any rule's the identity at a close that is
 * not finite. A set's side is in the constants its rule selects (score_lanes.h): a position
 * the side does not allow is 0 in every transition, as apo__rule_position makes it.
 */
static APO_FORCE_INLINE apo_vd apo__score_lone_state_codes(const int kind,
                                                           const apo__score_lanes_sets *set,
                                                           const apo__score_lanes_k *k,
                                                           const apo_vd *o, apo_vd oa, apo_vd c) {
    const apo_vd four = apo_vd_splat(4.0), sixteen = apo_vd_splat(16.0);
    if (kind == APO_RULE_SIGNAL) {
        /* An event's side from any position (flat for the side the set does not trade); no
         * event, of either side, keeps the position. */
        const apo_vm none =
            apo_vd_eq(apo__score_lanes_sign(oa, k->zero, k->one, k->minus_one), k->zero);
        const apo_vd s = apo__score_lanes_sign(oa, k->zero, set->up, set->down);
        const apo_vd code = (apo_vd_select(none, k->minus_one, s) + k->one) + four * (s + k->one) +
                            sixteen * (apo_vd_select(none, k->one, s) + k->one);
        return apo_vd_select(apo__score_lanes_finite(k, c), code,
                             apo_vd_splat(APO_SCORE_LONE_KEEP));
    }
    apo_vd v = oa, lower = set->lower, middle = set->middle, upper = set->upper;
    if (kind == APO_RULE_BANDS_REVERT)
        v = c, lower = o[2], middle = o[1], upper = o[0];
    apo_vd from_flat = apo__score_lanes_zone(v, lower, upper, set->up, set->down);
    apo_vd from_long = apo__score_lanes_if(apo_vd_lt(v, middle), set->up);
    apo_vd from_short = apo__score_lanes_if(apo_vd_gt(v, middle), set->down);
    if (kind == APO_RULE_BANDS_REVERT) {
        const apo_vm bands = apo_vm_and(
            apo_vm_and(apo__score_lanes_not_nan(k, o[0]), apo__score_lanes_not_nan(k, o[1])),
            apo__score_lanes_not_nan(k, o[2]));
        from_flat = apo__score_lanes_if(bands, from_flat);
        from_long = apo__score_lanes_if(bands, from_long);
        from_short = apo__score_lanes_if(bands, from_short);
    }
    const apo_vd code =
        (from_short + k->one) + four * (from_flat + k->one) + sixteen * (from_long + k->one);
    return apo_vd_select(apo__score_lanes_finite(k, c), code, apo_vd_splat(APO_SCORE_LONE_KEEP));
}

/* The positions of bars [i, end) into pos[1 ..], pos[0] holding the one before: a stateless
 * rule's a vector of bars at a time, a stateful rule's (and the last bars') bar by bar by
 * apo__rule_position. Either way a bar whose close is not finite keeps the previous one. */
static APO_FORCE_INLINE void
apo__score_lone_positions(const int kind, const int widths, const apo__score_sets_tile *tile,
                          const apo__score_set *one, const apo__rule *rule,
                          const apo__score_lanes_sets *set, const apo__score_lanes_k *k, size_t i,
                          size_t end, double *pos) {
    size_t j = 0;
    const size_t n = end - i;
    if (kind == APO_RULE_BANDS_REVERT || kind == APO_RULE_REVERT || kind == APO_RULE_SIGNAL) {
        /* Each bar's transitions in lanes, then the automaton bar by bar on them: its state
         * is the position + 1 (0, 1, 2), two bits of a bar's code each. The codes go into
         * pos[1 ..], each read before its place is written. */
        for (; j + APO_LANES <= n; j += APO_LANES) {
            apo_vd o[3], oa, ob;
            apo__score_lone_load(kind, widths, tile, set, k, i + j, o, &oa, &ob);
            apo_vd_storeu(pos + 1 + j, apo__score_lone_state_codes(
                                           kind, set, k, o, oa, apo_vd_loadu(tile->close + i + j)));
        }
        unsigned state = (unsigned)((int)pos[0] + 1);
        for (size_t q = 0; q < j; q++) {
            state = (unsigned)pos[1 + q] >> (2 * state) & 3u;
            pos[1 + q] = (double)state - 1.0;
        }
    } else {
        for (; j + APO_LANES <= n; j += APO_LANES) {
            apo_vd_storeu(pos + 1 + j,
                          apo__score_lone_stateless(kind, widths, tile, set, k, i + j));
            const apo_vm closes = apo__score_lanes_finite(k, apo_vd_loadu(tile->close + i + j));
            if (apo_vm_bits(closes) != APO_LANES_ALL)
                for (size_t l = 0; l < APO_LANES; l++)
                    if (!isfinite(tile->close[i + j + l]))
                        pos[1 + j + l] = pos[j + l];
        }
    }
    /* Zeros past the outputs the tile has: read by no rule of a well-formed tile. */
    double o[APO_SCORE_LONE_MAX_OUT] = {0};
    for (; j < n; j++) {
        apo__score_lone_outputs(tile, one, i + j, o);
        const int prev = (int)pos[j];
        const double c = tile->close[i + j];
        pos[1 + j] = isfinite(c) ? (double)apo__rule_position(rule, prev, c, o) : (double)prev;
    }
}

/* The returns of the scored bars among i + [j, stop) into returns[m ..], bar by bar, and their
 * counts into f; returns the new m. */
static inline size_t apo__score_lone_returns_scalar(const apo__score_sets_tile *tile,
                                                    const apo__score_set *one, size_t i, size_t j,
                                                    size_t stop, const double *pos, double *returns,
                                                    size_t m, apo__score_fold *f) {
    for (; j < stop; j++) {
        if (!tile->finite[i + j])
            continue;
        const int prev = (int)pos[j], now = (int)pos[1 + j];
        returns[m++] = apo__score_return(prev, now, one->cost, tile->move[i + j]);
        f->trades += now != prev;
        f->exposed += now != 0;
    }
    return m;
}

/* The sums of a chunk's m returns in bar order (apo__score_fold_return) and, with `compound`,
 * the compounded equity beside them; with `book` (the `/more` view), all the more statistics
 * of each scored bar from its previous and new positions, pos[j] and pos[j + 1] of the chunk's
 * bar j: the equity by apo__score_more_compound, the rest (apo__score_more_return's book) by
 * score_lanes.h's lane operations with the set in every lane, read back from lane 0. Those
 * select where the scalar step's comparisons compile to branches, mispredicted at every end
 * of a trade. A chunk whose every bar scores, held at its first as before it, has no trade
 * that ended in a gap (apo__score_lanes_book_step_held). */
static APO_FORCE_INLINE void apo__score_lone_sums(const int compound, const int book,
                                                  const unsigned char *finite, size_t n,
                                                  const double *pos, const double *returns,
                                                  size_t m, apo__score_fold *f,
                                                  apo__score_more *more) {
    if (book) {
        const apo__score_lanes_k k = apo__score_lanes_constants();
        apo__score_lanes_book b;
        memset(&b, 0, sizeof b);
        apo__score_lanes_book_lane(&b, 0, more);
        if (m == n && more->held == (int)pos[0]) {
            for (size_t j = 0; j < n; j++) {
                apo__score_fold_return(f, returns[j]);
                apo__score_more_compound(more, returns[j]);
                const apo_vd prev = apo__score_lanes_load1(&pos[j]);
                const apo_vd now = apo__score_lanes_load1(&pos[j + 1]);
                b.units = b.units + apo_vd_abs(now - prev);
                apo__score_lanes_book_step_held(&b, &k, apo__score_lanes_load1(&returns[j]),
                                                apo__score_lanes_change_end(&k, prev, now));
            }
            b.held = apo__score_lanes_load1(&pos[n]);
            apo__score_lanes_book_store(&b, 0, more);
            return;
        }
        size_t q = 0;
        for (size_t j = 0; j < n; j++) {
            if (!finite[j])
                continue;
            apo__score_fold_return(f, returns[q]);
            apo__score_more_compound(more, returns[q]);
            const apo_vd r = apo__score_lanes_load1(&returns[q]);
            const apo_vd prev = apo__score_lanes_load1(&pos[j]);
            const apo_vd now = apo__score_lanes_load1(&pos[j + 1]);
            b.units = b.units + apo_vd_abs(now - prev);
            apo__score_lanes_book_step(&b, &k, r, apo__score_lanes_gap_end(&k, b.held, prev),
                                       apo__score_lanes_change_end(&k, prev, now));
            b.held = now;
            q++;
        }
        apo__score_lanes_book_store(&b, 0, more);
    } else if (compound) {
        for (size_t q = 0; q < m; q++) {
            apo__score_fold_return(f, returns[q]);
            apo__score_more_compound(more, returns[q]);
        }
    } else {
        for (size_t q = 0; q < m; q++)
            apo__score_fold_return(f, returns[q]);
    }
}

/* Folds the tile into `fold` with the lone set `one` under a rule of kind `kind` (a constant,
 * as in score_lanes.h): bar by bar by apo__score_bar_move until the set starts, then a chunk
 * at a time its positions, its scored bars' returns and counts in lanes, and the sums of the
 * returns in bar order; with `compound` (a constant: one->compound is not NULL), the
 * compounded equity beside the sums, and with `book` too (the `/more` view) every more
 * statistic. Constants, so that the plain view's loops are compiled as they were without them
 * (a test of `compound` in them cost a lone bands_revert a fifth of its time). */
static APO_FORCE_INLINE void apo__score_lone_tile(const int kind, const int widths,
                                                  const int compound, const int book,
                                                  const apo__score_sets_tile *tile,
                                                  const apo__score_set *one,
                                                  apo__score_fold *fold) {
    const apo__score_lanes_k k = apo__score_lanes_constants();
    double up, down;
    apo__score_lanes_side(one->side, &up, &down);
    const apo__score_lanes_sets set = {apo_vd_splat(one->nbdev_up),
                                       apo_vd_splat(one->nbdev_dn),
                                       apo_vd_splat(one->lower),
                                       apo_vd_splat(one->upper),
                                       apo_vd_splat(one->middle),
                                       apo_vd_splat(one->cost),
                                       apo_vd_splat(up),
                                       apo_vd_splat(down),
                                       NULL,
                                       NULL};
    /* The set's rule as the scalar fold takes it, on the set's side; middle is the set's,
     * already (lower + upper) / 2. */
    const int a = widths && tile->a >= 3 ? 0 : tile->a, b = widths && tile->b >= 3 ? 0 : tile->b;
    const apo__rule rule = {kind, a, b, one->lower, one->upper, one->middle, one->side};
    /* Local copies: the sums stay in registers, where stores through `fold` could alias the
     * returns. The compounded equity of the `/compound` and `/log` views, where the set has
     * one, is apo__score_more_compound's over the same returns (apo__score_bar_more). */
    apo__score_fold f = *fold;
    apo__score_more more;
    apo__score_more_init(&more);
    if (compound)
        more = *one->compound;
    size_t i = 0;
    double o[APO_SCORE_LONE_MAX_OUT] = {0}; /* as in apo__score_lone_positions */
    /* Until the set starts no bar scores (apo__score_bar_pos): nothing to compound. */
    for (; i < tile->n && !f.started; i++) {
        const size_t n_out = apo__score_lone_outputs(tile, one, i, o);
        apo__score_bar_move(&f, &rule, one->cost, tile->close[i], tile->finite[i], tile->move[i], o,
                            n_out);
    }
    double pos[APO_SCORE_LONE_CHUNK + 1];
    double returns[APO_SCORE_LONE_CHUNK];
    apo_vd trades = k.zero, exposed = k.zero;
    while (i < tile->n) {
        const size_t end = tile->n - i < APO_SCORE_LONE_CHUNK ? tile->n : i + APO_SCORE_LONE_CHUNK;
        const size_t n = end - i;
        pos[0] = (double)f.pos;
        apo__score_lone_positions(kind, widths, tile, one, &rule, &set, &k, i, end, pos);
        size_t m = 0, j = 0;
        for (; j + APO_LANES <= n; j += APO_LANES) {
            unsigned scored = 1;
            for (size_t l = 0; l < APO_LANES; l++)
                scored &= tile->finite[i + j + l] != 0;
            if (!scored) { /* rare: a gap, the series' first bar */
                m = apo__score_lone_returns_scalar(tile, one, i, j, j + APO_LANES, pos, returns, m,
                                                   &f);
                continue;
            }
            apo_vd traded, held;
            const apo_vd r =
                apo__score_lanes_return(&k, &set, apo_vd_loadu(pos + j), apo_vd_loadu(pos + 1 + j),
                                        apo_vd_loadu(tile->move + i + j), &traded, &held);
            apo_vd_storeu(returns + m, r);
            m += APO_LANES;
            trades = trades + traded;
            exposed = exposed + held;
        }
        m = apo__score_lone_returns_scalar(tile, one, i, j, n, pos, returns, m, &f);
        apo__score_lone_sums(compound, book, tile->finite + i, n, pos, returns, m, &f, &more);
        f.pos = (int)pos[n];
        i = end;
    }
    for (size_t l = 0; l < APO_LANES; l++) {
        f.trades += (int64_t)apo_vd_lane(trades, l);
        f.exposed += (int64_t)apo_vd_lane(exposed, l);
    }
    *fold = f;
    if (compound)
        *one->compound = more;
}

/* apo__score_lone_tile for one kind, `widths` and the view (plain, compounding, or the
 * `/more` view's every statistic) as constants: each compiles to loops of their own. One
 * function a kind, kept out of apo__score_fold_lone (APO_NOINLINE), as score_lanes.h's. */
#define APO_SCORE_LONE_KIND_TILE(kind)                                                             \
    static APO_NOINLINE void apo__score_lone_tile_##kind(                                          \
        const int compound, const int book, const apo__score_sets_tile *tile,                      \
        const apo__score_set *one, apo__score_fold *fold) {                                        \
        if (tile->widths && book)                                                                  \
            apo__score_lone_tile(kind, 1, 1, 1, tile, one, fold);                                  \
        else if (tile->widths && compound)                                                         \
            apo__score_lone_tile(kind, 1, 1, 0, tile, one, fold);                                  \
        else if (tile->widths)                                                                     \
            apo__score_lone_tile(kind, 1, 0, 0, tile, one, fold);                                  \
        else if (book)                                                                             \
            apo__score_lone_tile(kind, 0, 1, 1, tile, one, fold);                                  \
        else if (compound)                                                                         \
            apo__score_lone_tile(kind, 0, 1, 0, tile, one, fold);                                  \
        else                                                                                       \
            apo__score_lone_tile(kind, 0, 0, 0, tile, one, fold);                                  \
    }
APO_SCORE_LANES_KINDS(APO_SCORE_LONE_KIND_TILE)
#undef APO_SCORE_LONE_KIND_TILE

/* Folds the tile into `fold` with the lone set `one`, by its kind's function (above). */
static void APO_LANES_NAME(apo__score_fold_lone)(const apo__score_sets_tile *tile,
                                                 const apo__score_set *one, apo__score_fold *fold) {
    const int compound = one->compound != NULL;
    const int book = compound && one->compound->view == APO_SCORE_VIEW_MORE;
#define APO_SCORE_LONE_CASE(kind)                                                                  \
    case kind:                                                                                     \
        apo__score_lone_tile_##kind(compound, book, tile, one, fold);                              \
        break;
    switch (tile->kind) {
        APO_SCORE_LANES_KINDS(APO_SCORE_LONE_CASE)
    default:
        break;
    }
#undef APO_SCORE_LONE_CASE
}

#endif /* APO_SCORE_LONE_LANES_H */
