/*
 * Streams of a rule (apo_stream_desc.score; docs/streaming.md, "Live rules"): fed in random
 * pieces with NaN gaps, peeked at, saved and loaded between pieces, every bar's position,
 * return and running total are bitwise apo_score_positions()'s over the batch indicator's
 * outputs, and the running scores at a bar count are bitwise the batch scored call's over
 * the history up to it (ragged rows: one row per bar count); a sweep's every set too. A
 * stream that keeps bars for revises is fed the last bars of each piece wrong and then revises
 * them: the same comparisons hold, and after each revise it saves the bytes of a stream fed
 * the right bars alone. A bad desc and a state that is not
 * the expected one are refused, and a refused update or revise leaves the saved state byte for
 * byte. In a group beside an indicator's stream, rule streams give their lone streams' bits.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "le_bytes.h"
#include "rule_stream_fixtures.h"
#include "stream_fixtures.h"

#define CHECKS 48 /* bar counts whose running scores are checked against the batch, a series */

/* A user's rule that a case's stream follows instead of its rule, registered on the case's
 * runtime, whose positions are meant to be the rule's: the comparisons stay the rule's. */
typedef struct live_rule {
    const char *name;
    apo_rule_fn fn;
} live_rule;

/* The running scores of series r of a set at each of the `n` bar counts `at`: the batch
 * scored call over rows that are series r's first at[q] bars (ragged rows). */
static void batch_scores(apo_runtime *rt, const rule_case *rc, const apo_sweep *sweep, size_t set,
                         const stream_case *c, size_t r, const size_t *at, size_t n,
                         double *scores /* n x APO_N_SCORES */) {
    double *in[APO_MAX_IO];
    for (size_t i = 0; i < c->n_inputs; i++) {
        in[i] = malloc(n * c->cols * sizeof(double));
        for (size_t q = 0; q < n; q++)
            memcpy(in[i] + q * c->cols, c->in[i] + r * c->cols, c->cols * sizeof(double));
    }
    apo_sweep one = APO_SWEEP_INIT;
    if (sweep != NULL) {
        one = *sweep;
        one.first_set = set;
        one.n_sets_run = 1;
    }
    double *out[APO_N_SCORES];
    for (size_t k = 0; k < APO_N_SCORES; k++)
        out[k] = malloc(n * sizeof(double));
    apo_workload w = test_workload(rc->kernel, n, c->cols, (const double *const *)in, c->n_inputs,
                                   out, APO_N_SCORES);
    w.score = rc->rule;
    w.row_lengths = at;
    w.params = rc->params;
    w.n_params = rc->n_params;
    w.sweep = sweep != NULL ? &one : NULL;
    rule_scores_of(rt, &w, out, n, scores);
    for (size_t i = 0; i < c->n_inputs; i++)
        free(in[i]);
}

/* Feeds the case's history in random pieces (0 to 300 bars a series, peeks before some,
 * reloads between some) into a rule's stream of n_sets sets, gathering every output, then
 * compares set by set with apo_score_positions() and the batch scored call. */
