/*
 * test_score_ranges.c: scored calls with ranges (apo_workload.ranges; docs/scores.md,
 * "Ranges"). Each range's scores are compared bitwise with the range scored alone as the
 * docs define it: the indicator over the whole history (a plain call), then the range's slice
 * of the closes and outputs scored by apo_score_outputs_with() (the scalar fold of
 * kernels/scores/score.c, not the scored kernel's lanes); and within 1e-9 with the long-double
 * reading of the definition (tests/common/score_reference.c) from positions the test takes
 * itself. Ranges overlap, share first bars (a chain), start in the warm-up and in gaps,
 * cross tiles, hold one bar; sweeps of several sets (the lanes) and lone sets, views and
 * sides, a user's rule (the fold bar by bar), a sweep run in pieces of sets, devices and
 * ratios, ragged rows that end inside a range; apo_walk_forward()'s windows; bad ranges are
 * refused and write nothing.
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

#define COLS 20000 /* four and more of bollinger's tiles, more than one of macd's */

/* The cpu runtime of each case that makes calls, made by its .init and destroyed by its
 * .fini (each Criterion case runs in its own process). */
static apo_runtime *rt;

static void on_cpu(void) { rt = test_runtime("cpu"); }
static void destroy_runtime(void) { apo_runtime_destroy(rt); }

/* A random walk around 100 with gaps: a one-bar NaN and a run longer than the warm-ups. */
static double *walk(size_t rows, size_t cols, uint64_t seed) {
    double *x = score_walk_with_gap(rows, cols, seed, 9000, 50, 80);
    for (size_t r = 0; r < rows; r++)
        x[r * cols + 777] = NAN;
    return x;
}

/* Overlapping ranges, chains of one first bar (0 and 4000), a range from the warm-up, one
 * starting inside the gap, one crossing the tiles at 4096 and 8192, one bar, to the end. */
static const apo_range ranges[] = {
    {0, 50},      {0, 4100},     {0, 12000},   {1, 2},         {30, 8200},     {4000, 4096},
    {4000, 8193}, {4000, 20000}, {9010, 9500}, {12000, 16000}, {16000, 20000}, {19999, 20000},
};
#define N_RANGES (sizeof ranges / sizeof ranges[0])

/* A scored call of `kernel` under `rule` over `rows` series of COLS samples, every series cut
 * into the ranges above; the caller adds parameters, a sweep or row lengths. */
static apo_workload ranged_workload(const char *kernel, const char *rule, size_t rows) {
    apo_workload w = test_workload(kernel, rows, COLS, NULL, 0, NULL, 0);
    w.score = rule;
    w.ranges = ranges;
    w.n_ranges = N_RANGES;
    return w;
}

/* A ranged scored call of one input; returns the scores, score k of (set-row i, range r) at
 * [(k * out_rows + i) * n_ranges + r], and checks the shape the runtime gives. */
static double *run_ranged(apo_runtime *rt, apo_workload *w, const double *x, size_t *out_rows) {
    const double *in[1] = {x};
    w->inputs = in;
    w->n_inputs = 1;
    w->learn = APO_SWITCH_OFF;
    size_t cols = 0;
    double *mem = score_run(rt, w, out_rows, &cols);
    cr_assert_eq(cols, w->n_ranges ? w->n_ranges : 1, "a column per range");
    return mem;
}

/* One series' ranged scores under `rule` at `cost`, and the indicator's own outputs over the
 * whole series, that the scores are checked from. */
typedef struct ranged_series {
    double *x, *got;
    double *out[3];
} ranged_series;

static void ranged_series_run(apo_runtime *rt, const char *kernel, const char *rule,
                              const apo_param *cost, uint64_t seed, ranged_series *s) {
    s->x = walk(1, COLS, seed);
    apo_workload w = ranged_workload(kernel, rule, 1);
    w.params = cost;
    w.n_params = 1;
    s->got = run_ranged(rt, &w, s->x, NULL);
    score_indicator(rt, kernel, s->x, 1, COLS, NULL, 0, s->out);
}

static void ranged_series_free(ranged_series *s) {
    score_indicator_free(s->out);
    free(s->got);
    free(s->x);
}

/* Range [a, b) scored alone: the slice of the whole history's closes and outputs, folded
 * from its first bar by apo_score_outputs_with(). */
