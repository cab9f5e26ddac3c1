/* A rule's stream: the indicator's stream and the scored kernels' fold; see stream_rule.h and
 * docs/streaming.md, "Live rules". */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "fnv1a.h"
#include "le_bytes.h"
#include "streaming/state_format.h"
#include "streaming/stream_copy.h"
#include "streaming/stream_journal.h"
#include "streaming/stream_revise.h"
#include "streaming/stream_rule.h"

static const unsigned char magic[8] = {'A', 'P', 'O', 'R', 'U', 'L', 'E', 0};

/* Offsets of the container's header (docs/streaming.md, "A rule's state"). */
enum {
    OFF_MAGIC = 0,
    OFF_FORMAT = 8,
    OFF_RESERVED = 12,
    OFF_TOTAL = 16,
    OFF_SCORED = 24,
    OFF_N_SETS = 24 + APO_NAME_MAX,
    OFF_N_SERIES = 32 + APO_NAME_MAX,
    HEADER_LEN = 40 + APO_NAME_MAX
};

/* The indicator's outputs a set reads, as the scored kernel's scoring names them. */
static const apo__kernel *indicator_of(const apo_stream *s) {
    return s->rule->scored->scoring->indicator;
}

void apo__stream_rule_free(struct apo__stream_rule *rule) {
    if (rule == NULL)
        return;
    apo__stream_free(rule->inner);
    free(rule->params);
    free(rule->rules);
    free(rule->live);
    free(rule->base);
    free(rule->kept);
    free(rule->origin);
    free(rule);
}

void apo__stream_rule_destroy(apo_stream *s) {
    if (s != NULL) {
        apo__stream_rule_free(s->rule);
        s->rule = NULL;
    }
    apo__stream_free(s);
}

/* Allocates the folds K bars back and the kept bars of a rule that keeps `revise` bars: 0
 * and nothing allocated for none; APO_ERR_OUT_OF_MEMORY where they do not fit. */
static apo_status alloc_kept(struct apo__stream_rule *rule, size_t n_series, size_t revise) {
    rule->revise = revise;
    if (revise == 0)
        return APO_OK;
    const size_t folds = rule->n_sets * n_series, slot = APO_STREAM_RULE_SLOT(rule);
    const int fits = folds <= SIZE_MAX / sizeof(double) / slot / revise;
    rule->base = malloc(folds * sizeof *rule->base);
    rule->kept = fits ? calloc(folds * revise * slot, sizeof *rule->kept) : NULL;
    if (rule->base == NULL || rule->kept == NULL)
        return apo__fail(APO_ERR_OUT_OF_MEMORY,
                         "apo_stream: no memory for the rule's last %zu bars of %zu folds", revise,
                         folds);
    for (size_t i = 0; i < folds; i++)
        apo__score_live_init(&rule->base[i]);
    return APO_OK;
}

apo_status apo__stream_rule_new(const apo__kernel *k, const double *params, size_t n_sets,
                                size_t revise, apo_stream *inner, apo_stream **out) {
    apo_stream *s = calloc(1, sizeof *s);
    struct apo__stream_rule *rule = calloc(1, sizeof *rule);
    const size_t n_series = inner->n_series;
    if (s != NULL && rule != NULL) {
        rule->inner = inner;
        rule->params = malloc(n_sets * APO_MAX_PARAMS * sizeof *rule->params);
        rule->rules = malloc(n_sets * sizeof *rule->rules);
        rule->origin = calloc(n_series, sizeof *rule->origin);
        rule->live = n_series <= SIZE_MAX / sizeof *rule->live / n_sets
                         ? malloc(n_sets * n_series * sizeof *rule->live)
                         : NULL;
    }
    if (s == NULL || rule == NULL || rule->params == NULL || rule->rules == NULL ||
        rule->origin == NULL || rule->live == NULL) {
        if (rule != NULL)
            apo__stream_rule_free(rule);
        else
            apo__stream_free(inner);
        free(s);
        return apo__fail(APO_ERR_OUT_OF_MEMORY, "apo_stream: no memory for the rule's folds");
    }
    rule->scored = k;
    rule->n_sets = n_sets;
    const apo_status st = alloc_kept(rule, n_series, revise);
    if (st != APO_OK) {
        apo__stream_rule_free(rule);
        free(s);
        return st;
    }
    memcpy(rule->params, params, n_sets * APO_MAX_PARAMS * sizeof *params);
    for (size_t j = 0; j < n_sets; j++)
        rule->rules[j] = apo__scoring_rule(k->scoring, params + j * APO_MAX_PARAMS);
    for (size_t i = 0; i < n_sets * n_series; i++)
        apo__score_live_init(&rule->live[i]);
    s->kernel = k;
    memcpy(s->params, params, sizeof s->params);
    s->seed = inner->seed;
    s->n_series = n_series;
    s->rule = rule;
    *out = s;
    return APO_OK;
}

void apo__stream_rule_begin_at_history(apo_stream *s) {
    for (size_t r = 0; r < s->n_series; r++)
        s->rule->origin[r] = apo__stream_set(s->rule->inner, 0)->series[r].n;
}

