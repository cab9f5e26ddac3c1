/* A rule's stream's saved state (docs/streaming.md, "A rule's state"): the container that holds
 * each set's parameters, each fold (apo__score_live), the kept bars and folds of a stream that
 * revises, the origins of a resumed one and the indicator's own state, with its checks on
 * load. Apart from stream_rule.c, which feeds and folds, since the format is a concern of its
 * own and the loader's checks are what a hostile file meets. */
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "fnv1a.h"
#include "le_bytes.h"
#include "streaming/state_format.h"
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
