/*
 * score_fixtures.h: what the checks of the scored folds in vector lanes share (test_score_ride.c,
 * test_score_sides.c): the bars they fold (a seeded walk of closes with gaps, bollinger's pass
 * and an indicator's outputs drawn from it, a gap of every output), the outputs a rule reads,
 * the scalar fold of one set alone that the lanes are held to, a tile of bars as the lanes take
 * it, the sets every case draws from, the assertion that a fold in the lanes holds the scalar
 * fold's state, and the check of chains of ranges against each chain's scalar fold. What
 * differs from file to file (the walk's length and seed, where the close and the outputs have
 * their gaps, the pass's and the bands' curves, the flat bars, how the signal's events are
 * drawn, the sets' sides, where the chains begin, how their bars are cut, the reference's first
 * positions) is a parameter, so each file keeps its own inputs.
 */
#ifndef APO_TEST_SCORE_FIXTURES_H
#define APO_TEST_SCORE_FIXTURES_H

#include <stddef.h>
#include <stdint.h>

#include "score_sets.h"

/* The most sets a case folds (two rounds of the widest path and one more) and the most chains
 * of ranges it folds at once (more than a round of chains holds: APO_SCORE_RIDE_CHAINS). */
#define MAX_SETS 17
#define MAX_CHAINS 40

/* The bars of a case: n of each, in one allocation that free() releases whole. */
typedef struct bars {
    size_t n;
    double *close, *move;
    unsigned char *finite;
    double *sd, *mean, *upper, *lower, *osc, *events;
} bars;

/* How a file's bars are made. The close is a walk of `seed` near 100 with the gaps that
 * close_gaps puts in it; the pass's sd is NaN before bar sd.from, 1e306 (it overflows the
 * widest bands) before sd.calm, then sd.level + sd.swing * sin(t / sd.period), and flat
 * (APO_BOLLINGER_PASS_FLAT) where `flat` says; the bands lie width.swing * sin(t / width.period)
 * + width.level around the mean of three closes (their width changes sign); the oscillator is
 * the close less that mean; `event` gives the signal's event at a bar; and every output is NaN
 * in the bars [gap.from, gap.to), after the sets have started. */
typedef struct bars_shape {
    size_t n;
    uint64_t seed;
    struct {
        size_t from, calm;
        double level, swing, period;
    } sd;
    struct {
        double swing, level, period;
    } width;
    struct {
        size_t from, to;
    } gap;
    void (*close_gaps)(const struct bars_shape *shape, double *close);
    int (*flat)(size_t t);
    double (*event)(const struct bars_shape *shape, size_t t);
} bars_shape;

/* The bars of `shape` (asserts that they could be allocated). */
bars *make_bars(const bars_shape *shape);

/* The outputs a rule of `kind` reads: bollinger's pass (sd, mean) for the bands' kinds with
 * widths, else three outputs of the indicator's own (a = 0, b = 1; macd_cross reads out[2]). */
void outputs_of(const bars *b, int kind, int widths, const double **o);

/* A set's fold over bars [t0, t1) by the scalar body (apo__score_bar_move), on its side; with
 * `more`, the views' body (apo__score_bar_more) and its statistics. */
void scalar_fold_more(const bars *b, int kind, int widths, const double *const *o,
                      const apo__score_set *set, size_t t0, size_t t1, apo__score_fold *f,
                      apo__score_more *more);

/* The same with the plain body alone. */
void scalar_fold(const bars *b, int kind, int widths, const double *const *o,
                 const apo__score_set *set, size_t t0, size_t t1, apo__score_fold *f);

/* The tile of bars [t, e) as the lanes take it; at[] holds the outputs from bar t. */
apo__score_sets_tile tile_of(const bars *b, const double *const *o, int kind, int widths, size_t t,
                             size_t e, const double **at);

/* Sets 0 .. n_sets: set j has its widths, thresholds around the oscillator's 0, a cost of 0 or
 * more, and the side sides[j % n_sides]; the middle as apo__rule_make takes it. Widths 1e3 and
 * up overflow while the sd is 1e306: those sets start at sd.calm. */
void make_sets(apo__score_set *sets, size_t n_sets, const int *sides, size_t n_sides);

/* Asserts that a fold in the lanes `a` holds the scalar fold `b`'s state, field by field and bit
 * for bit; the message names the case: the path, the kind, the widths, the count of sets, the
 * chain (NO_CHAIN where the sets fold their bars whole), the set, its side and the bar. */
#define NO_CHAIN ((size_t)-1)
void same_fold(const apo__score_fold *a, const apo__score_fold *b, int isa, int kind, int widths,
               size_t n_sets, size_t chain, size_t set, int side, size_t bar);

/* Asserts that a view's more statistics folded in the lanes `a` hold the scalar body's `b`
 * (apo__score_bar_more), field by field and bit for bit: the compounded equity (its product,
 * peak and drawdown pair) of every view and, for APO_SCORE_VIEW_MORE, the book too (the
 * downside's sum, the units, the open trade, the sums won and lost, the held side and the
 * counts); the message names the case as same_fold's does and the first field that differs. */
void same_more(const apo__score_more *a, const apo__score_more *b, int view, int isa, int kind,
               int widths, size_t n_sets, size_t set, int side, size_t bar);

/* Chains of ranges over the bars: chain c begins at begins[c] (sorted); the reference's
 * positions at bar 0 are ref_pos[j] for set j (any start must give the same bits); the bars
 * are handed in pieces, the one from bar t ending at piece_end(t, cut) or at the next begin. */
typedef struct chains {
    const size_t *begins;
    size_t n;
    const int *ref_pos;
    size_t cut;
    size_t (*piece_end)(size_t t, size_t cut);
} chains;

/* The chains folded to the last bar on path `isa` (apo__cpu_score_ride_sets), each chain's sets
 * checked against their scalar folds from the chain's first bar at every piece's end; returns
 * the bars the chains scored, all told. */
long long check_chains(const bars *b, int isa, int kind, int widths, const apo__score_set *sets,
                       size_t n_sets, const chains *ch);

#endif /* APO_TEST_SCORE_FIXTURES_H */