static void range_alone(const char *kernel, const char *rule, const double *x, double *out[3],
                        size_t n_out, size_t a, size_t b, const apo_param *p, size_t np,
                        double *want) {
    const double *o[3] = {out[0] + a, out[1] + a, out[2] + a};
    cr_assert_eq(apo_score_outputs_with(kernel, rule, x + a, o, n_out, b - a, p, np, want), APO_OK,
                 "%s", apo_last_error());
}

static int same_bits(const double *a, const double *b) { return memcmp(a, b, sizeof *a) == 0; }

/* Every range of every set of `sets` (n_names parameters each, set-major) of one series
 * against the range alone, bitwise. */
static void check_sets(apo_runtime *rt, const char *kernel, const char *rule, const char **names,
                       size_t n_names, const double *values, size_t n_sets, uint64_t seed) {
    double *x = walk(1, COLS, seed);
    apo_sweep sweep = APO_SWEEP_INIT;
    sweep.names = names;
    sweep.n_names = n_names;
    sweep.values = values;
    sweep.n_sets = n_sets;
    apo_workload w = ranged_workload(kernel, rule, 1);
    w.sweep = &sweep;
    size_t rows;
    double *got = run_ranged(rt, &w, x, &rows);
    cr_assert_eq(rows, n_sets);
    double traded = 0;
    for (size_t s = 0; s < n_sets; s++) {
        apo_param p[APO_MAX_PARAMS];
        for (size_t j = 0; j < n_names; j++)
            p[j] = (apo_param){names[j], values[s * n_names + j]};
        /* The indicator's own parameters among the set's (bollinger's widths). */
        size_t nind = 0;
        apo_param ind[APO_MAX_PARAMS];
        for (size_t j = 0; j < n_names; j++)
            if (strncmp(names[j], "nbdev", 5) == 0 || strcmp(names[j], "period") == 0)
                ind[nind++] = p[j];
        double *out[3];
        const size_t n_out = score_indicator(rt, kernel, x, 1, COLS, ind, nind, out);
        for (size_t r = 0; r < N_RANGES; r++) {
            double want[APO_N_SCORES];
            range_alone(kernel, rule, x, out, n_out, ranges[r].begin, ranges[r].end, p, n_names,
                        want);
            for (int k = 0; k < APO_N_SCORES; k++) {
                const double g = got[(k * rows + s) * N_RANGES + r];
                cr_assert(same_bits(&g, &want[k]),
                          "%s:%s set %zu range %zu [%zu, %zu) score %d: %.17g, alone %.17g", kernel,
                          rule, s, r, ranges[r].begin, ranges[r].end, k, g, want[k]);
            }
            traded += want[APO_N_SCORES - 1]; /* bars, or the /more view's round trips */
        }
        score_indicator_free(out);
    }
    cr_assert_gt(traded, 100, "the ranges score bars");
    free(got);
    free(x);
}

Test(score_ranges, each_range_scores_bitwise_as_the_range_alone, .timeout = 120, .init = on_cpu,
     .fini = destroy_runtime) {
    /* Five sets of one pass (a round of lanes and more), and a lone set. */
    const char *bb[] = {"nbdev_up", "cost"};
    const double bb_sets[] = {1.5, 0, 2, 0, 2, 0.001, 2.5, 0.0005, 1, 0.002};
    check_sets(rt, "bollinger", "bands_revert", bb, 2, bb_sets, 5, 51);
    check_sets(rt, "bollinger", "bands_zone", bb, 2, bb_sets + 4, 1, 52);
    const char *mc[] = {"cost"};
    const double mc_sets[] = {0, 0.001, 0.0005};
    check_sets(rt, "macd", "macd_cross", mc, 1, mc_sets, 3, 53);
    const char *rs[] = {"lower", "upper"};
    const double rs_sets[] = {30, 70, 25, 60};
    check_sets(rt, "rsi", "rsi_revert", rs, 2, rs_sets, 2, 54);
}

Test(score_ranges, views_and_sides_score_each_range_as_alone, .timeout = 120, .init = on_cpu,
     .fini = destroy_runtime) {
    const char *names[] = {"side", "cost"};
    const double sets[] = {1, 0.001, -1, 0, 0, 0.0005};
    check_sets(rt, "bollinger", "bands_revert/more", names, 2, sets, 3, 55);
    check_sets(rt, "bollinger", "bands_revert/log", names, 2, sets, 3, 56);
    check_sets(rt, "macd", "macd_cross", names, 2, sets, 2, 57);
}

