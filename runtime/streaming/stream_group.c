/*
 * A group of streams fed together (apportion.h, "apo_stream_group"; docs/streaming.md,
 * "Groups"): one update call brings each symbol's new bars once, by input name, and every
 * stream of the group (another kernel, other parameters, the same series) takes the inputs
 * its kernel reads.
 *
 * All or nothing across the group, as a single update is all or nothing across its series:
 * every stream's arguments are checked (its inputs found, its volumes, that it is not left
 * refusing) and every stream's room reserved before the first stream moves, so that a refusal
 * changes nothing. A built-in kernel on the calling thread does not fail once its room is
 * reserved, so such a group moves unjournaled, as a single stream of it does (a journal would
 * copy every running state at every one-bar update). Where a stream may fail part way (a user
 * kernel's tile function, a large update handed to the devices) every stream is journaled
 * first (stream_journal.h) and, on a failure of any, every stream that moved is put back.
 *
 * The update path allocates nothing for a built-in group: the resolved inputs live in the
 * group, made once at its creation, and each stream is fed through the same path as
 * apo_stream_update(), so its bits are that call's. A large unjournaled update is shared with
 * a second thread, the group's own host team (feed_shared), started at the first such update.
 *
 * A rule's stream (stream_rule.h) takes part through its indicator's stream: the group feeds
 * that stream's sets as any other's, their outputs into a scratch of the group's (grown, before
 * any stream moves, when an update is larger than any before), and once every set has taken
 * the bars, folds each rule's sets from that scratch (apo__stream_rule_fold, which cannot
 * fail): the steps of a lone rule stream's update, so its bits. A user's rule (a function,
 * which may refuse a bar) is asked first, over its indicator's peeked outputs, before any
 * stream moves (ask_user_rules), as its lone stream asks it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/host_team.h"
#include "catalog/volume_inputs.h"
#include "streaming/stream.h"
#include "streaming/stream_journal.h"
#include "streaming/stream_rule.h"

struct apo_stream_group {
    size_t n_streams, n_series;
    apo_stream **streams;
    /* The group input that feeds input i of stream j's kernel: names[j * APO_MAX_IO + i],
     * copied at creation; and its bars in the current update (resolved by resolve_inputs). */
    char **names;
    const double **in;
    /* Every set of every stream in stream order (a sweep's sets, or the stream itself), the
     * stream and set index of each, and a journal for each, for the updates that keep one. */
    size_t n_sets_total;
    apo_stream **sets;
    size_t *set_stream, *set_index;
    apo__stream_journal *journals;
    /* The second thread of large unjournaled updates (feed_shared), started by the first of
     * them; NULL: none yet. */
    apo__host_team *team;
    /* The rule streams' indicator outputs of an update (rule_at[j] doubles in for stream j, each
     * output's sets' bars packed as apo__stream_rule_feed packs them) and, for a peek, copies of
     * their folds (live_at[j] folds in); cap: what each holds, grown by reserve_rules. */
    double *rule_out;
    size_t rule_out_cap;
    apo__score_live *peek_live;
    size_t peek_live_cap;
    size_t *rule_at, *live_at;
    /* A user's rule's positions of an update (given_at[j] in for stream j, n_sets x total),
     * asked before any stream moves (ask_user_rules); cap: what it holds. */
    signed char *given;
    size_t given_cap, *given_at;
};

/* How many sets a stream has: a sweep's, or 1 for the stream itself. */
static size_t sets_of(const apo_stream *s) { return s->n_sets > 0 ? s->n_sets : 1; }

void apo_stream_group_destroy(apo_stream_group *g) {
    if (g == NULL)
        return;
    apo__host_team_destroy(g->team);
    for (size_t j = 0; g->names != NULL && j < g->n_streams * APO_MAX_IO; j++)
        free(g->names[j]);
    free(g->names);
    free(g->in);
    free(g->streams);
    free(g->sets), free(g->set_stream), free(g->set_index);
    free(g->journals);
    free(g->rule_out), free(g->peek_live), free(g->rule_at), free(g->live_at);
    free(g->given), free(g->given_at);
    free(g);
}

static char *copy_name(const char *name) {
    size_t len = strlen(name) + 1;
    char *c = malloc(len);
    if (c != NULL)
        memcpy(c, name, len);
    return c;
}