/* The cost and periods_per_year of set j: the scored kernel's parameters after the
 * indicator's and the rule's thresholds. */
static double set_param(const struct apo__stream_rule *rule, size_t j, size_t after) {
    const apo__scoring *sc = rule->scored->scoring;
    return rule->params[j * APO_MAX_PARAMS + sc->indicator->n_params + sc->n_rule_params + after];
}

/* Whether the rule is a user's (apo_rule_register): asked, its positions kept. */
static int user_rule(const struct apo__stream_rule *rule) {
    return rule->scored->scoring->user_fn != NULL;
}

/* Bars series r of the rule's indicator stream has taken (every set has as many). */
static uint64_t bars_of(const struct apo__stream_rule *rule, size_t r) {
    return apo__stream_set(rule->inner, 0)->series[r].n;
}

/* The bar series r's fold K bars back stands at: n - K, or the fold's origin where fewer
 * bars than K have been folded since. */
static uint64_t base_bar(const struct apo__stream_rule *rule, size_t r) {
    const uint64_t n = bars_of(rule, r), origin = rule->origin[r];
    return n - origin > rule->revise ? n - rule->revise : origin;
}

/* Set j's kept bar t of series r (a slot of APO_STREAM_RULE_SLOT doubles). */
static double *kept_slot(const struct apo__stream_rule *rule, size_t j, size_t n_series, size_t r,
                         uint64_t t) {
    const size_t slot = APO_STREAM_RULE_SLOT(rule);
    return rule->kept + ((j * n_series + r) * rule->revise + (size_t)(t % rule->revise)) * slot;
}

/* Folds one bar of set j into l: its close and the indicator's n_out outputs `out`, writing
 * the bar's live outputs at index `at` of outputs (APO_LIVE_N_OUTPUTS arrays, each NULL or
 * written) unless outputs is NULL (a bar folded again, whose outputs were given before). A
 * user's rule gives the bar's position (`given`, asked by user_positions); a built-in rule's
 * is taken here (given NULL). */
static void fold_bar(const struct apo__stream_rule *rule, size_t j, apo__score_live *l,
                     double close, const double *out, size_t n_out, double *const *outputs,
                     size_t at, const signed char *given) {
    const apo__scoring *sc = rule->scored->scoring;
    const double cost = set_param(rule, j, 0);
    double *w[3] = {NULL, NULL, NULL};
    for (int q = 0; q < 3 && outputs != NULL; q++)
        w[q] = outputs[q] != NULL ? &outputs[q][at] : NULL;
    if (given != NULL)
        apo__score_live_step(l, *given, sc->view, close, out, n_out, cost, w[0], w[1], w[2]);
    else
        apo__score_live_bar(l, &rule->rules[j], sc->view, close, out, n_out, cost, w[0], w[1],
                            w[2]);
    int any_score = 0;
    for (int q = 0; q < APO_N_SCORES && outputs != NULL; q++)
        any_score |= outputs[APO_LIVE_SCORES + q] != NULL;
    if (!any_score)
        return;
    double scores[APO_N_SCORES];
    apo__score_live_scores(l, sc->view, set_param(rule, j, 1), scores);
    for (int q = 0; q < APO_N_SCORES; q++)
        if (outputs[APO_LIVE_SCORES + q] != NULL)
            outputs[APO_LIVE_SCORES + q][at] = scores[q];
}

/* A kept bar's fold again (the fold K bars back taking it, or a revise's refold): a user's
 * rule's position is the one it gave, kept after the outputs. */
static void fold_kept(const struct apo__stream_rule *rule, size_t j, apo__score_live *l,
                      const double *e, size_t n_out) {
    if (!user_rule(rule)) {
        fold_bar(rule, j, l, e[0], e + 1, n_out, NULL, 0, NULL);
        return;
    }
    const signed char given = (signed char)e[1 + n_out]; /* only a user's rule's slot has it */
    fold_bar(rule, j, l, e[0], e + 1, n_out, NULL, 0, &given);
}

/* Keeps set j's bar t of series r for revises (a user's rule's position `given` with it; NULL
 * for a built-in rule): the bar K before it leaves the kept bars, and the fold K bars back
 * takes it, as the live fold took it then (a slot before the series' origin holds no bar). */
static void keep_bar(struct apo__stream_rule *rule, size_t j, size_t n_series, size_t r, uint64_t t,
                     double close, const double *out, size_t n_out, const signed char *given) {
    double *e = kept_slot(rule, j, n_series, r, t);
    if (t - rule->origin[r] >= rule->revise)
        fold_kept(rule, j, &rule->base[j * n_series + r], e, n_out);
    e[0] = close;
    memcpy(e + 1, out, n_out * sizeof *out);
    if (given != NULL)
        e[1 + n_out] = *given;
}

/* Folds set j's new bars of every series: the indicator's outputs `ind` (each the sets' packed
 * outputs, set after set, `total` bars a set) and the closes of `close`, written to outputs
 * (APO_LIVE_N_OUTPUTS arrays, each NULL or set after set as ind); a user's rule's positions
 * `given` packed as ind's bars (NULL for a built-in rule). With `keep` (an update of a stream
 * that keeps bars for revises), each bar is kept too. */