/* The positions of macd_cross read from the docs: the sign of the histogram. */
Test(score_ranges, ranges_match_the_long_double_definition, .timeout = 60, .init = on_cpu,
     .fini = destroy_runtime) {
    const apo_param cost = {"cost", 0.0005};
    ranged_series s;
    ranged_series_run(rt, "macd", "macd_cross", &cost, 58, &s);
    int *pos = malloc(COLS * sizeof *pos);
    cr_assert_not_null(pos);
    for (size_t r = 0; r < N_RANGES; r++) {
        /* The range alone: positions from 0 at its first bar, warm-up from the whole. */
        const size_t a = ranges[r].begin, n = ranges[r].end - a;
        size_t first = n;
        for (size_t t = 0; t < n; t++) {
            const double h = s.out[2][a + t];
            const int prev = t > 0 ? pos[t - 1] : 0;
            pos[t] = isfinite(s.x[a + t]) ? (h > 0) - (h < 0) : prev;
            if (first == n && isfinite(s.out[0][a + t]) && isfinite(s.out[1][a + t]) && isfinite(h))
                first = t;
        }
        long double want[APO_N_SCORES];
        apo__ref_scores_of_positions(s.x + a, pos, n, first, 0.0005, 252, want);
        for (int k = 0; k < APO_N_SCORES; k++) {
            const double g = s.got[k * N_RANGES + r];
            if (isnan((double)want[k])) {
                cr_assert(isnan(g), "range %zu score %d: %.17g, want NaN", r, k, g);
                continue;
            }
            const long double scale = fabsl(want[k]) > 1e-3L ? fabsl(want[k]) : 1e-3L;
            cr_assert(fabsl((long double)g - want[k]) <= 1e-9L * scale,
                      "range %zu score %d: %.17g, want %.17Lg", r, k, g, want[k]);
        }
    }
    cr_assert_eq(s.got[APO_SCORE_BARS * N_RANGES + 3], 0.0, "one bar scores none");
    free(pos);
    ranged_series_free(&s);
}

Test(score_ranges, the_whole_series_as_a_range_gives_the_plain_bits, .timeout = 60, .init = on_cpu,
     .fini = destroy_runtime) {
    double *x = walk(2, COLS, 59);
    const apo_range whole = {0, COLS};
    apo_workload w = test_workload("bollinger", 2, COLS, NULL, 0, NULL, 0);
    w.score = "bands_revert";
    size_t rows;
    double *plain = run_ranged(rt, &w, x, &rows);
    w.ranges = &whole;
    w.n_ranges = 1;
    double *ranged = run_ranged(rt, &w, x, &rows);
    cr_assert(memcmp(plain, ranged, APO_N_SCORES * 2 * sizeof *plain) == 0);
    free(plain);
    free(ranged);
    free(x);
}

Test(score_ranges, same_bits_on_any_devices_and_ragged_rows_cut_their_ranges, .timeout = 120,
     .init = on_cpu, .fini = destroy_runtime) {
    apo_runtime *many = test_runtime("cpu,sim:a:rate=2e8,sim:b:rate=1e8");
    const size_t rows = 3;
    double *x = walk(rows, COLS, 60);
    const size_t lengths[3] = {COLS, 8200, 4050};
    const double widths[] = {1.5, 2};
    apo_sweep_param grid[1] = {{"nbdev_up", widths, 2}};
    apo_sweep sweep = APO_SWEEP_INIT;
    sweep.grid = grid;
    sweep.n_grid = 1;
    apo_workload w = ranged_workload("bollinger", "bands_revert", rows);
    w.sweep = &sweep;
    w.row_lengths = lengths;
    size_t n1, n2;
    double *a = run_ranged(rt, &w, x, &n1);
    const double ratios[3] = {1, 2, 3};
    w.ratios = ratios;
    w.n_ratios = 3;
    double *b = run_ranged(many, &w, x, &n2);
    cr_assert(memcmp(a, b, APO_N_SCORES * n1 * N_RANGES * sizeof *a) == 0, "devices and ratios");
    /* A row that ends inside a range scores the part it has: the range cut at its end, of the
     * row alone; a range past its end scores no bar. */
    for (size_t s = 0; s < 2; s++)
        for (size_t r = 1; r < rows; r++) {
            apo_param p = {"nbdev_up", widths[s]};
            double *out[3];
            score_indicator(rt, "bollinger", x + r * COLS, 1, lengths[r], &p, 1, out);
            for (size_t i = 0; i < N_RANGES; i++) {
                const size_t end = ranges[i].end < lengths[r] ? ranges[i].end : lengths[r];
                const double *g = a + (s * rows + r) * N_RANGES + i;
                if (ranges[i].begin >= lengths[r]) {
                    cr_assert_eq(g[APO_SCORE_BARS * n1 * N_RANGES], 0.0);
                    cr_assert(isnan(g[APO_SCORE_TOTAL * n1 * N_RANGES]));
                    continue;
                }
                double want[APO_N_SCORES];
                range_alone("bollinger", "bands_revert", x + r * COLS, out, 3, ranges[i].begin, end,
                            &p, 1, want);
                for (int k = 0; k < APO_N_SCORES; k++)
                    cr_assert(same_bits(&g[k * n1 * N_RANGES], &want[k]),
                              "set %zu row %zu range %zu score %d", s, r, i, k);
            }
            score_indicator_free(out);
        }
    free(a);
    free(b);
    free(x);
    apo_runtime_destroy(many);
}

