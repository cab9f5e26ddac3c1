/*
 * test_score_ride.c: the folds of several chains of ranges that share each set's positions
 * and returns (apo__cpu_score_ride_sets, kernels/scores/score_ride_lanes.h) against the
 * scalar fold of score_tile.h (apo__score_bar_move), each chain folded alone from a fresh
 * fold at its first bar: field by field, bit for bit, at the end of every piece of bars the
 * chains are handed in, on every vector path this CPU has.
 *
 * The chains begin in the warm-up, on the first bar, on bars one apart, inside a gap of the
 * close and of the outputs, on a tile's edge and on the last bar; the reference begins at bar
 * 0 from positions that are not flat (any start must give the same bits); the bars come in
 * pieces cut at every chain's first bar, at tiles and at odd bars; the sets fill part of a
 * round, one round, and more; a case has more chains than a round holds at once. Every kind
 * of rule, on bollinger's widths and on the indicator's own outputs.
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

#define BARS 3000
#define MAX_SETS 17
#define MAX_CHAINS 40

/* The bars every case folds: a walk with gaps of the close (NaN and infinity, adjacent, on
 * a tile's edge), a pass whose sd overflows the widest bands for a while (those sets start
 * later) and is flat now and then, bands whose width changes sign, an oscillator, signal
 * events, and a gap of every output after the sets have started. */
typedef struct bars {
    double close[BARS], move[BARS];
    unsigned char finite[BARS];
    double sd[BARS], mean[BARS], upper[BARS], lower[BARS], osc[BARS], events[BARS];
} bars;

static bars *make_bars(void) {
    bars *b = malloc(sizeof *b);
    cr_assert_not_null(b);
    apo__test_random_walk(17, BARS, 100.0, 0.5, b->close);
    static const size_t gaps[] = {700, 701, 1023, 1024, 1333, 2047};
    for (size_t g = 0; g < sizeof gaps / sizeof gaps[0]; g++)
        b->close[gaps[g]] = g % 2 ? INFINITY : NAN;
    for (size_t t = 0; t < BARS; t++) {
        b->finite[t] =
            (unsigned char)apo__score_move(t > 0 ? b->close[t - 1] : NAN, b->close[t], &b->move[t]);
        b->mean[t] = t >= 5 ? (b->close[t - 3] + b->close[t - 4] + b->close[t - 5]) / 3.0 : NAN;
        b->sd[t] = t < 30 ? NAN : t < 400 ? 1e306 : 0.3 + 0.2 * sin((double)t / 7.0);
        if (t % 97 == 0)
            b->sd[t] = APO_BOLLINGER_PASS_FLAT;
        const double width = 0.5 * sin((double)t / 11.0) + 0.2;
        b->upper[t] = b->mean[t] + width;
        b->lower[t] = b->mean[t] - width;
        b->osc[t] = b->close[t] - b->mean[t];
        b->events[t] = t % 17 == 3 ? 100.0 : t % 23 == 5 ? -100.0 : 0.0;
    }
    for (size_t t = 1500; t < 1510; t++)
        b->sd[t] = b->mean[t] = b->upper[t] = b->lower[t] = b->osc[t] = b->events[t] = NAN;
    return b;
}

/* The outputs a rule of `kind` reads: bollinger's pass (sd, mean) for the bands' kinds with
 * widths, else three outputs of the indicator's own (a = 0, b = 1; macd_cross reads out[2]). */
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

/* Set j's fold over bars [t0, t1) by the scalar body. */
static void scalar_fold(const bars *b, int kind, int widths, const double *const *o,
                        const apo__score_set *set, size_t t0, size_t t1, apo__score_fold *f) {
    apo__rule rule = apo__rule_make(kind, 0, 1, set->lower, set->upper);
    for (size_t t = t0; t < t1; t++) {
        double v[3] = {o[0][t], o[1][t], o[2][t]};
        if (widths)
            apo__bollinger_pass_bands_compared(o[1][t], o[0][t], set->nbdev_up, set->nbdev_dn, v);
        apo__score_bar_move(f, &rule, set->cost, b->close[t], b->finite[t], b->move[t], v, 3);
    }
}