/* The arguments of apo_stream_group_create(), checked before anything is made. */
static apo_status check_members(apo_stream *const *streams, size_t n,
                                const char *const *const *bind) {
    if (n < 1 || n > APO_STREAM_GROUP_MAX)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "apo_stream_group_create: %zu streams, not 1 to %d", n,
                         APO_STREAM_GROUP_MAX);
    for (size_t j = 0; j < n; j++) {
        if (streams[j] == NULL)
            return apo__fail(APO_ERR_NULL, "apo_stream_group_create: stream %zu is NULL", j);
        if (streams[j]->n_series != streams[0]->n_series)
            return apo__fail(APO_ERR_INVALID_ARGUMENT,
                             "apo_stream_group_create: stream %zu (%s) follows %zu series, "
                             "stream 0 (%s) %zu; a group's streams follow the same series",
                             j, streams[j]->kernel->name, streams[j]->n_series,
                             streams[0]->kernel->name, streams[0]->n_series);
        /* Fed twice an update, a stream would take every bar twice. */
        for (size_t i = 0; i < j; i++)
            if (streams[i] == streams[j])
                return apo__fail(APO_ERR_INVALID_ARGUMENT,
                                 "apo_stream_group_create: streams %zu and %zu are the same "
                                 "stream; a group feeds each of its streams once",
                                 i, j);
        const apo__kernel *k = streams[j]->kernel;
        for (size_t i = 0; bind != NULL && bind[j] != NULL && i < k->n_inputs; i++)
            if (bind[j][i] == NULL || bind[j][i][0] == '\0')
                return apo__fail(APO_ERR_INVALID_ARGUMENT,
                                 "apo_stream_group_create: stream %zu (%s) binds its input %s "
                                 "to %s name",
                                 j, k->name, k->input_names[i], bind[j][i] ? "an empty" : "no");
    }
    return APO_OK;
}

apo_status apo_stream_group_create(apo_stream *const *streams, size_t n_streams,
                                   const char *const *const *bind, apo_stream_group **out) {
    if (streams == NULL || out == NULL)
        return apo__fail(APO_ERR_NULL, "apo_stream_group_create: NULL argument");
    *out = NULL;
    APO_CHECK(check_members(streams, n_streams, bind));
    apo_stream_group *g = calloc(1, sizeof *g);
    if (g == NULL)
        return apo__fail(APO_ERR_OUT_OF_MEMORY, "apo_stream_group_create: no memory");
    g->n_streams = n_streams;
    g->n_series = streams[0]->n_series;
    for (size_t j = 0; j < n_streams; j++)
        g->n_sets_total += sets_of(apo__stream_fed(streams[j]));
    g->streams = malloc(n_streams * sizeof *g->streams);
    g->names = calloc(n_streams * APO_MAX_IO, sizeof *g->names);
    g->in = calloc(n_streams * APO_MAX_IO, sizeof *g->in);
    g->sets = malloc(g->n_sets_total * sizeof *g->sets);
    g->set_stream = malloc(g->n_sets_total * sizeof *g->set_stream);
    g->set_index = malloc(g->n_sets_total * sizeof *g->set_index);
    g->journals = calloc(g->n_sets_total, sizeof *g->journals);
    g->rule_at = calloc(n_streams, sizeof *g->rule_at);
    g->live_at = calloc(n_streams, sizeof *g->live_at);
    g->given_at = calloc(n_streams, sizeof *g->given_at);
    int bad = g->streams == NULL || g->names == NULL || g->in == NULL || g->sets == NULL ||
              g->set_stream == NULL || g->set_index == NULL || g->journals == NULL ||
              g->rule_at == NULL || g->live_at == NULL || g->given_at == NULL;
    for (size_t j = 0, t = 0; j < n_streams && !bad; j++) {
        g->streams[j] = streams[j];
        /* The stream whose sets the group feeds: a rule's indicator stream, or streams[j]. */
        const apo_stream *fed = apo__stream_fed(streams[j]);
        for (size_t k = 0; k < sets_of(fed); k++, t++) {
            g->sets[t] = apo__stream_set(fed, k);
            g->set_stream[t] = j;
            g->set_index[t] = k;
        }
        const apo__kernel *k = streams[j]->kernel;
        for (size_t i = 0; i < k->n_inputs && !bad; i++) {
            const char *name = bind != NULL && bind[j] != NULL ? bind[j][i] : k->input_names[i];
            bad = (g->names[j * APO_MAX_IO + i] = copy_name(name)) == NULL;
        }
    }
    if (bad) {
        apo_stream_group_destroy(g);
        return apo__fail(APO_ERR_OUT_OF_MEMORY,
                         "apo_stream_group_create: no memory for %zu "
                         "streams",
                         n_streams);
    }
    *out = g;
    return APO_OK;
}