/* bands_zone's positions as a user's rule: the user path of the fold, bar by bar. */
static int my_zone(const double *in, const double *out, int prev, void *user) {
    (void)prev, (void)user;
    return (in[0] < out[2]) - (in[0] > out[0] && !(in[0] < out[2]));
}

Test(score_ranges, a_user_rule_scores_each_range_as_alone, .timeout = 120, .init = on_cpu,
     .fini = destroy_runtime) {
    test_register_rule(rt, "my_zone", "bollinger", my_zone, NULL);
    const apo_param cost = {"cost", 0.001};
    ranged_series s;
    ranged_series_run(rt, "bollinger", "my_zone", &cost, 61, &s);
    for (size_t r = 0; r < N_RANGES; r++) {
        double want[APO_N_SCORES];
        /* The built-in rule of the same positions, its range alone. */
        range_alone("bollinger", "bands_zone", s.x, s.out, 3, ranges[r].begin, ranges[r].end, &cost,
                    1, want);
        for (int k = 0; k < APO_N_SCORES; k++)
            cr_assert(same_bits(&s.got[k * N_RANGES + r], &want[k]), "range %zu score %d", r, k);
    }
    ranged_series_free(&s);
}

/* A sweep run in pieces of sets (first_set, n_sets_run), as the CLI and Python run large
 * ones: each piece's block of rows x ranges is the whole call's. */
Test(score_ranges, a_ranged_sweep_in_pieces_gives_the_whole_bits, .timeout = 120, .init = on_cpu,
     .fini = destroy_runtime) {
    double *x = walk(2, COLS, 62);
    const double widths[] = {1, 1.5, 2, 2.5, 3};
    apo_sweep_param grid[1] = {{"nbdev_up", widths, 5}};
    apo_sweep sweep = APO_SWEEP_INIT;
    sweep.grid = grid;
    sweep.n_grid = 1;
    apo_workload w = ranged_workload("bollinger", "bands_revert", 2);
    w.sweep = &sweep;
    size_t rows;
    double *whole = run_ranged(rt, &w, x, &rows);
    cr_assert_eq(rows, 10);
    for (size_t first = 0; first < 5; first += 2) {
        sweep.first_set = first;
        sweep.n_sets_run = first + 2 <= 5 ? 2 : 1;
        size_t piece_rows;
        double *piece = run_ranged(rt, &w, x, &piece_rows);
        cr_assert_eq(piece_rows, 2 * sweep.n_sets_run);
        for (int k = 0; k < APO_N_SCORES; k++)
            cr_assert(memcmp(piece + k * piece_rows * N_RANGES,
                             whole + (k * rows + first * 2) * N_RANGES,
                             piece_rows * N_RANGES * sizeof *piece) == 0,
                      "sets from %zu, score %d", first, k);
        free(piece);
    }
    free(whole);
    free(x);
}

/* A refused call writes nothing: its outputs keep their poison. */
static void refused(apo_runtime *rt, const char *score, const apo_range *r, size_t n,
                    apo_status want, const char *says) {
    static double x[100], mem[APO_N_SCORES * 4];
    for (size_t i = 0; i < 100; i++)
        x[i] = 100 + (double)(i % 7);
    for (size_t i = 0; i < APO_N_SCORES * 4; i++)
        mem[i] = -12345.0;
    double *outs[APO_N_SCORES];
    for (int k = 0; k < APO_N_SCORES; k++)
        outs[k] = mem + k * 4;
    const double *in[1] = {x};
    apo_workload w = test_workload("sma", 1, 100, in, 1, outs, score != NULL ? APO_N_SCORES : 1);
    w.score = score;
    w.ranges = r;
    w.n_ranges = n;
    cr_assert_eq(apo_distribute_workload(rt, &w, NULL), want, "%s", apo_last_error());
    cr_assert(strstr(apo_last_error(), says) != NULL, "'%s' says '%s'", apo_last_error(), says);
    for (size_t i = 0; i < APO_N_SCORES * 4; i++)
        cr_assert_eq(mem[i], -12345.0, "nothing written");
}

