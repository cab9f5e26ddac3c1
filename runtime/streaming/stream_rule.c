/* A rule's stream: the indicator's stream and the scored kernels' fold; see stream_rule.h and
 * docs/streaming.md, "Live rules". */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "streaming/stream_copy.h"
#include "streaming/stream_journal.h"
#include "streaming/stream_revise.h"
#include "streaming/stream_rule.h"

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
