/*
 * test_score_sides.c: sets of every side (apo__rule's side: both, long-only, short-only) folded
 * in vector lanes, several sides in one round (apo__cpu_score_fold_sets: score_lanes.h, a lone
 * set's score_lone_lanes.h; apo__cpu_score_ride_sets: score_ride_lanes.h), against the scalar
 * fold of score_tile.h (apo__score_bar_move) of each set alone on its side: field by field, bit
 * for bit, at the end of every piece of bars the tile is handed in, on every vector path this
 * CPU has.
 *
 * The bars are random walks with gaps of the close (NaN and infinity, alone and in runs, on a
 * tile's edge), a pass whose sd is flat (bands of zero width) in bands of bars and overflows for
 * a while, a gap of every output after the sets have started, an oscillator and signal events;
 * the sets have costs of 0 and more, and sides that differ from lane to lane in every pattern
 * the counts make (a lone set, two, part of a round, a round, two rounds and more). Every kind
 * of rule, on bollinger's widths and on the indicator's own outputs. The same folds with a
 * view's more statistics beside them (apo__score_set.compound): the `/compound` and `/log`
 * views' compounded equity (its product, peak and drawdown pair), and the `/more` view's every
 * statistic (the equity, the downside's sum, the units traded, the trades' sums and counts),
 * against the views' scalar body (apo__score_bar_more).
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdlib.h>

#include "cpu_isa.h"
#include "reference.h"
#include "score_fixtures.h"

#define BARS 4000
#define CHAINS 3

/* A walk with gaps where a uniform draw of the shape's seed falls low (runs of them where it
 * falls lower) and one on a tile's edge. */
static void close_gaps(const bars_shape *shape, double *close) {
    for (size_t t = 0; t < BARS; t++) {
        const double u = apo__test_uniform(shape->seed + 1, t);
        if (u < 0.004)
            for (size_t g = t; g < t + 4 && g < BARS; g++)
                close[g] = NAN;
        else if (u < 0.012)
            close[t] = u < 0.008 ? NAN : (u < 0.01 ? INFINITY : -INFINITY);
    }
    close[1024] = NAN; /* on a tile's edge */
}

/* close_gaps in the walk's first half only: the second half's chunks of bars score whole, as a
 * series without gaps does, with one gap at bar 3000 between them. */
static void close_gaps_early(const bars_shape *shape, double *close) {
    close_gaps(shape, close);
    for (size_t t = BARS / 2; t < BARS; t++)
        if (!isfinite(close[t]))
            close[t] = close[t - 1];
    close[3000] = NAN;
}

/* Flat bands: a band of bars every 500 and a lone bar every 89. */
static int flat(size_t t) { return (t % 500 >= 450 && t % 500 < 470) || t % 89 == 0; }

/* Signal events where a second uniform draw falls low. */
static double event(const bars_shape *shape, size_t t) {
    const double e = apo__test_uniform(shape->seed + 2, t);
    return e < 0.05 ? 100.0 : e < 0.1 ? -100.0 : 0.0;
}

/* The bars of walk `seed` with the gaps of `gaps`, with the outputs a rule reads from it. */
static bars *make_walk(uint64_t seed, void (*gaps)(const bars_shape *, double *)) {
    const bars_shape shape = {
        .n = BARS,
        .seed = seed,
        .sd = {.from = 20, .calm = 300, .level = 0.4, .swing = 0.3, .period = 9.0},
        .width = {.swing = 0.5, .level = 0.25, .period = 13.0},
        .gap = {.from = 2500, .to = 2512},
        .close_gaps = gaps,
        .flat = flat,
        .event = event};
    return make_bars(&shape);
}

/* The bars of walk `seed` with gaps all along. */
static bars *make_seeded_bars(uint64_t seed) { return make_walk(seed, close_gaps); }

/* The sets on path `isa` (apo__cpu_score_fold_sets) in pieces of `cut` bars, each set checked
 * against its scalar fold at every piece's end; the folds at the last bar into got[] and, for a
 * view (APO_SCORE_VIEW_*), its more statistics into got_more[]. With a view other than the
 * plain one, each set also folds that view's more statistics, checked against the views'
 * scalar body (same_more). */