Test(score_ranges, bad_ranges_are_refused_and_write_nothing, .timeout = 60, .init = on_cpu,
     .fini = destroy_runtime) {
    const apo_range past[] = {{0, 10}, {90, 101}};
    const apo_range empty[] = {{5, 5}};
    const apo_range unsorted[] = {{10, 20}, {5, 30}};
    const apo_range twice[] = {{10, 20}, {10, 20}};
    const apo_range ends_unsorted[] = {{10, 30}, {10, 20}};
    refused(rt, "price_cross", past, 2, APO_ERR_INVALID_ARGUMENT, "range 1 is [90, 101)");
    refused(rt, "price_cross", empty, 1, APO_ERR_INVALID_ARGUMENT, "at least one bar");
    refused(rt, "price_cross", unsorted, 2, APO_ERR_INVALID_ARGUMENT, "comes before range 0");
    refused(rt, "price_cross", twice, 2, APO_ERR_INVALID_ARGUMENT, "again after");
    refused(rt, "price_cross", ends_unsorted, 2, APO_ERR_INVALID_ARGUMENT, "sorted by begin");
    refused(rt, "price_cross", NULL, 2, APO_ERR_NULL, "ranges is NULL");
    refused(rt, "price_cross", past, 0, APO_ERR_INVALID_ARGUMENT, "1 to 1024");
    refused(rt, "price_cross", past, APO_MAX_SCORE_RANGES + 1, APO_ERR_INVALID_ARGUMENT,
            "1 to 1024");
    refused(rt, NULL, past, 1, APO_ERR_INVALID_ARGUMENT, "for scored calls");
}

/* Each window's ranges as the docs define them, found by index in the sorted list. */
static void check_windows(size_t cols, size_t train, size_t test, int anchored, size_t want_n) {
    apo_range r[64];
    size_t tr[32], te[32], n_r, n_w;
    cr_assert_eq(apo_walk_forward(cols, train, test, anchored, 32, r, &n_r, tr, te, &n_w), APO_OK,
                 "%s", apo_last_error());
    cr_assert_eq(n_w, want_n, "%zu windows", n_w);
    for (size_t i = 0; i < n_w; i++) {
        const size_t e = train + i * test;
        cr_assert_eq(r[tr[i]].begin, anchored ? 0 : e - train, "window %zu", i);
        cr_assert_eq(r[tr[i]].end, e);
        cr_assert_eq(r[te[i]].begin, e);
        cr_assert_eq(r[te[i]].end, e + test < cols ? e + test : cols);
    }
    for (size_t j = 1; j < n_r; j++)
        cr_assert(r[j - 1].begin < r[j].begin ||
                      (r[j - 1].begin == r[j].begin && r[j - 1].end < r[j].end),
                  "sorted, none twice");
}

Test(score_ranges, walk_forward_windows_are_as_the_docs_say, .timeout = 60) {
    check_windows(1000, 400, 100, 0, 6);
    check_windows(1000, 400, 100, 1, 6);
    check_windows(1050, 400, 100, 0, 7); /* the last test window is cut at the end */
    check_windows(1000, 100, 100, 0, 9); /* a train is the test before it: one range */
    apo_range r[4];
    size_t tr[2], te[2], n_r, n_w;
    cr_assert_eq(apo_walk_forward(1000, 1000, 10, 0, 2, r, &n_r, tr, te, &n_w),
                 APO_ERR_INVALID_ARGUMENT);
    cr_assert_eq(apo_walk_forward(1000, 100, 0, 0, 2, r, &n_r, tr, te, &n_w),
                 APO_ERR_INVALID_ARGUMENT);
    cr_assert_eq(apo_walk_forward(1000, 100, 100, 0, 2, r, &n_r, tr, te, &n_w),
                 APO_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(apo_last_error(), "9 windows") != NULL, "%s", apo_last_error());
    cr_assert_eq(apo_walk_forward(1000, 100, 100, 0, 2, NULL, &n_r, tr, te, &n_w), APO_ERR_NULL);
}
