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
 * of rule, on bollinger's widths and on the indicator's own outputs. The same folds with the
 * `/compound` and `/log` views' compounded equity beside them (its product, peak and drawdown
 * pair: apo__score_set.compound) against the views' scalar body (apo__score_bar_more).
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bollinger_pass.h"
#include "cpu_isa.h"
#include "reference.h"
#include "score_fold_equal.h"
#include "score_sets.h"

#define BARS 4000
#define MAX_SETS 17
#define CHAINS 3

typedef struct bars {
    double close[BARS], move[BARS];
    unsigned char finite[BARS];
    double sd[BARS], mean[BARS], upper[BARS], lower[BARS], osc[BARS], events[BARS];
} bars;

/* A walk of seed `seed` with gaps where a uniform draw falls low (runs of them where it falls
 * lower), and the outputs a rule reads from it. */
static bars *make_bars(uint64_t seed) {
    bars *b = malloc(sizeof *b);
    cr_assert_not_null(b);
    apo__test_random_walk(seed, BARS, 100.0, 0.5, b->close);
    for (size_t t = 0; t < BARS; t++) {
        const double u = apo__test_uniform(seed + 1, t);
        if (u < 0.004)
            for (size_t g = t; g < t + 4 && g < BARS; g++)
                b->close[g] = NAN;
        else if (u < 0.012)
            b->close[t] = u < 0.008 ? NAN : (u < 0.01 ? INFINITY : -INFINITY);
    }
    b->close[1024] = NAN; /* on a tile's edge */
    for (size_t t = 0; t < BARS; t++) {
        b->finite[t] =
            (unsigned char)apo__score_move(t > 0 ? b->close[t - 1] : NAN, b->close[t], &b->move[t]);
        b->mean[t] = t >= 5 ? (b->close[t - 3] + b->close[t - 4] + b->close[t - 5]) / 3.0 : NAN;
        b->sd[t] = t < 20 ? NAN : t < 300 ? 1e306 : 0.4 + 0.3 * sin((double)t / 9.0);
        /* Flat bands: a band of bars every 500 and a lone bar every 89. */
        if ((t % 500 >= 450 && t % 500 < 470) || t % 89 == 0)
            b->sd[t] = APO_BOLLINGER_PASS_FLAT;
        const double width = 0.5 * sin((double)t / 13.0) + 0.25;
        b->upper[t] = b->mean[t] + width;
        b->lower[t] = b->mean[t] - width;
        b->osc[t] = b->close[t] - b->mean[t];
        const double e = apo__test_uniform(seed + 2, t);
        b->events[t] = e < 0.05 ? 100.0 : e < 0.1 ? -100.0 : 0.0;
    }
    for (size_t t = 2500; t < 2512; t++)
        b->sd[t] = b->mean[t] = b->upper[t] = b->lower[t] = b->osc[t] = b->events[t] = NAN;
    return b;
}

/* The outputs a rule of `kind` reads: bollinger's pass (sd, mean) with widths, else three of
 * the indicator's own (a = 0, b = 1; macd_cross reads out[2]). */
static void outputs_of(const bars *b, int kind, int widths, const double **o) {
    if (widths) {
        o[0] = b->sd, o[1] = b->mean, o[2] = b->mean;
        return;
    }
    o[0] = kind == APO_RULE_SIGNAL                            ? b->events
           : kind == APO_RULE_ZONE || kind == APO_RULE_REVERT ? b->osc
                                                              : b->upper;
    o[1] = b->mean;
    o[2] = kind == APO_RULE_MACD_CROSS ? b->osc : b->lower;
}

/* A set's fold over bars [t0, t1) by the scalar body, on its side; with `more`, the views'
 * body (apo__score_bar_more) and its statistics. */
