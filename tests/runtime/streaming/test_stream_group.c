/*
 * Groups of streams (apo_stream_group; docs/streaming.md, "Groups"): ten streams (eight
 * kernels of one to four inputs, correl with its inputs bound to other names, a sweep of two
 * sets) fed together in random pieces, with NaN gaps and across bollinger's first tile
 * boundary, give bit for bit what each stream fed alone by apo_stream_update() gives, and
 * the batch call over the whole history; their saved states end byte for byte those of the
 * lone streams. A refused group update (an input missing or given twice, a negative volume
 * read by the last stream only, a NULL output of the last stream, counts that overflow) and a
 * peek change no stream's saved state; a user kernel that fails in the last stream, and a
 * large update whose device fails in the last stream, put back every stream the update had
 * already fed. Bad groups are refused at creation. Groups over many symbols (many_cases: 100,
 * 150 and 300 symbols, fed mostly a bar or none an update, with gaps, across the windows'
 * growth points, the young pool and the slab) give the lone streams' bits and the batch's,
 * also while the group's helper thread (base/host_team.h) is held before it looks for a set,
 * as a thread the scheduler has not run yet: the calling thread feeds every set, and the
 * helper, let go after the updates, takes none of theirs.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "stream_fixtures.h"
#include "team_hold.h"
#include "test_user_kernel.h"

#define ROWS 4
#define COLS 4400 /* past bollinger's first tile boundary (4096) */
#define N_MEMBERS 10
#define N_NAMES 5

static const char *const names[N_NAMES] = {"open", "high", "low", "close", "volume"};

/* A group member: its kernel, parameters, the sweep of `swept` (two values) when named, and
 * the group inputs its kernel's inputs read (NULL: the kernel's own names). */
typedef struct member {
    const char *kernel;
    apo_param params[3];
    size_t n_params;
    const char *swept;
    double values[2];
    const char *bind[APO_MAX_IO];
} member;

static const member members[N_MEMBERS] = {
    {"bollinger", {{"period", 20}}, 1, NULL, {0}, {NULL}},
    {"macd", {{"fast", 12}, {"slow", 26}, {"signal", 9}}, 3, NULL, {0}, {NULL}},
    {"rsi", {{"timeperiod", 14}}, 1, NULL, {0}, {NULL}},
    {"stoch", {{"fastk_period", 5}}, 1, NULL, {0}, {NULL}},
    {"atr", {{"timeperiod", 14}}, 1, NULL, {0}, {NULL}},
    {"correl", {{"timeperiod", 30}}, 1, NULL, {0}, {"close", "high"}},
    {"sma", {{NULL, 0}}, 0, "timeperiod", {5, 30}, {NULL}},
    {"kama", {{NULL, 0}}, 0, NULL, {0}, {NULL}},
    {"obv", {{NULL, 0}}, 0, NULL, {0}, {NULL}},
    {"mfi", {{"timeperiod", 14}}, 1, NULL, {0}, {NULL}},
};

/* The five named inputs over ROWS x COLS: a walk as the close, the bars around it, positive
 * volumes; series 1 has scattered NaN bars, series 2 a run of them across bar 4096. */
static double *bars[N_NAMES];

static void fill_bars(void) {
    uint64_t st = 54;
    for (size_t n = 0; n < N_NAMES; n++)
        cr_assert_not_null(bars[n] = malloc(ROWS * COLS * sizeof(double)));
    for (size_t r = 0; r < ROWS; r++) {
        double close = 100.0 + (double)r;
        for (size_t t = 0; t < COLS; t++) {
            const size_t at = r * COLS + t;
            const double prev = close;
            close += (double)(stream_rng(&st) >> 11) * 0x1.0p-53 - 0.5;
            const double u = (double)(stream_rng(&st) >> 11) * 0x1.0p-53;
            bars[0][at] = prev;
            bars[1][at] = (close > prev ? close : prev) + u;
            bars[2][at] = (close > prev ? prev : close) - u * 0.5;
            bars[3][at] = close;
            bars[4][at] = 1000.0 + 9000.0 * u;
            const int gap =
                (r == 1 && stream_rng(&st) % 60 == 0) || (r == 2 && t >= 4090 && t < 4110);
            for (size_t n = 0; gap && n < N_NAMES; n++)
                bars[n][at] = NAN;
        }
    }
}

static size_t name_index(const char *name) {
    for (size_t n = 0; n < N_NAMES; n++)
        if (strcmp(names[n], name) == 0)
            return n;
    cr_assert_fail("no input named %s", name);
    return 0;
}

/* What the members are made of on one runtime: the kernels' input names and output counts,
 * and the group input each kernel input reads. */
typedef struct shape {
    size_t n_in[N_MEMBERS], n_out[N_MEMBERS], n_sets[N_MEMBERS];
    size_t reads[N_MEMBERS][APO_MAX_IO]; /* index into names[] */
} shape;

