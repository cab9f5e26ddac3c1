/*
 * What the tests of scores share (test_scores.c, test_score_*.c, test_user_rules.c): the
 * seeded walks with a gap that they score, a scored call run into scores the test owns,
 * poisoned first so that a score never written shows, the indicator's own outputs that the
 * scores are checked from, and the one-row workload that the refusals are asked of.
 */
#ifndef APO_TEST_SCORE_FIXTURES_H
#define APO_TEST_SCORE_FIXTURES_H

#include <stddef.h>
#include <stdint.h>

#include "apportion.h"

/* The value every score holds before a call: no score is ever this. */
#define SCORE_POISON (-12345.0)

/* `rows` random walks of `cols` samples around 100 (row r from seed + r), row r with a gap,
 * a run of `len` NaN bars from bar first + r * step; the caller frees them. */
double *score_walk_with_gap(size_t rows, size_t cols, uint64_t seed, size_t first, size_t step,
                            size_t len);

/* bands_revert's position read from docs/scores.md's table, at a finite close, from the
 * position before it and bollinger's three bands: the reading the tests of positions and of
 * users' rules share, independent of the library's. */
int score_bands_revert_position(int prev, double close, double upper, double middle, double lower);

/* Runs the scored workload `w` (all set but its outputs) into scores it allocates and
 * poisons first; returns them (the caller frees), score k of output row i and range j at
 * [(k * rows + i) * cols + j], with the output's rows and columns (a column per range, one
 * without ranges) in *out_rows and *out_cols (either may be NULL). Fails the test, naming the
 * kernel and the rule, unless the call succeeds. w's outputs are NULL again after it. */
double *score_run(apo_runtime *rt, apo_workload *w, size_t *out_rows, size_t *out_cols);

/* The outputs of `kernel` (three at most) over the rows x cols samples of x, with `params`,
 * into out[0..2], which it allocates (score_indicator_free() frees them); returns how many
 * outputs the kernel has. Fails the test unless the call succeeds. */
size_t score_indicator(apo_runtime *rt, const char *kernel, const double *x, size_t rows,
                       size_t cols, const apo_param *params, size_t n_params, double *out[3]);

void score_indicator_free(double *out[3]);

/* The bars of the walk that score_one_row_init_walk() scores. */
#define SCORE_WALK_COLS 100

/* A scored workload over one series, its scores in `scores` (poisoned), for the calls that
 * must be refused and write nothing. It points into itself: it stays where it was set up. */
typedef struct score_one_row {
    apo_workload w;
    const double *in[1];
    double scores[APO_N_SCORES];
    double *outs[APO_N_SCORES];
    double walk[SCORE_WALK_COLS]; /* the series of score_one_row_init_walk() */
} score_one_row;

/* Sets `s` up: `kernel` scored by `rule` over the `cols` samples of x, learning off. */
void score_one_row_init(score_one_row *s, const char *kernel, const char *rule, const double *x,
                        size_t cols);

/* Sets `s` up as score_one_row_init() does, over its own walk: SCORE_WALK_COLS bars of a
 * random walk around 100 (seed 3), in s->walk. */
void score_one_row_init_walk(score_one_row *s, const char *kernel, const char *rule);

/* Fails the test unless every score of `s` still holds the poison. */
void score_one_row_assert_unwritten(const score_one_row *s);

#endif