static void check_fold(const bars *b, int isa, int kind, int widths, const apo__score_set *sets_in,
                       size_t n_sets, size_t cut, int view, apo__score_fold *got,
                       apo__score_more *got_more) {
    const double *o[3];
    outputs_of(b, kind, widths, o);
    const int compound = view != APO_SCORE_VIEW_SUM;
    apo__score_fold want[MAX_SETS];
    apo__score_set sets[MAX_SETS];
    apo__score_more want_more[MAX_SETS];
    for (size_t j = 0; j < n_sets; j++) {
        apo__score_fold_init(&got[j]);
        apo__score_fold_init(&want[j]);
        apo__score_more_init(&got_more[j]);
        apo__score_more_init(&want_more[j]);
        got_more[j].view = view;
        sets[j] = sets_in[j];
        sets[j].compound = compound ? &got_more[j] : NULL;
    }
    for (size_t t = 0; t < BARS; t += cut) {
        const size_t e = t + cut < BARS ? t + cut : BARS;
        const double *at[3];
        const apo__score_sets_tile tile = tile_of(b, o, kind, widths, t, e, at);
        apo__cpu_score_fold_sets(&tile, sets, n_sets, got, (apo__cpu_isa)isa);
        for (size_t j = 0; j < n_sets; j++) {
            scalar_fold_more(b, kind, widths, o, &sets[j], t, e, &want[j],
                             compound ? &want_more[j] : NULL);
            same_fold(&got[j], &want[j], isa, kind, widths, n_sets, NO_CHAIN, j, sets[j].side, e);
            if (compound)
                same_more(&got_more[j], &want_more[j], view, isa, kind, widths, n_sets, j,
                          sets[j].side, e);
        }
    }
}

/* Pieces of `cut` bars. */
static size_t every_cut(size_t t, size_t cut) { return t + cut; }

/* CHAINS chains of ranges beginning at bars 0, 777 and 2506 (in the outputs' gap) on path `isa`
 * (apo__cpu_score_ride_sets), the reference from flat positions, in pieces of `cut` bars cut at
 * each begin, each chain's sets checked against their scalar folds from the chain's first bar. */
static void check_ride(const bars *b, int isa, int kind, int widths, const apo__score_set *sets,
                       size_t n_sets, size_t cut) {
    static const size_t begins[CHAINS] = {0, 777, 2506};
    static const int flat_pos[MAX_SETS] = {0};
    const chains ch = {begins, CHAINS, flat_pos, cut, every_cut};
    check_chains(b, isa, kind, widths, sets, n_sets, &ch);
}

/* Set j: its widths, thresholds around the oscillator's 0, a cost of 0 or more, and a side
 * that differs from its neighbours' in a pattern of period 5 (1, -1, 0, 1, -1, 1, -1, 0, ...),
 * so every round holds several sides and the counts put each side in every lane. */
static void make_sided_sets(apo__score_set sets[MAX_SETS]) {
    static const int sides[5] = {APO_SIDE_LONG, APO_SIDE_SHORT, APO_SIDE_BOTH, APO_SIDE_LONG,
                                 APO_SIDE_SHORT};
    make_sets(sets, MAX_SETS, sides, 5);
}

static const int kinds[] = {APO_RULE_BANDS_REVERT, APO_RULE_BANDS_ZONE, APO_RULE_MACD_CROSS,
                            APO_RULE_ZONE,         APO_RULE_REVERT,     APO_RULE_CROSS,
                            APO_RULE_PRICE_CROSS,  APO_RULE_SIGNAL};
#define N_KINDS (sizeof kinds / sizeof kinds[0])

/* Whether a kind reads bollinger's pass with `widths` (the bands' kinds only). */
static int kind_takes(int kind, int widths) {
    return !widths || kind == APO_RULE_BANDS_REVERT || kind == APO_RULE_BANDS_ZONE;
}

/* What a case checks of its bars and sets on one path, under one kind, with or without widths. */
typedef void (*case_check)(const bars *b, int isa, int kind, int widths,
                           const apo__score_set *sets);

/* `check` on every vector path this CPU has, under every kind, with widths where the kind takes
 * them: the one loop the cases of the lanes share. */
static void on_every_path_and_kind(const bars *b, const apo__score_set *sets, case_check check) {
    for (int isa = APO_CPU_ISA_SSE2; isa <= APO_CPU_ISA_LAST; isa++) {
        if (!apo__cpu_isa_supported((apo__cpu_isa)isa))
            continue;
        for (size_t q = 0; q < N_KINDS; q++)
            for (int widths = 0; widths < 2; widths++)
                if (kind_takes(kinds[q], widths))
                    check(b, isa, kinds[q], widths, sets);
    }
}

/* The plain fold of a lone set to two rounds and more, in pieces of 333 and 1024 bars; the sets
 * score bars. */
