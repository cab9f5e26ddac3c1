/*
 * A stream of a rule (apo_stream_desc.score; docs/streaming.md, "Live rules"): the
 * indicator's own stream, whose outputs are bit for bit the batch's, and per set and series
 * the fold of kernels/scores/score.h (apo__score_live) carried from update to update, so
 * that each new bar gives the position, return and running total that apo_score_positions()
 * gives there, and the scores that the batch scored call gives over the history so far.
 * The fold is the scored kernels' own code: no rule is read twice.
 *
 * A stream made with revise_bars K keeps, per set and series, the fold as it was K bars back
 * and the close and indicator outputs of the last K bars (a user's rule's positions too): a
 * revise of k <= K bars folds again from there over the kept bars and the corrected ones, the
 * same steps in the same order as a stream fed the corrected bars from the start
 * (docs/streaming.md, "Live rules"). A user's rule is asked at the corrected bars over a
 * revised copy of the indicator's stream before anything moves; the copy then takes the
 * indicator's place.
 *
 * A stream resumed from a window (apo_stream_resume) folds each series from its first new bar
 * on, flat there: the batch scored call's range from that bar (docs/scores.md, "Ranges"),
 * since no window holds a fold from the series' first bar. Each series' origin says where its
 * fold began (0 for a stream fed from the start); a revise reaches no further back.
 *
 * Saved as a container of its own (magic APORULE, below the indicator stream's state, which
 * keeps its own format and version), so that no older state changes meaning; a stream that
 * keeps bars for revises writes format 2, every other one format 1 as before, and a resumed
 * one formats 3 and 4, formats 1 and 2 with the origins.
 */
#ifndef APO_RUNTIME_STREAMING_STREAM_RULE_H
#define APO_RUNTIME_STREAMING_STREAM_RULE_H

#include <stddef.h>
#include <stdint.h>

#include "catalog/scored_kernels.h"
#include "score.h"
#include "streaming/stream.h"

#define APO_STREAM_RULE_FORMAT_VERSION 1
/* The format of a rule stream that keeps bars for revises: format 1 and the kept folds and bars. */
#define APO_STREAM_RULE_FORMAT_REVISE 2
/* Formats 1 and 2 of a resumed stream (an origin above 0): the series' origins after the
 * folds (and after format 2's part for revises). */
#define APO_STREAM_RULE_FORMAT_RESUMED 3
#define APO_STREAM_RULE_FORMAT_RESUMED_REVISE 4
/* Bytes of one series' fold in the saved state: 24 eight-byte fields. */
#define APO_STREAM_RULE_LIVE_LEN 192

struct apo__stream_rule {
    const apo__kernel *scored; /* "<indicator>:<rule>[/view]" (its scoring: the indicator, view) */
    size_t n_sets;             /* the sets run: 1 without a sweep */
    double *params;            /* n_sets x APO_MAX_PARAMS: each set's scored-kernel parameters */
    apo__rule *rules;          /* n_sets: each set's rule, thresholds and side */
    apo_stream *inner;         /* the indicator's stream: one set, or a sweep of n_sets */
    apo__score_live *live;     /* n_sets x n_series, set after set */
    /* Bars kept for revises (apo_stream_desc.revise_bars), K; 0: none, and the two below NULL. */
    size_t revise;
    apo__score_live *base; /* n_sets x n_series: each fold as it was K bars back (at bar n - K) */
    /* n_sets x n_series x K slots of APO_STREAM_RULE_SLOT(rule) doubles, set after set: each
     * series' last K bars, bar t at slot t % K, its close and then the indicator's outputs. */
    double *kept;
    /* n_series: the bar each series' fold began at, 0 or the first new bar of a resume. */
    uint64_t *origin;
};

/* Doubles of one kept bar of a rule's stream of scored kernel `scored`: the close, the
 * indicator's outputs and, for a user's rule, the position it gave there, so that a revise
 * folds the kept bars again without asking it again. */
static inline size_t apo__stream_rule_slot(const apo__kernel *scored) {
    return 1 + scored->scoring->indicator->n_outputs + (scored->scoring->user_fn != NULL);
}
#define APO_STREAM_RULE_SLOT(rule) apo__stream_rule_slot((rule)->scored)

/* A rule's stream of n_series empty series of scored kernel k, the sets' resolved parameters
 * `params` (n_sets x APO_MAX_PARAMS, checked by the caller), keeping `revise` bars for revises
 * (checked by the caller), taking `inner` (the indicator's stream of those sets, made with the
 * same revise, freed with it, also on failure). */
apo_status apo__stream_rule_new(const apo__kernel *k, const double *params, size_t n_sets,
                                size_t revise, apo_stream *inner, apo_stream **out);

/* Begins every series' fold at the bar after its history (origin: `bars` of the indicator's
 * stream, just resumed from a window): folds that have taken no bar, flat there. */
void apo__stream_rule_begin_at_history(apo_stream *s);

/* Feeds an update (arguments checked by the caller, total its new bars): the indicator's
 * stream first, which is all or nothing, then every set's fold over the new bars. With
 * `peek`, the indicator's stream is peeked and the folds are left as they were. A user's rule
 * (apo_rule_register) is asked at every new bar before anything moves: its refusal of a bar
 * (a value other than -1, 0 or 1) refuses the update, the stream as it was. */