static void check_case(const rule_case *rc, const live_rule *live, const apo_sweep *sweep,
                       size_t n_sets, const apo_param *const *set_params,
                       const size_t *n_set_params) {
    apo_runtime *rt = test_runtime("cpu");
    if (live != NULL)
        test_register_rule(rt, live->name, rc->kernel, live->fn, NULL);
    apo_stream_desc plain = APO_STREAM_DESC_INIT; /* the indicator's, for its tile length */
    plain.kernel = rc->kernel;
    plain.n_series = 1;
    plain.params = rc->params;
    plain.n_params = rc->n_ind;
    apo_stream *ps = NULL;
    cr_assert_eq(apo_stream_create(rt, &plain, &ps), APO_OK, "%s", apo_last_error());
    const size_t tile = stream_tile_of(ps);
    apo_stream_destroy(ps);
    stream_case c;
    const size_t cols = tile + 500 < 4600 ? tile + 500 : 4600;
    cr_assert_eq(
        stream_case_init(&c, rt, rc->kernel, rc->params, rc->n_ind, ROWS, cols, 54, STREAM_GAPS),
        APO_OK, "%s", apo_last_error());
    apo_stream_desc d = rule_desc(rc, sweep);
    if (live != NULL)
        d.score = live->name;
    apo_stream *s = NULL, *twin = NULL; /* twin: fed the right bars alone, with K */
    cr_assert_eq(apo_stream_create(rt, &d, &s), APO_OK, "%s", apo_last_error());
    if (rc->revise > 0)
        cr_assert_eq(apo_stream_create(rt, &d, &twin), APO_OK, "%s", apo_last_error());
    double *got[APO_LIVE_N_OUTPUTS]; /* sets x ROWS x cols, series r's bar t at r * cols + t */
    for (size_t q = 0; q < APO_LIVE_N_OUTPUTS; q++)
        got[q] = malloc(n_sets * ROWS * cols * sizeof(double));
    size_t fed[ROWS] = {0};
    uint64_t rng = 0x5eed;
    for (int round = 0;; round++) {
        size_t n_new[ROWS];
        const size_t total = rule_piece_sizes(fed, cols, &rng, n_new);
        if (total == 0 && fed[0] == cols && fed[1] == cols && fed[2] == cols)
            break;
        rule_feed_piece(s, twin, rc, &c, fed, fed, n_new, total, n_sets, round % 3 == 1, &rng, got);
        if (round % 4 == 2)
            s = rule_reload(rt, s, &d);
    }
    /* Every set's positions, returns and running totals against apo_score_positions() over
     * the batch indicator's outputs of its set, and its running scores at CHECKS bar counts
     * against the batch scored call. */
    for (size_t j = 0; j < n_sets; j++) {
        stream_case ind;
        cr_assert_eq(stream_case_init(&ind, rt, rc->kernel, set_params[j], rc->n_ind, ROWS, cols,
                                      54, STREAM_GAPS),
                     APO_OK);
        double *pos = malloc(cols * sizeof(double)), *ret = malloc(cols * sizeof(double)),
               *tot = malloc(cols * sizeof(double));
        for (size_t r = 0; r < ROWS; r++) {
            const double *outs[APO_MAX_IO];
            for (size_t o = 0; o < ind.n_outputs; o++)
                outs[o] = ind.batch[o] + r * cols;
            cr_assert_eq(apo_score_positions(rc->kernel, rc->rule,
                                             ind.in[rc->close_input] + r * cols, outs,
                                             ind.n_outputs, cols, set_params[j], n_set_params[j],
                                             pos, ret, tot, NULL),
                         APO_OK, "%s", apo_last_error());
            const double *g[3] = {got[0] + (j * ROWS + r) * cols, got[1] + (j * ROWS + r) * cols,
                                  got[2] + (j * ROWS + r) * cols};
            for (size_t t = 0; t < cols; t++)
                cr_assert(same_bits(g[0][t], pos[t]) && same_bits(g[1][t], ret[t]) &&
                              same_bits(g[2][t], tot[t]),
                          "%s:%s set %zu series %zu bar %zu: %g %g %g, positions say %g %g %g",
                          rc->kernel, rc->rule, j, r, t, g[0][t], g[1][t], g[2][t], pos[t], ret[t],
                          tot[t]);
            size_t at[CHECKS];
            for (size_t q = 0; q < CHECKS; q++) /* the first bars, the tile boundary, the end */
                at[q] = q < 16           ? q + 1
                        : q < 32         ? (tile - 8 + (q - 16) < cols ? tile - 8 + (q - 16) : cols)
                        : q < CHECKS - 1 ? 1 + stream_rng(&rng) % cols
                                         : cols;
            double want[CHECKS * APO_N_SCORES];
            batch_scores(rt, rc, sweep, j, &ind, r, at, CHECKS, want);
            for (size_t q = 0; q < CHECKS; q++)
                for (size_t k = 0; k < APO_N_SCORES; k++) {
                    const double live = got[APO_LIVE_SCORES + k][(j * ROWS + r) * cols + at[q] - 1];
                    cr_assert(same_bits(live, want[q * APO_N_SCORES + k]),
                              "%s:%s set %zu series %zu, %zu bars, score %zu: %.17g, the batch "
                              "%.17g",
                              rc->kernel, rc->rule, j, r, at[q], k, live,
                              want[q * APO_N_SCORES + k]);
                }
        }
        free(pos), free(ret), free(tot);
        stream_case_free(&ind);
    }
    for (size_t q = 0; q < APO_LIVE_N_OUTPUTS; q++)
        free(got[q]);
    apo_stream_destroy(s);
    apo_stream_destroy(twin);
    stream_case_free(&c);
    apo_runtime_destroy(rt);
}

static void check_one_live(rule_case rc, const live_rule *live) {
    const apo_param *p[1] = {rc.params};
    const size_t n[1] = {rc.n_params};
    check_case(&rc, live, NULL, 1, p, n);
}

static void check_one(rule_case rc) { check_one_live(rc, NULL); }

Test(stream_rule, rsi_revert_with_cost_is_the_batch_bit_for_bit, .timeout = 120) {
    check_one((rule_case){"rsi",
                          "rsi_revert",
                          {{"timeperiod", 9}, {"lower", 35}, {"upper", 65}, {"cost", 0.001}},
                          4,
                          1,
                          0,
                          0});
}

/* A user's rule streams as a built-in one: asked at each new bar, its positions folded by the
 * same fold, so a rule that takes rsi_revert's positions gives rsi_revert's bits (positions,
 * returns, running totals, the batch's scores), through peeks and reloads. */
Test(stream_rule, a_users_rule_is_the_batch_of_the_rule_it_follows, .timeout = 120) {
    const live_rule live = {"my_rsi_revert", stream_user_rsi_revert};
    check_one_live(
        (rule_case){"rsi", "rsi_revert", {{"timeperiod", 9}, {"cost", 0.001}}, 2, 1, 0, 0}, &live);
}

/* Revised, a user's rule is asked again at the corrected bars and its kept positions folded
 * again: the bits of the rule it follows over the corrected history. */
Test(stream_rule, a_users_rule_revised_is_the_batch_of_the_rule_it_follows, .timeout = 120) {
    const live_rule live = {"my_rsi_revert", stream_user_rsi_revert};
    check_one_live(
        (rule_case){"rsi", "rsi_revert", {{"timeperiod", 9}, {"cost", 0.001}}, 2, 1, 0, 40}, &live);
}