static shape shape_of(apo_runtime *rt) {
    shape sh;
    memset(&sh, 0, sizeof sh);
    for (size_t j = 0; j < N_MEMBERS; j++) {
        apo_kernel_info info = APO_KERNEL_INFO_INIT;
        cr_assert_eq(apo_kernel_get(rt, members[j].kernel, &info), APO_OK, "%s", apo_last_error());
        sh.n_in[j] = info.n_inputs;
        sh.n_out[j] = info.n_outputs;
        sh.n_sets[j] = members[j].swept != NULL ? 2 : 1;
        for (size_t i = 0; i < info.n_inputs; i++)
            sh.reads[j][i] =
                name_index(members[j].bind[0] != NULL ? members[j].bind[i] : info.input_names[i]);
    }
    return sh;
}

static apo_sweep_param grids[N_MEMBERS][1];
static apo_sweep sweeps[N_MEMBERS];

/* The description of member j's stream over n_series series: its kernel, parameters and, for
 * a swept member, its sweep of two sets (kept in grids[j] and sweeps[j]). */
static apo_stream_desc member_desc(size_t j, size_t n_series) {
    apo_stream_desc d = stream_desc_named(members[j].kernel, n_series);
    d.params = members[j].params;
    d.n_params = members[j].n_params;
    if (members[j].swept != NULL) {
        grids[j][0] = (apo_sweep_param){members[j].swept, members[j].values, 2};
        sweeps[j] = stream_grid_sweep(grids[j], 1);
        d.sweep = &sweeps[j];
    }
    return d;
}

static apo_stream *member_stream(apo_runtime *rt, size_t j, size_t device_bars) {
    apo_stream_desc d = member_desc(j, ROWS);
    d.device_bars = device_bars;
    apo_stream *s = NULL;
    cr_assert_eq(apo_stream_create(rt, &d, &s), APO_OK, "%s", apo_last_error());
    return s;
}

static apo_stream_group *group_of(apo_stream **s, size_t n) {
    const char *const *bind[N_MEMBERS];
    for (size_t j = 0; j < n; j++)
        bind[j] = members[j].bind[0] != NULL ? members[j].bind : NULL;
    apo_stream_group *g = NULL;
    cr_assert_eq(apo_stream_group_create(s, n, bind, &g), APO_OK, "%s", apo_last_error());
    return g;
}

/* One update's packed inputs (by name) and every member's packed outputs. */
typedef struct update {
    size_t n_new[ROWS], total;
    double *in[N_NAMES];
    double *out[N_MEMBERS][APO_MAX_IO];
} update;

/* Packs bars from[r] .. from[r] + n_new[r] of each series. */
static void update_init(update *u, const shape *sh, const size_t *from, const size_t *n_new) {
    memset(u, 0, sizeof *u);
    for (size_t r = 0; r < ROWS; r++)
        u->total += u->n_new[r] = n_new[r];
    for (size_t n = 0; n < N_NAMES; n++) {
        cr_assert_not_null(u->in[n] = malloc((u->total + 1) * sizeof(double)));
        for (size_t r = 0, at = 0; r < ROWS; at += n_new[r], r++)
            memcpy(u->in[n] + at, bars[n] + r * COLS + from[r], n_new[r] * sizeof(double));
    }
    for (size_t j = 0; j < N_MEMBERS; j++)
        for (size_t o = 0; o < sh->n_out[j]; o++)
            cr_assert_not_null(u->out[j][o] =
                                   malloc((sh->n_sets[j] * u->total + 1) * sizeof(double)));
}

static void update_free(update *u) {
    for (size_t n = 0; n < N_NAMES; n++)
        free(u->in[n]);
    for (size_t j = 0; j < N_MEMBERS; j++)
        for (size_t o = 0; o < APO_MAX_IO; o++)
            free(u->out[j][o]);
}

static apo_status group_update(apo_stream_group *g, update *u, size_t n_members, int peek) {
    apo_named_input in[N_NAMES];
    for (size_t n = 0; n < N_NAMES; n++)
        in[n] = (apo_named_input){names[n], u->in[n]};
    double *const *outs[N_MEMBERS];
    for (size_t j = 0; j < n_members; j++)
        outs[j] = u->out[j];
    return peek ? apo_stream_group_peek(g, u->n_new, in, N_NAMES, outs)
                : apo_stream_group_update(g, u->n_new, in, N_NAMES, outs);
}

/* Stream j fed alone by apo_stream_update(), the update's inputs in its kernel's order. */
static void lone_update(apo_stream *s, const shape *sh, size_t j, const update *u,
                        double *const *out) {
    const double *in[APO_MAX_IO];
    for (size_t i = 0; i < sh->n_in[j]; i++)
        in[i] = u->in[sh->reads[j][i]];
    cr_assert_eq(apo_stream_update(s, u->n_new, in, out), APO_OK, "%s", apo_last_error());
}