/* Finds each stream's inputs among the named ones (into g->in); fails naming the first
 * stream whose input is missing, or a name given twice. Changes nothing else. */
static apo_status resolve_inputs(apo_stream_group *g, const apo_named_input *inputs,
                                 size_t n_inputs, const char *call) {
    for (size_t a = 0; a < n_inputs; a++) {
        if (inputs[a].name == NULL || inputs[a].bars == NULL)
            return apo__fail(APO_ERR_NULL, "%s: input %zu has a NULL %s", call, a,
                             inputs[a].name == NULL ? "name" : "array of bars");
        for (size_t b = 0; b < a; b++)
            if (strcmp(inputs[a].name, inputs[b].name) == 0)
                return apo__fail(APO_ERR_INVALID_ARGUMENT, "%s: input %s is given twice", call,
                                 inputs[a].name);
    }
    for (size_t j = 0; j < g->n_streams; j++) {
        const apo__kernel *k = g->streams[j]->kernel;
        for (size_t i = 0; i < k->n_inputs; i++) {
            const char *want = g->names[j * APO_MAX_IO + i];
            const double *bars = NULL;
            for (size_t a = 0; a < n_inputs && bars == NULL; a++)
                if (strcmp(inputs[a].name, want) == 0)
                    bars = inputs[a].bars;
            if (bars == NULL)
                return apo__fail(APO_ERR_INVALID_ARGUMENT,
                                 "%s: stream %zu (%s) reads input %s, which the update does "
                                 "not give",
                                 call, j, k->name, want);
            g->in[j * APO_MAX_IO + i] = bars;
        }
    }
    return APO_OK;
}

/* Whether stream j's inputs name the same arrays, in the same order, as an earlier stream
 * of the same kernel inputs: its volume was then checked already. */
static int inputs_checked_before(const apo_stream_group *g, size_t j) {
    const apo__kernel *k = g->streams[j]->kernel;
    for (size_t e = 0; e < j; e++) {
        const apo__kernel *ke = g->streams[e]->kernel;
        if (ke->n_inputs != k->n_inputs || ke->builtin != k->builtin)
            continue;
        int same = 1;
        for (size_t i = 0; i < k->n_inputs && same; i++)
            same = g->in[e * APO_MAX_IO + i] == g->in[j * APO_MAX_IO + i] &&
                   strcmp(ke->input_names[i], k->input_names[i]) == 0;
        if (same)
            return 1;
    }
    return 0;
}

/*
 * Every check of an update (the group's and each stream's, as apo_stream_update() makes
 * them), *total the new bars of all series; nothing is changed by them. A group of ten
 * kernels over the same OHLCV arrays checks each volume array once.
 */
static apo_status check_update(apo_stream_group *g, const size_t *n_new,
                               const apo_named_input *inputs, size_t n_inputs,
                               double *const *const *outputs, const char *call, size_t *total) {
    if (g == NULL || n_new == NULL)
        return apo__fail(APO_ERR_NULL, "%s: NULL argument", call);
    for (size_t j = 0; j < g->n_streams; j++)
        if (g->streams[j]->broken)
            return apo__fail(APO_ERR_INVALID_ARGUMENT,
                             "%s: stream %zu (%s) is left refusing by an earlier update that "
                             "failed part way; load a saved state or start again",
                             call, j, g->streams[j]->kernel->name);
    *total = 0;
    for (size_t r = 0; r < g->n_series; r++) {
        if (n_new[r] > SIZE_MAX / sizeof(double) - *total)
            return apo__fail(APO_ERR_OVERFLOW, "%s: the new bars overflow size_t", call);
        *total += n_new[r];
    }
    if (*total == 0)
        return APO_OK;
    if ((inputs == NULL && n_inputs > 0) || outputs == NULL)
        return apo__fail(APO_ERR_NULL, "%s: %zu new bars but %s is NULL", call, *total,
                         outputs == NULL ? "outputs" : "inputs");
    APO_CHECK(resolve_inputs(g, inputs, n_inputs, call));
    for (size_t j = 0; j < g->n_streams; j++) {
        const apo__kernel *k = g->streams[j]->kernel;
        if (outputs[j] == NULL)
            return apo__fail(APO_ERR_NULL, "%s: the outputs of stream %zu (%s) are NULL", call, j,
                             k->name);
        /* A rule's stream writes the APO_LIVE_N_OUTPUTS, any but the position where given. */
        const int rule = g->streams[j]->rule != NULL;
        for (size_t o = 0; o < (rule ? 1 : k->n_outputs); o++)
            if (outputs[j][o] == NULL)
                return apo__fail(APO_ERR_NULL, "%s: output %zu (%s) of stream %zu (%s) is NULL",
                                 call, o, rule ? "position" : k->output_names[o], j, k->name);
        if (!inputs_checked_before(g, j))
            APO_CHECK(apo__check_volumes(k, g->in + j * APO_MAX_IO, g->n_series, 0, n_new, 0, call,
                                         "series"));
    }
    return APO_OK;
}

