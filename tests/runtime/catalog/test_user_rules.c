/*
 * test_user_rules.c: rules written by users (apo_rule_register, docs/kernels.md, "User
 * rules"). A user rule that takes bands_revert's positions gives bands_revert's scores
 * bitwise, alone, in a sweep (whose sets share a pass), in ragged rows and split across the
 * cpu and simulated devices: the fold is the built-ins' own. A stateful rule of its own
 * against positions, returns and scores taken naively in long double over the materialised
 * bands. A rule returning 2 fails the call naming it, the series and the bar; registrations
 * that cannot work are refused.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "reference.h"
#include "score_fixtures.h"
#include "score_reference.h"

#define ROWS 3
#define COLS 2000

/* bands_revert as a user writes it from the docs' table: inputs[0] is the close, outputs
 * bollinger's upper, middle, lower. */
static int my_revert(const double *in, const double *out, int prev, void *user) {
    (void)user;
    return score_bands_revert_position(prev, in[0], out[0], out[1], out[2]);
}

/* A rule of its own, stateful: long from a close below the lower band until one above the
 * upper band turns it short, and back; flat until the first. */
static int flip(const double *in, const double *out, int prev, void *user) {
    (void)user;
    if (in[0] < out[2])
        return 1;
    if (in[0] > out[0])
        return -1;
    return prev;
}

static int returns_two(const double *in, const double *out, int prev, void *user) {
    (void)in, (void)out, (void)prev;
    /* Fails at the bar the test names, so the message can be checked. */
    return (*(int *)user)++ == 700 ? 2 : 0;
}

/* A gap in every row: the rule is not asked there. */
static double *walk(uint64_t seed) { return score_walk_with_gap(ROWS, COLS, seed, 900, 40, 30); }

static void register_rule(apo_runtime *rt, const char *name, apo_rule_fn fn, void *user) {
    test_register_rule(rt, name, "bollinger", fn, user);
}

/* The scores of a scored bollinger call (scores[k * out_rows + r]). */
static double *scored(apo_runtime *rt, const char *rule, const double *x, const apo_sweep *sweep,
                      const size_t *row_lengths, apo_split split, size_t *out_rows) {
    const double *in[1] = {x};
    apo_workload w = test_workload("bollinger", ROWS, COLS, in, 1, NULL, 0);
    w.score = rule;
    w.sweep = sweep;
    w.row_lengths = row_lengths;
    w.split = split;
    w.learn = APO_SWITCH_OFF;
    apo_param p[] = {{"cost", 0.001}};
    w.params = p;
    w.n_params = 1;
    return score_run(rt, &w, out_rows, NULL);
}

Test(user_rules, a_copy_of_a_builtin_rule_gives_its_bits, .timeout = 300) {
    apo_runtime *one = test_runtime("cpu");
    apo_runtime *many = test_runtime("cpu,sim:a:rate=3e8,sim:b:rate=1e8");
    register_rule(one, "my_revert", my_revert, NULL);
    register_rule(many, "my_revert", my_revert, NULL);
    double *x = walk(71);
    const double periods[] = {10, 20, 30};
    const double widths[] = {1.5, 2.0};
    apo_sweep_param grid[] = {{"period", periods, 3}, {"nbdev_up", widths, 2}};
    apo_sweep sweep = APO_SWEEP_INIT;
    sweep.grid = grid;
    sweep.n_grid = 2;
    const size_t lengths[ROWS] = {COLS, 1200, 333};
    const apo_split splits[] = {APO_SPLIT_AUTO, APO_SPLIT_ROWS};
    for (int rt_i = 0; rt_i < 2; rt_i++)
        for (int form = 0; form < 3; form++)
            for (size_t s = 0; s < 2; s++) {
                apo_runtime *rt = rt_i ? many : one;
                const apo_sweep *sw = form == 1 ? &sweep : NULL;
                const size_t *rl = form == 2 ? lengths : NULL;
                size_t rows_b, rows_u;
                double *b = scored(rt, "bands_revert", x, sw, rl, splits[s], &rows_b);
                double *u = scored(rt, "my_revert", x, sw, rl, splits[s], &rows_u);
                cr_assert_eq(rows_b, rows_u);
                cr_assert_gt(b[APO_SCORE_TRADES * rows_b], 2, "the rule trades");
                cr_assert(memcmp(b, u, APO_N_SCORES * rows_b * sizeof *b) == 0,
                          "devices %d form %d split %zu: my_revert is not bands_revert bitwise",
                          rt_i, form, s);
                free(b), free(u);
            }
    free(x);
    apo_runtime_destroy(one);
    apo_runtime_destroy(many);
}

/* flip's scores from the bands of a plain call, in long double (docs/kernels.md, "Returns
 * and scores", read naively). */
static void reference(const double *close, double *const *bands, size_t n, double cost,
                      long double *s) {
    int *pos = malloc(n * sizeof *pos);
    cr_assert_not_null(pos);
    size_t first = n;
    for (size_t t = 0; t < n; t++) {
        const int prev = t > 0 ? pos[t - 1] : 0;
        const double o[3] = {bands[0][t], bands[1][t], bands[2][t]};
        pos[t] = isfinite(close[t]) ? flip(&close[t], o, prev, NULL) : prev;
        if (first == n && isfinite(o[0]) && isfinite(o[1]) && isfinite(o[2]))
            first = t;
    }
    apo__ref_scores_of_positions(close, pos, n, first, cost, 252.0, s);
    free(pos);
}