/* The batch call of member j's set `set` over the whole history: outputs, rows x cols. */
static void batch_of(apo_runtime *rt, const shape *sh, size_t j, size_t set, double **out) {
    apo_param params[4];
    size_t n = members[j].n_params;
    memcpy(params, members[j].params, n * sizeof *params);
    if (members[j].swept != NULL)
        params[n++] = (apo_param){members[j].swept, members[j].values[set]};
    const double *in[APO_MAX_IO];
    for (size_t i = 0; i < sh->n_in[j]; i++)
        in[i] = bars[sh->reads[j][i]];
    for (size_t o = 0; o < sh->n_out[j]; o++)
        cr_assert_not_null(out[o] = malloc(ROWS * COLS * sizeof(double)));
    apo_workload w =
        test_workload(members[j].kernel, ROWS, COLS, in, sh->n_in[j], out, sh->n_out[j]);
    w.params = params;
    w.n_params = n;
    w.learn = APO_SWITCH_OFF;
    cr_assert_eq(apo_distribute_workload(rt, &w, NULL), APO_OK, "%s", apo_last_error());
}

static void assert_same_bits(double a, double b, const char *what, size_t j, size_t o, size_t r,
                             size_t t) {
    cr_assert(memcmp(&a, &b, sizeof a) == 0,
              "%s: %s output %zu, series %zu, bar %zu: %.17g against %.17g", what,
              members[j].kernel, o, r, t, a, b);
}

/* Every member's saved state, concatenated, for comparisons byte for byte. */
static unsigned char *states(apo_stream **s, size_t n, size_t *len) {
    unsigned char *all = NULL;
    *len = 0;
    for (size_t j = 0; j < n; j++) {
        size_t one = 0;
        unsigned char *b = stream_state_bytes(s[j], &one);
        cr_assert_not_null(all = realloc(all, *len + one));
        memcpy(all + *len, b, one);
        *len += one;
        free(b);
    }
    return all;
}

static void assert_states(apo_stream **s, size_t n, const unsigned char *want, size_t want_len,
                          const char *what) {
    size_t len = 0;
    unsigned char *now = states(s, n, &len);
    cr_assert(len == want_len && memcmp(now, want, len) == 0, "%s changed a stream's saved state",
              what);
    free(now);
}

/* The end of a group's run: each grouped stream saves the state of its lone twin (the group
 * changed nothing a stream keeps); then the group and both sets of streams go. */
static void end_group_as_lone(apo_stream_group *g, apo_stream **grouped, apo_stream **lone,
                              size_t n) {
    size_t len = 0;
    unsigned char *want = states(lone, n, &len);
    assert_states(grouped, n, want, len, "nothing (the lone streams' states)");
    free(want);
    apo_stream_group_destroy(g);
    for (size_t j = 0; j < n; j++)
        apo_stream_destroy(grouped[j]), apo_stream_destroy(lone[j]);
}

Test(stream_group, ten_streams_fed_together_give_each_lone_stream_and_the_batch, .timeout = 120) {
    fill_bars();
    apo_runtime *rt = test_runtime("cpu:threads=2");
    const shape sh = shape_of(rt);
    apo_stream *grouped[N_MEMBERS], *lone[N_MEMBERS];
    double *batch[N_MEMBERS][2][APO_MAX_IO], *got[N_MEMBERS][2][APO_MAX_IO];
    for (size_t j = 0; j < N_MEMBERS; j++) {
        grouped[j] = member_stream(rt, j, 0);
        lone[j] = member_stream(rt, j, 0);
        for (size_t k = 0; k < sh.n_sets[j]; k++) {
            batch_of(rt, &sh, j, k, batch[j][k]);
            for (size_t o = 0; o < sh.n_out[j]; o++)
                cr_assert_not_null(got[j][k][o] = malloc(ROWS * COLS * sizeof(double)));
        }
    }
    apo_stream_group *g = group_of(grouped, N_MEMBERS);
    size_t fed[ROWS] = {0};
    uint64_t st = 7;
    for (size_t step = 0;; step++) {
        size_t n_new[ROWS], left = 0;
        for (size_t r = 0; r < ROWS; r++) {
            /* One bar or none on most updates, as a live feed; some long ones. */
            const size_t most = step % 4 == 3 ? 900 : 2;
            const size_t want = (size_t)(stream_rng(&st) % (most + 1));
            n_new[r] = want < COLS - fed[r] ? want : COLS - fed[r];
            left += COLS - fed[r];
        }
        if (left == 0)
            break;
        update u, v;
        update_init(&u, &sh, fed, n_new);
        update_init(&v, &sh, fed, n_new);
        cr_assert_eq(group_update(g, &u, N_MEMBERS, 0), APO_OK, "%s", apo_last_error());
        for (size_t j = 0; j < N_MEMBERS; j++)
            lone_update(lone[j], &sh, j, &v, v.out[j]);
        for (size_t j = 0; j < N_MEMBERS; j++)
            for (size_t o = 0; o < sh.n_out[j]; o++)
                for (size_t k = 0; k < sh.n_sets[j]; k++)
                    for (size_t r = 0, at = 0; r < ROWS; at += n_new[r], r++)
                        for (size_t t = 0; t < n_new[r]; t++) {
                            const double a = u.out[j][o][k * u.total + at + t];
                            assert_same_bits(a, v.out[j][o][k * u.total + at + t], "lone stream", j,
                                             o, r, fed[r] + t);
                            got[j][k][o][r * COLS + fed[r] + t] = a;
                        }
        for (size_t r = 0; r < ROWS; r++)
            fed[r] += n_new[r];
        update_free(&u);
        update_free(&v);
    }
    for (size_t j = 0; j < N_MEMBERS; j++)
        for (size_t k = 0; k < sh.n_sets[j]; k++)
            for (size_t o = 0; o < sh.n_out[j]; o++) {
                for (size_t r = 0; r < ROWS; r++)
                    for (size_t t = 0; t < COLS; t++)
                        assert_same_bits(got[j][k][o][r * COLS + t], batch[j][k][o][r * COLS + t],
                                         "batch", j, o, r, t);
                free(got[j][k][o]), free(batch[j][k][o]);
            }
    end_group_as_lone(g, grouped, lone, N_MEMBERS);
    apo_runtime_destroy(rt);
    for (size_t n = 0; n < N_NAMES; n++)
        free(bars[n]);
}