Test(stream_rule, bands_revert_more_is_the_batch_bit_for_bit, .timeout = 120) {
    check_one((rule_case){"bollinger",
                          "bands_revert/more",
                          {{"period", 20}, {"cost", 0.0005}, {"periods_per_year", 98280}},
                          3,
                          1,
                          0,
                          0});
}

Test(stream_rule, stoch_cross_long_only_compound_is_the_batch_bit_for_bit, .timeout = 120) {
    check_one(
        (rule_case){"stoch", "stoch_cross/compound", {{"side", 1}, {"cost", 0.0002}}, 2, 0, 2, 0});
}

Test(stream_rule, macd_cross_log_is_the_batch_bit_for_bit, .timeout = 120) {
    check_one((rule_case){"macd", "macd_cross/log", {{"cost", 0.001}}, 1, 0, 0, 0});
}

Test(stream_rule, a_sweep_over_the_rule_is_each_sets_batch, .timeout = 120) {
    const rule_case rc = {"rsi", "rsi_zone", {{"timeperiod", 14}}, 1, 1, 0, 0};
    const double lower[] = {25, 30}, cost[] = {0, 0.001};
    const apo_sweep_param grid[] = {{"lower", lower, 2}, {"cost", cost, 2}};
    const apo_sweep sw = stream_grid_sweep(grid, 2);
    apo_param sets[4][3];
    const apo_param *p[4];
    size_t n[4];
    for (size_t j = 0; j < 4; j++) {
        sets[j][0] = (apo_param){"timeperiod", 14};
        sets[j][1] = (apo_param){"lower", lower[j / 2]};
        sets[j][2] = (apo_param){"cost", cost[j % 2]};
        p[j] = sets[j];
        n[j] = 3;
    }
    check_case(&rc, NULL, &sw, 4, p, n);
}

Test(stream_rule, rsi_revert_revised_is_the_batch_bit_for_bit, .timeout = 120) {
    check_one((rule_case){"rsi",
                          "rsi_revert",
                          {{"timeperiod", 9}, {"lower", 35}, {"upper", 65}, {"cost", 0.001}},
                          4,
                          1,
                          0,
                          40});
}

Test(stream_rule, bands_revert_more_revised_is_the_batch_bit_for_bit, .timeout = 120) {
    check_one((rule_case){"bollinger",
                          "bands_revert/more",
                          {{"period", 20}, {"cost", 0.0005}, {"periods_per_year", 98280}},
                          3,
                          1,
                          0,
                          17});
}

Test(stream_rule, a_revised_sweep_is_each_sets_batch, .timeout = 120) {
    const rule_case rc = {"macd", "macd_cross/compound", {{"fastperiod", 10}}, 1, 1, 0, 40};
    const double side[] = {-1, 0, 1}, cost[] = {0, 0.001};
    const apo_sweep_param grid[] = {{"side", side, 3}, {"cost", cost, 2}};
    const apo_sweep sw = stream_grid_sweep(grid, 2);
    apo_param sets[6][3];
    const apo_param *p[6];
    size_t n[6];
    for (size_t j = 0; j < 6; j++) {
        sets[j][0] = (apo_param){"fastperiod", 10};
        sets[j][1] = (apo_param){"side", side[j / 2]};
        sets[j][2] = (apo_param){"cost", cost[j % 2]};
        p[j] = sets[j];
        n[j] = 3;
    }
    check_case(&rc, NULL, &sw, 6, p, n);
}

/* Group member m of a_group_of_rule_streams_gives_each_lone_streams_bits. */
static apo_stream *group_member(apo_runtime *rt, size_t m) {
    static const double periods[] = {10, 20};
    static const apo_sweep_param grid[] = {{"period", periods, 2}};
    static const apo_param rsi[] = {{"timeperiod", 9}, {"cost", 0.001}},
                           boll[] = {{"cost", 0.0005}};
    apo_stream_desc d = APO_STREAM_DESC_INIT;
    d.n_series = ROWS;
    if (m == 0) { /* rsi_revert */
        d.kernel = "rsi", d.score = "rsi_revert", d.params = rsi, d.n_params = 2;
    } else if (m == 1) { /* a sweep of bands_revert/more over two periods, revising 10 bars */
        static apo_sweep sw;
        sw = stream_grid_sweep(grid, 1);
        d.kernel = "bollinger", d.score = "bands_revert/more", d.params = boll, d.n_params = 1;
        d.sweep = &sw, d.revise_bars = 10;
    } else if (m == 2) { /* an indicator beside them */
        d.kernel = "macd";
    } else { /* a user's rule, asked before any member moves */
        d.kernel = "rsi", d.score = "my_rsi_revert", d.params = rsi, d.n_params = 2;
    }
    apo_stream *s = NULL;
    cr_assert_eq(apo_stream_create(rt, &d, &s), APO_OK, "%s", apo_last_error());
    return s;
}

/* The outputs group member m writes (sets x the update's bars), and how many of them. */
static size_t member_outputs(size_t m) { return m == 2 ? 3 : APO_LIVE_N_OUTPUTS; }
static size_t member_sets(size_t m) { return m == 1 ? 2 : 1; }