static void scalar_fold_more(const bars *b, int kind, int widths, const double *const *o,
                             const apo__score_set *set, size_t t0, size_t t1, apo__score_fold *f,
                             apo__score_more *more) {
    apo__rule rule = apo__rule_make(kind, 0, 1, set->lower, set->upper);
    rule.side = set->side;
    for (size_t t = t0; t < t1; t++) {
        double v[3] = {o[0][t], o[1][t], o[2][t]};
        if (widths)
            apo__bollinger_pass_bands_compared(o[1][t], o[0][t], set->nbdev_up, set->nbdev_dn, v);
        if (more == NULL) {
            apo__score_bar_move(f, &rule, set->cost, b->close[t], b->finite[t], b->move[t], v, 3);
            continue;
        }
        const int pos =
            isfinite(b->close[t]) ? apo__rule_position(&rule, f->pos, b->close[t], v) : f->pos;
        apo__score_bar_more(f, more, pos, set->cost, b->finite[t], b->move[t], v, 3);
    }
}

static void scalar_fold(const bars *b, int kind, int widths, const double *const *o,
                        const apo__score_set *set, size_t t0, size_t t1, apo__score_fold *f) {
    scalar_fold_more(b, kind, widths, o, set, t0, t1, f, NULL);
}

/* The compounded equity of two views' statistics, bit for bit (what the lanes fold of them). */
static int same_compound(const apo__score_more *a, const apo__score_more *b) {
    const double ga[4] = {a->equity, a->epeak, a->dd_num, a->dd_den};
    const double gb[4] = {b->equity, b->epeak, b->dd_num, b->dd_den};
    return memcmp(ga, gb, sizeof ga) == 0;
}

static void same_fold(const apo__score_fold *a, const apo__score_fold *b, int isa, int kind,
                      int widths, size_t n_sets, size_t set, int side, size_t bar) {
    cr_assert(score_folds_equal(a, b),
              "path %s, kind %d, widths %d, %zu sets: set %zu (side %d) at bar %zu folds "
              "otherwise (pos %d vs %d, bars %lld vs %lld, trades %lld vs %lld, exposed %lld vs "
              "%lld, total %.17g vs %.17g)",
              apo__cpu_isa_name((apo__cpu_isa)isa), kind, widths, n_sets, set, side, bar, a->pos,
              b->pos, (long long)a->bars, (long long)b->bars, (long long)a->trades,
              (long long)b->trades, (long long)a->exposed, (long long)b->exposed, a->total,
              b->total);
}

/* The tile of bars [t, e) as the lanes take it. */
static apo__score_sets_tile tile_of(const bars *b, const double *const *o, int kind, int widths,
                                    size_t t, size_t e, const double **at) {
    for (int k = 0; k < 3; k++)
        at[k] = o[k] + t;
    return (apo__score_sets_tile){
        b->close + t, b->move + t, b->finite + t, at, e - t, 3, widths, kind, 0, 1};
}

/* The sets on path `isa` (apo__cpu_score_fold_sets) in pieces of `cut` bars, each set checked
 * against its scalar fold at every piece's end; the folds at the last bar into got[]. With
 * `compound`, each set also folds its compounded equity (the `/compound` and `/log` views),
 * checked against the views' scalar body. */
static void check_fold(const bars *b, int isa, int kind, int widths, const apo__score_set *sets_in,
                       size_t n_sets, size_t cut, int compound, apo__score_fold *got) {
    const double *o[3];
    outputs_of(b, kind, widths, o);
    apo__score_fold want[MAX_SETS];
    apo__score_set sets[MAX_SETS];
    apo__score_more got_more[MAX_SETS], want_more[MAX_SETS];
    for (size_t j = 0; j < n_sets; j++) {
        apo__score_fold_init(&got[j]);
        apo__score_fold_init(&want[j]);
        apo__score_more_init(&got_more[j]);
        apo__score_more_init(&want_more[j]);
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
            same_fold(&got[j], &want[j], isa, kind, widths, n_sets, j, sets[j].side, e);
            cr_assert(!compound || same_compound(&got_more[j], &want_more[j]),
                      "path %s, kind %d, widths %d, %zu sets: set %zu (side %d) at bar %zu "
                      "compounds otherwise (equity %.17g vs %.17g, drawdown %.17g / %.17g vs "
                      "%.17g / %.17g)",
                      apo__cpu_isa_name((apo__cpu_isa)isa), kind, widths, n_sets, j, sets[j].side,
                      e, got_more[j].equity, want_more[j].equity, got_more[j].dd_num,
                      got_more[j].dd_den, want_more[j].dd_num, want_more[j].dd_den);
        }
    }
}

