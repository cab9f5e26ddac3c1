/*
 * test_score_stats.c: the views of a scored kernel and the rules' sides (docs/kernels.md,
 * "More statistics and compounding", "Sides"): every view (`/compound`, `/log`, `/more`)
 * and side (long-only, short-only, both) of rules of each kind (bollinger's bands with its
 * pass of widths, a stateful revert with thresholds, a cross of two outputs, a price cross,
 * macd's) against positions read naively from the docs over the plain indicator's outputs,
 * scored in long double (tests/common/score_reference.c); bitwise equality with the same
 * outputs scored in memory and across splits; a sweep over the side sharing one pass and
 * keeping each set's bits, the plain call's bits for side 0; and what is refused.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_reference.h"
#include "helpers.h"
#include "reference.h"
#include "score_fixtures.h"
#include "score_reference.h"

#define ROWS 2
#define COLS 3000

typedef struct rule_case {
    const char *kernel, *rule;
    size_t n_in; /* 1: close; 3: high, low, close */
} rule_case;

static const rule_case cases[] = {
    {"bollinger", "bands_revert", 1}, {"macd", "macd_cross", 1}, {"rsi", "rsi_revert", 1},
    {"stoch", "stoch_cross", 3},      {"sma", "price_cross", 1},
};
#define N_CASES (sizeof cases / sizeof cases[0])

static const char *const views[] = {"", "/compound", "/log", "/more"};
#define N_VIEWS 4

/* high, low, close of rows x cols with a gap of one bar and one of 60 in every row. */
static double *col[3];

static void make_bars(void) {
    double *volume = malloc(ROWS * COLS * sizeof(double));
    cr_assert_not_null(volume);
    for (int i = 0; i < 3; i++) {
        col[i] = malloc(ROWS * COLS * sizeof(double));
        cr_assert_not_null(col[i]);
    }
    for (size_t r = 0; r < ROWS; r++) {
        const size_t o = r * COLS;
        apo__ref_ohlcv(71 + r, COLS, 100.0, 0.5, NULL, col[0] + o, col[1] + o, col[2] + o,
                       volume + o);
        for (size_t t = 0; t < COLS; t++)
            if (t == 377 || (t >= 1500 + 50 * r && t < 1560 + 50 * r))
                for (int i = 0; i < 3; i++)
                    col[i][o + t] = NAN;
    }
    free(volume);
}

static void free_bars(void) {
    for (int i = 0; i < 3; i++)
        free(col[i]);
}

static void inputs_of(const rule_case *c, const double **in) {
    for (size_t i = 0; i < c->n_in; i++)
        in[i] = c->n_in == 1 ? col[2] : col[i];
}

/* The rule of docs/kernels.md's table at a finite close, for either side (rsi_revert at its
 * default thresholds 30 and 70). o: the indicator's outputs at the bar. */
static int ref_both(const rule_case *c, int prev, double close, const double *o) {
    if (strcmp(c->rule, "price_cross") == 0)
        return close > o[0] ? 1 : close < o[0] ? -1 : 0;
    if (strcmp(c->rule, "stoch_cross") == 0)
        return o[0] > o[1] ? 1 : o[0] < o[1] ? -1 : 0;
    if (strcmp(c->rule, "macd_cross") == 0)
        return o[2] > 0 ? 1 : o[2] < 0 ? -1 : 0;
    double v = o[0], lower = 30, middle = 50, upper = 70; /* rsi_revert */
    if (strcmp(c->rule, "bands_revert") == 0) {
        if (isnan(o[0]) || isnan(o[1]) || isnan(o[2]))
            return 0;
        v = close, upper = o[0], middle = o[1], lower = o[2];
    }
    if (isnan(v))
        return 0;
    if (prev == 1)
        return v >= middle ? 0 : 1;
    if (prev == -1)
        return v <= middle ? 0 : -1;
    return v < lower ? 1 : v > upper ? -1 : 0;
}

/* "Sides": a position the side does not allow is flat, and the rule is asked with the
 * side's own previous position. */
static int ref_position(const rule_case *c, int side, int prev, double close, const double *o) {
    const int p = ref_both(c, prev, close, o);
    return side == 0 || p == side ? p : 0;
}