Test(stream_rule, a_group_of_rule_streams_gives_each_lone_streams_bits, .timeout = 120) {
    apo_runtime *rt = test_runtime("cpu");
    test_register_rule(rt, "my_rsi_revert", "rsi", stream_user_rsi_revert, NULL);
    enum { MEMBERS = 4 };
    const size_t cols = 3000;
    stream_case c;
    cr_assert_eq(stream_case_init(&c, rt, "rsi", NULL, 0, ROWS, cols, 61, STREAM_GAPS), APO_OK);
    apo_stream *in_group[MEMBERS], *lone[MEMBERS];
    for (size_t m = 0; m < MEMBERS; m++) {
        in_group[m] = group_member(rt, m);
        lone[m] = group_member(rt, m);
    }
    apo_stream_group *g = NULL;
    cr_assert_eq(apo_stream_group_create(in_group, MEMBERS, NULL, &g), APO_OK, "%s",
                 apo_last_error());
    size_t fed[ROWS] = {0};
    uint64_t rng = 0x9a0;
    /* A first piece of 2,500 bars a series (the group shares it with its second thread), then
     * pieces of 0 to 40, some peeked first. */
    for (int round = 0; fed[0] < cols || fed[1] < cols || fed[2] < cols; round++) {
        size_t n_new[ROWS], total = 0;
        for (size_t r = 0; r < ROWS; r++) {
            const size_t want = round == 0 ? 2500 : stream_rng(&rng) % 41;
            n_new[r] = want < cols - fed[r] ? want : cols - fed[r];
            total += n_new[r];
        }
        double *close = malloc((total + 1) * sizeof(double));
        for (size_t r = 0, at = 0; r < ROWS; at += n_new[r], r++)
            memcpy(close + at, c.in[0] + r * cols + fed[r], n_new[r] * sizeof(double));
        const apo_named_input named[] = {{"close", close}};
        double *got[MEMBERS][APO_LIVE_N_OUTPUTS], *peeked[MEMBERS][APO_LIVE_N_OUTPUTS],
            *want[APO_LIVE_N_OUTPUTS];
        double *const *outs[MEMBERS], *const *peeks[MEMBERS];
        for (size_t m = 0; m < MEMBERS; m++) {
            for (size_t q = 0; q < member_outputs(m); q++) {
                got[m][q] = malloc((total + 1) * member_sets(m) * sizeof(double));
                peeked[m][q] = malloc((total + 1) * member_sets(m) * sizeof(double));
            }
            outs[m] = got[m], peeks[m] = peeked[m];
        }
        const int peek = round % 3 == 1;
        if (peek)
            cr_assert_eq(apo_stream_group_peek(g, n_new, named, 1, peeks), APO_OK, "%s",
                         apo_last_error());
        cr_assert_eq(apo_stream_group_update(g, n_new, named, 1, outs), APO_OK, "%s",
                     apo_last_error());
        for (size_t m = 0; m < MEMBERS; m++) {
            for (size_t q = 0; q < member_outputs(m); q++)
                want[q] = malloc((total + 1) * member_sets(m) * sizeof(double));
            const double *lone_in[] = {close};
            cr_assert_eq(apo_stream_update(lone[m], n_new, lone_in, want), APO_OK, "%s",
                         apo_last_error());
            for (size_t q = 0; q < member_outputs(m); q++) {
                for (size_t i = 0; i < total * member_sets(m); i++) {
                    cr_assert(same_bits(got[m][q][i], want[q][i]),
                              "member %zu output %zu, round %d, at %zu", m, q, round, i);
                    cr_assert(!peek || same_bits(peeked[m][q][i], want[q][i]),
                              "member %zu output %zu peeked, round %d, at %zu", m, q, round, i);
                }
                free(want[q]), free(got[m][q]), free(peeked[m][q]);
            }
            size_t len = 0;
            unsigned char *bytes = stream_state_bytes(lone[m], &len);
            stream_assert_state(in_group[m], bytes, len, "a member against its lone stream");
            free(bytes);
        }
        for (size_t r = 0; r < ROWS; r++)
            fed[r] += n_new[r];
        free(close);
    }
    /* A refused update (a rule's NULL position) moves no member. */
    size_t len[MEMBERS], one[ROWS] = {1, 1, 1};
    unsigned char *before[MEMBERS];
    for (size_t m = 0; m < MEMBERS; m++)
        before[m] = stream_state_bytes(in_group[m], &len[m]);
    double bar[ROWS] = {100, 101, 102}, sink[2 * ROWS * APO_LIVE_N_OUTPUTS];
    double *cols_of[MEMBERS][APO_LIVE_N_OUTPUTS];
    double *const *outs[MEMBERS];
    for (size_t m = 0; m < MEMBERS; m++) {
        for (size_t q = 0; q < APO_LIVE_N_OUTPUTS; q++)
            cols_of[m][q] = sink + q * 2 * ROWS;
        outs[m] = cols_of[m];
    }
    cols_of[1][0] = NULL;
    const apo_named_input named[] = {{"close", bar}};
    cr_assert_eq(apo_stream_group_update(g, one, named, 1, outs), APO_ERR_NULL);
    cr_assert(strstr(apo_last_error(), "position") != NULL, "%s", apo_last_error());
    for (size_t m = 0; m < MEMBERS; m++) {
        stream_assert_state(in_group[m], before[m], len[m], "after a refused group update");
        free(before[m]);
    }
    apo_stream_group_destroy(g);
    for (size_t m = 0; m < MEMBERS; m++) {
        apo_stream_destroy(in_group[m]);
        apo_stream_destroy(lone[m]);
    }
    stream_case_free(&c);
    apo_runtime_destroy(rt);
}

