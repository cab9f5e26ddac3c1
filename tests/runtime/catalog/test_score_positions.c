/*
 * test_score_positions.c: apo_score_positions(), the positions, returns and running total of
 * one set bar by bar (docs/scores.md, "The positions of one set"). For a set of a scored
 * sweep over walks with gaps, the indicator computed by a plain call of that set and traced:
 * its scores are the sweep's bit for bit; its positions are the test's own reading of the
 * rule from the docs' table; its returns and running total are the test's own arithmetic on
 * those positions, bit for bit; and the scores recomputed from the positions by the
 * independent reference (score_reference.c) are the sweep's within 1e-9. The views' running
 * totals end at their `total`. Bad arguments write nothing.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "reference.h"
#include "score_fixtures.h"
#include "score_reference.h"

#define ROWS 3
#define COLS 2500

/* A gap in every row: positions carry, bars are not scored. */
static double *walk(uint64_t seed) { return score_walk_with_gap(ROWS, COLS, seed, 1000, 50, 25); }

/* The scores of a scored bollinger sweep over x (scores[k * rows_out + line]). */
static double *scored_sweep(apo_runtime *rt, const char *rule, const double *x,
                            const apo_sweep *sweep, const apo_param *p, size_t n_p) {
    const double *in[1] = {x};
    apo_workload w = test_workload("bollinger", ROWS, COLS, in, 1, NULL, 0);
    w.score = rule;
    w.sweep = sweep;
    w.params = p, w.n_params = n_p;
    w.learn = APO_SWITCH_OFF;
    return score_run(rt, &w, NULL, NULL);
}

/* Bollinger's bands of one set over x, by a plain call (3 x ROWS x COLS). */
static double *bands(apo_runtime *rt, const double *x, double period, double width) {
    double *b = malloc(3 * ROWS * COLS * sizeof *b);
    cr_assert_not_null(b);
    const double *in[1] = {x};
    double *out[3] = {b, b + ROWS * COLS, b + 2 * ROWS * COLS};
    apo_param p[] = {{"period", period}, {"nbdev_up", width}};
    apo_workload w = test_workload("bollinger", ROWS, COLS, in, 1, out, 3);
    w.params = p, w.n_params = 2;
    w.learn = APO_SWITCH_OFF;
    cr_assert_eq(apo_distribute_workload(rt, &w, NULL), APO_OK, "%s", apo_last_error());
    return b;
}

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

Test(score_positions, a_set_traced_is_its_scores_and_the_rule_bar_by_bar, .timeout = 120) {
    apo_runtime *rt = test_runtime("cpu,sim:a:rate=3e8");
    double *x = walk(5);
    const double periods[] = {10, 20, 30}, widths[] = {1.5, 2.0};
    apo_sweep_param grid[] = {{"period", periods, 3}, {"nbdev_up", widths, 2}};
    apo_sweep sweep = APO_SWEEP_INIT;
    sweep.grid = grid, sweep.n_grid = 2;
    const double cost = 0.0007, ppy = 252;
    apo_param fixed[] = {{"cost", cost}};
    double *sc = scored_sweep(rt, "bands_revert", x, &sweep, fixed, 1);
    const size_t lines = 6 * ROWS, set = 3; /* period 20, nbdev_up 2 */
    double *b = bands(rt, x, periods[set / 2], widths[set % 2]);
    double pos[COLS], ret[COLS], eq[COLS], got[APO_N_SCORES];
    int ipos[COLS];
    apo_param p[] = {{"period", periods[set / 2]}, {"nbdev_up", widths[set % 2]}, {"cost", cost}};
    for (size_t r = 0; r < ROWS; r++) {
        const double *close = x + r * COLS;
        const double *outs[3] = {b + r * COLS, b + (ROWS + r) * COLS, b + (2 * ROWS + r) * COLS};
        cr_assert_eq(apo_score_positions("bollinger", "bands_revert", close, outs, 3, COLS, p, 3,
                                         pos, ret, eq, got),
                     APO_OK, "%s", apo_last_error());
        const size_t line = set * ROWS + r;
        for (int k = 0; k < APO_N_SCORES; k++)
            cr_assert(same_bits(got[k], sc[k * lines + line]),
                      "row %zu score %d: %.17g, the sweep's %.17g", r, k, got[k],
                      sc[k * lines + line]);
        /* The test's own reading: positions by the table, returns and running sum. */
        size_t first = COLS;
        for (size_t t = 0; t < COLS && first == COLS; t++)
            if (isfinite(outs[0][t]) && isfinite(outs[1][t]) && isfinite(outs[2][t]))
                first = t;
        int prev = 0;
        double sum = 0, peak = 0, dd = 0;
        size_t last_scored = COLS;
        for (size_t t = 0; t < COLS; t++) {
            const int p_t = isfinite(close[t])
                                ? score_bands_revert_position(prev, close[t], outs[0][t],
                                                              outs[1][t], outs[2][t])
                                : prev;
            cr_assert_eq(pos[t], (double)p_t, "row %zu bar %zu: position %g, the rule's %d", r, t,
                         pos[t], p_t);
            ipos[t] = p_t;
            const int scored = t > first && isfinite(close[t]) && isfinite(close[t - 1]);
            if (scored) {
                const double want =
                    (double)prev * (close[t] / close[t - 1] - 1.0) - cost * (double)abs(p_t - prev);
                cr_assert(same_bits(ret[t], want), "row %zu bar %zu: return %.17g, not %.17g", r, t,
                          ret[t], want);
                sum += want;
                peak = sum > peak ? sum : peak;
                dd = peak - sum > dd ? peak - sum : dd;
                last_scored = t;
            } else {
                cr_assert(isnan(ret[t]), "row %zu bar %zu is not scored, its return NaN", r, t);
            }
            cr_assert(same_bits(eq[t], sum), "row %zu bar %zu: running total", r, t);
            prev = p_t;
        }
        cr_assert_lt(last_scored, COLS);
        cr_assert(same_bits(eq[last_scored], sc[APO_SCORE_TOTAL * lines + line]));
        cr_assert(same_bits(dd, sc[APO_SCORE_MAX_DRAWDOWN * lines + line]));
        cr_assert_gt(sc[APO_SCORE_TRADES * lines + line], 5, "the set trades");
        /* The independent reference from the positions. */
        long double ref[APO_N_SCORES];
        apo__ref_scores_of_positions(close, ipos, COLS, first, cost, ppy, ref);
        for (int k = 0; k < APO_N_SCORES; k++) {
            const double want = (double)ref[k], have = sc[k * lines + line];
            const double tol = fmax(1e-12, 1e-9 * fabs(want));
            cr_assert(fabs(have - want) <= tol, "row %zu score %d: %.17g, the reference %.17g", r,
                      k, have, want);
        }
    }
    free(sc), free(b), free(x);
    apo_runtime_destroy(rt);
}

