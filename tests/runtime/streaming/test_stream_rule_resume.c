/*
 * Rule streams resumed from a window (apo_stream_resume with desc->score; docs/streaming.md,
 * "Live rules"): each series resumed at a bar `a` of its own from exactly the bars
 * apo_stream_resume_needs() names (series 1 given five more), then fed the rest in random
 * pieces with peeks, reloads (a resumed rule's state, formats 3 and 4) and a fork between
 * them. Every bar's position, return and running total are bitwise apo_score_positions()'s
 * over the batch indicator's outputs from `a` on, and the running scores after bar t are
 * bitwise the batch scored call's over the range [a, t + 1) (docs/scores.md, "Ranges"). With
 * revise_bars, the last bars of each piece are fed wrong and revised (back to `a` at most),
 * the state then the bytes of a twin resumed alike and fed the right bars; a revise reaching
 * before `a` is refused with the state unchanged. A state whose origin lies past its
 * indicator's bars, forged with a right checksum, is refused.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "le_bytes.h"
#include "rule_stream_fixtures.h"
#include "stream_fixtures.h"

#define CHECKS 24 /* ranges [a, t + 1) whose scores are checked against the batch, a series */
#define MOST_K 64 /* above every case's revise_bars */

/* The running scores of series r after each of the n bars `ends[q] - 1` (ends sorted, each
 * above a, at most c->cols): the batch scored call over series r's whole history, one range
 * [a, ends[q]) each. */
static void ranged_scores(apo_runtime *rt, const rule_case *rc, const stream_case *c, size_t r,
                          size_t a, const size_t *ends, size_t n, double *scores) {
    const double *in[APO_MAX_IO];
    for (size_t i = 0; i < c->n_inputs; i++)
        in[i] = c->in[i] + r * c->cols;
    apo_range ranges[CHECKS];
    for (size_t q = 0; q < n; q++)
        ranges[q] = (apo_range){a, ends[q]};
    double *out[APO_N_SCORES];
    for (size_t k = 0; k < APO_N_SCORES; k++)
        out[k] = malloc(n * sizeof(double));
    apo_workload w = test_workload(rc->kernel, 1, c->cols, in, c->n_inputs, out, APO_N_SCORES);
    w.score = rc->rule;
    w.params = rc->params;
    w.n_params = rc->n_params;
    w.ranges = ranges;
    w.n_ranges = n;
    rule_scores_of(rt, &w, out, n, scores);
}

/* Range ends to check from a on: the first bars after a, the tile boundary, random ones and
 * the last, sorted without repeats; returns how many. */
static size_t check_ends(size_t a, size_t cols, size_t tile, uint64_t *rng, size_t *ends) {
    size_t n = 0;
    for (size_t q = 0; q < CHECKS; q++) {
        const size_t want = q < 8    ? a + 1 + q
                            : q < 16 ? tile - 4 + (q - 8)
                                     : a + 1 + stream_rng(rng) % (cols - a);
        const size_t e = q == CHECKS - 1 ? cols : want;
        if (e > a && e <= cols)
            ends[n++] = e;
    }
    for (size_t i = 1; i < n; i++) /* insertion sort, then drop repeats */
        for (size_t j = i; j > 0 && ends[j - 1] > ends[j]; j--) {
            const size_t t = ends[j];
            ends[j] = ends[j - 1];
            ends[j - 1] = t;
        }
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (m == 0 || ends[m - 1] != ends[i])
            ends[m++] = ends[i];
    return m;
}

/* Resumes a rule's stream of d at bar a[r] of each series of c, from the bars
 * apo_stream_resume_needs() names (series 1 five more where its history has them); one bar
 * fewer is refused first. */