static void fold_set(struct apo__stream_rule *rule, apo__score_live *live, size_t j,
                     size_t n_series, const size_t *n_new, size_t total, const double *close,
                     const double *const *ind, size_t n_out, double *const *outputs,
                     const signed char *given, int keep) {
    size_t at = j * total, in = 0;
    for (size_t r = 0; r < n_series; r++) {
        apo__score_live *l = &live[j * n_series + r];
        /* The series' first new bar: the indicator's stream has already taken them. */
        const uint64_t first = keep ? bars_of(rule, r) - n_new[r] : 0;
        for (size_t t = 0; t < n_new[r]; t++, at++, in++) {
            double out[APO_MAX_IO];
            for (size_t o = 0; o < n_out; o++)
                out[o] = ind[o][at];
            const signed char *g = given != NULL ? &given[at] : NULL;
            fold_bar(rule, j, l, close[in], out, n_out, outputs, at, g);
            if (keep)
                keep_bar(rule, j, n_series, r, first + t, close[in], out, n_out, g);
        }
    }
}

void apo__stream_rule_fold(apo_stream *s, const size_t *n_new, size_t total,
                           const double *const *inputs, const double *const *ind,
                           const signed char *given, double *const *outputs,
                           apo__score_live *peek_live) {
    struct apo__stream_rule *rule = s->rule;
    const size_t folds = rule->n_sets * s->n_series;
    apo__score_live *live = peek_live != NULL ? peek_live : rule->live;
    if (peek_live != NULL)
        memcpy(peek_live, rule->live, folds * sizeof *peek_live);
    const double *close = inputs[rule->scored->scoring->close_input];
    for (size_t j = 0; j < rule->n_sets; j++)
        fold_set(rule, live, j, s->n_series, n_new, total, close, ind, indicator_of(s)->n_outputs,
                 outputs, given, peek_live == NULL && rule->revise > 0);
}

/* The position of set j's series r before its last k bars (a revise's first): the one kept
 * with the bar before them, or the fold's from K bars back (or from the origin) where they
 * begin there. */
static int position_before_last(const struct apo__stream_rule *rule, size_t j, size_t r, size_t k) {
    const size_t n_series = rule->inner->n_series;
    const uint64_t n = bars_of(rule, r);
    if (n - k == base_bar(rule, r))
        return rule->base[j * n_series + r].f.pos;
    const size_t n_out = rule->scored->scoring->indicator->n_outputs;
    return (int)kept_slot(rule, j, n_series, r, n - k - 1)[1 + n_out];
}

/* A user's rule's positions at an update's bars (n_new[r] a series), or with `revising` at
 * the last n_new[r] bars a revise replaces, into given (packed as ind's bars): asked, as a
 * scored call asks it (runtime/catalog/scored_kernels.c, user_rule_bar), at each bar with a
 * finite close with the kernel's inputs and the set's outputs there and the position before,
 * which carries over a bar whose close is not finite. Nothing moves: the positions are folded
 * after, so a rule that returns another value than -1, 0 or 1 refuses the whole update or
 * revise (APO_ERR_KERNEL_FAILED, naming the set, the series and the bar). */
static apo_status user_positions(const apo_stream *s, const size_t *n_new, size_t total,
                                 const double *const *inputs, const double *const *ind,
                                 int revising, signed char *given) {
    const struct apo__stream_rule *rule = s->rule;
    const apo__scoring *sc = rule->scored->scoring;
    const size_t n_in = rule->scored->n_inputs, n_out = sc->indicator->n_outputs;
    const double *close = inputs[sc->close_input];
    for (size_t j = 0; j < rule->n_sets; j++) {
        size_t at = j * total, in = 0;
        for (size_t r = 0; r < s->n_series; r++) {
            if (n_new[r] == 0)
                continue;
            /* The series' first bar asked: the next one, or the first of those revised. */
            const uint64_t bar0 = bars_of(rule, r) - (revising ? n_new[r] : 0);
            int pos = revising ? position_before_last(rule, j, r, n_new[r])
                               : rule->live[j * s->n_series + r].f.pos;
            for (size_t t = 0; t < n_new[r]; t++, at++, in++) {
                if (isfinite(close[in])) {
                    double x[APO_MAX_IO], out[APO_MAX_IO];
                    for (size_t i = 0; i < n_in; i++)
                        x[i] = inputs[i][in];
                    for (size_t o = 0; o < n_out; o++)
                        out[o] = ind[o][at];
                    const int got = sc->user_fn(x, out, pos, sc->user);
                    if (got < -1 || got > 1)
                        return apo__fail(APO_ERR_KERNEL_FAILED,
                                         "%s: rule %s returned %d at set %zu, series %zu, bar "
                                         "%llu (a rule returns -1, 0 or 1); the stream is as "
                                         "it was",
                                         rule->scored->name, sc->rule_name, got, j, r,
                                         (unsigned long long)(bar0 + t));
                    pos = got;
                }
                given[at] = (signed char)pos;
            }
        }
    }
    return APO_OK;
}

