/*
 * score_ride_lanes.h: the folds of several chains of ranges over one tile of bars, each set's
 * positions and returns taken once per bar for all of them (score_sets.h,
 * apo__cpu_score_ride_sets; docs/scores.md, "Ranges").
 *
 * Why: a ranged call folds each bar once per chain of ranges that covers it (a fixed
 * walk-forward's bars lie in about five), and a chain's fold must start from nothing at its
 * first bar, so no sum can be shared. But a set's position at a bar is a function of its
 * position at the bar before and of the bar alone, so two folds of one set that hold the same
 * position after a bar hold the same positions, and take the same returns, from there on
 * (a stateless rule agrees at its first finite close, a stateful one at its first flat bar).
 * A reference fold takes the positions and returns of every bar once; a chain whose sets have
 * all started and hold the reference's positions only adds the reference's returns to its
 * sums, peak and drawdown, and counts its trades and exposure from the reference's counts.
 * Until then it folds bar by bar with apo__score_lanes_warm_bar, the fold's own body, and
 * joins the reference as soon as every lane agrees. Every value a chain keeps is computed by
 * the same operations on the same values, in the same order, as its fold alone would
 * (apo__score_lanes_hot adds the returns of a chunk the same way), so every bit is kept; the
 * reference's own start does not matter, only the equality of positions.
 *
 * Included by lanes_entry.h after score_lanes.h; builds APO_LANES_NAME(apo__score_ride_round).
 */
#ifndef APO_SCORE_RIDE_LANES_H
#define APO_SCORE_RIDE_LANES_H

#include "score_lanes.h"

/* Chains whose lane state a call holds at once (more are taken in groups, the reference's
 * positions computed again for each group): a walk-forward of 16 windows fits in one. */
#define APO_SCORE_RIDE_CHAINS 32

/* Bars of a chunk: the reference's buffers of two rounds stay in the L1 and L2 caches. */
#define APO_SCORE_RIDE_CHUNK 128

/* What the reference leaves of a chunk of bars [i0, i1) for the chains of a round: the
 * returns of its scored bars in order, the position after each bar, and the trades and
 * exposed bars it counted over the chunk. Only those are stored, a bar's stores being what
 * the reference costs beside the positions: a chain that joins inside a chunk counts its
 * bars from the positions (apo__score_ride_counts). */
typedef struct apo__score_ride_ref {
    apo_vd ret[APO_SCORE_RIDE_CHUNK];
    apo_vd pos[APO_SCORE_RIDE_CHUNK];
    /* For the chains of a zero shift (apo__score_ride_flat), filled by the first pair of them
     * in a chunk and read by the others: the returns with a lane that is not 0 or -0, in
     * order (n_moved of them), and their squares. A return of 0 or -0 in every lane leaves
     * such a chain's every value as it was (apo__score_ride_moved). */
    apo_vd moved[APO_SCORE_RIDE_CHUNK];
    apo_vd square[APO_SCORE_RIDE_CHUNK];
    size_t n_moved;
    apo_vd traded, exposed;
} apo__score_ride_ref;

/* The reference's bars [i0, i1) for `rounds` rounds side by side (1 or 2, a constant: the
 * positions are a chain through the bars, and two rounds' chains overlap): the rule's
 * positions from ref_pos[r] on and, at each scored bar, the return of apo__score_lanes_return
 * with the counts. Returns the bars scored. `clean` (a constant) as
 * apo__score_lanes_started_step takes it. */