/* Whether some stream of the group may fail after it moved: a user kernel's tile function
 * may fail on any series, and a large update handed to the devices may fail after some
 * series were fed (the hook hands over only when the update brings device_bars or more). */
static int may_fail_part_way(const apo_stream_group *g, size_t total) {
    for (size_t j = 0; j < g->n_streams; j++) {
        const apo_stream *s = g->streams[j];
        if (!s->kernel->builtin)
            return 1;
    }
    for (size_t t = 0; t < g->n_sets_total; t++)
        if (g->sets[t]->batch != NULL && total >= g->sets[t]->device_bars)
            return 1;
    return 0;
}

/* Room for the rule streams' indicator outputs of an update of `total` bars (and, for a peek,
 * their folds' copies), and where each stream's lie; made before any stream moves. */
static apo_status reserve_rules(apo_stream_group *g, size_t total, int peek, const char *call) {
    size_t outs = 0, lives = 0, given = 0;
    for (size_t j = 0; j < g->n_streams; j++) {
        const apo_stream *s = g->streams[j];
        g->rule_at[j] = outs, g->live_at[j] = lives, g->given_at[j] = given;
        if (s->rule == NULL)
            continue;
        const size_t per_bar = s->rule->n_sets * s->rule->scored->scoring->indicator->n_outputs;
        if (total > (SIZE_MAX / sizeof(double) - outs) / per_bar)
            return apo__fail(APO_ERR_OVERFLOW, "%s: the new bars overflow size_t", call);
        outs += per_bar * total;
        lives += s->rule->n_sets * s->n_series;
        given += apo__stream_rule_asks_user(s) ? s->rule->n_sets * total : 0; /* at most outs */
    }
    if (given > g->given_cap) {
        signed char *grown = realloc(g->given, given);
        if (grown == NULL)
            return apo__fail(APO_ERR_OUT_OF_MEMORY, "%s: no memory for the user rules' positions",
                             call);
        g->given = grown, g->given_cap = given;
    }
    if (outs > g->rule_out_cap) {
        double *grown = realloc(g->rule_out, outs * sizeof *grown);
        if (grown == NULL)
            return apo__fail(APO_ERR_OUT_OF_MEMORY,
                             "%s: no memory for the rule streams' indicator outputs", call);
        g->rule_out = grown, g->rule_out_cap = outs;
    }
    if (peek && lives > g->peek_live_cap) {
        apo__score_live *grown = realloc(g->peek_live, lives * sizeof *grown);
        if (grown == NULL)
            return apo__fail(APO_ERR_OUT_OF_MEMORY, "%s: no memory for the rule streams' folds",
                             call);
        g->peek_live = grown, g->peek_live_cap = lives;
    }
    return APO_OK;
}

/* Where set t writes its outputs in an update of `total` bars: a sweep's sets one after
 * another, as apo_stream_update() packs them; a rule's indicator sets into the group's
 * scratch, laid out as apo__stream_rule_feed lays out its own. */
static void set_outputs(const apo_stream_group *g, size_t t, double *const *const *outputs,
                        size_t total, double **set_out) {
    const size_t j = g->set_stream[t], k = g->set_index[t];
    const apo_stream *s = g->streams[j];
    if (s->rule == NULL) {
        for (size_t o = 0; o < s->kernel->n_outputs; o++)
            set_out[o] = outputs[j][o] + k * total;
        return;
    }
    const size_t n_sets = s->rule->n_sets;
    for (size_t o = 0; o < g->sets[t]->kernel->n_outputs; o++)
        set_out[o] = g->rule_out + g->rule_at[j] + (o * n_sets + k) * total;
}

/* Folds every rule stream's bars, once every set has taken them: into its own folds, or for a
 * peek into the group's copies of them. */