apo_status apo__stream_rule_ask(apo_stream *s, const size_t *n_new, size_t total,
                                const double *const *inputs, double *const *ind_out,
                                signed char *given) {
    const apo_status st = apo__stream_feed(s->rule->inner, n_new, total, inputs, ind_out, 1);
    return st != APO_OK
               ? st
               : user_positions(s, n_new, total, inputs, (const double *const *)ind_out, 0, given);
}

/* An update or a peek of a user's rule's stream, ind_out its scratch: the rule asked at every
 * bar over the indicator's peeked outputs (apo__stream_rule_ask), and only then, for an
 * update, the indicator's stream fed the same bars (a peek's outputs are the update's bit for
 * bit) and the positions folded; so a rule's refusal leaves everything as it was. The
 * indicator's bars are computed twice: the cost of asking a user's function before anything
 * moves. */
static apo_status feed_user_rule(apo_stream *s, const size_t *n_new, size_t total,
                                 const double *const *inputs, double *const *ind_out,
                                 double *const *outputs, apo__score_live *peek_live) {
    struct apo__stream_rule *rule = s->rule;
    signed char *given = malloc(rule->n_sets * total);
    if (given == NULL)
        return apo__fail(APO_ERR_OUT_OF_MEMORY,
                         "apo_stream_update: no memory for the rule's positions of %zu bars",
                         total);
    apo_status st = apo__stream_rule_ask(s, n_new, total, inputs, ind_out, given);
    if (st == APO_OK && peek_live == NULL) {
        st = apo__stream_feed(rule->inner, n_new, total, inputs, ind_out, 0);
        if (rule->inner->broken)
            s->broken = 1;
    }
    if (st == APO_OK)
        apo__stream_rule_fold(s, n_new, total, inputs, (const double *const *)ind_out, given,
                              outputs, peek_live);
    free(given);
    return st;
}

/* The indicator's outputs of `total` bars a set for every set, each output's sets packed set
 * after set, pointed to by ind_out: the scratch an update or a revise (`call`) feeds the
 * indicator's stream into before any of it moves. NULL with the error set (*st). */
static double *indicator_scratch(const apo_stream *s, size_t total, const char *call,
                                 double **ind_out, apo_status *st) {
    const size_t n_out = indicator_of(s)->n_outputs, n_sets = s->rule->n_sets;
    if (total > SIZE_MAX / sizeof(double) / n_sets / n_out) {
        *st = apo__fail(APO_ERR_OVERFLOW, "%s: the bars overflow size_t", call);
        return NULL;
    }
    double *scratch = malloc(n_sets * n_out * total * sizeof *scratch);
    if (scratch == NULL) {
        *st = apo__fail(APO_ERR_OUT_OF_MEMORY,
                        "%s: no memory for the indicator's outputs of %zu bars", call, total);
        return NULL;
    }
    for (size_t o = 0; o < n_out; o++)
        ind_out[o] = scratch + o * n_sets * total;
    return scratch;
}

apo_status apo__stream_rule_feed(apo_stream *s, const size_t *n_new, size_t total,
                                 const double *const *inputs, double *const *outputs, int peek) {
    struct apo__stream_rule *rule = s->rule;
    /* Every allocation first: the indicator's outputs of every set, and for a peek the folds'
     * copy, so that nothing can fail once the indicator's stream has moved. */
    apo_status st = APO_OK;
    double *ind_out[APO_MAX_IO];
    double *scratch = indicator_scratch(s, total, "apo_stream_update", ind_out, &st);
    if (scratch == NULL)
        return st;
    apo__score_live *live = peek ? malloc(rule->n_sets * s->n_series * sizeof *live) : rule->live;
    if (live == NULL) {
        free(scratch);
        return apo__fail(APO_ERR_OUT_OF_MEMORY, "apo_stream_peek: no memory for the rule's folds");
    }
    /* The rule's checks are the indicator stream's (the same inputs, checked by the public
     * call), so its feed is called directly. An indicator's update that fails part way (a
     * large one on the devices) leaves the rule refusing too: its save, fork and updates then
     * say so, as a lone stream's do. */
    if (apo__stream_rule_asks_user(s)) {
        st = feed_user_rule(s, n_new, total, inputs, ind_out, outputs, peek ? live : NULL);
    } else {
        st = apo__stream_feed(rule->inner, n_new, total, inputs, ind_out, peek);
        if (rule->inner->broken)
            s->broken = 1;
        if (st == APO_OK)
            apo__stream_rule_fold(s, n_new, total, inputs, (const double *const *)ind_out, NULL,
                                  outputs, peek ? live : NULL);
    }
    free(scratch);
    if (peek)
        free(live);
    return st;
}

/* Folds set j's series r again from K bars back (or from its origin, nearer): the kept bars
 * before its last k, then the k revised ones (a user's rule's positions at them `given`,
 * packed as ind's bars; NULL for a built-in rule) (closes `close`, indicator outputs `ind` at index
 * `at`, set j's at j * total), kept in their place and written to outputs at the same index. */