static void same_fold(const apo__score_fold *a, const apo__score_fold *b, const char *path,
                      int kind, size_t n_sets, size_t chain, size_t set, size_t bar) {
    cr_assert(score_folds_equal(a, b),
              "path %s, kind %d, %zu sets: chain %zu set %zu at bar %zu folds otherwise (bars "
              "%lld vs %lld, trades %lld vs %lld, total %.17g vs %.17g)",
              path, kind, n_sets, chain, set, bar, (long long)a->bars, (long long)b->bars,
              (long long)a->trades, (long long)b->trades, a->total, b->total);
}

/* Chains beginning at begins[0 .. n_chains) (sorted) folded to the last bar on path `isa` in
 * pieces cut at every begin, every 1024 bars and every `cut` bars, each chain checked against
 * its scalar fold at every piece's end; returns the bars the chains scored, all told. */
static long long check_ride(const bars *b, int isa, int kind, int widths,
                            const apo__score_set *sets, size_t n_sets, const size_t *begins,
                            size_t n_chains, size_t cut) {
    const double *o[3];
    outputs_of(b, kind, widths, o);
    static apo__score_fold got[MAX_CHAINS][MAX_SETS], want[MAX_CHAINS][MAX_SETS];
    apo__score_fold *active[MAX_CHAINS];
    int ref_pos[MAX_SETS];
    for (size_t j = 0; j < n_sets; j++)
        ref_pos[j] = (int)(j % 3) - 1; /* -1, 0, 1: any start gives the same bits */
    for (size_t c = 0; c < n_chains; c++)
        for (size_t j = 0; j < n_sets; j++) {
            apo__score_fold_init(&got[c][j]);
            apo__score_fold_init(&want[c][j]);
        }
    size_t t = 0;
    while (t < BARS) {
        size_t e = (t / 1024 + 1) * 1024;
        e = (t / cut + 1) * cut < e ? (t / cut + 1) * cut : e;
        e = e < BARS ? e : BARS;
        size_t n_active = 0;
        for (size_t c = 0; c < n_chains; c++) {
            if (begins[c] > t) {
                e = begins[c] < e ? begins[c] : e;
                continue;
            }
            active[n_active++] = got[c];
        }
        const double *at[3] = {o[0] + t, o[1] + t, o[2] + t};
        const apo__score_sets_tile tile = {
            b->close + t, b->move + t, b->finite + t, at, e - t, 3, widths, kind, 0, 1};
        apo__cpu_score_ride_sets(&tile, sets, n_sets, ref_pos, active, n_active, (apo__cpu_isa)isa);
        for (size_t c = 0; c < n_chains; c++) {
            if (begins[c] > t)
                continue;
            for (size_t j = 0; j < n_sets; j++) {
                scalar_fold(b, kind, widths, o, &sets[j], t, e, &want[c][j]);
                same_fold(&got[c][j], &want[c][j], apo__cpu_isa_name((apo__cpu_isa)isa), kind,
                          n_sets, c, j, e);
            }
        }
        t = e;
    }
    long long scored = 0;
    for (size_t c = 0; c < n_chains; c++)
        for (size_t j = 0; j < n_sets; j++)
            scored += got[c][j].bars;
    return scored;
}

/* The sets every case draws from, set j: its widths, thresholds around the oscillator's 0 and
 * cost; the middle as apo__rule_make takes it. */
static void make_sets(apo__score_set sets[MAX_SETS]) {
    /* Widths 1e3 and up overflow while the sd is 1e306: those sets start at bar 400. */
    static const double ups[6] = {1.0, 2.0, 1e3, 0.0, 1.5, 2.5};
    for (size_t j = 0; j < MAX_SETS; j++) {
        apo__score_set s = {ups[j % 6],
                            2.0 - 0.25 * (double)(j % 7),
                            -0.3 + 0.02 * (double)j,
                            0.3 - 0.01 * (double)j,
                            0.0,
                            0.0005 * (double)(j % 4),
                            APO_SIDE_BOTH,
                            NULL};
        s.middle = (s.lower + s.upper) / 2;
        sets[j] = s;
    }
}