static APO_FORCE_INLINE size_t apo__score_ride_ref_steps(
    const int kind, const int widths, const int clean, const int rounds,
    const apo__score_sets_tile *tile, const apo__score_lanes_sets *set, const apo__score_lanes_k *k,
    apo_vd *ref_pos, size_t i0, size_t i1, apo__score_ride_ref *b) {
    size_t m = 0;
    apo_vd pos[APO_SCORE_LANES_ROUNDS], trades[APO_SCORE_LANES_ROUNDS],
        exposed[APO_SCORE_LANES_ROUNDS];
    for (int r = 0; r < rounds; r++) {
        pos[r] = ref_pos[r];
        trades[r] = exposed[r] = k->zero;
    }
    for (size_t i = i0; i < i1; i++) {
        const int scored = tile->finite[i] != 0;
        for (int r = 0; r < rounds; r++) {
            const apo_vd next =
                apo__score_lanes_started_step(kind, widths, clean, tile, &set[r], k, pos[r], i,
                                              scored, &b[r].ret[m], &trades[r], &exposed[r]);
            b[r].pos[i - i0] = next;
            pos[r] = next;
        }
        m += (size_t)scored;
    }
    for (int r = 0; r < rounds; r++) {
        ref_pos[r] = pos[r];
        b[r].traded = trades[r];
        b[r].exposed = exposed[r];
    }
    return m;
}

/* apo__score_ride_ref_steps on a chunk: the clean step where apo__score_lanes_clean passes the
 * chunk of a `widths` pass with finite widths (the same outcome at every bar, fewer
 * instructions, as the whole-history fold takes it in apo__score_lanes_hot). */
static APO_FORCE_INLINE size_t apo__score_ride_ref_chunk(
    const int kind, const int widths, const int rounds, const apo__score_sets_tile *tile,
    const apo__score_lanes_sets *set, const apo__score_lanes_k *k, apo_vd *ref_pos, size_t i0,
    size_t i1, apo__score_ride_ref *b) {
    if (widths && apo__score_lanes_finite_widths(set, rounds, k) &&
        apo__score_lanes_clean(widths, tile, set, rounds, k, i0, i1))
        return apo__score_ride_ref_steps(kind, widths, 1, rounds, tile, set, k, ref_pos, i0, i1, b);
    return apo__score_ride_ref_steps(kind, widths, 0, rounds, tile, set, k, ref_pos, i0, i1, b);
}

/* The scored bars of [i, i1) (i > i0) and the reference's trades and exposed bars among
 * them, from its positions: what a chain that joins at bar i adds. Counts are whole numbers,
 * exact in any order. */
static inline size_t apo__score_ride_counts(const apo__score_sets_tile *tile,
                                            const apo__score_lanes_k *k,
                                            const apo__score_ride_ref *b, size_t i0, size_t i,
                                            size_t i1, apo_vd *trades, apo_vd *exposed) {
    size_t m = 0;
    apo_vd tr = k->zero, ex = k->zero;
    for (; i < i1; i++) {
        if (!tile->finite[i])
            continue;
        const apo_vd pos = b->pos[i - i0], prev = b->pos[i - i0 - 1];
        tr = tr + apo__score_lanes_if(apo_vd_ne(pos, prev), k->one);
        ex = ex + apo__score_lanes_if(apo_vd_ne(pos, k->zero), k->one);
        m++;
    }
    *trades = tr;
    *exposed = ex;
    return m;
}

/* A chain's bars [i0, i1), of which the reference scored m, its position before i0 being
 * `before`: bar by bar by the fold's body until every lane has started and holds the
 * reference's position, then the reference's returns added to the sums (the shift of a lane
 * that has scored no bar yet is its first return, as in apo__score_lanes_hot) and its counts
 * to the chain's. */