static void refold(struct apo__stream_rule *rule, size_t j, size_t r, size_t k, size_t total,
                   size_t at, const double *close, const double *const *ind,
                   const signed char *given, double *const *outputs) {
    const size_t n_series = rule->inner->n_series,
                 n_out = rule->scored->scoring->indicator->n_outputs;
    const uint64_t n = bars_of(rule, r), from = base_bar(rule, r);
    apo__score_live *l = &rule->live[j * n_series + r];
    *l = rule->base[j * n_series + r];
    for (uint64_t t = from; t < n - k; t++)
        fold_kept(rule, j, l, kept_slot(rule, j, n_series, r, t), n_out);
    for (size_t i = 0; i < k; i++) {
        double *e = kept_slot(rule, j, n_series, r, n - k + i);
        const size_t bar = j * total + at + i;
        e[0] = close[at + i];
        for (size_t o = 0; o < n_out; o++)
            e[1 + o] = ind[o][bar];
        if (given != NULL)
            e[1 + n_out] = given[bar];
        fold_bar(rule, j, l, e[0], e + 1, n_out, outputs, bar, given != NULL ? &given[bar] : NULL);
    }
}

/* A user's rule's revise up to the folds: a copy of the indicator's stream revised into
 * ind_out, the rule asked at the revised bars (their positions into *given, n_sets x total,
 * for the caller to free), and only then the copy in the indicator's place; a refusal (the
 * indicator's or the rule's) leaves everything as it was. */
static apo_status revise_user_rule(apo_stream *s, const size_t *k, size_t total,
                                   const double *const *inputs, double *const *ind_out,
                                   signed char **given) {
    struct apo__stream_rule *rule = s->rule;
    *given = malloc(rule->n_sets * total);
    if (*given == NULL)
        return apo__fail(APO_ERR_OUT_OF_MEMORY,
                         "apo_stream_revise: no memory for the rule's positions of %zu bars",
                         total);
    apo_stream *copy = NULL;
    apo_status st = apo__stream_copy(rule->inner, &copy);
    if (st == APO_OK)
        st = apo__stream_revise(copy, k, total, inputs, ind_out);
    if (st == APO_OK)
        st = user_positions(s, k, total, inputs, (const double *const *)ind_out, 1, *given);
    if (st != APO_OK) {
        apo__stream_free(copy);
        return st;
    }
    apo__stream_free(rule->inner);
    rule->inner = copy;
    return APO_OK;
}

apo_status apo__stream_rule_revise(apo_stream *s, const size_t *k, size_t total,
                                   const double *const *inputs, double *const *outputs) {
    struct apo__stream_rule *rule = s->rule;
    /* A resumed series' fold began at its origin: the bars before it were never folded, and
     * the batch's range from the origin reads none of them. */
    for (size_t r = 0; r < s->n_series; r++)
        if (rule->origin[r] > 0 && k[r] > bars_of(rule, r) - rule->origin[r])
            return apo__fail(APO_ERR_INVALID_ARGUMENT,
                             "apo_stream_revise: series %zu's rule was resumed at bar %llu and "
                             "has folded %llu bars since; %zu cannot be revised",
                             r, (unsigned long long)rule->origin[r],
                             (unsigned long long)(bars_of(rule, r) - rule->origin[r]), k[r]);
    apo_status st = APO_OK;
    double *ind_out[APO_MAX_IO];
    double *scratch = indicator_scratch(s, total, "apo_stream_revise", ind_out, &st);
    if (scratch == NULL)
        return st;
    signed char *given = NULL;
    /* The indicator's revise checks k against the bars kept (its K is the rule's) and is all
     * or nothing; the folds below cannot fail. */
    if (user_rule(rule))
        st = revise_user_rule(s, k, total, inputs, ind_out, &given);
    else
        st = apo__stream_revise(rule->inner, k, total, inputs, ind_out);
    if (st == APO_OK) {
        const double *close = inputs[rule->scored->scoring->close_input];
        for (size_t j = 0; j < rule->n_sets; j++)
            for (size_t r = 0, at = 0; r < s->n_series; at += k[r], r++)
                if (k[r] > 0)
                    refold(rule, j, r, k[r], total, at, close, (const double *const *)ind_out,
                           given, outputs);
    }
    free(given);
    free(scratch);
    return st;
}

apo_status apo__stream_rule_copy(const apo_stream *s, apo_stream **out) {
    const struct apo__stream_rule *rule = s->rule;
    apo_stream *inner = NULL;
    APO_CHECK(apo__stream_copy(rule->inner, &inner)); /* not broken: s is not (the caller checks) */
    APO_CHECK(
        apo__stream_rule_new(rule->scored, rule->params, rule->n_sets, rule->revise, inner, out));
    const size_t folds = rule->n_sets * s->n_series;
    memcpy((*out)->rule->live, rule->live, folds * sizeof *rule->live);
    memcpy((*out)->rule->origin, rule->origin, s->n_series * sizeof *rule->origin);
    if (rule->revise > 0) {
        memcpy((*out)->rule->base, rule->base, folds * sizeof *rule->base);
        memcpy((*out)->rule->kept, rule->kept,
               folds * rule->revise * APO_STREAM_RULE_SLOT(rule) * sizeof *rule->kept);
    }
    (*out)->rt = s->rt;
    return APO_OK;
}

/* ---- the state --------------------------------------------------------------------------- */