static apo_stream *resume_at(apo_runtime *rt, const apo_stream_desc *d, const stream_case *c,
                             const size_t *a) {
    uint64_t first[ROWS];
    size_t n_bars[ROWS], total = 0;
    for (size_t r = 0; r < ROWS; r++) {
        size_t need = 0;
        cr_assert_eq(apo_stream_resume_needs(rt, d, a[r], &need), APO_OK, "%s", apo_last_error());
        n_bars[r] = r == 1 && need + 5 <= a[r] ? need + 5 : need;
        first[r] = a[r] - n_bars[r];
        total += n_bars[r];
    }
    double *in[APO_MAX_IO];
    for (size_t i = 0; i < c->n_inputs; i++) {
        in[i] = malloc((total + 1) * sizeof(double));
        for (size_t r = 0, at = 0; r < ROWS; at += n_bars[r], r++)
            memcpy(in[i] + at, c->in[i] + r * c->cols + first[r], n_bars[r] * sizeof(double));
    }
    apo_stream *s = NULL;
    if (n_bars[0] > 0) { /* one bar fewer than needed: refused, nothing made */
        n_bars[0]--, first[0]++;
        double *short_in[APO_MAX_IO];
        for (size_t i = 0; i < c->n_inputs; i++)
            short_in[i] = in[i] + 1;
        cr_assert_eq(apo_stream_resume(rt, d, first, n_bars, (const double *const *)short_in, &s),
                     APO_ERR_INVALID_ARGUMENT);
        cr_assert(s == NULL);
        n_bars[0]++, first[0]--;
    }
    cr_assert_eq(apo_stream_resume(rt, d, first, n_bars, (const double *const *)in, &s), APO_OK,
                 "%s", apo_last_error());
    for (size_t i = 0; i < c->n_inputs; i++)
        free(in[i]);
    return s;
}

/* A revise of one bar more than series r has folded since a[r] (within K): refused, the
 * state unchanged. */
static void revise_before_origin_refused(apo_stream *s, const rule_case *rc, const stream_case *c,
                                         const size_t *fed, const size_t *a) {
    for (size_t r = 0; r < ROWS; r++) {
        if (a[r] == 0 || fed[r] - a[r] + 1 > rc->revise)
            continue;
        size_t k[ROWS] = {0}, len = 0;
        k[r] = fed[r] - a[r] + 1;
        double *in[APO_MAX_IO], pos[MOST_K + 1];
        for (size_t i = 0; i < c->n_inputs; i++)
            in[i] = c->in[i] + r * c->cols + fed[r] - k[r];
        double *out[APO_LIVE_N_OUTPUTS] = {pos};
        unsigned char *before = stream_state_bytes(s, &len);
        cr_assert_eq(apo_stream_revise(s, k, (const double *const *)in, out),
                     APO_ERR_INVALID_ARGUMENT, "series %zu, %zu bars since %zu", r, fed[r] - a[r],
                     a[r]);
        cr_assert(strstr(apo_last_error(), "resumed") != NULL, "%s", apo_last_error());
        stream_assert_state(s, before, len, "after a revise before the fold's first bar");
        free(before);
    }
}

/* Resumes a rule's stream of d at bar a[r] of each series of c (with the case's K, a twin
 * alike), feeds the rest of the history in random pieces (peeks before some, reloads and a
 * fork between some; with K, pieces fed wrong and revised), and gathers every output into got
 * (ROWS x cols an output, series r's bar t at r * cols + t). */
static void feed_resumed(apo_runtime *rt, const rule_case *rc, const apo_stream_desc *d,
                         const stream_case *c, const size_t *a, double *const *got) {
    apo_stream *s = resume_at(rt, d, c, a), *twin = rc->revise > 0 ? resume_at(rt, d, c, a) : NULL;
    const size_t cols = c->cols;
    size_t fed[ROWS];
    memcpy(fed, a, sizeof fed);
    uint64_t rng = 0x2e5u + a[0];
    for (int round = 0;; round++) {
        size_t n_new[ROWS], since[ROWS];
        const size_t total = rule_piece_sizes(fed, cols, &rng, n_new);
        if (total == 0 && fed[0] == cols && fed[1] == cols && fed[2] == cols)
            break;
        for (size_t r = 0; r < ROWS; r++)
            since[r] = fed[r] - a[r];
        rule_feed_piece(s, twin, rc, c, fed, since, n_new, total, 1, round % 3 == 1, &rng, got);
        if (twin != NULL)
            revise_before_origin_refused(s, rc, c, fed, a);
        if (round % 4 == 2)
            s = rule_reload(rt, s, d);
        if (round == 3) { /* the fork goes on in s's place, from the same bytes */
            apo_stream *f = NULL;
            size_t len = 0;
            cr_assert_eq(apo_stream_fork(s, &f), APO_OK, "%s", apo_last_error());
            unsigned char *bytes = stream_state_bytes(s, &len);
            stream_assert_state(f, bytes, len, "a fork of a resumed rule's stream");
            free(bytes);
            apo_stream_destroy(s);
            s = f;
        }
    }
    apo_stream_destroy(s);
    apo_stream_destroy(twin);
}

