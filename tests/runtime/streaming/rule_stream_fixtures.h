/*
 * What the tests of rule streams share (test_stream_rule.c, test_stream_rule_resume.c): a
 * case of a rule over its indicator, its stream's desc, pieces fed wrong and then revised with
 * the right bars, a stream that goes on from its saved bytes, a piece's buffers freed, and the
 * batch scored call's values gathered.
 */
#ifndef APO_TEST_RULE_STREAM_FIXTURES_H
#define APO_TEST_RULE_STREAM_FIXTURES_H

#include <stdint.h>
#include <string.h>

#include "apportion.h"
#include "stream_fixtures.h"

#define ROWS 3 /* the series of every rule stream of these tests */

typedef struct rule_case {
    const char *kernel, *rule;
    apo_param params[APO_MAX_PARAMS]; /* the scored call's: the indicator's and the rule's */
    size_t n_params;
    size_t n_ind; /* how many of them are the indicator's */
    size_t close_input;
    size_t revise; /* the stream's revise_bars: 0, or pieces fed wrong and revised */
} rule_case;

static inline int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* The desc of a rule's stream of the case (sweep: NULL, one set). */
apo_stream_desc rule_desc(const rule_case *rc, const apo_sweep *sweep);

/* How many bars each series takes in the next piece (n_new[r]: none one time in four, else up
 * to 299, never past the case's cols from fed[r]); returns their sum. */
size_t rule_piece_sizes(const size_t *fed, size_t cols, uint64_t *rng, size_t *n_new);

/* Feeds a rule's stream s of n_sets sets the next piece of case c: n_new[r] bars (total in
 * all) of each series r from fed[r], which moves past them. With the case's revise_bars K, the
 * last bars of some series go in wrong and are then revised with the right ones, after which s
 * must save the bytes of `twin` (fed the right bars alone; NULL without K); `since` (fed, or
 * the bars since each series' fold began) bounds how many. With `peek`, a peek first, whose
 * positions must be the update's. Every output lands in got (n_sets x ROWS x c->cols an
 * output, set j's series r at bar t at (j * ROWS + r) * cols + t). */
void rule_feed_piece(apo_stream *s, apo_stream *twin, const rule_case *rc, const stream_case *c,
                     size_t *fed, const size_t *since, const size_t *n_new, size_t total,
                     size_t n_sets, int peek, uint64_t *rng, double *const *got);

/* Runs the scored call w (n values in each of its APO_N_SCORES outputs `out`, which it frees)
 * and writes them to scores, n x APO_N_SCORES, value q's scores together. */
void rule_scores_of(apo_runtime *rt, const apo_workload *w, double **out, size_t n, double *scores);

/* Forges the 8 bytes at `at` of a saved state (`len` bytes) to `forged`, its checksum made
 * right again, and checks that apo_stream_load() with d expected refuses it, its message
 * holding `why`; then puts the bytes back and checks that the state loads. */
void rule_assert_forged_refused(apo_runtime *rt, const apo_stream_desc *d, unsigned char *bytes,
                                size_t len, size_t at, uint64_t forged, const char *why);

/* Saves s, loads it back with its desc expected, destroys s: the stream goes on from bytes. */
apo_stream *rule_reload(apo_runtime *rt, apo_stream *s, const apo_stream_desc *d);

#endif