static APO_FORCE_INLINE void
apo__score_ride_chain_chunk(const int kind, const int widths, const apo__score_sets_tile *tile,
                            const apo__score_lanes_sets *set, const apo__score_lanes_k *k,
                            apo__score_lanes *s, apo_vd before, size_t i0, size_t i1, size_t m,
                            const apo__score_ride_ref *b) {
    for (size_t i = i0; i < i1; i++) {
        const int joined = apo_vm_bits(apo_vd_gt(s->started, k->zero)) == APO_LANES_ALL &&
                           apo_vm_bits(apo_vd_eq(s->pos, before)) == APO_LANES_ALL;
        if (joined) {
            apo_vd trades = b->traded, exposed = b->exposed;
            const size_t n =
                i == i0 ? m : apo__score_ride_counts(tile, k, b, i0, i, i1, &trades, &exposed);
            if (n > 0) {
                const apo_vd *ret = b->ret + (m - n);
                s->shift = apo_vd_select(apo_vd_le(s->bars, k->zero), ret[0], s->shift);
                apo__score_lanes_sums(s, ret, n);
                s->bars = s->bars + apo_vd_splat((double)n);
                s->trades = s->trades + trades;
                s->exposed = s->exposed + exposed;
            }
            s->pos = b->pos[i1 - i0 - 1];
            return;
        }
        apo__score_lanes_warm_bar(kind, widths, tile, set, k, s, i);
        before = b->pos[i - i0];
    }
}

/* apo__score_lanes_sums for two chains over the same returns, in one loop: each chain's
 * additions wait 4 cycles on the one before, and two chains' waits overlap. Each chain takes
 * the operations of apo__score_lanes_sums in its order. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void
apo__score_ride_sums2(apo__score_lanes *a, apo__score_lanes *b, const apo_vd *returns, size_t m) {
    apo_vd total_a = a->total, dev_sum_a = a->dev_sum, dev_sq_a = a->dev_sq;
    apo_vd peak_a = a->peak, drawdown_a = a->drawdown;
    apo_vd total_b = b->total, dev_sum_b = b->dev_sum, dev_sq_b = b->dev_sq;
    apo_vd peak_b = b->peak, drawdown_b = b->drawdown;
    const apo_vd shift_a = a->shift, shift_b = b->shift;
    for (size_t j = 0; j < m; j++) {
        const apo_vd r = returns[j];
        total_a = total_a + r;
        total_b = total_b + r;
        const apo_vd dev_a = r - shift_a, dev_b = r - shift_b;
        dev_sum_a = dev_sum_a + dev_a;
        dev_sum_b = dev_sum_b + dev_b;
        dev_sq_a = dev_sq_a + dev_a * dev_a;
        dev_sq_b = dev_sq_b + dev_b * dev_b;
        peak_a = apo__score_lanes_max(total_a, peak_a);
        peak_b = apo__score_lanes_max(total_b, peak_b);
        drawdown_a = apo__score_lanes_max(peak_a - total_a, drawdown_a);
        drawdown_b = apo__score_lanes_max(peak_b - total_b, drawdown_b);
    }
    a->total = total_a, a->dev_sum = dev_sum_a, a->dev_sq = dev_sq_a;
    a->peak = peak_a, a->drawdown = drawdown_a;
    b->total = total_b, b->dev_sum = dev_sum_b, b->dev_sq = dev_sq_b;
    b->peak = peak_b, b->drawdown = drawdown_b;
}

/* Whether a chain joins the reference at a chunk's first bar: every lane has started and
 * holds the reference's position before it. */
static inline int apo__score_ride_joined(const apo__score_lanes_k *k, const apo__score_lanes *s,
                                         apo_vd before) {
    return apo_vm_bits(apo_vd_gt(s->started, k->zero)) == APO_LANES_ALL &&
           apo_vm_bits(apo_vd_eq(s->pos, before)) == APO_LANES_ALL;
}

/* Two chains joined at the chunk's first bar take its m scored bars: the shift of a lane that
 * has scored no bar yet, the sums side by side, the counts and the last position. */
static inline void apo__score_ride_pair(const apo__score_lanes_k *k, apo__score_lanes *a,
                                        apo__score_lanes *c, size_t n_bars, size_t m,
                                        const apo__score_ride_ref *b) {
    if (m > 0) {
        a->shift = apo_vd_select(apo_vd_le(a->bars, k->zero), b->ret[0], a->shift);
        c->shift = apo_vd_select(apo_vd_le(c->bars, k->zero), b->ret[0], c->shift);
        apo__score_ride_sums2(a, c, b->ret, m);
        const apo_vd scored = apo_vd_splat((double)m);
        a->bars = a->bars + scored, c->bars = c->bars + scored;
        a->trades = a->trades + b->traded, c->trades = c->trades + b->traded;
        a->exposed = a->exposed + b->exposed, c->exposed = c->exposed + b->exposed;
    }
    a->pos = c->pos = b->pos[n_bars - 1];
}

