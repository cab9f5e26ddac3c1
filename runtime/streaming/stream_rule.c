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
    free(rule);
}

void apo__stream_rule_destroy(apo_stream *s) {
    if (s != NULL) {
        apo__stream_rule_free(s->rule);
        s->rule = NULL;
    }
    apo__stream_free(s);
}

apo_status apo__stream_rule_new(const apo__kernel *k, const double *params, size_t n_sets,
                                apo_stream *inner, apo_stream **out) {
    apo_stream *s = calloc(1, sizeof *s);
    struct apo__stream_rule *rule = calloc(1, sizeof *rule);
    const size_t n_series = inner->n_series;
    if (s != NULL && rule != NULL) {
        rule->inner = inner;
        rule->params = malloc(n_sets * APO_MAX_PARAMS * sizeof *rule->params);
        rule->rules = malloc(n_sets * sizeof *rule->rules);
        rule->live = n_series <= SIZE_MAX / sizeof *rule->live / n_sets
                         ? malloc(n_sets * n_series * sizeof *rule->live)
                         : NULL;
    }
    if (s == NULL || rule == NULL || rule->params == NULL || rule->rules == NULL ||
        rule->live == NULL) {
        if (rule != NULL)
            apo__stream_rule_free(rule);
        else
            apo__stream_free(inner);
        free(s);
        return apo__fail(APO_ERR_OUT_OF_MEMORY, "apo_stream: no memory for the rule's folds");
    }
    rule->scored = k;
    rule->n_sets = n_sets;
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

/* The cost and periods_per_year of set j: the scored kernel's parameters after the
 * indicator's and the rule's thresholds. */
static double set_param(const struct apo__stream_rule *rule, size_t j, size_t after) {
    const apo__scoring *sc = rule->scored->scoring;
    return rule->params[j * APO_MAX_PARAMS + sc->indicator->n_params + sc->n_rule_params + after];
}

/* Folds set j's new bars of every series: the indicator's outputs `ind` (each the sets' packed
 * outputs, set after set, `total` bars a set) and the closes of `close`, written to outputs
 * (APO_LIVE_N_OUTPUTS arrays, each NULL or set after set as ind). */
static void fold_set(struct apo__stream_rule *rule, apo__score_live *live, size_t j,
                     size_t n_series, const size_t *n_new, size_t total, const double *close,
                     const double *const *ind, size_t n_out, double *const *outputs) {
    const apo__scoring *sc = rule->scored->scoring;
    const double cost = set_param(rule, j, 0), ppy = set_param(rule, j, 1);
    size_t at = j * total, in = 0;
    for (size_t r = 0; r < n_series; r++) {
        apo__score_live *l = &live[j * n_series + r];
        for (size_t t = 0; t < n_new[r]; t++, at++, in++) {
            double out[APO_MAX_IO];
            for (size_t o = 0; o < n_out; o++)
                out[o] = ind[o][at];
            double *w[3];
            for (int q = 0; q < 3; q++)
                w[q] = outputs[q] != NULL ? &outputs[q][at] : NULL;
            apo__score_live_bar(l, &rule->rules[j], sc->view, close[in], out, n_out, cost, w[0],
                                w[1], w[2]);
            int any_score = 0;
            for (int q = 0; q < APO_N_SCORES; q++)
                any_score |= outputs[APO_LIVE_SCORES + q] != NULL;
            if (!any_score)
                continue;
            double scores[APO_N_SCORES];
            apo__score_live_scores(l, sc->view, ppy, scores);
            for (int q = 0; q < APO_N_SCORES; q++)
                if (outputs[APO_LIVE_SCORES + q] != NULL)
                    outputs[APO_LIVE_SCORES + q][at] = scores[q];
        }
    }
}

apo_status apo__stream_rule_feed(apo_stream *s, const size_t *n_new, size_t total,
                                 const double *const *inputs, double *const *outputs, int peek) {
    struct apo__stream_rule *rule = s->rule;
    const apo__kernel *ind = indicator_of(s);
    const size_t n_out = ind->n_outputs, n_sets = rule->n_sets;
    if (total > SIZE_MAX / sizeof(double) / n_sets / n_out)
        return apo__fail(APO_ERR_OVERFLOW, "apo_stream_update: the new bars overflow size_t");
    /* Every allocation first: the indicator's outputs of every set, and for a peek the folds'
     * copy, so that nothing can fail once the indicator's stream has moved. */
    double *scratch = malloc(n_sets * n_out * total * sizeof *scratch);
    apo__score_live *live = peek ? malloc(n_sets * s->n_series * sizeof *live) : rule->live;
    if (scratch == NULL || live == NULL) {
        free(scratch);
        if (peek)
            free(live);
        return apo__fail(APO_ERR_OUT_OF_MEMORY,
                         "apo_stream_update: no memory for the indicator's outputs of %zu bars",
                         total);
    }
    double *ind_out[APO_MAX_IO];
    for (size_t o = 0; o < n_out; o++)
        ind_out[o] = scratch + o * n_sets * total;
    /* The rule's checks are the indicator stream's (the same inputs, checked by the public
     * call), so its feed is called directly. An indicator's update that fails part way (a
     * large one on the devices) leaves the rule refusing too: its save, fork and updates then
     * say so, as a lone stream's do. */
    apo_status st = apo__stream_feed(rule->inner, n_new, total, inputs, ind_out, peek);
    if (rule->inner->broken)
        s->broken = 1;
    if (st == APO_OK) {
        if (peek)
            memcpy(live, rule->live, n_sets * s->n_series * sizeof *live);
        const double *close = inputs[rule->scored->scoring->close_input];
        for (size_t j = 0; j < n_sets; j++)
            fold_set(rule, live, j, s->n_series, n_new, total, close,
                     (const double *const *)ind_out, n_out, outputs);
    }
    free(scratch);
    if (peek)
        free(live);
    return st;
}

apo_status apo__stream_rule_copy(const apo_stream *s, apo_stream **out) {
    const struct apo__stream_rule *rule = s->rule;
    apo_stream *inner = NULL;
    APO_CHECK(apo__stream_copy(rule->inner, &inner)); /* not broken: s is not (the caller checks) */
    APO_CHECK(apo__stream_rule_new(rule->scored, rule->params, rule->n_sets, inner, out));
    memcpy((*out)->rule->live, rule->live, rule->n_sets * s->n_series * sizeof *rule->live);
    (*out)->rt = s->rt;
    return APO_OK;
}

/* ---- the state --------------------------------------------------------------------------- */

size_t apo__stream_rule_state_len(const apo_stream *s) {
    const struct apo__stream_rule *rule = s->rule;
    return HEADER_LEN + rule->n_sets * APO_MAX_PARAMS * 8 +
           rule->n_sets * s->n_series * APO_STREAM_RULE_LIVE_LEN + 8 +
           apo__stream_state_len(rule->inner) + 8;
}

/* One series' fold as 24 little-endian words, the integers as u64 (the signed ones two's
 * complement), in the order of the structs' fields. */
static void live_write(const apo__score_live *l, unsigned char *p) {
    const apo__score_fold *f = &l->f;
    const apo__score_more *m = &l->m;
    const double d[] = {l->prev_close, f->total,   f->shift,  f->dev_sum, f->dev_sq, f->peak,
                        f->drawdown,   m->down_sq, m->equity, m->epeak,   m->dd_num, m->dd_den,
                        m->units,      m->trade,   m->won,    m->lost};
    const int64_t n[] = {f->pos,     f->started, f->bars,   f->trades,
                         f->exposed, m->held,    m->closed, m->wins};
    size_t at = 0;
    for (size_t i = 0; i < sizeof d / sizeof d[0]; i++, at += 8)
        apo__put_f64(p + at, d[i]);
    for (size_t i = 0; i < sizeof n / sizeof n[0]; i++, at += 8)
        apo__put_u64(p + at, (uint64_t)n[i]);
}

static void live_read(apo__score_live *l, const unsigned char *p) {
    apo__score_fold *f = &l->f;
    apo__score_more *m = &l->m;
    double *d[] = {&l->prev_close, &f->total,   &f->shift,  &f->dev_sum, &f->dev_sq, &f->peak,
                   &f->drawdown,   &m->down_sq, &m->equity, &m->epeak,   &m->dd_num, &m->dd_den,
                   &m->units,      &m->trade,   &m->won,    &m->lost};
    size_t at = 0;
    for (size_t i = 0; i < sizeof d / sizeof d[0]; i++, at += 8)
        *d[i] = apo__get_f64(p + at);
    int64_t n[8];
    for (size_t i = 0; i < 8; i++, at += 8)
        n[i] = (int64_t)apo__get_u64(p + at);
    f->pos = (int)n[0], f->started = (int)n[1], f->bars = n[2], f->trades = n[3];
    f->exposed = n[4], m->held = (int)n[5], m->closed = n[6], m->wins = n[7];
}

void apo__stream_rule_state_write(const apo_stream *s, unsigned char *buf) {
    const struct apo__stream_rule *rule = s->rule;
    const size_t len = apo__stream_rule_state_len(s);
    memset(buf, 0, HEADER_LEN);
    memcpy(buf + OFF_MAGIC, magic, sizeof magic);
    apo__put_u32(buf + OFF_FORMAT, APO_STREAM_RULE_FORMAT_VERSION);
    apo__put_u64(buf + OFF_TOTAL, len);
    strncpy((char *)buf + OFF_SCORED, rule->scored->name, APO_NAME_MAX);
    apo__put_u64(buf + OFF_N_SETS, rule->n_sets);
    apo__put_u64(buf + OFF_N_SERIES, s->n_series);
    unsigned char *p = buf + HEADER_LEN;
    for (size_t i = 0; i < rule->n_sets * APO_MAX_PARAMS; i++, p += 8)
        apo__put_f64(p, rule->params[i]);
    for (size_t i = 0; i < rule->n_sets * s->n_series; i++, p += APO_STREAM_RULE_LIVE_LEN)
        live_write(&rule->live[i], p);
    const size_t inner_len = apo__stream_state_len(rule->inner);
    apo__put_u64(p, inner_len);
    apo__stream_state_write(rule->inner, p + 8);
    apo__put_u64(buf + len - 8, apo__fnv1a64(buf, len - 8));
}

int apo__stream_rule_state_is(const void *buf, size_t len) {
    return len >= sizeof magic && memcmp(buf, magic, sizeof magic) == 0;
}

apo_status apo__stream_rule_state_read(const void *buf, size_t len, apo__stream_rule_head *h) {
    const unsigned char *b = buf;
    memset(h, 0, sizeof *h);
    if (len < HEADER_LEN + 16 || memcmp(b, magic, sizeof magic) != 0)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "apo_stream_load: not a rule stream's state (too short or no magic)");
    const uint32_t format = apo__get_u32(b + OFF_FORMAT);
    if (format != APO_STREAM_RULE_FORMAT_VERSION)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "apo_stream_load: a rule stream's state of format version %u; this "
                         "library reads version %d",
                         format, APO_STREAM_RULE_FORMAT_VERSION);
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
    const size_t fixed = HEADER_LEN + (size_t)sets * APO_MAX_PARAMS * 8 +
                         (size_t)sets * (size_t)series * APO_STREAM_RULE_LIVE_LEN;
    if (fixed + 16 > len || apo__get_u64(b + fixed) != len - fixed - 16)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "apo_stream_load: the rule stream's folds and indicator state do not "
                         "fill its length");
    h->params = malloc((size_t)sets * APO_MAX_PARAMS * sizeof *h->params);
    if (h->params == NULL)
        return apo__fail(APO_ERR_OUT_OF_MEMORY, "apo_stream_load: no memory for %llu sets",
                         (unsigned long long)sets);
    for (size_t i = 0; i < sets * APO_MAX_PARAMS; i++)
        h->params[i] = apo__get_f64(b + HEADER_LEN + 8 * i);
    h->n_sets = (size_t)sets;
    h->n_series = (size_t)series;
    h->live_at = HEADER_LEN + (size_t)sets * APO_MAX_PARAMS * 8;
    h->inner_at = fixed + 8;
    h->inner_len = len - fixed - 16;
    return APO_OK;
}

void apo__stream_rule_state_restore(apo_stream *s, const void *buf,
                                    const apo__stream_rule_head *h) {
    const unsigned char *p = (const unsigned char *)buf + h->live_at;
    for (size_t i = 0; i < h->n_sets * h->n_series; i++, p += APO_STREAM_RULE_LIVE_LEN)
        live_read(&s->rule->live[i], p);
}