/* Feeds bars [from, to) of every series of mfi (high, low, close, volume walks) to s. */
static apo_status feed_mfi(apo_stream *s, const stream_case *c, size_t from, size_t to,
                           double *pos) {
    size_t n_new[ROWS];
    double *in[4];
    for (size_t i = 0; i < 4; i++) {
        in[i] = malloc(ROWS * (to - from) * sizeof(double));
        for (size_t r = 0; r < ROWS; r++) {
            n_new[r] = to - from;
            memcpy(in[i] + r * (to - from), c->in[i] + r * c->cols + from,
                   (to - from) * sizeof(double));
        }
    }
    double *out[APO_LIVE_N_OUTPUTS] = {pos};
    const apo_status st = apo_stream_update(s, n_new, (const double *const *)in, out);
    for (size_t i = 0; i < 4; i++)
        free(in[i]);
    return st;
}

/* Bars to revise mfi's case c with: last, each series' bar 149 as it was (k = 1 each); six,
 * series 0's bars 144 to 149, then the others' bar 149 (k = 6, 1, 1). Freed by the caller. */
static void mfi_revise_bars(const stream_case *c, double **last, double **six) {
    for (size_t i = 0; i < 4; i++) {
        last[i] = malloc(ROWS * sizeof(double));
        six[i] = malloc((ROWS + 5) * sizeof(double));
        for (size_t r = 0; r < ROWS; r++)
            last[i][r] = c->in[i][r * c->cols + 149];
        memcpy(six[i], c->in[i] + 144, 6 * sizeof(double));
        memcpy(six[i] + 6, last[i] + 1, 2 * sizeof(double));
    }
}

Test(stream_rule, bad_descs_and_states_not_expected_are_refused, .timeout = 60) {
    apo_runtime *rt = test_runtime("cpu");
    const rule_case rc = {"mfi", "mfi_revert", {{"lower", 25}, {"cost", 0.001}}, 2, 0, 2, 0};
    apo_stream_desc d = rule_desc(&rc, NULL);
    apo_stream *s = NULL;
    /* Too many revise_bars, an unknown rule, a rule of another kernel, lower >= upper. */
    apo_stream_desc bad = d;
    bad.revise_bars = ((size_t)1 << 24) + 1;
    cr_assert_eq(apo_stream_create(rt, &bad, &s), APO_ERR_INVALID_ARGUMENT);
    bad = d;
    bad.score = "no_such_rule";
    cr_assert_eq(apo_stream_create(rt, &bad, &s), APO_ERR_UNKNOWN_KERNEL);
    bad = d;
    bad.score = "macd_cross";
    cr_assert_eq(apo_stream_create(rt, &bad, &s), APO_ERR_INVALID_ARGUMENT);
    const apo_param crossed[] = {{"lower", 80}, {"upper", 20}};
    bad = d;
    bad.params = crossed;
    bad.n_params = 2;
    cr_assert_eq(apo_stream_create(rt, &bad, &s), APO_ERR_BAD_PARAM);
    /* A rule's stream resumes from its indicator's bars (test_stream_rule_resume.c). */
    apo_stream_desc ind_desc = APO_STREAM_DESC_INIT;
    ind_desc.kernel = "mfi";
    ind_desc.n_series = ROWS;
    size_t needed = 0, ind_needed = 1;
    cr_assert_eq(apo_stream_resume_needs(rt, &d, 100, &needed), APO_OK, "%s", apo_last_error());
    cr_assert_eq(apo_stream_resume_needs(rt, &ind_desc, 100, &ind_needed), APO_OK);
    cr_assert_eq(needed, ind_needed);

    stream_case c;
    cr_assert_eq(stream_case_init(&c, rt, "mfi", NULL, 0, ROWS, 400, 7, STREAM_GAPS), APO_OK);
    cr_assert_eq(apo_stream_create(rt, &d, &s), APO_OK, "%s", apo_last_error());
    double pos[ROWS * 400];
    cr_assert_eq(feed_mfi(s, &c, 0, 150, pos), APO_OK, "%s", apo_last_error());
    size_t len = 0;
    unsigned char *before = stream_state_bytes(s, &len);

    /* A refused update (a negative volume, a NULL position) changes nothing. */
    c.in[3][1 * c.cols + 160] = -1.0;
    cr_assert_eq(feed_mfi(s, &c, 150, 200, pos), APO_ERR_INVALID_ARGUMENT);
    stream_assert_state(s, before, len, "after a negative volume");
    c.in[3][1 * c.cols + 160] = 1000.0;
    cr_assert_eq(feed_mfi(s, &c, 150, 200, NULL), APO_ERR_NULL);
    cr_assert(strstr(apo_last_error(), "(position)") != NULL, "%s", apo_last_error());
    stream_assert_state(s, before, len, "after a NULL position");
    double *last[4], *six[4], pos1[ROWS + 5];
    mfi_revise_bars(&c, last, six);
    size_t k[ROWS] = {1, 1, 1};
    double *pos_out[APO_LIVE_N_OUTPUTS] = {pos1};
    cr_assert_eq(apo_stream_revise(s, k, (const double *const *)last, pos_out),
                 APO_ERR_INVALID_ARGUMENT); /* the stream keeps no bars for revises */
    cr_assert(strstr(apo_last_error(), "revise") != NULL, "%s", apo_last_error());
    stream_assert_state(s, before, len, "after the refusals");

    /* A fork fed other bars leaves s as it was; fed the same bars, both save the same. */
    apo_stream *f = NULL;
    cr_assert_eq(apo_stream_fork(s, &f), APO_OK, "%s", apo_last_error());
    cr_assert_eq(feed_mfi(f, &c, 300, 400, pos), APO_OK);
    stream_assert_state(s, before, len, "after its fork moved");
    apo_stream_destroy(f);
    cr_assert_eq(apo_stream_fork(s, &f), APO_OK);
    cr_assert_eq(feed_mfi(f, &c, 150, 400, pos), APO_OK);
    cr_assert_eq(feed_mfi(s, &c, 150, 400, pos), APO_OK);
    size_t flen = 0;
    unsigned char *fbytes = stream_state_bytes(f, &flen);
    stream_assert_state(s, fbytes, flen, "fed as its fork");
    free(fbytes);
    apo_stream_destroy(f);

    /* States that are not the expected stream, or damaged, are refused whole. */
    unsigned char *state = stream_state_bytes(s, &len);
    apo_stream *back = NULL;
    const apo_param other[] = {{"lower", 30}, {"cost", 0.001}};
    bad = d;
    bad.params = other;
    cr_assert_eq(apo_stream_load(rt, &bad, state, len, &back), APO_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(apo_last_error(), "lower") != NULL, "%s", apo_last_error());
    bad = d;
    bad.score = NULL;
    bad.n_params = 0;
    cr_assert_eq(apo_stream_load(rt, &bad, state, len, &back), APO_ERR_INVALID_ARGUMENT);
    bad = d;
    bad.score = "mfi_zone";
    cr_assert_eq(apo_stream_load(rt, &bad, state, len, &back), APO_ERR_INVALID_ARGUMENT);
    for (size_t at = 0; at < len; at += len / 13 + 1) {
        state[at] ^= 0x10;
        cr_assert_neq(apo_stream_load(rt, &d, state, len, &back), APO_OK, "byte %zu", at);
        state[at] ^= 0x10;
    }
    cr_assert_eq(apo_stream_load(rt, &d, state, len - 1, &back), APO_ERR_INVALID_ARGUMENT);
    cr_assert_eq(apo_stream_load(rt, NULL, state, len, &back), APO_OK, "%s", apo_last_error());
    stream_assert_state(back, state, len, "loaded without expect");
    apo_stream_destroy(back);
    /* A plain mfi state expected as a rule's is refused too. */
    apo_stream_desc plain = APO_STREAM_DESC_INIT;
    plain.kernel = "mfi";
    plain.n_series = ROWS;
    cr_assert_eq(apo_stream_create(rt, &plain, &back), APO_OK);
    unsigned char *pstate = stream_state_bytes(back, &flen);
    apo_stream_destroy(back);
    cr_assert_eq(apo_stream_load(rt, &d, pstate, flen, &back), APO_ERR_INVALID_ARGUMENT);
    free(pstate);
    free(state);
    free(before);
    for (size_t i = 0; i < 4; i++)
        free(last[i]), free(six[i]);
    apo_stream_destroy(s);
    stream_case_free(&c);
    apo_runtime_destroy(rt);
}

