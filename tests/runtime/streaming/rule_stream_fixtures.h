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

/* Picks, with the case's revise_bars K, how many of the last bars k[r] of each series to
 * revise after this piece (at most K and the bars folded, fed[r] before the piece, a series'
 * bars since its fold began), and returns the piece's inputs with those of them that are in
 * the piece fed wrong (scaled, every seventh NaN); NULL without K (k all 0): the piece is fed
 * as it is. */
double **rule_wrong_piece(const rule_case *rc, const stream_case *c, const size_t *fed,
                          const size_t *n_new, size_t total, double *const *in, uint64_t *rng,
                          size_t *k);

/* Revises the last k[r] bars of each series of s (fed[r] bars of its history each) with the
 * case's right bars, writes the outputs into got (n_sets x ROWS x c->cols per output, series
 * r's bar t at (j * ROWS + r) * cols + t), and checks that s then saves the bytes of `twin`,
 * fed the right bars alone. */
void rule_revise_piece(apo_stream *s, const apo_stream *twin, const stream_case *c,
                       const size_t *fed, const size_t *k, size_t n_sets, double *const *got);

/* Runs the scored call w (n values in each of its APO_N_SCORES outputs `out`, which it frees)
 * and writes them to scores, n x APO_N_SCORES, value q's scores together. */
void rule_scores_of(apo_runtime *rt, const apo_workload *w, double **out, size_t n, double *scores);

/* Forges the 8 bytes at `at` of a saved state (`len` bytes) to `forged`, its checksum made
 * right again, and checks that apo_stream_load() with d expected refuses it, its message
 * holding `why`; then puts the bytes back and checks that the state loads. */
void rule_assert_forged_refused(apo_runtime *rt, const apo_stream_desc *d, unsigned char *bytes,
                                size_t len, size_t at, uint64_t forged, const char *why);

/* Frees a piece's inputs `in` (c->n_inputs), its wrong copy (NULL: none), its
 * APO_LIVE_N_OUTPUTS outputs and its peeked positions. */
void rule_free_piece(const stream_case *c, double **in, double **wrong, double **out,
                     double *peeked);

/* Saves s, loads it back with its desc expected, destroys s: the stream goes on from bytes. */
apo_stream *rule_reload(apo_runtime *rt, apo_stream *s, const apo_stream_desc *d);

#endif
