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

#include "cpu_isa.h"
#include "score_fixtures.h"

#define BARS 3000

/* The bars every case folds: a walk with gaps of the close (NaN and infinity, adjacent, on
 * a tile's edge), a pass whose sd overflows the widest bands for a while (those sets start
 * later) and is flat now and then, bands whose width changes sign, an oscillator, signal
 * events every 17 and 23 bars, and a gap of every output after the sets have started. */
static void close_gaps(const bars_shape *shape, double *close) {
    (void)shape;
    static const size_t gaps[] = {700, 701, 1023, 1024, 1333, 2047};
    for (size_t g = 0; g < sizeof gaps / sizeof gaps[0]; g++)
        close[gaps[g]] = g % 2 ? INFINITY : NAN;
}

static int flat(size_t t) { return t % 97 == 0; }

static double event(const bars_shape *shape, size_t t) {
    (void)shape;
    return t % 17 == 3 ? 100.0 : t % 23 == 5 ? -100.0 : 0.0;
}

static const bars_shape shape = {
    .n = BARS,
    .seed = 17,
    .sd = {.from = 30, .calm = 400, .level = 0.3, .swing = 0.2, .period = 7.0},
    .width = {.swing = 0.5, .level = 0.2, .period = 11.0},
    .gap = {.from = 1500, .to = 1510},
    .close_gaps = close_gaps,
    .flat = flat,
    .event = event};

/* Pieces that end at every tile's edge (1024 bars) and every `cut` bars. */
static size_t tile_or_cut(size_t t, size_t cut) {
    const size_t tile = (t / 1024 + 1) * 1024, at_cut = (t / cut + 1) * cut;
    return at_cut < tile ? at_cut : tile;
}

/* Chains beginning at begins[0 .. n_chains) (sorted) folded to the last bar on path `isa` in
 * pieces cut at every begin, every 1024 bars and every `cut` bars, each chain checked against
 * its scalar fold at every piece's end, the reference beginning from positions that are not
 * flat; returns the bars the chains scored, all told. */
static long long check_ride(const bars *b, int isa, int kind, int widths,
                            const apo__score_set *sets, size_t n_sets, const size_t *begins,
                            size_t n_chains, size_t cut) {
    int ref_pos[MAX_SETS];
    for (size_t j = 0; j < n_sets; j++)
        ref_pos[j] = (int)(j % 3) - 1; /* -1, 0, 1: any start gives the same bits */
    const chains ch = {begins, n_chains, ref_pos, cut, tile_or_cut};
    return check_chains(b, isa, kind, widths, sets, n_sets, &ch);
}

/* The sets every case draws from, every one on both sides. */
static void make_both_sets(apo__score_set sets[MAX_SETS]) {
    static const int both[] = {APO_SIDE_BOTH};
    make_sets(sets, MAX_SETS, both, 1);
}

Test(score_ride, chains_fold_each_as_the_scalar_fold_alone, .timeout = 60) {
    bars *b = make_bars(&shape);
    apo__score_set sets[MAX_SETS];
    make_both_sets(sets);
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
    bars *b = make_bars(&shape);
    apo__score_set sets[MAX_SETS];
    make_both_sets(sets);
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
    bars *b = make_bars(&shape);
    apo__score_set sets[MAX_SETS];
    make_both_sets(sets);
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