Test(user_rules, a_stateful_rule_matches_the_long_double_definition, .timeout = 300) {
    apo_runtime *rt = test_runtime("cpu,sim:a");
    register_rule(rt, "flip", flip, NULL);
    double *x = walk(72);
    double *bands[3];
    for (int k = 0; k < 3; k++) {
        bands[k] = malloc(ROWS * COLS * sizeof(double));
        cr_assert_not_null(bands[k]);
    }
    const double *in[1] = {x};
    apo_workload w = test_workload("bollinger", ROWS, COLS, in, 1, bands, 3);
    w.learn = APO_SWITCH_OFF;
    cr_assert_eq(apo_distribute_workload(rt, &w, NULL), APO_OK, "%s", apo_last_error());
    size_t rows;
    double *s = scored(rt, "flip", x, NULL, NULL, APO_SPLIT_AUTO, &rows);
    for (size_t r = 0; r < ROWS; r++) {
        double *b[3] = {bands[0] + r * COLS, bands[1] + r * COLS, bands[2] + r * COLS};
        long double want[APO_N_SCORES];
        reference(x + r * COLS, b, COLS, 0.001, want);
        cr_assert_gt(want[APO_SCORE_TRADES], 2, "flip trades");
        for (int m = 0; m < APO_N_SCORES; m++) {
            const double got = s[m * rows + r];
            const long double scale = fabsl(want[m]) > 1e-3L ? fabsl(want[m]) : 1e-3L;
            cr_assert(fabsl((long double)got - want[m]) <= 1e-9L * scale,
                      "row %zu score %d: %.17g, want %.17Lg", r, m, got, want[m]);
        }
    }
    free(s), free(x);
    for (int k = 0; k < 3; k++)
        free(bands[k]);
    apo_runtime_destroy(rt);
}

Test(user_rules, a_return_outside_minus_one_to_one_fails_naming_the_rule) {
    apo_runtime *rt = test_runtime("cpu");
    int calls = 0;
    register_rule(rt, "two", returns_two, &calls);
    double *x = malloc(COLS * sizeof *x);
    cr_assert_not_null(x);
    apo__test_random_walk(73, COLS, 100.0, 0.5, x);
    score_one_row s;
    score_one_row_init(&s, "bollinger", "two", x, COLS);
    cr_assert_eq(apo_distribute_workload(rt, &s.w, NULL), APO_ERR_KERNEL_FAILED);
    const char *msg = apo_last_error();
    cr_assert(strstr(msg, "rule two returned 2 at series 0, bar 700") != NULL, "%s", msg);
    free(x);
    apo_runtime_destroy(rt);
}

Test(user_rules, registrations_that_cannot_work_are_refused) {
    apo_runtime *rt = test_runtime("cpu");
    apo_rule_desc d = APO_RULE_DESC_INIT;
    d.name = "mine";
    d.kernel = "bollinger";
    cr_assert_eq(apo_rule_register(rt, &d), APO_ERR_NULL, "NULL fn");
    d.fn = flip;
    d.name = "bands_zone";
    cr_assert_eq(apo_rule_register(rt, &d), APO_ERR_ALREADY_EXISTS, "a built-in rule's name");
    d.name = "signal"; /* a kind of the rules on any output (docs/scores.md) */
    cr_assert_eq(apo_rule_register(rt, &d), APO_ERR_ALREADY_EXISTS, "a kind's name");
    d.name = "no-dash";
    cr_assert_eq(apo_rule_register(rt, &d), APO_ERR_INVALID_ARGUMENT, "a bad name");
    d.name = "mine";
    d.kernel = "no_such_kernel";
    cr_assert_eq(apo_rule_register(rt, &d), APO_ERR_UNKNOWN_KERNEL);
    d.kernel = "returns_stats";
    cr_assert_eq(apo_rule_register(rt, &d), APO_ERR_INVALID_ARGUMENT, "a reduction");
    cr_assert(strstr(apo_last_error(), "cannot be scored") != NULL, "%s", apo_last_error());
    d.kernel = "bollinger:bands_zone";
    cr_assert_eq(apo_rule_register(rt, &d), APO_ERR_INVALID_ARGUMENT, "a scored kernel");
    d.kernel = "bollinger";
    cr_assert_eq(apo_rule_register(rt, &d), APO_OK, "%s", apo_last_error());
    cr_assert_eq(apo_rule_register(rt, &d), APO_ERR_ALREADY_EXISTS, "taken for that kernel");
    d.kernel = "macd";
    cr_assert_eq(apo_rule_register(rt, &d), APO_OK, "the same name on another kernel");
    apo_rule_desc bad = d;
    bad.size = 1;
    cr_assert_eq(apo_rule_register(rt, &bad), APO_ERR_INVALID_ARGUMENT, "size");
    char name[16];
    size_t n = 2;
    for (apo_status st = APO_OK; st == APO_OK; n++) {
        snprintf(name, sizeof name, "r%zu", n);
        d.name = name;
        st = apo_rule_register(rt, &d);
        if (st != APO_OK) {
            cr_assert_eq(st, APO_ERR_INVALID_ARGUMENT, "a full table");
            cr_assert(strstr(apo_last_error(), "at most") != NULL, "%s", apo_last_error());
        }
    }
    cr_assert_eq(n - 2, 63, "64 rules fit, the 65th is refused (%zu)", n);
    apo_runtime_destroy(rt);
}