/* The first `head` bars of every series, fed to the group in one update. */
static void feed_head(apo_stream_group *g, const shape *sh, size_t n_members, size_t head) {
    const size_t from[ROWS] = {0}, n_new[ROWS] = {head, head, head, head};
    update u;
    update_init(&u, sh, from, n_new);
    cr_assert_eq(group_update(g, &u, n_members, 0), APO_OK, "%s", apo_last_error());
    update_free(&u);
}

#define HEAD 300

/* Every series' position after the head. */
static const size_t at_head[ROWS] = {HEAD, HEAD, HEAD, HEAD};

/* Feeds group g (of the n streams s) the first HEAD bars of every series, and sets up *u, the
 * update that follows: n_new bars of each series from HEAD on. Returns the streams' saved
 * states after the head (states()), which a refused update must leave as they are. */
static unsigned char *after_head(apo_stream_group *g, apo_stream **s, size_t n, const shape *sh,
                                 const size_t n_new[ROWS], update *u, size_t *len) {
    feed_head(g, sh, n, HEAD);
    unsigned char *before = states(s, n, len);
    update_init(u, sh, at_head, n_new);
    return before;
}

Test(stream_group, a_refused_update_or_a_peek_moves_no_stream, .timeout = 60) {
    fill_bars();
    apo_runtime *rt = test_runtime("cpu");
    const shape sh = shape_of(rt);
    apo_stream *s[N_MEMBERS], *lone[N_MEMBERS];
    for (size_t j = 0; j < N_MEMBERS; j++)
        s[j] = member_stream(rt, j, 0), lone[j] = member_stream(rt, j, 0);
    apo_stream_group *g = group_of(s, N_MEMBERS), *gl = group_of(lone, N_MEMBERS);
    feed_head(gl, &sh, N_MEMBERS, HEAD);
    const size_t n_new[ROWS] = {3, 0, 1, 2};
    update u;
    size_t len = 0;
    unsigned char *before = after_head(g, s, N_MEMBERS, &sh, n_new, &u, &len);
    apo_named_input in[N_NAMES + 1];
    double *const *outs[N_MEMBERS];
    for (size_t j = 0; j < N_MEMBERS; j++)
        outs[j] = u.out[j];
    for (size_t n = 0; n < N_NAMES; n++)
        in[n] = (apo_named_input){names[n], u.in[n]};

    /* volume is read by obv and mfi, the last two streams, so a refusal that came late
     * would show in the others' states. */
    test_assert_refused(apo_stream_group_update(g, u.n_new, in, N_NAMES - 1, outs),
                        APO_ERR_INVALID_ARGUMENT, "reads input volume, which the update");
    assert_states(s, N_MEMBERS, before, len, "a missing input");
    in[N_NAMES] = in[3];
    test_assert_refused(apo_stream_group_update(g, u.n_new, in, N_NAMES + 1, outs),
                        APO_ERR_INVALID_ARGUMENT, "input close is given twice");
    assert_states(s, N_MEMBERS, before, len, "an input given twice");
    const double volume = u.in[4][u.total - 1];
    u.in[4][u.total - 1] = -1.0;
    test_assert_refused(apo_stream_group_update(g, u.n_new, in, N_NAMES, outs),
                        APO_ERR_INVALID_ARGUMENT, "negative");
    assert_states(s, N_MEMBERS, before, len, "a negative volume");
    u.in[4][u.total - 1] = volume;
    double *keep = u.out[N_MEMBERS - 1][0];
    u.out[N_MEMBERS - 1][0] = NULL;
    test_assert_refused(apo_stream_group_update(g, u.n_new, in, N_NAMES, outs), APO_ERR_NULL,
                        "output 0 (mfi) of stream 9");
    assert_states(s, N_MEMBERS, before, len, "a NULL output");
    u.out[N_MEMBERS - 1][0] = keep;
    const size_t overflow[ROWS] = {1, 2, SIZE_MAX, 0};
    test_assert_refused(apo_stream_group_update(g, overflow, in, N_NAMES, outs), APO_ERR_OVERFLOW,
                        "overflow");
    assert_states(s, N_MEMBERS, before, len, "counts that overflow");

    /* A peek writes what the update will, and moves nothing. */
    update p;
    update_init(&p, &sh, at_head, n_new);
    cr_assert_eq(group_update(g, &p, N_MEMBERS, 1), APO_OK, "%s", apo_last_error());
    assert_states(s, N_MEMBERS, before, len, "a peek");
    /* The refused and peeked group and one that saw neither take the same bars alike. */
    update v;
    update_init(&v, &sh, at_head, n_new);
    cr_assert_eq(group_update(g, &u, N_MEMBERS, 0), APO_OK, "%s", apo_last_error());
    cr_assert_eq(group_update(gl, &v, N_MEMBERS, 0), APO_OK, "%s", apo_last_error());
    for (size_t j = 0; j < N_MEMBERS; j++)
        for (size_t o = 0; o < sh.n_out[j]; o++)
            for (size_t t = 0; t < sh.n_sets[j] * u.total; t++) {
                assert_same_bits(u.out[j][o][t], v.out[j][o][t], "after refusals", j, o, 0, t);
                assert_same_bits(p.out[j][o][t], v.out[j][o][t], "peek", j, o, 0, t);
            }
    free(before);
    before = states(lone, N_MEMBERS, &len);
    assert_states(s, N_MEMBERS, before, len, "nothing (the other group's states)");
    free(before);
    update_free(&u), update_free(&v), update_free(&p);
    apo_stream_group_destroy(g), apo_stream_group_destroy(gl);
    for (size_t j = 0; j < N_MEMBERS; j++)
        apo_stream_destroy(s[j]), apo_stream_destroy(lone[j]);
    apo_runtime_destroy(rt);
    for (size_t n = 0; n < N_NAMES; n++)
        free(bars[n]);
}