apo_status apo__stream_rule_feed(apo_stream *s, const size_t *n_new, size_t total,
                                 const double *const *inputs, double *const *outputs, int peek);

/* The stream an update of s feeds: a rule's indicator stream, or s itself (strchr's way with
 * const: the caller's own stream comes back). */
static inline apo_stream *apo__stream_fed(const apo_stream *s) {
    return s->rule != NULL ? s->rule->inner : (apo_stream *)s;
}

/* Whether s is a rule's stream whose rule is a user's (apo_rule_register): a function, asked
 * at every new bar before anything moves (apo__stream_rule_ask). */
static inline int apo__stream_rule_asks_user(const apo_stream *s) {
    return s->rule != NULL && s->rule->scored->scoring->user_fn != NULL;
}

/* A user's rule's positions at an update's bars (s->rule's scored kernel has a user_fn), into
 * given (n_sets x total, packed as the indicator's outputs): the indicator's stream peeked into
 * ind_out (its outputs, laid out as for apo__stream_rule_fold), then the rule asked at each bar
 * with a finite close. Nothing moves; a value other than -1, 0 or 1 is
 * APO_ERR_KERNEL_FAILED, naming the set, the series and the bar. */
apo_status apo__stream_rule_ask(apo_stream *s, const size_t *n_new, size_t total,
                                const double *const *inputs, double *const *ind_out,
                                signed char *given);

/* Folds an update's bars into every set's folds, once the indicator's stream has taken them:
 * `ind` holds the indicator's outputs (each output's sets' packed bars, set after set, `total`
 * bars a set), `given` a user's rule's positions packed as ind's bars (NULL: a built-in rule,
 * which takes them here), outputs are written as apo__stream_rule_feed writes them. peek_live
 * NULL: the stream's own folds move (and keep each bar for revises); else the folds are copied
 * there (n_sets x n_series) and that copy moves, the stream's left as they were (a peek).
 * Cannot fail: a group feeds its rule streams' indicators first, then folds (stream_group.c;
 * a user's rule's positions are asked, apo__stream_rule_ask, before any stream moves). */
void apo__stream_rule_fold(apo_stream *s, const size_t *n_new, size_t total,
                           const double *const *inputs, const double *const *ind,
                           const signed char *given, double *const *outputs,
                           apo__score_live *peek_live);

/* apo_stream_revise() of a rule's stream (arguments checked by the caller, total the bars
 * given): the indicator's stream revised first, which is all or nothing (a user's rule's: a
 * copy of it revised, the rule asked at the revised bars, and the copy kept only where it
 * gave -1, 0 or 1 at each: APO_ERR_KERNEL_FAILED else, nothing moved), then each set's fold
 * of every revised series folded again from K bars back, writing the outputs of the k[r]
 * revised bars as an update writes them. A resumed series revises no bar before its origin
 * (APO_ERR_INVALID_ARGUMENT). */
apo_status apo__stream_rule_revise(apo_stream *s, const size_t *k, size_t total,
                                   const double *const *inputs, double *const *outputs);

/* An independent copy (apo_stream_fork()): the indicator's stream forked, the folds copied. */
apo_status apo__stream_rule_copy(const apo_stream *s, apo_stream **out);

/* Bytes of the state, and the state (buf holding apo__stream_rule_state_len(s) bytes). */
size_t apo__stream_rule_state_len(const apo_stream *s);
void apo__stream_rule_state_write(const apo_stream *s, unsigned char *buf);

/* Whether buf starts with a rule stream's magic. */
int apo__stream_rule_state_is(const void *buf, size_t len);

/* A rule stream's state checked whole (magic, version, length, checksum, counts): the scored
 * kernel's name, the sets and series, each set's parameters (into params, n_sets x
 * APO_MAX_PARAMS, for the caller to free), and where the indicator's state lies. */
typedef struct apo__stream_rule_head {
    char scored[APO_NAME_MAX];
    size_t n_sets, n_series;
    double *params;
    size_t live_at;          /* offset of the folds */
    size_t revise, slot;     /* format 2: bars kept for revises, doubles a kept bar; else 0 */
    size_t base_at, kept_at; /* format 2: offsets of the folds K bars back and the kept bars */
    uint64_t *origin; /* formats 3 and 4: n_series origins, for the caller to free; else NULL */
    size_t inner_at, inner_len; /* the indicator stream's state */
} apo__stream_rule_head;

apo_status apo__stream_rule_state_read(const void *buf, size_t len, apo__stream_rule_head *h);

/* Whether a user's rule's state (slots ending in the position the rule gave) keeps positions
 * of -1, 0 or 1 alone; APO_ERR_INVALID_ARGUMENT naming the bar else. */
apo_status apo__stream_rule_check_kept(const void *buf, const apo__stream_rule_head *h);

/* Restores the folds of a checked state into a rule stream made by apo__stream_rule_new. */
void apo__stream_rule_state_restore(apo_stream *s, const void *buf, const apo__stream_rule_head *h);

void apo__stream_rule_free(struct apo__stream_rule *rule);

/* Frees any stream, a rule's included (its rule, then the stream); NULL is a no-op. */
void apo__stream_rule_destroy(apo_stream *s);

#endif