Test(score_positions, a_views_running_total_ends_at_its_total, .timeout = 120) {
    apo_runtime *rt = test_runtime("cpu");
    double *x = walk(9);
    double *b = bands(rt, x, 20, 2);
    const char *views[] = {"bands_revert/compound", "bands_revert/log"};
    apo_param p[] = {{"period", 20}, {"cost", 0.0005}, {"side", 1}};
    for (int v = 0; v < 2; v++) {
        double *sc = scored_sweep(rt, views[v], x, NULL, p, 3);
        for (size_t r = 0; r < ROWS; r++) {
            const double *outs[3] = {b + r * COLS, b + (ROWS + r) * COLS,
                                     b + (2 * ROWS + r) * COLS};
            double pos[COLS], ret[COLS], eq[COLS], got[APO_N_SCORES];
            cr_assert_eq(apo_score_positions("bollinger", views[v], x + r * COLS, outs, 3, COLS, p,
                                             3, pos, ret, eq, got),
                         APO_OK, "%s", apo_last_error());
            for (int k = 0; k < APO_N_SCORES; k++)
                cr_assert(same_bits(got[k], sc[k * ROWS + r]), "%s row %zu score %d", views[v], r,
                          k);
            size_t last = COLS;
            double compounded = 1.0;
            for (size_t t = 0; t < COLS; t++) {
                cr_assert(pos[t] >= 0, "long-only: no short position");
                if (!isnan(ret[t])) {
                    last = t;
                    compounded *= 1.0 + ret[t];
                }
            }
            cr_assert_lt(last, COLS);
            cr_assert(same_bits(eq[last], sc[APO_SCORE_TOTAL * ROWS + r]), "%s row %zu", views[v],
                      r);
            const double want = v == 0 ? compounded - 1.0 : log(compounded);
            cr_assert(same_bits(eq[last], want), "%s row %zu: %.17g, the product's %.17g", views[v],
                      r, eq[last], want);
        }
        free(sc);
    }
    free(b), free(x);
    apo_runtime_destroy(rt);
}

Test(score_positions, bad_arguments_are_refused_and_write_nothing, .timeout = 60) {
    double close[50], up[50], mid[50], lo[50], pos[50], sc[APO_N_SCORES];
    for (int t = 0; t < 50; t++)
        close[t] = 100 + t % 7, up[t] = mid[t] = lo[t] = NAN, pos[t] = -7;
    const double *outs[3] = {up, mid, lo};
    sc[0] = -7;
    apo_param cost[] = {{"cost", 2}};
    test_assert_refused(apo_score_positions("bollinger", "bands_revert", close, outs, 3, 50, cost,
                                            1, pos, NULL, NULL, sc),
                        APO_ERR_BAD_PARAM, "cost");
    test_assert_refused(apo_score_positions("bollinger", "bands_revert", close, outs, 2, 50, NULL,
                                            0, pos, NULL, NULL, sc),
                        APO_ERR_INVALID_ARGUMENT, "outputs");
    test_assert_refused(apo_score_positions("bollinger", "macd_cross", close, outs, 3, 50, NULL, 0,
                                            pos, NULL, NULL, sc),
                        APO_ERR_INVALID_ARGUMENT, "macd_cross");
    test_assert_refused(apo_score_positions("bollinger", "bands_revert", NULL, outs, 3, 50, NULL, 0,
                                            pos, NULL, NULL, sc),
                        APO_ERR_NULL, "NULL");
    for (int t = 0; t < 50; t++)
        cr_assert_eq(pos[t], -7, "a refused call wrote a position");
    cr_assert_eq(sc[0], -7, "a refused call wrote a score");
}