/* A user kernel that copies its input and fails where the input is exactly -7. */
static apo_status fails_on_marker(const apo_kernel_call *call, void *user) {
    (void)user;
    const double *x = call->inputs[0] + call->row * call->cols;
    for (size_t t = call->begin; t < call->end; t++) {
        if (x[t] == -7.0)
            return APO_ERR_INVALID_ARGUMENT;
        call->outputs[0][call->row * call->cols + t] = x[t];
    }
    return APO_OK;
}

Test(stream_group, a_failure_in_the_last_stream_puts_every_stream_back, .timeout = 60) {
    fill_bars();
    apo_runtime *rt = test_runtime("cpu");
    apo_kernel_desc kd = test_user_kernel("fails_on_marker", fails_on_marker, NULL, 0);
    test_user_kernel_register(rt, &kd);
    const shape sh = shape_of(rt);
    /* Every member but mfi, whose place the failing kernel takes, reading the close. */
    apo_stream *s[N_MEMBERS];
    for (size_t j = 0; j + 1 < N_MEMBERS; j++)
        s[j] = member_stream(rt, j, 0);
    const apo_stream_desc d = stream_desc_named("fails_on_marker", ROWS);
    s[N_MEMBERS - 1] = stream_created(rt, &d);
    const char *const close_only[] = {"close"};
    const char *const *bind[N_MEMBERS] = {NULL};
    bind[5] = members[5].bind;
    bind[N_MEMBERS - 1] = close_only;
    apo_stream_group *g = NULL;
    cr_assert_eq(apo_stream_group_create(s, N_MEMBERS, bind, &g), APO_OK, "%s", apo_last_error());
    /* mfi's outputs (one array) serve the failing kernel's one output. */
    const size_t n_new[ROWS] = {2, 1, 700, 3};
    update u;
    size_t len = 0;
    unsigned char *before = after_head(g, s, N_MEMBERS, &sh, n_new, &u, &len);
    u.in[3][u.total - 1] = -7.0;
    test_assert_refused(group_update(g, &u, N_MEMBERS, 0), APO_ERR_KERNEL_FAILED,
                        "fails_on_marker failed");
    assert_states(s, N_MEMBERS, before, len, "a kernel failure in the last stream");
    free(before);
    update_free(&u);
    apo_stream_group_destroy(g);
    for (size_t j = 0; j < N_MEMBERS; j++)
        apo_stream_destroy(s[j]);
    apo_runtime_destroy(rt);
    for (size_t n = 0; n < N_NAMES; n++)
        free(bars[n]);
}