/* The indicator's outputs over the bars (the plain call). */
static size_t indicator(apo_runtime *rt, const rule_case *c, double **out) {
    apo_kernel_info info = APO_KERNEL_INFO_INIT;
    cr_assert_eq(apo_kernel_get(rt, c->kernel, &info), APO_OK, "%s", apo_last_error());
    for (size_t k = 0; k < info.n_outputs; k++) {
        out[k] = malloc(ROWS * COLS * sizeof(double));
        cr_assert_not_null(out[k]);
    }
    const double *in[3];
    inputs_of(c, in);
    apo_workload w = test_workload(c->kernel, ROWS, COLS, in, c->n_in, out, info.n_outputs);
    w.learn = APO_SWITCH_OFF;
    cr_assert_eq(apo_distribute_workload(rt, &w, NULL), APO_OK, "%s", apo_last_error());
    return info.n_outputs;
}

/* A scored call; scores[k * rows + r] is score k of row r, set-major with a sweep. */
static double *scored(apo_runtime *rt, const rule_case *c, const char *score, const apo_param *p,
                      size_t n_p, const apo_sweep *sweep, apo_split split, size_t *out_rows) {
    const double *in[3];
    inputs_of(c, in);
    apo_workload w = test_workload(c->kernel, ROWS, COLS, in, c->n_in, NULL, 0);
    w.score = score;
    w.params = p, w.n_params = n_p;
    w.sweep = sweep;
    w.split = split;
    w.learn = APO_SWITCH_OFF;
    return score_run(rt, &w, out_rows, NULL);
}

static void check_close(double got, long double want, const char *what, int m) {
    const long double err = fabsl((long double)got - want);
    const long double scale = fabsl(want) > 1e-3L ? fabsl(want) : 1e-3L;
    cr_assert(err <= 1e-9L * scale || (isnan(got) && isnan((double)want)) ||
                  (isinf(got) && got == (double)want),
              "%s score %d: %.17g, want %.17Lg", what, m, got, want);
}

/* Every view and side of every case, with cost, against the naive reading; the counts
 * exact; bitwise the same outputs scored in memory. */
Test(score_stats, every_view_and_side_matches_the_docs_and_the_outputs_in_memory, .timeout = 300) {
    apo_runtime *rt = test_runtime("cpu");
    make_bars();
    const double periods = 390.0 * 252, cost = 0.0005;
    int *pos = malloc(COLS * sizeof *pos);
    cr_assert_not_null(pos);
    for (size_t i = 0; i < N_CASES; i++) {
        const rule_case *c = &cases[i];
        double *out[APO_MAX_IO];
        const size_t n_out = indicator(rt, c, out);
        for (int side = -1; side <= 1; side++) {
            for (int v = 0; v < N_VIEWS; v++) {
                char score[64], what[128];
                snprintf(score, sizeof score, "%s%s", c->rule, views[v]);
                const apo_param p[] = {
                    {"cost", cost}, {"periods_per_year", periods}, {"side", side}};
                size_t rows;
                double *s = scored(rt, c, score, p, 3, NULL, APO_SPLIT_AUTO, &rows);
                for (size_t r = 0; r < ROWS; r++) {
                    const double *close = col[2] + r * COLS;
                    double o[APO_MAX_IO];
                    size_t first = COLS;
                    for (size_t t = 0; t < COLS; t++) {
                        int finite = 1;
                        for (size_t k = 0; k < n_out; k++) {
                            o[k] = out[k][r * COLS + t];
                            finite = finite && isfinite(o[k]);
                        }
                        const int prev = t > 0 ? pos[t - 1] : 0;
                        pos[t] =
                            isfinite(close[t]) ? ref_position(c, side, prev, close[t], o) : prev;
                        if (first == COLS && finite)
                            first = t;
                    }
                    long double want[APO_N_SCORES];
                    apo__ref_view_of_positions(close, pos, COLS, first, cost, periods, v, want);
                    snprintf(what, sizeof what, "%s:%s side %d row %zu", c->kernel, score, side, r);
                    if (v == 3) /* trades to judge by */
                        cr_assert_gt(want[7], 5, "%s: round trips", what);
                    for (int m = 0; m < APO_N_SCORES; m++)
                        check_close(s[m * rows + r], want[m], what, m);
                    double mem[APO_N_SCORES];
                    const double *oc[APO_MAX_IO];
                    for (size_t k = 0; k < n_out; k++)
                        oc[k] = out[k] + r * COLS;
                    cr_assert_eq(
                        apo_score_outputs_with(c->kernel, score, close, oc, n_out, COLS, p, 3, mem),
                        APO_OK, "%s", apo_last_error());
                    for (int m = 0; m < APO_N_SCORES; m++)
                        cr_assert(memcmp(&s[m * rows + r], &mem[m], sizeof mem[m]) == 0,
                                  "%s score %d: scored %.17g, in memory %.17g", what, m,
                                  s[m * rows + r], mem[m]);
                }
                free(s);
            }
        }
        for (size_t k = 0; k < n_out; k++)
            free(out[k]);
    }
    free(pos);
    free_bars();
    apo_runtime_destroy(rt);
}