/* CHAINS chains of ranges beginning at bars 0, 777 and 2506 (in the outputs' gap) on path `isa`
 * (apo__cpu_score_ride_sets), in pieces of `cut` bars cut at each begin, each chain's sets
 * checked against their scalar folds from the chain's first bar. */
static void check_ride(const bars *b, int isa, int kind, int widths, const apo__score_set *sets,
                       size_t n_sets, size_t cut) {
    static const size_t begins[CHAINS] = {0, 777, 2506};
    const double *o[3];
    outputs_of(b, kind, widths, o);
    apo__score_fold got[CHAINS][MAX_SETS], want[CHAINS][MAX_SETS];
    apo__score_fold *active[CHAINS];
    int ref_pos[MAX_SETS] = {0};
    for (size_t c = 0; c < CHAINS; c++)
        for (size_t j = 0; j < n_sets; j++) {
            apo__score_fold_init(&got[c][j]);
            apo__score_fold_init(&want[c][j]);
        }
    size_t t = 0;
    while (t < BARS) {
        size_t e = t + cut < BARS ? t + cut : BARS, n_active = 0;
        for (size_t c = 0; c < CHAINS; c++) {
            if (begins[c] > t) {
                e = begins[c] < e ? begins[c] : e;
                continue;
            }
            active[n_active++] = got[c];
        }
        const double *at[3];
        const apo__score_sets_tile tile = tile_of(b, o, kind, widths, t, e, at);
        apo__cpu_score_ride_sets(&tile, sets, n_sets, ref_pos, active, n_active, (apo__cpu_isa)isa);
        for (size_t c = 0; c < CHAINS; c++)
            for (size_t j = 0; j < n_sets && begins[c] <= t; j++) {
                scalar_fold(b, kind, widths, o, &sets[j], t, e, &want[c][j]);
                same_fold(&got[c][j], &want[c][j], isa, kind, widths, n_sets, j, sets[j].side, e);
            }
        t = e;
    }
}

/* Set j: its widths, thresholds around the oscillator's 0, a cost of 0 or more, and a side
 * that differs from its neighbours' in a pattern of period 5 (1, -1, 0, 1, -1, 1, -1, 0, ...),
 * so every round holds several sides and the counts put each side in every lane. */
static void make_sets(apo__score_set sets[MAX_SETS]) {
    static const double ups[6] = {1.0, 2.0, 1e3, 0.0, 1.5, 2.5};
    static const int sides[5] = {APO_SIDE_LONG, APO_SIDE_SHORT, APO_SIDE_BOTH, APO_SIDE_LONG,
                                 APO_SIDE_SHORT};
    for (size_t j = 0; j < MAX_SETS; j++) {
        apo__score_set s = {ups[j % 6],
                            2.0 - 0.25 * (double)(j % 7),
                            -0.3 + 0.02 * (double)j,
                            0.3 - 0.01 * (double)j,
                            0.0,
                            0.0005 * (double)(j % 4),
                            sides[j % 5],
                            NULL};
        s.middle = (s.lower + s.upper) / 2;
        sets[j] = s;
    }
}

static const int kinds[] = {APO_RULE_BANDS_REVERT, APO_RULE_BANDS_ZONE, APO_RULE_MACD_CROSS,
                            APO_RULE_ZONE,         APO_RULE_REVERT,     APO_RULE_CROSS,
                            APO_RULE_PRICE_CROSS,  APO_RULE_SIGNAL};
#define N_KINDS (sizeof kinds / sizeof kinds[0])

/* Whether a kind reads bollinger's pass with `widths` (the bands' kinds only). */
static int kind_takes(int kind, int widths) {
    return !widths || kind == APO_RULE_BANDS_REVERT || kind == APO_RULE_BANDS_ZONE;
}