Test(stream_group, a_device_failure_in_the_last_stream_puts_every_stream_back, .timeout = 60) {
    fill_bars();
    /* The only device fails its first task: the last stream hands its large update there
     * (device_bars 1), the others keep theirs on this thread (SIZE_MAX). */
    apo_runtime *rt = test_runtime("sim:a:rate=1e9:fail_after=1");
    const shape sh = shape_of(rt);
    apo_stream *s[2] = {member_stream(rt, 2, SIZE_MAX), member_stream(rt, 0, 1)};
    apo_stream *lone[2] = {member_stream(rt, 2, SIZE_MAX), member_stream(rt, 0, SIZE_MAX)};
    apo_stream_group *g = NULL, *gl = NULL;
    cr_assert_eq(apo_stream_group_create(s, 2, NULL, &g), APO_OK, "%s", apo_last_error());
    cr_assert_eq(apo_stream_group_create(lone, 2, NULL, &gl), APO_OK, "%s", apo_last_error());
    shape two = sh;
    two.n_out[0] = sh.n_out[2], two.n_in[0] = sh.n_in[2];
    two.n_out[1] = sh.n_out[0], two.n_in[1] = sh.n_in[0];
    size_t len = 0;
    const size_t zero[ROWS] = {0}, head[ROWS] = {10, 10, 10, 10};
    update h;
    update_init(&h, &two, zero, head);
    cr_assert_eq(group_update(g, &h, 2, 0), APO_OK, "%s", apo_last_error());
    update_free(&h);
    update_init(&h, &two, zero, head);
    cr_assert_eq(group_update(gl, &h, 2, 0), APO_OK, "%s", apo_last_error());
    update_free(&h);
    unsigned char *before = states(s, 2, &len);
    const size_t from[ROWS] = {10, 10, 10, 10}, big[ROWS] = {4200, 4200, 4200, 4200};
    update u;
    update_init(&u, &two, from, big);
    cr_assert_neq(group_update(g, &u, 2, 0), APO_OK, "the failing device's batch passed");
    assert_states(s, 2, before, len, "a device failure in the last stream");
    free(before);
    /* Put back, not left refusing: the group goes on as one that never failed (a small
     * update stays on this thread). */
    const size_t small[ROWS] = {5, 0, 7, 1};
    update_free(&u);
    update v;
    update_init(&u, &two, from, small);
    update_init(&v, &two, from, small);
    cr_assert_eq(group_update(g, &u, 2, 0), APO_OK, "%s", apo_last_error());
    cr_assert_eq(group_update(gl, &v, 2, 0), APO_OK, "%s", apo_last_error());
    before = states(lone, 2, &len);
    assert_states(s, 2, before, len, "nothing (the group that never failed)");
    free(before);
    update_free(&u), update_free(&v);
    apo_stream_group_destroy(g), apo_stream_group_destroy(gl);
    for (size_t j = 0; j < 2; j++)
        apo_stream_destroy(s[j]), apo_stream_destroy(lone[j]);
    apo_runtime_destroy(rt);
    for (size_t n = 0; n < N_NAMES; n++)
        free(bars[n]);
}

Test(stream_group, bad_groups_are_refused, .timeout = 60) {
    apo_runtime *rt = test_runtime("cpu");
    apo_stream *a = member_stream(rt, 0, 0), *b = member_stream(rt, 2, 0), *c = NULL;
    const apo_stream_desc d = stream_desc_named("sma", ROWS + 1);
    c = stream_created(rt, &d);
    apo_stream_group *g = NULL;
    apo_stream *pair[] = {a, b}, *twice[] = {a, b, a}, *other[] = {a, c};
    test_assert_refused(apo_stream_group_create(pair, 0, NULL, &g), APO_ERR_INVALID_ARGUMENT,
                        "0 streams");
    test_assert_refused(apo_stream_group_create(NULL, 2, NULL, &g), APO_ERR_NULL, "NULL");
    test_assert_refused(apo_stream_group_create(twice, 3, NULL, &g), APO_ERR_INVALID_ARGUMENT,
                        "streams 0 and 2 are the same stream");
    test_assert_refused(apo_stream_group_create(other, 2, NULL, &g), APO_ERR_INVALID_ARGUMENT,
                        "follows 5 series");
    const char *const empty[] = {""};
    const char *const *bind[] = {NULL, empty};
    test_assert_refused(apo_stream_group_create(pair, 2, bind, &g), APO_ERR_INVALID_ARGUMENT,
                        "binds its input close to an empty name");
    cr_assert_null(g);
    apo_stream_group_destroy(NULL);
    apo_stream_destroy(a), apo_stream_destroy(b), apo_stream_destroy(c);
    apo_runtime_destroy(rt);
}

/* Symbols enough for several of the blocks an unjournaled group update feeds at a time
 * (stream_group.c, feed_blocks: 64), the last block short. */
#define MANY_MEMBERS 5

/* A run of a built-in group over many symbols (many_run): `series` symbols of `n_bars` bars,
 * fed until every bar is in; each update brings each symbol 0 to `most` bars, 0 to `long_most`
 * at every `long_every`th update; every `gap_every`th bar of a symbol is NaN (0: none). With
 * `batch`, the outputs are compared with the batch call over the whole history too. With
 * `hold_helper`, the group's helper is held as it wakes (team_hold.h) until the run's updates
 * are done. */
typedef struct many_case {
    const char *what;
    size_t series, n_bars, most, long_every, long_most, gap_every;
    int batch, hold_helper;
} many_case;

static const many_case many_cases[] = {
    /* The symbols' packed offsets cross the blocks of 64 symbols unevenly. */
    {"blocks", 150, 200, 3, 10, 60, 0, 0, 0},
    /* A stream of 256 or more series keeps its young windows in one pool until they move to
     * the slab past 512 bars, staggered by runs of series (runtime/streaming/stream_windows.c,
     * young_slot; stream_room.c, grow_lead); fed mostly a bar or none an update, with gaps, the
     * symbols cross 64, 128, 256 and 512 bars in different updates. */
    {"young pool and slab", 300, 700, 1, 97, 40, 23, 1, 0},
    /* A stream of fewer series grows its windows in blocks of their own, staggered too. */
    {"own blocks", 100, 600, 1, 0, 0, 31, 1, 0},
    /* Every 10th update brings about 4,500 bars x 6 sets, past the 16,384 from which a group
     * shares an update with its helper (stream_group.c), which is held. */
    {"blocks, the helper held", 150, 200, 3, 10, 60, 0, 0, 1},
};