static void fold_counts(const bars *b, int isa, int kind, int widths, const apo__score_set *sets) {
    static const size_t counts[] = {1, 2, 3, 4, 5, 7, 8, 9, 16, 17};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        apo__score_fold got[MAX_SETS];
        apo__score_more got_more[MAX_SETS];
        check_fold(b, isa, kind, widths, sets, counts[c], c % 2 ? 1024 : 333, APO_SCORE_VIEW_SUM,
                   got, got_more);
        long long scored = 0;
        for (size_t j = 0; j < counts[c]; j++)
            scored += got[j].bars;
        cr_assert_gt(scored, 1000 * (long long)counts[c],
                     "path %s, kind %d, widths %d, %zu sets: the sets score bars",
                     apo__cpu_isa_name((apo__cpu_isa)isa), kind, widths, counts[c]);
    }
}

Test(score_sides, sets_of_every_side_fold_in_the_lanes_as_the_scalar_fold_alone, .timeout = 120) {
    apo__score_set sets[MAX_SETS];
    make_sided_sets(sets);
    static const uint64_t seeds[] = {5, 29};
    for (size_t s = 0; s < sizeof seeds / sizeof seeds[0]; s++) {
        bars *b = make_seeded_bars(seeds[s]);
        on_every_path_and_kind(b, sets, fold_counts);
        free(b);
    }
}

/* The same folds with view `view`'s more statistics beside them, a lone set to two rounds (and
 * one wrapper per view, the checks' shape). */
static void view_counts(const bars *b, int isa, int kind, int widths, const apo__score_set *sets,
                        int view) {
    static const size_t counts[] = {1, 2, 3, 5, 8, 9, 17};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        apo__score_fold got[MAX_SETS];
        apo__score_more got_more[MAX_SETS];
        check_fold(b, isa, kind, widths, sets, counts[c], c % 2 ? 1024 : 333, view, got, got_more);
    }
}
static void compound_counts(const bars *b, int isa, int kind, int widths,
                            const apo__score_set *sets) {
    view_counts(b, isa, kind, widths, sets, APO_SCORE_VIEW_COMPOUND);
}
static void more_counts(const bars *b, int isa, int kind, int widths, const apo__score_set *sets) {
    view_counts(b, isa, kind, widths, sets, APO_SCORE_VIEW_MORE);
}

/* A close that leaps up then collapses at bar 3100 of b: a short's return below -1, which ruins
 * the equity of some set (asserted: some set is short there, under some rule). */
static void leap(bars *b, const apo__score_set *sets) {
    b->close[3100] = b->close[3099] * 3.5;
    for (size_t t = 3100; t < 3102; t++)
        b->finite[t] = (unsigned char)apo__score_move(b->close[t - 1], b->close[t], &b->move[t]);
    int ruined = 0;
    for (size_t q = 0; q < N_KINDS; q++)
        for (size_t j = 0; j < MAX_SETS; j++) {
            const double *o[3];
            outputs_of(b, kinds[q], 0, o);
            apo__score_fold f;
            apo__score_more m;
            apo__score_fold_init(&f);
            apo__score_more_init(&m);
            scalar_fold_more(b, kinds[q], 0, o, &sets[j], 0, BARS, &f, &m);
            ruined += m.equity <= 0;
        }
    cr_assert_gt(ruined, 0, "the leap ruins some set's equity");
}

/* A view's more statistics folded in the lanes beside the plain fold, sets of every side,
 * against the views' scalar body (apo__score_bar_more) of each set alone, bit for bit, on
 * walks whose second has a leap that ruins some set's equity: each row a view, what the view's
 * fold keeps (same_more), the seeds of its walks and their gaps (the `/more` view's book
 * leaves out the close of a gap's trade in chunks of bars that score whole: a third walk
 * whose second half has one gap). */
static const struct {
    int view;
    case_check check;
    uint64_t seeds[3];
    void (*gaps[3])(const bars_shape *, double *);
} view_cases[] = {
    {APO_SCORE_VIEW_COMPOUND, compound_counts, {7, 41, 0}, {close_gaps, close_gaps, NULL}},
    {APO_SCORE_VIEW_MORE, more_counts, {13, 41, 17}, {close_gaps, close_gaps, close_gaps_early}},
};

static void check_view(int view) {
    apo__score_set sets[MAX_SETS];
    make_sided_sets(sets);
    for (size_t v = 0; v < sizeof view_cases / sizeof view_cases[0]; v++) {
        if (view_cases[v].view != view)
            continue;
        for (size_t s = 0; s < 3 && view_cases[v].gaps[s] != NULL; s++) {
            bars *b = make_walk(view_cases[v].seeds[s], view_cases[v].gaps[s]);
            if (s == 1)
                leap(b, sets);
            on_every_path_and_kind(b, sets, view_cases[v].check);
            free(b);
        }
    }
}