/* Bytes of format 2's part for revises: K and the doubles of a kept bar, the folds K bars
 * back, the kept bars; 0 for a stream that keeps none (format 1). */
static size_t revise_part_len(const apo_stream *s) {
    const struct apo__stream_rule *rule = s->rule;
    if (rule->revise == 0)
        return 0;
    const size_t folds = rule->n_sets * s->n_series;
    return 16 + folds * APO_STREAM_RULE_LIVE_LEN +
           folds * rule->revise * APO_STREAM_RULE_SLOT(rule) * 8;
}

/* Whether a series' fold began after its first bar (a resume): formats 3 and 4, with the
 * origins. */
static int resumed(const apo_stream *s) {
    for (size_t r = 0; r < s->n_series; r++)
        if (s->rule->origin[r] > 0)
            return 1;
    return 0;
}

size_t apo__stream_rule_state_len(const apo_stream *s) {
    const struct apo__stream_rule *rule = s->rule;
    return HEADER_LEN + rule->n_sets * APO_MAX_PARAMS * 8 +
           rule->n_sets * s->n_series * APO_STREAM_RULE_LIVE_LEN + revise_part_len(s) +
           (resumed(s) ? s->n_series * 8 : 0) + 8 + apo__stream_state_len(rule->inner) + 8;
}

/* One series' fold as 24 little-endian words (APO_STREAM_RULE_LIVE_LEN): LIVE_DOUBLES doubles in
 * the order of the structs' fields, then the integers as u64 (the signed ones two's complement)
 * in the order of enum live_word, which the loader's checks read by name (folds_sound). */
enum { LIVE_DOUBLES = 16 };
enum live_word {
    LIVE_POS,
    LIVE_STARTED,
    LIVE_BARS,
    LIVE_TRADES,
    LIVE_EXPOSED,
    LIVE_HELD,
    LIVE_CLOSED,
    LIVE_WINS,
    LIVE_WORDS
};
_Static_assert(8 * (LIVE_DOUBLES + LIVE_WORDS) == APO_STREAM_RULE_LIVE_LEN,
               "a fold's saved words fill APO_STREAM_RULE_LIVE_LEN");

static int64_t live_get(const unsigned char *p, enum live_word w) {
    return (int64_t)apo__get_u64(p + 8 * (LIVE_DOUBLES + (size_t)w));
}

static void live_write(const apo__score_live *l, unsigned char *p) {
    const apo__score_fold *f = &l->f;
    const apo__score_more *m = &l->m;
    const double d[] = {l->prev_close, f->total,   f->shift,  f->dev_sum, f->dev_sq, f->peak,
                        f->drawdown,   m->down_sq, m->equity, m->epeak,   m->dd_num, m->dd_den,
                        m->units,      m->trade,   m->won,    m->lost};
    _Static_assert(sizeof d / sizeof d[0] == LIVE_DOUBLES, "the doubles of a fold");
    const int64_t n[LIVE_WORDS] = {
        [LIVE_POS] = f->pos,       [LIVE_STARTED] = f->started, [LIVE_BARS] = f->bars,
        [LIVE_TRADES] = f->trades, [LIVE_EXPOSED] = f->exposed, [LIVE_HELD] = m->held,
        [LIVE_CLOSED] = m->closed, [LIVE_WINS] = m->wins};
    for (size_t i = 0; i < LIVE_DOUBLES; i++)
        apo__put_f64(p + 8 * i, d[i]);
    for (size_t w = 0; w < LIVE_WORDS; w++)
        apo__put_u64(p + 8 * (LIVE_DOUBLES + w), (uint64_t)n[w]);
}

static void live_read(apo__score_live *l, const unsigned char *p) {
    apo__score_fold *f = &l->f;
    apo__score_more *m = &l->m;
    double *d[] = {&l->prev_close, &f->total,   &f->shift,  &f->dev_sum, &f->dev_sq, &f->peak,
                   &f->drawdown,   &m->down_sq, &m->equity, &m->epeak,   &m->dd_num, &m->dd_den,
                   &m->units,      &m->trade,   &m->won,    &m->lost};
    _Static_assert(sizeof d / sizeof d[0] == LIVE_DOUBLES, "the doubles of a fold");
    for (size_t i = 0; i < LIVE_DOUBLES; i++)
        *d[i] = apo__get_f64(p + 8 * i);
    f->pos = (int)live_get(p, LIVE_POS), f->started = (int)live_get(p, LIVE_STARTED);
    f->bars = live_get(p, LIVE_BARS), f->trades = live_get(p, LIVE_TRADES);
    f->exposed = live_get(p, LIVE_EXPOSED), m->held = (int)live_get(p, LIVE_HELD);
    m->closed = live_get(p, LIVE_CLOSED), m->wins = live_get(p, LIVE_WINS);
}