/* The outputs of member pick's set `set` given by the batch call over the run's history
 * (series-major, series x n_bars), compared bit for bit with got (the same layout). */
static void many_against_batch(apo_runtime *rt, const many_case *c, size_t pick, size_t set,
                               const size_t *reads, size_t n_in, size_t n_out, double *const *hist,
                               double *const *got) {
    apo_param params[4];
    size_t n = members[pick].n_params;
    memcpy(params, members[pick].params, n * sizeof *params);
    if (members[pick].swept != NULL)
        params[n++] = (apo_param){members[pick].swept, members[pick].values[set]};
    const double *in[APO_MAX_IO];
    double *out[APO_MAX_IO];
    for (size_t i = 0; i < n_in; i++)
        in[i] = hist[reads[i]];
    for (size_t o = 0; o < n_out; o++)
        cr_assert_not_null(out[o] = malloc(c->series * c->n_bars * sizeof(double)));
    apo_workload w =
        test_workload(members[pick].kernel, c->series, c->n_bars, in, n_in, out, n_out);
    w.params = params;
    w.n_params = n;
    w.learn = APO_SWITCH_OFF;
    cr_assert_eq(apo_distribute_workload(rt, &w, NULL), APO_OK, "%s", apo_last_error());
    for (size_t o = 0; o < n_out; o++) {
        for (size_t q = 0; q < c->series * c->n_bars; q++)
            cr_assert(memcmp(&got[o][q], &out[o][q], sizeof(double)) == 0,
                      "%s: %s output %zu, series %zu, bar %zu: %.17g, the batch %.17g", c->what,
                      members[pick].kernel, o, q / c->n_bars, q % c->n_bars, got[o][q], out[o][q]);
        free(out[o]);
    }
}

/* The members of the many-symbol runs, and what their kernels read and give. */
static const size_t pick[MANY_MEMBERS] = {1, 3, 6, 8, 9}; /* macd, stoch, sma sweep, obv, mfi */

typedef struct many_shape {
    size_t n_in[MANY_MEMBERS], n_out[MANY_MEMBERS], n_sets[MANY_MEMBERS];
    size_t reads[MANY_MEMBERS][APO_MAX_IO];
} many_shape;

/* Fills the packed inputs of one update (in, each symbol's n_new[r] bars from fed[r] on) and
 * keeps them in the series-major history; returns the update's bars. */
static size_t many_bars(const many_case *c, uint64_t *st, const size_t *fed, const size_t *n_new,
                        double *const *in, double *const *hist) {
    size_t total = 0;
    for (size_t r = 0; r < c->series; r++)
        for (size_t t = fed[r]; t < fed[r] + n_new[r]; t++, total++) {
            const double u = (double)(stream_rng(st) >> 11) * 0x1.0p-53;
            const double close = 100.0 + (double)r + (double)t * 0.01 + u;
            const double v[N_NAMES] = {close - 0.1, close + u, close - u, close,
                                       1000.0 + 100.0 * u};
            const int gap = c->gap_every > 0 && (t + r) % c->gap_every == 0;
            for (size_t n = 0; n < N_NAMES; n++)
                in[n][total] = hist[n][r * c->n_bars + t] = gap ? NAN : v[n];
        }
    return total;
}

/*
 * A built-in group over c->series symbols gives every stream's outputs and saved state bit
 * for bit those of the same stream fed alone by apo_stream_update(), which feeds its series
 * in order; with c->batch, the outputs are also those of the batch over the whole history.
 */