Test(score_sides, sets_of_every_side_fold_in_the_lanes_as_the_scalar_fold_alone, .timeout = 120) {
    apo__score_set sets[MAX_SETS];
    make_sets(sets);
    static const size_t counts[] = {1, 2, 3, 4, 5, 7, 8, 9, 16, 17};
    static const uint64_t seeds[] = {5, 29};
    for (size_t s = 0; s < sizeof seeds / sizeof seeds[0]; s++) {
        bars *b = make_bars(seeds[s]);
        for (int isa = APO_CPU_ISA_SSE2; isa <= APO_CPU_ISA_LAST; isa++) {
            if (!apo__cpu_isa_supported((apo__cpu_isa)isa))
                continue;
            for (size_t q = 0; q < N_KINDS; q++)
                for (int widths = 0; widths < 2; widths++) {
                    if (!kind_takes(kinds[q], widths))
                        continue;
                    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
                        apo__score_fold got[MAX_SETS];
                        check_fold(b, isa, kinds[q], widths, sets, counts[c], c % 2 ? 1024 : 333, 0,
                                   got);
                        long long scored = 0;
                        for (size_t j = 0; j < counts[c]; j++)
                            scored += got[j].bars;
                        cr_assert_gt(scored, 1000 * (long long)counts[c], "the sets score bars");
                    }
                }
        }
        free(b);
    }
}

/* The `/compound` and `/log` views' compounded equity (its product, peak and drawdown pair)
 * folded in the lanes beside the plain fold, sets of every side, against the views' scalar
 * body (apo__score_bar_more) of each set alone, bit for bit; the equity moves (costs, flips,
 * long and short runs), and one walk ruins it (a return below -1 on a huge move). */
Test(score_sides, the_compounded_equity_folds_in_the_lanes_as_the_views_scalar_body,
     .timeout = 120) {
    apo__score_set sets[MAX_SETS];
    make_sets(sets);
    static const size_t counts[] = {1, 2, 3, 5, 8, 9, 17};
    static const uint64_t seeds[] = {7, 41};
    for (size_t s = 0; s < sizeof seeds / sizeof seeds[0]; s++) {
        bars *b = make_bars(seeds[s]);
        if (s == 1) { /* a close that leaps up then collapses: a short's return below -1 */
            b->close[3100] = b->close[3099] * 3.5;
            for (size_t t = 3100; t < 3102; t++)
                b->finite[t] =
                    (unsigned char)apo__score_move(b->close[t - 1], b->close[t], &b->move[t]);
            int ruined = 0; /* some set is short there, under some rule */
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
        for (int isa = APO_CPU_ISA_SSE2; isa <= APO_CPU_ISA_LAST; isa++) {
            if (!apo__cpu_isa_supported((apo__cpu_isa)isa))
                continue;
            for (size_t q = 0; q < N_KINDS; q++)
                for (int widths = 0; widths < 2; widths++)
                    if (kind_takes(kinds[q], widths))
                        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
                            apo__score_fold got[MAX_SETS];
                            check_fold(b, isa, kinds[q], widths, sets, counts[c],
                                       c % 2 ? 1024 : 333, 1, got);
                        }
        }
        free(b);
    }
}

/* The sides are not a no-op on these bars: under every kind, a long-only set is never short
 * and a short-only one never long, and each trades and takes other positions than the same set
 * on both sides (so the check above compares folds that the side changed). */
Test(score_sides, the_sides_change_the_folds, .timeout = 60) {
    bars *b = make_bars(5);
    apo__score_set sets[MAX_SETS];
    make_sets(sets);
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

/* Chains of ranges that share each set's positions and returns, the sets of every side. */
Test(score_sides, chains_of_every_side_fold_as_the_scalar_fold_alone, .timeout = 120) {
    bars *b = make_bars(11);
    apo__score_set sets[MAX_SETS];
    make_sets(sets);
    static const size_t counts[] = {1, 3, 8, 17};
    for (int isa = APO_CPU_ISA_SSE2; isa <= APO_CPU_ISA_LAST; isa++) {
        if (!apo__cpu_isa_supported((apo__cpu_isa)isa))
            continue;
        for (size_t q = 0; q < N_KINDS; q++)
            for (int widths = 0; widths < 2; widths++)
                if (kind_takes(kinds[q], widths))
                    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
                        check_ride(b, isa, kinds[q], widths, sets, counts[c], 500);
    }
    free(b);
}