/* Long, but 2 (not a position) at a close above *(double *)user. */
static int fails_above(const double *in, const double *out, int prev, void *user) {
    (void)out, (void)prev;
    return in[0] > *(const double *)user ? 2 : 1;
}

/* Feeds bars [from, to) of every series of c (rsi's close) to s, or peeks at them. */
static apo_status feed_close(apo_stream *s, const stream_case *c, size_t from, size_t to,
                             double *pos, int peek) {
    size_t n_new[ROWS];
    double *in = malloc(ROWS * (to - from) * sizeof(double));
    for (size_t r = 0; r < ROWS; r++) {
        n_new[r] = to - from;
        memcpy(in + r * (to - from), c->in[0] + r * c->cols + from, (to - from) * sizeof(double));
    }
    const double *ins[1] = {in};
    double *out[APO_LIVE_N_OUTPUTS] = {pos};
    const apo_status st =
        peek ? apo_stream_peek(s, n_new, ins, out) : apo_stream_update(s, n_new, ins, out);
    free(in);
    return st;
}

/* A user's rule that returns 2 at a bar refuses the whole update or peek, naming the bar, and
 * leaves the stream byte for byte as it was (the rule is asked before anything moves): fed
 * the same bars after, the stream saves what a twin that never saw the refusal saves. In a
 * group, its refusal refuses the group's update and moves no member. */