/* Series r's outputs from a[r] on against apo_score_positions() over the batch indicator's
 * outputs from a[r] on, and its running scores at range ends (some around bar `tile`) against
 * the ranged batch call. */
static void compare_with_batch(apo_runtime *rt, const rule_case *rc, const stream_case *c,
                               const size_t *a, size_t tile, double *const *got) {
    const size_t cols = c->cols;
    double *pos = malloc(cols * sizeof(double)), *ret = malloc(cols * sizeof(double)),
           *tot = malloc(cols * sizeof(double));
    uint64_t rng = 0xc4ec + a[1];
    for (size_t r = 0; r < ROWS; r++) {
        const size_t from = r * cols + a[r], n = cols - a[r];
        const double *outs[APO_MAX_IO];
        for (size_t o = 0; o < c->n_outputs; o++)
            outs[o] = c->batch[o] + from;
        cr_assert_eq(apo_score_positions(rc->kernel, rc->rule, c->in[rc->close_input] + from, outs,
                                         c->n_outputs, n, rc->params, rc->n_params, pos, ret, tot,
                                         NULL),
                     APO_OK, "%s", apo_last_error());
        for (size_t t = 0; t < n; t++)
            cr_assert(same_bits(got[0][from + t], pos[t]) && same_bits(got[1][from + t], ret[t]) &&
                          same_bits(got[2][from + t], tot[t]),
                      "%s:%s series %zu resumed at %zu, bar %zu: %g %g %g, positions say %g %g %g",
                      rc->kernel, rc->rule, r, a[r], a[r] + t, got[0][from + t], got[1][from + t],
                      got[2][from + t], pos[t], ret[t], tot[t]);
        size_t ends[CHECKS];
        const size_t n_ends = check_ends(a[r], cols, tile, &rng, ends);
        double want[CHECKS * APO_N_SCORES];
        ranged_scores(rt, rc, c, r, a[r], ends, n_ends, want);
        for (size_t q = 0; q < n_ends; q++)
            for (size_t k = 0; k < APO_N_SCORES; k++) {
                const double live = got[APO_LIVE_SCORES + k][r * cols + ends[q] - 1];
                cr_assert(same_bits(live, want[q * APO_N_SCORES + k]),
                          "%s:%s series %zu, range [%zu, %zu), score %zu: %.17g, the batch %.17g",
                          rc->kernel, rc->rule, r, a[r], ends[q], k, live,
                          want[q * APO_N_SCORES + k]);
            }
    }
    free(pos), free(ret), free(tot);
}

/* The case resumed at two sets of bars, the first tile boundary among them: each compared
 * with the batch. `user`: the name under which stream_user_rsi_revert follows the rule (a
 * user's rule whose positions are the rule's), or NULL. */