Test(score_ride, chains_fold_each_as_the_scalar_fold_alone, .timeout = 60) {
    bars *b = make_bars();
    apo__score_set sets[MAX_SETS];
    make_sets(sets);
    static const size_t begins[] = {0, 1, 2, 29, 30, 400, 700, 701, 1023, 1024, 1505, 2999};
    static const size_t counts[] = {1, 3, 8, 17};
    static const int kinds[] = {APO_RULE_BANDS_REVERT, APO_RULE_BANDS_ZONE, APO_RULE_MACD_CROSS,
                                APO_RULE_ZONE,         APO_RULE_REVERT,     APO_RULE_CROSS,
                                APO_RULE_PRICE_CROSS,  APO_RULE_SIGNAL};
    for (int isa = APO_CPU_ISA_SSE2; isa <= APO_CPU_ISA_LAST; isa++) {
        if (!apo__cpu_isa_supported((apo__cpu_isa)isa))
            continue;
        for (size_t q = 0; q < sizeof kinds / sizeof kinds[0]; q++)
            for (int widths = 0; widths < 2; widths++) {
                if (widths && kinds[q] != APO_RULE_BANDS_REVERT && kinds[q] != APO_RULE_BANDS_ZONE)
                    continue;
                for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
                    const long long scored =
                        check_ride(b, isa, kinds[q], widths, sets, counts[c], begins,
                                   sizeof begins / sizeof begins[0], 333);
                    cr_assert_gt(scored, 1000, "the chains score bars");
                }
            }
    }
    free(b);
}

/* More chains than a round holds at once (APO_SCORE_RIDE_CHAINS): the groups each take the
 * reference from the same position. */
Test(score_ride, more_chains_than_a_round_holds, .timeout = 60) {
    bars *b = make_bars();
    apo__score_set sets[MAX_SETS];
    make_sets(sets);
    size_t begins[MAX_CHAINS];
    for (size_t c = 0; c < MAX_CHAINS; c++)
        begins[c] = c * 73;
    for (int isa = APO_CPU_ISA_SSE2; isa <= APO_CPU_ISA_LAST; isa++)
        if (apo__cpu_isa_supported((apo__cpu_isa)isa))
            cr_assert_gt(
                check_ride(b, isa, APO_RULE_BANDS_REVERT, 1, sets, 9, begins, MAX_CHAINS, 500),
                10000);
    free(b);
}

/* Chains that begin flat (score_ride_lanes.h, apo__score_ride_flat): a signal rule holds no
 * position until its first event, so a chain that begins where neither its first bar nor the
 * next has one takes a first return of 0, or -0 where the close falls (0 times a negative
 * move, less 0), and its shift is zero; its lanes then take the shorter sums. Half of these
 * begin before a fall and half before a rise, with costs of 0 and more, against the scalar
 * fold alone. */
Test(score_ride, chains_that_begin_flat, .timeout = 60) {
    bars *b = make_bars();
    apo__score_set sets[MAX_SETS];
    make_sets(sets);
    size_t begins[24], n_falls = 0, n_rises = 0, n = 0;
    for (size_t t = 1600; t + 2 < BARS && n < 24; t += 7) {
        const int quiet = b->events[t] == 0.0 && b->events[t + 1] == 0.0 && b->finite[t + 1];
        const int falls = b->move[t + 1] < 0.0;
        if (!quiet || (falls ? n_falls : n_rises) >= 12)
            continue;
        n_falls += (size_t)falls;
        n_rises += (size_t)!falls;
        begins[n++] = t;
    }
    cr_assert_eq(n, 24, "24 flat beginnings, 12 before a fall");
    for (int isa = APO_CPU_ISA_SSE2; isa <= APO_CPU_ISA_LAST; isa++)
        if (apo__cpu_isa_supported((apo__cpu_isa)isa))
            for (size_t c = 8; c <= MAX_SETS; c += MAX_SETS - 8)
                cr_assert_gt(check_ride(b, isa, APO_RULE_SIGNAL, 0, sets, c, begins, n, 250), 1000);
    free(b);
}