static void fold_rules(apo_stream_group *g, const size_t *n_new, size_t total,
                       double *const *const *outputs, int peek) {
    for (size_t j = 0; j < g->n_streams; j++) {
        apo_stream *s = g->streams[j];
        if (s->rule == NULL)
            continue;
        const size_t n_sets = s->rule->n_sets;
        const double *ind[APO_MAX_IO];
        for (size_t o = 0; o < s->rule->scored->scoring->indicator->n_outputs; o++)
            ind[o] = g->rule_out + g->rule_at[j] + o * n_sets * total;
        apo__stream_rule_fold(s, n_new, total, g->in + j * APO_MAX_IO, ind,
                              apo__stream_rule_asks_user(s) ? g->given + g->given_at[j] : NULL,
                              outputs[j], peek ? g->peek_live + g->live_at[j] : NULL);
    }
}

/* Asks every user's rule of the group for its positions at the update's bars, over its
 * indicator's peeked outputs (apo__stream_rule_ask, into the group's scratch, which the feed
 * then fills with the same bits), before any stream moves: a rule's refusal refuses the
 * group's update, nothing moved. */
static apo_status ask_user_rules(apo_stream_group *g, const size_t *n_new, size_t total) {
    for (size_t j = 0; j < g->n_streams; j++) {
        apo_stream *s = g->streams[j];
        if (!apo__stream_rule_asks_user(s))
            continue;
        double *ind[APO_MAX_IO];
        for (size_t o = 0; o < s->rule->scored->scoring->indicator->n_outputs; o++)
            ind[o] = g->rule_out + g->rule_at[j] + o * s->rule->n_sets * total;
        APO_CHECK(apo__stream_rule_ask(s, n_new, total,
                                       (const double *const *)(g->in + j * APO_MAX_IO), ind,
                                       g->given + g->given_at[j]));
    }
    return APO_OK;
}

/* Symbols a block of an unjournaled update feeds to every stream before the next block. */
#define APO_GROUP_BLOCK 64

/*
 * Feeds every set of every stream a block of symbols at a time, their room reserved: an
 * update that nothing journals (built-in kernels, none handing series to the devices). Each
 * series is fed exactly as apo__stream_feed_set would feed it, so the bits are the same;
 * the order differs: block by block, every stream, so that the block's bars of each input
 * are read while they are in the nearest cache rather than once a stream over the whole
 * update.
 */
static apo_status feed_blocks(apo_stream_group *g, const size_t *n_new, size_t total,
                              double *const *const *outputs) {
    size_t at = 0;
    for (size_t from = 0; from < g->n_series;) {
        const size_t to =
            g->n_series - from < APO_GROUP_BLOCK ? g->n_series : from + APO_GROUP_BLOCK;
        for (size_t t = 0; t < g->n_sets_total; t++) {
            double *set_out[APO_MAX_IO];
            set_outputs(g, t, outputs, total, set_out);
            APO_CHECK(apo__stream_feed_range(
                g->sets[t], n_new, g->in + g->set_stream[t] * APO_MAX_IO, set_out, from, to, at));
        }
        for (; from < to; from++)
            at += n_new[from];
    }
    return APO_OK;
}

/*
 * A large unjournaled update on two threads: the calling thread and the group's helper, a host
 * team of one helper (base/host_team.h), take the sets of the group one at a time, each
 * feeding its set's every series in order, as apo__stream_feed_set does, so every bit is a
 * lone stream's; a set is fed by one thread only, since a stream's scratch and states are its
 * own. The caller never waits for a helper that has not woken (a shared machine may leave it
 * unscheduled for a while): it takes every set the helper has not, and waits only for the one
 * the helper is feeding. An update that waited for a helper preempted inside a set keeps the
 * helper out of the next ones until a probe (base/team_rule.h), as on the cpu device. The
 * team belongs to the group, so a group made without a runtime has it too.
 */

/* New bars x sets from which an update is shared with the helper: its hand-off (a wake-up,
 * some microseconds) is then a small part of the update (about 0.1 us a symbol and set). */
#define APO_GROUP_SHARED_WORK 16384

/* The update being shared, read by the thread that holds one of its sets. */
typedef struct group_update {
    apo_stream_group *g;
    const size_t *n_new;
    size_t total;
    double *const *const *outputs;
} group_update;

/* Feeds set `piece` of the group over every series (its room reserved): one piece of the
 * team's run. */