/* A sweep over side and cost shares one pass (the lanes for every side, with the compounded
 * equity of `/compound` and `/log`; the scalar body for `/more`) and gives each set the bits of
 * its call alone, whole and split between devices; side 0 gives the bits of the call that
 * names no side. */
Test(score_stats, a_sweep_over_sides_keeps_each_sets_bits, .timeout = 300) {
    apo_runtime *rt = test_runtime("cpu,sim:a:rate=3e8,sim:b:rate=1e8");
    make_bars();
    const double sides[] = {-1, 0, 1}, costs[] = {0, 0.001};
    for (size_t i = 0; i < N_CASES; i++) {
        const rule_case *c = &cases[i];
        for (int v = 0; v < N_VIEWS; v++) {
            char score[64];
            snprintf(score, sizeof score, "%s%s", c->rule, views[v]);
            const apo_sweep_param grid[] = {{"side", sides, 3}, {"cost", costs, 2}};
            apo_sweep sweep = APO_SWEEP_INIT;
            sweep.grid = grid, sweep.n_grid = 2;
            for (int split = 0; split < 2; split++) {
                size_t rows;
                double *all = scored(rt, c, score, NULL, 0, &sweep,
                                     split ? APO_SPLIT_ROWS : APO_SPLIT_AUTO, &rows);
                cr_assert_eq(rows, 6 * ROWS);
                for (size_t set = 0; set < 6; set++) {
                    const apo_param p[] = {{"side", sides[set / 2]}, {"cost", costs[set % 2]}};
                    /* side 0 alone: named, and left to its default */
                    size_t one_rows;
                    double *one = scored(rt, c, score, p, sides[set / 2] == 0 ? 1 + (set % 2) : 2,
                                         NULL, APO_SPLIT_AUTO, &one_rows);
                    if (sides[set / 2] == 0 && set % 2 == 0) {
                        free(one);
                        one = scored(rt, c, score, &p[1], 1, NULL, APO_SPLIT_AUTO, &one_rows);
                    }
                    for (int m = 0; m < APO_N_SCORES; m++)
                        for (size_t r = 0; r < ROWS; r++)
                            cr_assert(memcmp(&all[m * rows + set * ROWS + r], &one[m * ROWS + r],
                                             sizeof(double)) == 0,
                                      "%s:%s set %zu score %d row %zu: %.17g, alone %.17g",
                                      c->kernel, score, set, m, r, all[m * rows + set * ROWS + r],
                                      one[m * ROWS + r]);
                    free(one);
                }
                free(all);
            }
        }
    }
    free_bars();
    apo_runtime_destroy(rt);
}

/* An unknown view, a side that is not -1, 0 or 1, and a view of a user's rule's name are
 * refused with the reason, and write nothing. */
Test(score_stats, unknown_views_and_sides_are_refused, .timeout = 60) {
    apo_runtime *rt = test_runtime("cpu");
    make_bars();
    score_one_row s;
    score_one_row_init(&s, "rsi", "rsi_zone/median", col[2], COLS);
    apo_workload *w = &s.w;
    cr_assert_eq(apo_distribute_workload(rt, w, NULL), APO_ERR_UNKNOWN_KERNEL);
    cr_assert(strstr(apo_last_error(), "compound, log or more") != NULL, "%s", apo_last_error());
    w->score = "rsi_zone/more";
    const double bad[] = {2, 0.5, -2};
    for (int i = 0; i < 3; i++) {
        const apo_param p[] = {{"side", bad[i]}};
        w->params = p, w->n_params = 1;
        cr_assert_eq(apo_distribute_workload(rt, w, NULL), APO_ERR_BAD_PARAM, "side %g", bad[i]);
        cr_assert(strstr(apo_last_error(), "side") != NULL, "%s", apo_last_error());
    }
    score_one_row_assert_unwritten(&s);
    free_bars();
    apo_runtime_destroy(rt);
}