/* Whether a lane of v is -0. */
static inline int apo__score_ride_has_minus_zero(const apo__score_lanes_k *k, apo_vd v) {
    if (apo_vm_bits(apo_vd_eq(v, k->zero)) == 0)
        return 0; /* no lane is zero, so none is -0 */
    for (size_t l = 0; l < APO_LANES; l++) {
        const double x = apo_vd_lane(v, l);
        if (x == 0.0 && signbit(x))
            return 1;
    }
    return 0;
}

/*
 * A chain of a zero shift. A lane whose first return was 0 or -0 (flat at its first two
 * bars, as most sets start) has dev = r - shift equal to r, bit for bit, at every bar: r - 0
 * is r for every r, and r - (-0) is r except for r = -0, where it is +0. Its dev_sum then
 * takes the same additions as its total from the same +0, so they are the same bits (a
 * sum that is not -0 stays so whether +0 or -0 is added, and a sum that starts at +0 is
 * never -0: x + y is -0 only for two -0), and its dev_sq adds the squares of the returns,
 * which the chains share. Such a chain adds 5 operations a bar, where the sums take 8, and
 * only at the bars where some lane's return is not 0 or -0 (apo__score_ride_moved).
 * Checked per chunk on every lane's bits, not assumed: a chain that fails takes the sums.
 */
static inline int apo__score_ride_flat(const apo__score_lanes_k *k, const apo__score_lanes *s) {
    return apo_vm_bits(apo_vd_gt(s->bars, k->zero)) == APO_LANES_ALL &&
           apo_vm_bits(apo_vd_eq(s->shift, k->zero)) == APO_LANES_ALL &&
           memcmp(&s->total, &s->dev_sum, sizeof s->total) == 0 &&
           !apo__score_ride_has_minus_zero(k, s->total) &&
           !apo__score_ride_has_minus_zero(k, s->dev_sq);
}

/*
 * The chunk's returns that move a chain of a zero shift, and their squares, once for every
 * such chain. A return of 0 or -0 in every lane leaves every value of such a chain as it
 * was, bit for bit: its total, which is not -0 (apo__score_ride_flat), and its dev_sq, which
 * is not -0, stay their bits when +0 or -0 is added (x + 0 is x for every x but -0), and the
 * square added is +0; then its peak and drawdown, since each lane has scored a bar, were
 * last set from this same total: peak = max(total, peak) and drawdown = max(peak - total,
 * drawdown) (apo__score_lanes_max, a select of its second operand unless the first is
 * greater), and the same maxima of the same values give their second operands again. So
 * those bars are left out of its sums; on the fixed walk-forward of apo-bench-kernels, 40% of
 * the reference's returns are 0 or -0 in all eight lanes of avx512 (a bollinger grid's sets
 * out of the market together). Its counts (bars, trades, exposed) take every scored bar.
 */
static inline void apo__score_ride_moved(const apo__score_lanes_k *k, apo__score_ride_ref *b,
                                         size_t m) {
    size_t n = 0;
    for (size_t j = 0; j < m; j++) {
        const apo_vd r = b->ret[j];
        b->moved[n] = r;
        b->square[n] = r * r;
        n += apo_vm_bits(apo_vd_ne(r, k->zero)) != 0;
    }
    b->n_moved = n;
}