static apo_status feed_one_set(void *job, int slot, uint64_t piece, double *touch_s,
                               double *compute_s) {
    (void)slot, (void)touch_s, (void)compute_s;
    const group_update *u = job;
    apo_stream_group *g = u->g;
    const size_t t = (size_t)piece;
    double *set_out[APO_MAX_IO];
    set_outputs(g, t, u->outputs, u->total, set_out);
    return apo__stream_feed_range(g->sets[t], u->n_new, g->in + g->set_stream[t] * APO_MAX_IO,
                                  set_out, 0, g->n_series, 0);
}

/* Feeds every set of every stream on the calling thread and the group's helper (above), their
 * room reserved: an unjournaled update. Where the helper cannot be started, the calling
 * thread feeds every set. The machine's processor pressure is not read here (a group may have
 * no runtime): the team's rule learns from the updates themselves. */
static apo_status feed_shared(apo_stream_group *g, const size_t *n_new, size_t total,
                              double *const *const *outputs) {
    group_update u = {g, n_new, total, outputs};
    apo__team_times times;
    return apo__host_team_run(&g->team, 2, -1.0, g->n_sets_total, feed_one_set, &u, &times);
}

/* Feeds every set of every stream, their room reserved; journaled (and put back on a
 * failure, or always with peek) when asked. */
static apo_status feed_all(apo_stream_group *g, const size_t *n_new, size_t total,
                           double *const *const *outputs, int journaled, int peek) {
    apo_status st = APO_OK;
    size_t taken = 0; /* journals taken: those of sets 0 .. taken - 1 */
    for (size_t t = 0; t < g->n_sets_total && st == APO_OK; t++) {
        if (journaled) {
            if ((st = apo__stream_journal_take(g->sets[t], n_new, &g->journals[t])) != APO_OK)
                break;
            taken++;
        }
        double *set_out[APO_MAX_IO];
        set_outputs(g, t, outputs, total, set_out);
        st = apo__stream_feed_set(g->sets[t], n_new, g->in + g->set_stream[t] * APO_MAX_IO, set_out,
                                  !peek);
    }
    if (journaled && (peek || st != APO_OK))
        for (size_t t = taken; t-- > 0;)
            apo__stream_journal_restore(g->sets[t], n_new, &g->journals[t]);
    for (size_t t = 0; t < taken; t++)
        apo__stream_journal_free(&g->journals[t], g->n_series);
    return st;
}

static apo_status group_feed(apo_stream_group *g, const size_t *n_new,
                             const apo_named_input *inputs, size_t n_inputs,
                             double *const *const *outputs, int peek, const char *call) {
    size_t total = 0;
    APO_CHECK(check_update(g, n_new, inputs, n_inputs, outputs, call, &total));
    if (total == 0)
        return APO_OK;
    /* Every set's room before any set moves: nothing is allocated once feeding starts. */
    for (size_t t = 0; t < g->n_sets_total; t++)
        APO_CHECK(apo__stream_reserve_set(g->sets[t], n_new));
    APO_CHECK(reserve_rules(g, total, peek, call));
    APO_CHECK(ask_user_rules(g, n_new, total));
    const int journaled = peek || may_fail_part_way(g, total);
    /* A large unjournaled update goes on two threads. */
    const int shared =
        !journaled && g->n_sets_total > 1 && total * g->n_sets_total >= APO_GROUP_SHARED_WORK;
    apo_status st = journaled ? feed_all(g, n_new, total, outputs, journaled, peek)
                    : shared  ? feed_shared(g, n_new, total, outputs)
                              : feed_blocks(g, n_new, total, outputs);
    if (st == APO_OK)
        fold_rules(g, n_new, total, outputs, peek);
    if (st != APO_OK && !journaled)
        /* Unreachable for built-in kernels on the calling thread (they do not fail once
         * their room is reserved); should one ever, the streams already fed stay fed, and
         * every stream is left refusing rather than the group half a bar apart. */
        for (size_t j = 0; j < g->n_streams; j++) {
            g->streams[j]->broken = 1;
            apo__stream_fed(g->streams[j])->broken = 1;
        }
    return st;
}

apo_status apo_stream_group_update(apo_stream_group *g, const size_t *n_new,
                                   const apo_named_input *inputs, size_t n_inputs,
                                   double *const *const *outputs) {
    return group_feed(g, n_new, inputs, n_inputs, outputs, 0, "apo_stream_group_update");
}

apo_status apo_stream_group_peek(apo_stream_group *g, const size_t *n_new,
                                 const apo_named_input *inputs, size_t n_inputs,
                                 double *const *const *outputs) {
    return group_feed(g, n_new, inputs, n_inputs, outputs, 1, "apo_stream_group_peek");
}