static void check_resumes(const rule_case *rc, const char *user) {
    cr_assert(rc->revise < MOST_K);
    apo_runtime *rt = test_runtime("cpu");
    if (user != NULL)
        test_register_rule(rt, user, rc->kernel, stream_user_rsi_revert, NULL);
    const size_t tile = stream_probe_tile(rt, rc->kernel, rc->params, rc->n_ind, ROWS, 54, NULL);
    const size_t cols = tile + 500 < 4600 ? tile + 500 : 4600;
    stream_case c;
    cr_assert_eq(
        stream_case_init(&c, rt, rc->kernel, rc->params, rc->n_ind, ROWS, cols, 54, STREAM_GAPS),
        APO_OK, "%s", apo_last_error());
    apo_stream_desc d = rule_desc(rc, NULL);
    if (user != NULL)
        d.score = user;
    /* The first tile boundary where the history reaches past it (macd's tiles are longer
     * than the 4,600 bars: the middle then). */
    const size_t edge = tile + 200 <= cols ? tile : cols / 2;
    const size_t at[2][ROWS] = {{edge - 1, edge + 60, 7}, {0, edge, cols - 150}};
    double *got[APO_LIVE_N_OUTPUTS];
    for (size_t q = 0; q < APO_LIVE_N_OUTPUTS; q++)
        got[q] = malloc(ROWS * cols * sizeof(double));
    for (size_t i = 0; i < 2; i++) {
        feed_resumed(rt, rc, &d, &c, at[i], got);
        compare_with_batch(rt, rc, &c, at[i], edge, got);
    }
    for (size_t q = 0; q < APO_LIVE_N_OUTPUTS; q++)
        free(got[q]);
    stream_case_free(&c);
    apo_runtime_destroy(rt);
}

Test(stream_rule_resume, rsi_revert_with_cost_from_a_window_is_the_ranged_batch, .timeout = 120) {
    const rule_case rc = {"rsi",
                          "rsi_revert",
                          {{"timeperiod", 9}, {"lower", 35}, {"upper", 65}, {"cost", 0.001}},
                          4,
                          1,
                          0,
                          0};
    check_resumes(&rc, NULL);
}

Test(stream_rule_resume, a_users_rule_from_a_window_is_the_ranged_batch, .timeout = 120) {
    const rule_case rc = {"rsi", "rsi_revert", {{"timeperiod", 9}, {"cost", 0.001}}, 2, 1, 0, 0};
    check_resumes(&rc, "my_rsi_revert");
}

Test(stream_rule_resume, bands_revert_more_revised_after_a_resume_is_the_ranged_batch,
     .timeout = 120) {
    const rule_case rc = {"bollinger",
                          "bands_revert/more",
                          {{"period", 20}, {"cost", 0.0005}, {"periods_per_year", 98280}},
                          3,
                          1,
                          0,
                          17};
    check_resumes(&rc, NULL);
}

Test(stream_rule_resume, macd_cross_long_only_revised_after_a_resume_is_the_ranged_batch,
     .timeout = 120) {
    const rule_case rc = {
        "macd", "macd_cross/compound", {{"fastperiod", 10}, {"side", 1}, {"cost", 0.001}}, 3, 1, 0,
        40};
    check_resumes(&rc, NULL);
}

/* A resumed rule's state (format 3: the folds, then each series' origin) with series 1's
 * origin moved past its bars and the checksum made right again: refused, naming it. */
Test(stream_rule_resume, a_forged_origin_past_the_bars_is_refused, .timeout = 60) {
    apo_runtime *rt = test_runtime("cpu");
    const rule_case rc = {"rsi", "rsi_zone", {{"timeperiod", 9}}, 1, 1, 0, 0};
    stream_case c;
    cr_assert_eq(stream_case_init(&c, rt, "rsi", rc.params, 1, ROWS, 600, 5, STREAM_GAPS), APO_OK);
    const apo_stream_desc d = rule_desc(&rc, NULL);
    const size_t a[ROWS] = {200, 300, 400};
    apo_stream *s = resume_at(rt, &d, &c, a);
    size_t len = 0;
    unsigned char *bytes = stream_state_bytes(s, &len);
    cr_assert_eq(apo__get_u32(bytes + 8), 3, "a resumed rule's state is format 3");
    /* The header (40 bytes and the name), one set's parameters, ROWS folds of 192 bytes. */
    const size_t origins = 40 + APO_NAME_MAX + APO_MAX_PARAMS * 8 + ROWS * 192;
    cr_assert_eq(apo__get_u64(bytes + origins + 8), 300);
    rule_assert_forged_refused(rt, &d, bytes, len, origins + 8, 100000,
                               "series 1 begins at bar 100000,");
    free(bytes);
    apo_stream_destroy(s);
    stream_case_free(&c);
    apo_runtime_destroy(rt);
}