/* apo__score_lanes_sums for two chains of a zero shift (apo__score_ride_flat) over the
 * chunk's moving returns (apo__score_ride_moved): the total, the squares' sum, peak and
 * drawdown in the sums' order, and dev_sum the total's bits. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void
apo__score_ride_flat_sums2(apo__score_lanes *a, apo__score_lanes *b, const apo_vd *returns,
                           const apo_vd *squares, size_t m) {
    apo_vd total_a = a->total, dev_sq_a = a->dev_sq, peak_a = a->peak, drawdown_a = a->drawdown;
    apo_vd total_b = b->total, dev_sq_b = b->dev_sq, peak_b = b->peak, drawdown_b = b->drawdown;
    for (size_t j = 0; j < m; j++) {
        const apo_vd r = returns[j], square = squares[j];
        total_a = total_a + r;
        total_b = total_b + r;
        dev_sq_a = dev_sq_a + square;
        dev_sq_b = dev_sq_b + square;
        peak_a = apo__score_lanes_max(total_a, peak_a);
        peak_b = apo__score_lanes_max(total_b, peak_b);
        drawdown_a = apo__score_lanes_max(peak_a - total_a, drawdown_a);
        drawdown_b = apo__score_lanes_max(peak_b - total_b, drawdown_b);
    }
    a->total = a->dev_sum = total_a, a->dev_sq = dev_sq_a;
    a->peak = peak_a, a->drawdown = drawdown_a;
    b->total = b->dev_sum = total_b, b->dev_sq = dev_sq_b;
    b->peak = peak_b, b->drawdown = drawdown_b;
}

/* Two chains of a zero shift joined at the chunk's first bar take its m > 0 scored bars (its
 * moving returns already in b->moved): the sums side by side, the counts and the last
 * position. */
static inline void apo__score_ride_flat_pair(apo__score_lanes *a, apo__score_lanes *c,
                                             size_t n_bars, size_t m,
                                             const apo__score_ride_ref *b) {
    apo__score_ride_flat_sums2(a, c, b->moved, b->square, b->n_moved);
    const apo_vd scored = apo_vd_splat((double)m);
    a->bars = a->bars + scored, c->bars = c->bars + scored;
    a->trades = a->trades + b->traded, c->trades = c->trades + b->traded;
    a->exposed = a->exposed + b->exposed, c->exposed = c->exposed + b->exposed;
    a->pos = c->pos = b->pos[n_bars - 1];
}

/* The chains of one round over a chunk [i0, i1) whose reference scored m bars: those joined
 * at its first bar two by two, the pairs of a zero shift by their shorter sums, the others
 * bar by bar until they join. */
static APO_FORCE_INLINE void
apo__score_ride_round_chunk(const int kind, const int widths, const apo__score_sets_tile *tile,
                            const apo__score_lanes_sets *set, const apo__score_lanes_k *k,
                            apo__score_lanes *s, size_t n_chains, apo_vd before, size_t i0,
                            size_t i1, size_t m, apo__score_ride_ref *b) {
    apo__score_lanes *waiting = NULL, *waiting_flat = NULL;
    int moved = 0;
    for (size_t c = 0; c < n_chains; c++) {
        apo__score_lanes *sc = &s[c];
        if (!apo__score_ride_joined(k, sc, before)) {
            apo__score_ride_chain_chunk(kind, widths, tile, set, k, sc, before, i0, i1, m, b);
        } else if (m > 0 && apo__score_ride_flat(k, sc)) {
            if (waiting_flat == NULL) {
                waiting_flat = sc;
                continue;
            }
            if (!moved)
                apo__score_ride_moved(k, b, m);
            moved = 1;
            apo__score_ride_flat_pair(waiting_flat, sc, i1 - i0, m, b);
            waiting_flat = NULL;
        } else if (waiting == NULL) {
            waiting = sc;
        } else {
            apo__score_ride_pair(k, waiting, sc, i1 - i0, m, b);
            waiting = NULL;
        }
    }
    /* A lone chain of a zero shift takes the sums, beside a lone other one if there is. */
    if (waiting_flat != NULL && waiting != NULL) {
        apo__score_ride_pair(k, waiting, waiting_flat, i1 - i0, m, b);
        waiting = waiting_flat = NULL;
    }
    if (waiting_flat != NULL)
        waiting = waiting_flat;
    if (waiting != NULL)
        apo__score_ride_chain_chunk(kind, widths, tile, set, k, waiting, before, i0, i1, m, b);
}