void apo__stream_rule_state_write(const apo_stream *s, unsigned char *buf) {
    const struct apo__stream_rule *rule = s->rule;
    const size_t len = apo__stream_rule_state_len(s);
    memset(buf, 0, HEADER_LEN);
    memcpy(buf + OFF_MAGIC, magic, sizeof magic);
    const int with_origins = resumed(s);
    apo__put_u32(
        buf + OFF_FORMAT,
        rule->revise > 0
            ? (with_origins ? APO_STREAM_RULE_FORMAT_RESUMED_REVISE : APO_STREAM_RULE_FORMAT_REVISE)
            : (with_origins ? APO_STREAM_RULE_FORMAT_RESUMED : APO_STREAM_RULE_FORMAT_VERSION));
    apo__put_u64(buf + OFF_TOTAL, len);
    strncpy((char *)buf + OFF_SCORED, rule->scored->name, APO_NAME_MAX);
    apo__put_u64(buf + OFF_N_SETS, rule->n_sets);
    apo__put_u64(buf + OFF_N_SERIES, s->n_series);
    unsigned char *p = buf + HEADER_LEN;
    for (size_t i = 0; i < rule->n_sets * APO_MAX_PARAMS; i++, p += 8)
        apo__put_f64(p, rule->params[i]);
    const size_t folds = rule->n_sets * s->n_series;
    for (size_t i = 0; i < folds; i++, p += APO_STREAM_RULE_LIVE_LEN)
        live_write(&rule->live[i], p);
    if (rule->revise > 0) {
        const size_t kept = folds * rule->revise * APO_STREAM_RULE_SLOT(rule);
        apo__put_u64(p, rule->revise);
        apo__put_u64(p + 8, APO_STREAM_RULE_SLOT(rule));
        p += 16;
        for (size_t i = 0; i < folds; i++, p += APO_STREAM_RULE_LIVE_LEN)
            live_write(&rule->base[i], p);
        for (size_t i = 0; i < kept; i++, p += 8)
            apo__put_f64(p, rule->kept[i]);
    }
    for (size_t r = 0; with_origins && r < s->n_series; r++, p += 8)
        apo__put_u64(p, rule->origin[r]);
    const size_t inner_len = apo__stream_state_len(rule->inner);
    apo__put_u64(p, inner_len);
    apo__stream_state_write(rule->inner, p + 8);
    apo__put_u64(buf + len - 8, apo__fnv1a64(buf, len - 8));
}

int apo__stream_rule_state_is(const void *buf, size_t len) {
    return len >= sizeof magic && memcmp(buf, magic, sizeof magic) == 0;
}

/* Format 2's part for revises, at *at of a state of len bytes with `folds` folds: K (1 to
 * APO_STREAM_MAX_REVISE), the doubles of a kept bar (2 to 2 + APO_MAX_IO), and room for the
 * folds K bars back and the kept bars; *at moves past them. */
static apo_status read_revise_part(const unsigned char *b, size_t len, size_t folds, size_t *at,
                                   apo__stream_rule_head *h) {
    if (*at + 16 > len)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "apo_stream_load: the rule stream's state ends before its kept bars");
    const uint64_t revise = apo__get_u64(b + *at), slot = apo__get_u64(b + *at + 8);
    if (revise < 1 || revise > APO_STREAM_MAX_REVISE || slot < 2 || slot > 2 + APO_MAX_IO)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "apo_stream_load: the rule stream's state keeps %llu bars of %llu "
                         "doubles for revises",
                         (unsigned long long)revise, (unsigned long long)slot);
    const size_t base_at = *at + 16, kept_at = base_at + folds * APO_STREAM_RULE_LIVE_LEN;
    /* Bounded by len before the product is taken, so that a hostile count cannot wrap it. */
    if (kept_at > len || folds > (len - kept_at) / 8 / slot / revise)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "apo_stream_load: the rule stream's kept bars do not fit its length");
    h->revise = (size_t)revise;
    h->slot = (size_t)slot;
    h->base_at = base_at;
    h->kept_at = kept_at;
    *at = kept_at + folds * h->revise * h->slot * 8;
    return APO_OK;
}

/* Whether each of the n folds at p (live_write's layout) holds a position and a held side of
 * -1, 0 or 1 and a started flag of 0 or 1, as the fold's own steps leave them. */
static int folds_sound(const unsigned char *p, size_t n) {
    for (size_t i = 0; i < n; i++, p += APO_STREAM_RULE_LIVE_LEN) {
        const int64_t pos = live_get(p, LIVE_POS), started = live_get(p, LIVE_STARTED),
                      held = live_get(p, LIVE_HELD);
        if (pos < -1 || pos > 1 || held < -1 || held > 1 || started < 0 || started > 1)
            return 0;
    }
    return 1;
}