static void many_run(const many_case *c) {
    apo_runtime *rt = test_runtime("cpu");
    if (c->hold_helper)
        team_hold_start();
    apo_stream *grouped[MANY_MEMBERS], *lone[MANY_MEMBERS];
    many_shape sh;
    double *got[MANY_MEMBERS][2][APO_MAX_IO] = {{{0}}};
    const size_t cells = c->series * c->n_bars;
    for (size_t m = 0; m < MANY_MEMBERS; m++) {
        const member *mb = &members[pick[m]];
        apo_kernel_info info = APO_KERNEL_INFO_INIT;
        cr_assert_eq(apo_kernel_get(rt, mb->kernel, &info), APO_OK);
        sh.n_in[m] = info.n_inputs, sh.n_out[m] = info.n_outputs, sh.n_sets[m] = mb->swept ? 2 : 1;
        for (size_t i = 0; i < info.n_inputs; i++)
            sh.reads[m][i] = name_index(info.input_names[i]);
        for (int copy = 0; copy < 2; copy++) {
            const apo_stream_desc d = member_desc(pick[m], c->series);
            cr_assert_eq(apo_stream_create(rt, &d, copy ? &lone[m] : &grouped[m]), APO_OK, "%s",
                         apo_last_error());
        }
        for (size_t k = 0; k < sh.n_sets[m]; k++)
            for (size_t o = 0; o < sh.n_out[m]; o++)
                cr_assert_not_null(got[m][k][o] = malloc(cells * sizeof(double)));
    }
    apo_stream_group *g = NULL;
    cr_assert_eq(apo_stream_group_create(grouped, MANY_MEMBERS, NULL, &g), APO_OK, "%s",
                 apo_last_error());
    const size_t room = c->series * (c->long_most > c->most ? c->long_most : c->most);
    double *in[N_NAMES], *hist[N_NAMES], *out_g[MANY_MEMBERS][APO_MAX_IO],
        *out_l[MANY_MEMBERS][APO_MAX_IO];
    for (size_t n = 0; n < N_NAMES; n++) {
        cr_assert_not_null(in[n] = malloc(room * sizeof(double)));
        cr_assert_not_null(hist[n] = malloc(cells * sizeof(double)));
    }
    for (size_t m = 0; m < MANY_MEMBERS; m++)
        for (size_t o = 0; o < sh.n_out[m]; o++) {
            cr_assert_not_null(out_g[m][o] = malloc(2 * room * sizeof(double)));
            cr_assert_not_null(out_l[m][o] = malloc(2 * room * sizeof(double)));
        }
    size_t *fed = calloc(c->series, sizeof *fed), *n_new = malloc(c->series * sizeof *n_new);
    cr_assert(fed != NULL && n_new != NULL);
    uint64_t st = 99;
    for (size_t step = 0;; step++) {
        size_t left = 0;
        for (size_t r = 0; r < c->series; r++) {
            const size_t most = c->long_every > 0 && step % c->long_every == c->long_every - 1
                                    ? c->long_most
                                    : c->most;
            size_t want = (size_t)(stream_rng(&st) % (most + 1));
            n_new[r] = want < c->n_bars - fed[r] ? want : c->n_bars - fed[r];
            left += c->n_bars - fed[r];
        }
        if (left == 0)
            break;
        const size_t total = many_bars(c, &st, fed, n_new, in, hist);
        apo_named_input named[N_NAMES];
        for (size_t n = 0; n < N_NAMES; n++)
            named[n] = (apo_named_input){names[n], in[n]};
        double *const *outs[MANY_MEMBERS];
        for (size_t m = 0; m < MANY_MEMBERS; m++)
            outs[m] = out_g[m];
        cr_assert_eq(apo_stream_group_update(g, n_new, named, N_NAMES, outs), APO_OK, "%s",
                     apo_last_error());
        for (size_t m = 0; m < MANY_MEMBERS; m++) {
            const double *lin[APO_MAX_IO];
            for (size_t i = 0; i < sh.n_in[m]; i++)
                lin[i] = in[sh.reads[m][i]];
            cr_assert_eq(apo_stream_update(lone[m], n_new, lin, out_l[m]), APO_OK, "%s",
                         apo_last_error());
            for (size_t o = 0; o < sh.n_out[m]; o++)
                for (size_t k = 0; k < sh.n_sets[m]; k++)
                    for (size_t r = 0, q = k * total; r < c->series; r++)
                        for (size_t t = fed[r]; t < fed[r] + n_new[r]; t++, q++) {
                            cr_assert(memcmp(&out_g[m][o][q], &out_l[m][o][q], sizeof(double)) == 0,
                                      "%s, step %zu: %s output %zu, series %zu, bar %zu: %.17g "
                                      "against %.17g",
                                      c->what, step, members[pick[m]].kernel, o, r, t,
                                      out_g[m][o][q], out_l[m][o][q]);
                            got[m][k][o][r * c->n_bars + t] = out_g[m][o][q];
                        }
        }
        for (size_t r = 0; r < c->series; r++)
            fed[r] += n_new[r];
    }
    /* The updates are done, every bit checked: the held helper fed nothing. Let go, it finds
     * those updates over (a sanitizer build would report it reading their arguments). */
    if (c->hold_helper)
        cr_assert_eq(team_hold_release(1), 1, "%s: the group's helper was not woken once", c->what);
    for (size_t m = 0; m < MANY_MEMBERS; m++) {
        for (size_t k = 0; k < sh.n_sets[m] && c->batch; k++)
            many_against_batch(rt, c, pick[m], k, sh.reads[m], sh.n_in[m], sh.n_out[m], hist,
                               got[m][k]);
        for (size_t o = 0; o < sh.n_out[m]; o++) {
            free(out_g[m][o]), free(out_l[m][o]);
            for (size_t k = 0; k < sh.n_sets[m]; k++)
                free(got[m][k][o]);
        }
    }
    for (size_t n = 0; n < N_NAMES; n++)
        free(in[n]), free(hist[n]);
    free(fed), free(n_new);
    end_group_as_lone(g, grouped, lone, MANY_MEMBERS);
    apo_runtime_destroy(rt);
}

/* Each of many_cases, bit for bit against the lone streams (and the batch where it says). */
Test(stream_group, blocks_of_symbols_give_each_lone_stream, .timeout = 240) {
    for (size_t i = 0; i < sizeof many_cases / sizeof many_cases[0]; i++)
        many_run(&many_cases[i]);
}