/* The tile's bars for `rounds` rounds of n_chains chains' lane states s[r][c], under a rule
 * of kind `kind` (constants, as apo__score_lanes_tile), a chunk of bars at a time: the
 * reference's, then each chain's. */
static APO_FORCE_INLINE void apo__score_ride_tile(
    const int kind, const int widths, const int rounds, const apo__score_sets_tile *tile,
    const apo__score_lanes_sets *set, const apo__score_lanes_k *k, apo_vd *ref_pos,
    apo__score_lanes (*s)[APO_SCORE_RIDE_CHAINS], size_t n_chains, apo__score_ride_ref *b) {
    for (size_t i0 = 0; i0 < tile->n; i0 += APO_SCORE_RIDE_CHUNK) {
        const size_t i1 = tile->n - i0 < APO_SCORE_RIDE_CHUNK ? tile->n : i0 + APO_SCORE_RIDE_CHUNK;
        apo_vd before[APO_SCORE_LANES_ROUNDS];
        for (int r = 0; r < rounds; r++)
            before[r] = ref_pos[r];
        const size_t m =
            apo__score_ride_ref_chunk(kind, widths, rounds, tile, set, k, ref_pos, i0, i1, b);
        for (int r = 0; r < rounds; r++)
            apo__score_ride_round_chunk(kind, widths, tile, &set[r], k, s[r], n_chains, before[r],
                                        i0, i1, m, &b[r]);
    }
}

/* apo__score_ride_tile for one kind, `widths` and the rounds as constants. One function a
 * kind, kept out of apo__score_ride_round (APO_NOINLINE), as score_lanes.h's. */
#define APO_SCORE_RIDE_KIND_TILE(kind)                                                             \
    static APO_NOINLINE void apo__score_ride_tile_##kind(                                          \
        const int rounds, const apo__score_sets_tile *tile, const apo__score_lanes_sets *set,      \
        const apo__score_lanes_k *k, apo_vd *ref_pos, apo__score_lanes(*s)[APO_SCORE_RIDE_CHAINS], \
        size_t n_chains, apo__score_ride_ref *b) {                                                 \
        if (tile->widths && rounds == 2)                                                           \
            apo__score_ride_tile(kind, 1, 2, tile, set, k, ref_pos, s, n_chains, b);               \
        else if (tile->widths)                                                                     \
            apo__score_ride_tile(kind, 1, 1, tile, set, k, ref_pos, s, n_chains, b);               \
        else if (rounds == 2)                                                                      \
            apo__score_ride_tile(kind, 0, 2, tile, set, k, ref_pos, s, n_chains, b);               \
        else                                                                                       \
            apo__score_ride_tile(kind, 0, 1, tile, set, k, ref_pos, s, n_chains, b);               \
    }
APO_SCORE_LANES_KINDS(APO_SCORE_RIDE_KIND_TILE)
#undef APO_SCORE_RIDE_KIND_TILE

/* A fold's state into lanes, lane l from folds[l] (folds[0] past n: its state is not stored
 * back). */
static void APO_LANES_NAME(apo__score_ride_load)(apo__score_lanes *s, const apo__score_fold *folds,
                                                 size_t n) {
    memset(s, 0, sizeof *s);
    for (size_t l = 0; l < APO_LANES; l++) {
        apo__score_lanes_fold_lane(s, l, &folds[l < n ? l : 0]);
    }
}

/* Lanes [0, n) of s back into folds[0 .. n). */
static void APO_LANES_NAME(apo__score_ride_store)(const apo__score_lanes *s, apo__score_fold *folds,
                                                  size_t n) {
    for (size_t l = 0; l < n; l++) {
        APO_LANES_NAME(apo__score_lane_store)(s, l, &folds[l]);
    }
}