apo_status apo__stream_rule_state_read(const void *buf, size_t len, apo__stream_rule_head *h) {
    const unsigned char *b = buf;
    memset(h, 0, sizeof *h);
    if (len < HEADER_LEN + 16 || memcmp(b, magic, sizeof magic) != 0)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "apo_stream_load: not a rule stream's state (too short or no magic)");
    const uint32_t format = apo__get_u32(b + OFF_FORMAT);
    if (format < APO_STREAM_RULE_FORMAT_VERSION || format > APO_STREAM_RULE_FORMAT_RESUMED_REVISE)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "apo_stream_load: a rule stream's state of format version %u; this "
                         "library reads versions %d to %d",
                         format, APO_STREAM_RULE_FORMAT_VERSION,
                         APO_STREAM_RULE_FORMAT_RESUMED_REVISE);
    if (apo__get_u64(b + OFF_TOTAL) != len)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "apo_stream_load: the rule stream's state says %llu bytes, %zu were "
                         "given (truncated or extended)",
                         (unsigned long long)apo__get_u64(b + OFF_TOTAL), len);
    if (apo__get_u64(b + len - 8) != apo__fnv1a64(b, len - 8))
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "apo_stream_load: the rule stream's state fails its checksum (corrupt)");
    if (apo__get_u32(b + OFF_RESERVED) != 0 || b[OFF_SCORED + APO_NAME_MAX - 1] != 0)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "apo_stream_load: the rule stream's header is malformed");
    memcpy(h->scored, b + OFF_SCORED, APO_NAME_MAX);
    const uint64_t sets = apo__get_u64(b + OFF_N_SETS), series = apo__get_u64(b + OFF_N_SERIES);
    if (sets < 1 || sets > APO_MAX_SWEEP_SETS || series < 1 || series > APO_STREAM_MAX_SERIES)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "apo_stream_load: the rule stream's state has %llu sets and %llu series",
                         (unsigned long long)sets, (unsigned long long)series);
    const size_t folds_at = HEADER_LEN + (size_t)sets * APO_MAX_PARAMS * 8;
    size_t fixed = folds_at + (size_t)sets * (size_t)series * APO_STREAM_RULE_LIVE_LEN;
    if (format == APO_STREAM_RULE_FORMAT_REVISE || format == APO_STREAM_RULE_FORMAT_RESUMED_REVISE)
        APO_CHECK(read_revise_part(b, len, (size_t)sets * (size_t)series, &fixed, h));
    const size_t origins_at = fixed;
    const int with_origins = format >= APO_STREAM_RULE_FORMAT_RESUMED;
    if (with_origins)
        fixed += (size_t)series * 8; /* series <= APO_STREAM_MAX_SERIES: no wrap */
    if (fixed + 16 > len || apo__get_u64(b + fixed) != len - fixed - 16)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "apo_stream_load: the rule stream's folds and indicator state do not "
                         "fill its length");
    const size_t folds = (size_t)sets * (size_t)series;
    if (!folds_sound(b + folds_at, folds) || (h->revise > 0 && !folds_sound(b + h->base_at, folds)))
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "apo_stream_load: a fold of the rule stream's state holds a position, "
                         "side or flag that no fold takes (-1, 0 or 1; 0 or 1)");
    h->params = malloc((size_t)sets * APO_MAX_PARAMS * sizeof *h->params);
    h->origin = with_origins ? malloc((size_t)series * sizeof *h->origin) : NULL;
    if (h->params == NULL || (with_origins && h->origin == NULL)) {
        free(h->params), free(h->origin);
        h->params = NULL, h->origin = NULL;
        return apo__fail(APO_ERR_OUT_OF_MEMORY, "apo_stream_load: no memory for %llu sets",
                         (unsigned long long)sets);
    }
    for (size_t i = 0; i < sets * APO_MAX_PARAMS; i++)
        h->params[i] = apo__get_f64(b + HEADER_LEN + 8 * i);
    for (size_t r = 0; with_origins && r < series; r++)
        h->origin[r] = apo__get_u64(b + origins_at + 8 * r);
    h->n_sets = (size_t)sets;
    h->n_series = (size_t)series;
    h->live_at = folds_at;
    h->inner_at = fixed + 8;
    h->inner_len = len - fixed - 16;
    return APO_OK;
}

apo_status apo__stream_rule_check_kept(const void *buf, const apo__stream_rule_head *h) {
    const unsigned char *p = (const unsigned char *)buf + h->kept_at;
    for (size_t i = 0; h->revise > 0 && i < h->n_sets * h->n_series * h->revise; i++) {
        const double pos = apo__get_f64(p + (i * h->slot + h->slot - 1) * 8);
        if (pos != -1.0 && pos != 0.0 && pos != 1.0)
            return apo__fail(APO_ERR_INVALID_ARGUMENT,
                             "apo_stream_load: the user's rule's kept bar %zu holds position %g, "
                             "not -1, 0 or 1",
                             i, pos);
    }
    return APO_OK;
}

void apo__stream_rule_state_restore(apo_stream *s, const void *buf,
                                    const apo__stream_rule_head *h) {
    const size_t folds = h->n_sets * h->n_series;
    const unsigned char *p = (const unsigned char *)buf + h->live_at;
    for (size_t i = 0; i < folds; i++, p += APO_STREAM_RULE_LIVE_LEN)
        live_read(&s->rule->live[i], p);
    if (h->origin != NULL)
        memcpy(s->rule->origin, h->origin, h->n_series * sizeof *h->origin);
    if (h->revise == 0)
        return;
    p = (const unsigned char *)buf + h->base_at;
    for (size_t i = 0; i < folds; i++, p += APO_STREAM_RULE_LIVE_LEN)
        live_read(&s->rule->base[i], p);
    p = (const unsigned char *)buf + h->kept_at;
    for (size_t i = 0; i < folds * h->revise * h->slot; i++, p += 8)
        s->rule->kept[i] = apo__get_f64(p);
}