Test(stream_rule, a_users_rule_refusing_a_bar_changes_nothing, .timeout = 60) {
    apo_runtime *rt = test_runtime("cpu");
    double limit = INFINITY;
    test_register_rule(rt, "fails_above", "rsi", fails_above, &limit);
    stream_case c;
    cr_assert_eq(stream_case_init(&c, rt, "rsi", NULL, 0, ROWS, 300, 11, STREAM_GAPS), APO_OK);
    apo_stream_desc d = APO_STREAM_DESC_INIT;
    d.kernel = "rsi";
    d.score = "fails_above";
    d.n_series = ROWS;
    d.revise_bars = 10;
    apo_stream *s = NULL, *twin = NULL;
    cr_assert_eq(apo_stream_create(rt, &d, &s), APO_OK, "%s", apo_last_error());
    cr_assert_eq(apo_stream_create(rt, &d, &twin), APO_OK, "%s", apo_last_error());
    double pos[ROWS * 300];
    cr_assert_eq(feed_close(s, &c, 0, 150, pos, 0), APO_OK, "%s", apo_last_error());
    cr_assert_eq(feed_close(twin, &c, 0, 150, pos, 0), APO_OK, "%s", apo_last_error());
    /* The highest finite close of bars 150 to 199: the one bar above the limit. */
    size_t top_r = 0, top_t = 150;
    for (size_t r = 0; r < ROWS; r++)
        for (size_t t = 150; t < 200; t++)
            if (isfinite(c.in[0][r * c.cols + t]) &&
                !(c.in[0][r * c.cols + t] <= c.in[0][top_r * c.cols + top_t]))
                top_r = r, top_t = t;
    limit = nextafter(c.in[0][top_r * c.cols + top_t], -INFINITY);
    size_t len = 0;
    unsigned char *before = stream_state_bytes(s, &len);
    char want[64];
    snprintf(want, sizeof want, "series %zu, bar %zu", top_r, top_t);
    for (int peek = 0; peek < 2; peek++) {
        cr_assert_eq(feed_close(s, &c, 150, 200, pos, peek), APO_ERR_KERNEL_FAILED);
        cr_assert(strstr(apo_last_error(), "returned 2") != NULL &&
                      strstr(apo_last_error(), want) != NULL,
                  "%s (want %s)", apo_last_error(), want);
        stream_assert_state(s, before, len, peek ? "a refused peek" : "a refused update");
    }
    limit = INFINITY;
    cr_assert_eq(feed_close(s, &c, 150, 300, pos, 0), APO_OK, "%s", apo_last_error());
    cr_assert_eq(feed_close(twin, &c, 150, 300, pos, 0), APO_OK, "%s", apo_last_error());
    size_t tlen = 0;
    unsigned char *twin_bytes = stream_state_bytes(twin, &tlen);
    stream_assert_state(s, twin_bytes, tlen, "fed as its twin after the refusals");
    /* A revise the rule refuses at a corrected bar (series 1's bar 298) moves nothing; with
     * the right bars it leaves the twin's bytes. */
    double right[ROWS * 3], *revised[1] = {right}, rpos[ROWS * 3],
                            *rout[APO_LIVE_N_OUTPUTS] = {rpos};
    const size_t three[ROWS] = {3, 3, 3};
    for (size_t r = 0; r < ROWS; r++)
        memcpy(right + r * 3, c.in[0] + r * c.cols + 297, 3 * sizeof(double));
    const double kept = right[1 * 3 + 1];
    right[1 * 3 + 1] = 1e300;
    limit = 1e299;
    cr_assert_eq(apo_stream_revise(s, three, (const double *const *)revised, rout),
                 APO_ERR_KERNEL_FAILED);
    cr_assert(strstr(apo_last_error(), "series 1, bar 298") != NULL, "%s", apo_last_error());
    stream_assert_state(s, twin_bytes, tlen, "a refused revise");
    right[1 * 3 + 1] = kept;
    limit = INFINITY;
    cr_assert_eq(apo_stream_revise(s, three, (const double *const *)revised, rout), APO_OK, "%s",
                 apo_last_error());
    stream_assert_state(s, twin_bytes, tlen, "revised with the right bars");
    /* In a group beside another stream, the refusal moves neither. */
    apo_stream_desc plain = APO_STREAM_DESC_INIT;
    plain.kernel = "rsi";
    plain.n_series = ROWS;
    apo_stream *members[2] = {s, NULL};
    cr_assert_eq(apo_stream_create(rt, &plain, &members[1]), APO_OK, "%s", apo_last_error());
    apo_stream_group *g = NULL;
    cr_assert_eq(apo_stream_group_create(members, 2, NULL, &g), APO_OK, "%s", apo_last_error());
    size_t mlen[2];
    unsigned char *mbefore[2] = {stream_state_bytes(s, &mlen[0]),
                                 stream_state_bytes(members[1], &mlen[1])};
    const double bar[ROWS] = {1e300, 1e300, 1e300}; /* above any limit */
    limit = 1e299;
    const size_t one[ROWS] = {1, 1, 1};
    double sink[ROWS];
    double *rule_out[APO_LIVE_N_OUTPUTS] = {sink}, *rsi_out[1] = {sink};
    double *const *outs[2] = {rule_out, rsi_out};
    const apo_named_input named[] = {{"close", bar}};
    cr_assert_eq(apo_stream_group_update(g, one, named, 1, outs), APO_ERR_KERNEL_FAILED);
    cr_assert(strstr(apo_last_error(), "returned 2") != NULL, "%s", apo_last_error());
    for (size_t m = 0; m < 2; m++) {
        stream_assert_state(members[m], mbefore[m], mlen[m], "a group's refused update");
        free(mbefore[m]);
    }
    apo_stream_group_destroy(g);
    apo_stream_destroy(members[1]);
    free(twin_bytes);
    free(before);
    apo_stream_destroy(s);
    apo_stream_destroy(twin);
    stream_case_free(&c);
    apo_runtime_destroy(rt);
}

/* With revise_bars: a revise of more bars than kept, or with a negative volume, changes
 * nothing; the state loads only where expect keeps as many bars, and refuses damage. */