/* Sets [first, first + n) (n <= APO_SCORE_LANES_ROUNDS * APO_LANES, in rounds of APO_LANES
 * side by side) of every chain: chains[c][first + j] is set j's fold in chain c, ref_pos[first
 * + j] its reference position before the tile (updated to the one after it). Lanes past a
 * round's sets take a copy of its first set, whose state is not stored. Groups of
 * APO_SCORE_RIDE_CHAINS chains each take the reference from the same position. */
static void APO_LANES_NAME(apo__score_ride_round)(const apo__score_sets_tile *tile,
                                                  const apo__score_set *sets, size_t first,
                                                  size_t n, int *ref_pos,
                                                  apo__score_fold *const *chains, size_t n_chains) {
    const apo__score_lanes_k k = apo__score_lanes_constants();
    const int rounds = n > APO_LANES ? 2 : 1;
    size_t in_round[APO_SCORE_LANES_ROUNDS];
    apo__score_lanes_sets set[APO_SCORE_LANES_ROUNDS];
    apo_vd start[APO_SCORE_LANES_ROUNDS], ref[APO_SCORE_LANES_ROUNDS];
    memset(set, 0, sizeof set);
    memset(start, 0, sizeof start);
    for (int r = 0; r < rounds; r++) {
        const size_t at = first + (size_t)r * APO_LANES;
        in_round[r] = n - (size_t)r * APO_LANES < APO_LANES ? n - (size_t)r * APO_LANES : APO_LANES;
        for (size_t l = 0; l < APO_LANES; l++) {
            const size_t j = at + (l < in_round[r] ? l : 0);
            apo__score_lanes_set_lane(&set[r], l, &sets[j]);
            start[r] = apo_vd_with_lane(start[r], l, (double)ref_pos[j]);
        }
        ref[r] = start[r];
    }
    apo__score_lanes_tile_pass(set, rounds, tile);
    /* On the stack: about 109 KiB on avx512 (the chains' states 44, the reference's buffers
     * 65), in threads of the default stack size (the runtime's workers set none). */
    apo__score_lanes s[APO_SCORE_LANES_ROUNDS][APO_SCORE_RIDE_CHAINS];
    apo__score_ride_ref b[APO_SCORE_LANES_ROUNDS];
    for (size_t g = 0; g < n_chains; g += APO_SCORE_RIDE_CHAINS) {
        const size_t in_group =
            n_chains - g < APO_SCORE_RIDE_CHAINS ? n_chains - g : APO_SCORE_RIDE_CHAINS;
        for (int r = 0; r < rounds; r++) {
            ref[r] = start[r];
            for (size_t c = 0; c < in_group; c++)
                APO_LANES_NAME(apo__score_ride_load)
            (&s[r][c], chains[g + c] + first + (size_t)r * APO_LANES, in_round[r]);
        }

/* A case of the switch below: the kind's function (apo__score_ride_tile_<kind>). */
#define APO_SCORE_RIDE_CASE(kind)                                                                  \
    case kind:                                                                                     \
        apo__score_ride_tile_##kind(rounds, tile, set, &k, ref, s, in_group, b);                   \
        break;
        switch (tile->kind) {
            APO_SCORE_LANES_KINDS(APO_SCORE_RIDE_CASE)
        default:
            break;
        }
#undef APO_SCORE_RIDE_CASE

        for (int r = 0; r < rounds; r++)
            for (size_t c = 0; c < in_group; c++)
                APO_LANES_NAME(apo__score_ride_store)
        (&s[r][c], chains[g + c] + first + (size_t)r * APO_LANES, in_round[r]);
    }
    for (int r = 0; r < rounds; r++)
        for (size_t l = 0; l < in_round[r]; l++)
            ref_pos[first + (size_t)r * APO_LANES + l] = (int)apo_vd_lane(ref[r], l);
}

#endif /* APO_SCORE_RIDE_LANES_H */