/* The `/compound` and `/log` views' compounded equity (its product, peak and drawdown pair):
 * the equity moves (costs, flips, long and short runs), and one walk ruins it. */
Test(score_sides, the_compounded_equity_folds_in_the_lanes_as_the_views_scalar_body,
     .timeout = 120) {
    check_view(APO_SCORE_VIEW_COMPOUND);
}

/* The `/more` view's every statistic: the equity, the downside's sum, the units traded and the
 * trades' book (the open trade's return, closed on a change of position and in a gap, the sums
 * won and lost, the held side, the counts). */
Test(score_sides, the_more_views_statistics_fold_in_the_lanes_as_its_scalar_body, .timeout = 240) {
    check_view(APO_SCORE_VIEW_MORE);
}

/* The `/more` view's bars exercise its book: under every kind some set closes trades, wins and
 * loses some, and some trade ends in a gap (the position changes at a bar that does not score:
 * apo__score_more_return's first close), so the check above compares each of its steps. */
Test(score_sides, the_more_views_book_sees_every_end_of_a_trade, .timeout = 60) {
    bars *b = make_seeded_bars(13);
    apo__score_set sets[MAX_SETS];
    make_sided_sets(sets);
    long long gap_ends = 0;
    for (size_t q = 0; q < N_KINDS; q++) {
        const double *o[3];
        outputs_of(b, kinds[q], 0, o);
        long long closed = 0, wins = 0;
        for (size_t j = 0; j < MAX_SETS; j++) {
            apo__score_fold f;
            apo__score_more m;
            apo__score_fold_init(&f);
            apo__score_more_init(&m);
            for (size_t t = 0; t < BARS; t++) {
                gap_ends += f.started && b->finite[t] && m.held != f.pos && m.held != 0;
                scalar_fold_more(b, kinds[q], 0, o, &sets[j], t, t + 1, &f, &m);
            }
            closed += m.closed, wins += m.wins;
        }
        cr_assert_gt(closed, 10 * MAX_SETS, "kind %d closes trades", kinds[q]);
        cr_assert(wins > 0 && wins < closed, "kind %d wins and loses", kinds[q]);
    }
    cr_assert_gt(gap_ends, 0, "some trade ends in a gap");
    free(b);
}

/* The sides are not a no-op on these bars: under every kind, a long-only set is never short
 * and a short-only one never long, and each trades and takes other positions than the same set
 * on both sides (so the check above compares folds that the side changed). */
Test(score_sides, the_sides_change_the_folds, .timeout = 60) {
    bars *b = make_seeded_bars(5);
    apo__score_set sets[MAX_SETS];
    make_sided_sets(sets);
    for (size_t q = 0; q < N_KINDS; q++)
        for (int widths = 0; widths < 2; widths++) {
            if (!kind_takes(kinds[q], widths))
                continue;
            const double *o[3];
            outputs_of(b, kinds[q], widths, o);
            for (size_t j = 0; j < 2; j++) { /* set 0 long-only, set 1 short-only */
                apo__score_set both = sets[j];
                both.side = APO_SIDE_BOTH;
                apo__score_fold one, two;
                apo__score_fold_init(&one);
                apo__score_fold_init(&two);
                long long against = 0;
                for (size_t t = 0; t < BARS; t++) {
                    scalar_fold(b, kinds[q], widths, o, &sets[j], t, t + 1, &one);
                    scalar_fold(b, kinds[q], widths, o, &both, t, t + 1, &two);
                    cr_assert(one.pos * sets[j].side >= 0, "kind %d: side %d holds %d", kinds[q],
                              sets[j].side, one.pos);
                    against += two.pos * sets[j].side < 0;
                }
                cr_assert_gt(one.trades, 10, "kind %d, side %d trades", kinds[q], sets[j].side);
                cr_assert_gt(against, 10, "kind %d: both sides take the other side", kinds[q]);
                cr_assert_neq(one.exposed, two.exposed, "kind %d, side %d", kinds[q], sets[j].side);
            }
        }
    free(b);
}

/* Chains of ranges of a lone set to two rounds, in pieces of 500 bars. */
static void ride_counts(const bars *b, int isa, int kind, int widths, const apo__score_set *sets) {
    static const size_t counts[] = {1, 3, 8, 17};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
        check_ride(b, isa, kind, widths, sets, counts[c], 500);
}

/* Chains of ranges that share each set's positions and returns, the sets of every side. */
Test(score_sides, chains_of_every_side_fold_as_the_scalar_fold_alone, .timeout = 120) {
    bars *b = make_seeded_bars(11);
    apo__score_set sets[MAX_SETS];
    make_sided_sets(sets);
    on_every_path_and_kind(b, sets, ride_counts);
    free(b);
}