Test(stream_rule, a_revising_rules_refusals_change_nothing_and_its_state_loads_checked,
     .timeout = 60) {
    apo_runtime *rt = test_runtime("cpu");
    const rule_case rc = {"mfi", "mfi_revert", {{"lower", 25}, {"cost", 0.001}}, 2, 0, 2, 5};
    const apo_stream_desc d = rule_desc(&rc, NULL);
    stream_case c;
    cr_assert_eq(stream_case_init(&c, rt, "mfi", NULL, 0, ROWS, 400, 7, STREAM_GAPS), APO_OK);
    double *last[4], *six[4], pos[ROWS * 400];
    mfi_revise_bars(&c, last, six);
    double *pos_out[APO_LIVE_N_OUTPUTS] = {pos};
    apo_stream *s = NULL, *back = NULL;
    cr_assert_eq(apo_stream_create(rt, &d, &s), APO_OK, "%s", apo_last_error());
    cr_assert_eq(feed_mfi(s, &c, 0, 150, pos), APO_OK, "%s", apo_last_error());
    size_t len = 0, k[ROWS] = {6, 1, 1};
    unsigned char *before = stream_state_bytes(s, &len);
    cr_assert_eq(apo_stream_revise(s, k, (const double *const *)six, pos_out),
                 APO_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(apo_last_error(), "revise") != NULL, "%s", apo_last_error());
    stream_assert_state(s, before, len, "after a revise of 6 bars of 5 kept");
    k[0] = 1;
    last[3][2] = -1.0;
    cr_assert_eq(apo_stream_revise(s, k, (const double *const *)last, pos_out),
                 APO_ERR_INVALID_ARGUMENT);
    stream_assert_state(s, before, len, "after a revise with a negative volume");
    last[3][2] = c.in[3][2 * c.cols + 149];
    cr_assert_eq(apo_stream_revise(s, k, (const double *const *)last, pos_out), APO_OK, "%s",
                 apo_last_error());
    stream_assert_state(s, before, len, "after a revise to the same bars");
    cr_assert_eq(apo_stream_load(rt, &d, before, len, &back), APO_OK, "%s", apo_last_error());
    stream_assert_state(back, before, len, "loaded");
    apo_stream_destroy(back);
    apo_stream_desc bad = d;
    bad.revise_bars = 4;
    cr_assert_eq(apo_stream_load(rt, &bad, before, len, &back), APO_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(apo_last_error(), "revise") != NULL, "%s", apo_last_error());
    for (size_t at = 0; at < len; at += len / 29 + 1) {
        before[at] ^= 0x10;
        cr_assert_neq(apo_stream_load(rt, &d, before, len, &back), APO_OK, "byte %zu", at);
        before[at] ^= 0x10;
    }
    for (size_t i = 0; i < 4; i++)
        free(last[i]), free(six[i]);
    free(before);
    apo_stream_destroy(s);
    stream_case_free(&c);
    apo_runtime_destroy(rt);
}

/* A user's rule's state keeps the positions it gave (docs/streaming.md, "A rule's state"):
 * one that is not -1, 0 or 1, forged with a right checksum, is refused, naming it; so is a
 * fold's position that is not. */
Test(stream_rule, a_forged_kept_position_of_a_users_rule_is_refused, .timeout = 60) {
    apo_runtime *rt = test_runtime("cpu");
    test_register_rule(rt, "my_rsi_revert", "rsi", stream_user_rsi_revert, NULL);
    stream_case c;
    cr_assert_eq(stream_case_init(&c, rt, "rsi", NULL, 0, ROWS, 40, 3, STREAM_GAPS), APO_OK);
    apo_stream_desc d = APO_STREAM_DESC_INIT;
    d.kernel = "rsi", d.score = "my_rsi_revert", d.n_series = ROWS, d.revise_bars = 4;
    apo_stream *s = NULL;
    cr_assert_eq(apo_stream_create(rt, &d, &s), APO_OK, "%s", apo_last_error());
    double pos[ROWS * 40];
    cr_assert_eq(feed_close(s, &c, 0, 30, pos, 0), APO_OK, "%s", apo_last_error());
    size_t len = 0;
    unsigned char *bytes = stream_state_bytes(s, &len);
    cr_assert_eq(apo__get_u32(bytes + 8), 2, "a revising rule's state is format 2");
    /* The header, one set's parameters, the folds, K and W, the folds K bars back; then each
     * kept bar's close, rsi's output and the position the rule gave (W = 3). */
    const size_t folds = 40 + APO_NAME_MAX + APO_MAX_PARAMS * 8, kept = folds + 2 * ROWS * 192 + 16;
    cr_assert_eq(apo__get_u64(bytes + folds + ROWS * 192 + 8), 3, "W");
    const double five = 5.0;
    uint64_t five_bits;
    memcpy(&five_bits, &five, sizeof five_bits);
    rule_assert_forged_refused(rt, &d, bytes, len, kept + 2 * 8, five_bits, "holds position 5");
    /* So is a fold's position (after its 16 doubles) that no fold takes. */
    rule_assert_forged_refused(rt, &d, bytes, len, folds + 128, 7, "no fold takes");
    free(bytes);
    apo_stream_destroy(s);
    stream_case_free(&c);
    apo_runtime_destroy(rt);
}
