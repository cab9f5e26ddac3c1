/*
 * test_scores.c: scored calls (docs/scores.md, "Scores"). Every rule's scores against an
 * independent evaluation of the definition in long double (the positions as an array, the
 * returns as an array, the standard deviation in two passes) over the indicator's own
 * outputs, on random walks with gaps and with cost; bitwise equality with the outputs
 * materialised and then scored (apo_score_outputs()), across tiles of the indicator's grid;
 * bitwise invariance across devices, ratios and axes, sweeps against their sets alone and
 * ragged rows against their series alone, sets that share a pass against sets alone; a
 * series too short to score; rules refused on kernels they do not fit.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/call_span.h"
#include "catalog/scored_kernels.h"
#include "cpu_isa.h"
#include "helpers.h"
#include "reference.h"
#include "score_fixtures.h"
#include "score_reference.h"

#define ROWS 3
#define COLS 40000 /* more than two of macd's tiles, ten of bollinger's */

typedef struct rule_case {
    const char *kernel, *rule;
} rule_case;

static const rule_case rule_cases[] = {
    {"bollinger", "bands_revert"}, {"bollinger", "bands_zone"}, {"macd", "macd_cross"}};

/* A random walk of rows x cols around 100 with gaps: NaN runs, one of a bar and one longer
 * than the warm-ups, in every row. */
static double *walk_with_gaps(size_t rows, size_t cols, uint64_t seed) {
    double *x = malloc(rows * cols * sizeof *x);
    cr_assert_not_null(x);
    for (size_t r = 0; r < rows; r++) {
        apo__test_random_walk(seed + r, cols, 100.0, 0.5, x + r * cols);
        if (cols > 1000) {
            x[r * cols + 777] = NAN;
            for (size_t t = 5000 + 100 * r; t < 5060 + 100 * r && t < cols; t++)
                x[r * cols + t] = NAN;
        }
    }
    return x;
}

/* ---- the independent evaluation ------------------------------------------------------- */

static int ref_position(const char *rule, int prev, double close, const double *o) {
    if (strcmp(rule, "macd_cross") == 0)
        return o[2] > 0 ? 1 : o[2] < 0 ? -1 : 0;
    if (strcmp(rule, "bands_zone") == 0) {
        if (close < o[2])
            return 1;
        return close > o[0] ? -1 : 0;
    }
    if (isnan(o[0]) || isnan(o[1]) || isnan(o[2]))
        return 0;
    if (prev == 0)
        return close < o[2] ? 1 : (close > o[0] ? -1 : 0);
    if (prev == 1)
        return close >= o[1] ? 0 : 1;
    return close <= o[1] ? 0 : -1;
}

/* The scores of one series from its closes and its indicator outputs out[k][t], as the
 * definition reads, in long double. */
static void ref_scores(const char *rule, const double *close, double *const out[3], size_t n,
                       double cost, double periods, long double *s) {
    int *pos = malloc((n + 1) * sizeof *pos);
    cr_assert_not_null(pos);
    size_t first_finite = n; /* the first bar whose outputs are all finite */
    for (size_t t = 0; t < n; t++) {
        double o[3] = {out[0][t], out[1][t], out[2][t]};
        int prev = t > 0 ? pos[t - 1] : 0;
        pos[t] = isfinite(close[t]) ? ref_position(rule, prev, close[t], o) : prev;
        if (first_finite == n && isfinite(o[0]) && isfinite(o[1]) && isfinite(o[2]))
            first_finite = t;
    }
    apo__ref_scores_of_positions(close, pos, n, first_finite, cost, periods, s);
    free(pos);
}

/* ---- calls ------------------------------------------------------------------------------ */

/* A scored call: scores[k] holds score k of each (set, row), out_rows of them. */
typedef struct scored_call {
    const char *kernel, *rule;
    const double *x;
    size_t rows, cols;
    const apo_param *params;
    size_t n_params;
    const apo_sweep *sweep;
    const size_t *row_lengths;
    apo_split split;
    const double *ratios;
    size_t n_ratios;
} scored_call;

static double *run_scored(apo_runtime *rt, const scored_call *c, size_t *out_rows) {
    const double *in[1] = {c->x};
    apo_workload w = test_workload(c->kernel, c->rows, c->cols, in, 1, NULL, 0);
    w.score = c->rule;
    w.params = c->params;
    w.n_params = c->n_params;
    w.sweep = c->sweep;
    w.row_lengths = c->row_lengths;
    w.split = c->split;
    w.ratios = c->ratios;
    w.n_ratios = c->n_ratios;
    w.learn = APO_SWITCH_OFF;
    size_t one = 0;
    double *mem = score_run(rt, &w, out_rows, &one);
    cr_assert_eq(one, 1);
    return mem;
}

/* A call of `kernel` under `rule` over rows x cols of x with `params` and nothing else set (no
 * sweep, devices or ragged rows), run as run_scored() runs it. */
static double *run_plain(apo_runtime *rt, const char *kernel, const char *rule, const double *x,
                         size_t rows, size_t cols, const apo_param *params, size_t n_params,
                         size_t *out_rows) {
    const scored_call c = {.kernel = kernel,
                           .rule = rule,
                           .x = x,
                           .rows = rows,
                           .cols = cols,
                           .params = params,
                           .n_params = n_params};
    return run_scored(rt, &c, out_rows);
}

static int same_bits(const double *a, const double *b, size_t n) {
    return memcmp(a, b, n * sizeof *a) == 0;
}

/* The indicator's own outputs for rule case rc over the ROWS x COLS of x, into out
 * (score_indicator_free() frees them), and its scored call under p, returned (the caller frees
 * it; ROWS rows of scores): the two that the checks of scores against the outputs start from. */
static double *outputs_and_scores(apo_runtime *rt, const rule_case *rc, const double *x,
                                  const apo_param *p, size_t n_p, double *out[3]) {
    cr_assert_eq(score_indicator(rt, rc->kernel, x, ROWS, COLS, NULL, 0, out), 3, "%s", rc->kernel);
    size_t rows;
    double *s = run_plain(rt, rc->kernel, rc->rule, x, ROWS, COLS, p, n_p, &rows);
    cr_assert_eq(rows, ROWS, "%s:%s scored %zu rows", rc->kernel, rc->rule, rows);
    return s;
}

/* Row r of the ROWS x COLS outputs out, as three views. */
static void outputs_of_row(double *const out[3], size_t r, double *o[3]) {
    for (int k = 0; k < 3; k++)
        o[k] = out[k] + r * COLS;
}

/* One row of a rule case's scored call, as each_row_scored() hands it to a check: the row's
 * closes and indicator outputs, its scores (score k at s[k * ROWS]) and the call's cost and
 * periods_per_year. */
typedef struct row_scores {
    const rule_case *rc;
    size_t r;
    const double *close;
    double *o[3];
    const double *s;
    double cost, periods;
} row_scores;

/* For each rule case and each of the n_costs costs, on a ROWS x COLS walk with gaps (seed):
 * the indicator's outputs and the scored call at that cost (and at `periods` a year; 0 leaves
 * it to its default, 252), then check() of every row. The checks of scores against the
 * outputs they come from share this loop. */
static void each_row_scored(uint64_t seed, const double *costs, size_t n_costs, double periods,
                            void (*check)(const row_scores *rs)) {
    apo_runtime *rt = test_runtime("cpu");
    double *x = walk_with_gaps(ROWS, COLS, seed);
    for (size_t i = 0; i < sizeof rule_cases / sizeof rule_cases[0]; i++) {
        for (size_t ci = 0; ci < n_costs; ci++) {
            const apo_param p[2] = {{"cost", costs[ci]}, {"periods_per_year", periods}};
            double *out[3];
            double *s = outputs_and_scores(rt, &rule_cases[i], x, p, periods > 0 ? 2 : 1, out);
            for (size_t r = 0; r < ROWS; r++) {
                row_scores rs = {.rc = &rule_cases[i],
                                 .r = r,
                                 .close = x + r * COLS,
                                 .s = s + r,
                                 .cost = costs[ci],
                                 .periods = periods > 0 ? periods : 252};
                outputs_of_row(out, r, rs.o);
                check(&rs);
            }
            free(s);
            score_indicator_free(out);
        }
    }
    free(x);
    apo_runtime_destroy(rt);
}

/* ---- tests ------------------------------------------------------------------------------ */

static void check_against_definition(const row_scores *rs) {
    long double want[APO_N_SCORES];
    ref_scores(rs->rc->rule, rs->close, rs->o, COLS, rs->cost, rs->periods, want);
    cr_assert_gt(want[APO_SCORE_BARS], COLS / 2, "the walk is scored");
    cr_assert_gt(want[APO_SCORE_TRADES], 10, "%s trades", rs->rc->rule);
    for (int k = 0; k < APO_N_SCORES; k++) {
        double got = rs->s[k * ROWS];
        long double err = fabsl((long double)got - want[k]);
        long double scale = fabsl(want[k]) > 1e-3L ? fabsl(want[k]) : 1e-3L;
        cr_assert(err <= 1e-9L * scale, "%s:%s cost %g row %zu score %d: %.17g, want %.17Lg",
                  rs->rc->kernel, rs->rc->rule, rs->cost, rs->r, k, got, want[k]);
    }
}

Test(scores, every_rule_matches_the_long_double_definition, .timeout = 300) {
    const double costs[] = {0.0, 0.0005};
    each_row_scored(41, costs, 2, 390.0 * 252, check_against_definition);
}

static void check_against_materialised(const row_scores *rs) {
    double want[APO_N_SCORES];
    cr_assert_eq(apo_score_outputs(rs->rc->kernel, rs->rc->rule, rs->close,
                                   (const double *const *)rs->o, 3, COLS, rs->cost, rs->periods,
                                   want),
                 APO_OK, "%s", apo_last_error());
    for (int k = 0; k < APO_N_SCORES; k++)
        cr_assert(same_bits(&rs->s[k * ROWS], &want[k], 1),
                  "%s:%s row %zu score %d: scored %.17g, materialised %.17g", rs->rc->kernel,
                  rs->rc->rule, rs->r, k, rs->s[k * ROWS], want[k]);
}

Test(scores, scored_calls_equal_the_materialised_outputs_scored_bitwise, .timeout = 300) {
    const double cost = 0.001;
    each_row_scored(42, &cost, 1, 0, check_against_materialised);
}

Test(scores, same_bits_on_any_devices_ratios_and_axis, .timeout = 300) {
    apo_runtime *one = test_runtime("cpu");
    apo_runtime *many = test_runtime("cpu,sim:a:rate=3e8,sim:b:rate=1e8");
    const size_t rows = 7, cols = 9000;
    double *x = walk_with_gaps(rows, cols, 43);
    const double ratios[3] = {0.2, 0.7, 0.1};
    for (size_t i = 0; i < sizeof rule_cases / sizeof rule_cases[0]; i++) {
        scored_call c = {.kernel = rule_cases[i].kernel,
                         .rule = rule_cases[i].rule,
                         .x = x,
                         .rows = rows,
                         .cols = cols};
        size_t n;
        double *want = run_scored(one, &c, &n);
        const apo_split splits[] = {APO_SPLIT_AUTO, APO_SPLIT_ROWS, APO_SPLIT_TIME};
        for (size_t a = 0; a < 3; a++) {
            c.split = splits[a];
            c.ratios = a == 1 ? ratios : NULL;
            c.n_ratios = a == 1 ? 3 : 0;
            double *got = run_scored(many, &c, &n);
            cr_assert(same_bits(got, want, APO_N_SCORES * n), "%s:%s split %d",
                      rule_cases[i].kernel, rule_cases[i].rule, (int)splits[a]);
            free(got);
        }
        free(want);
    }
    free(x);
    apo_runtime_destroy(many);
    apo_runtime_destroy(one);
}

Test(scores, a_sweep_gives_each_set_the_scores_of_its_call_alone, .timeout = 300) {
    apo_runtime *rt = test_runtime("cpu,sim:a:rate=2e8");
    const size_t rows = 2, cols = 6000;
    double *x = walk_with_gaps(rows, cols, 44);
    const double periods[] = {10, 20, 35};
    const double widths[] = {1.5, 2.0};
    const double costs[] = {0.0, 0.002};
    apo_sweep_param grid[3] = {{"period", periods, 3}, {"nbdev_up", widths, 2}, {"cost", costs, 2}};
    apo_sweep sweep = APO_SWEEP_INIT;
    sweep.grid = grid;
    sweep.n_grid = 3;
    scored_call c = {
        .kernel = "bollinger", .rule = "bands_revert", .x = x, .rows = rows, .cols = cols};
    c.sweep = &sweep;
    size_t n;
    double *all = run_scored(rt, &c, &n);
    cr_assert_eq(n, 12 * rows);
    size_t set = 0;
    for (size_t a = 0; a < 3; a++)
        for (size_t b = 0; b < 2; b++)
            for (size_t d = 0; d < 2; d++, set++) {
                apo_param p[3] = {
                    {"period", periods[a]}, {"nbdev_up", widths[b]}, {"cost", costs[d]}};
                size_t m;
                double *s = run_plain(rt, "bollinger", "bands_revert", x, rows, cols, p, 3, &m);
                for (int k = 0; k < APO_N_SCORES; k++)
                    cr_assert(same_bits(all + k * n + set * rows, s + k * m, rows),
                              "set %zu score %d", set, k);
                free(s);
            }
    free(all);
    free(x);
    apo_runtime_destroy(rt);
}

/* Runs sets [first, first + n_run) of a grid sweep (n_run 0: all) on `rt` and checks each
 * set's scores bitwise against a call of that set alone on `alone`. The grid's first
 * parameter varies slowest. */
static void check_sweep_against_sets(apo_runtime *rt, apo_runtime *alone, const char *kernel,
                                     const char *rule, const double *x, size_t rows, size_t cols,
                                     const apo_sweep_param *grid, size_t n_grid, apo_split split,
                                     size_t first, size_t n_run) {
    apo_sweep sweep = APO_SWEEP_INIT;
    sweep.grid = grid;
    sweep.n_grid = n_grid;
    sweep.first_set = first;
    sweep.n_sets_run = n_run;
    scored_call c = {.kernel = kernel, .rule = rule, .x = x, .rows = rows, .cols = cols};
    c.sweep = &sweep;
    c.split = split;
    size_t n;
    double *all = run_scored(rt, &c, &n);
    cr_assert_eq(n % rows, 0);
    for (size_t i = 0; i < n / rows; i++) {
        apo_param p[APO_MAX_PARAMS];
        size_t s = first + i;
        for (size_t j = n_grid; j-- > 0;) {
            p[j] = (apo_param){grid[j].name, grid[j].values[s % grid[j].n_values]};
            s /= grid[j].n_values;
        }
        size_t m;
        double *want = run_plain(alone, kernel, rule, x, rows, cols, p, n_grid, &m);
        for (int k = 0; k < APO_N_SCORES; k++)
            cr_assert(same_bits(all + k * n + i * rows, want + k * m, rows),
                      "%s:%s split %d, set %zu of those run from %zu, score %d", kernel, rule,
                      (int)split, i, first, k);
        free(want);
    }
    free(all);
}

/* Sets that differ only in band widths (bollinger) or in cost (every rule) run one pass per
 * row on the cpu; each set's scores are those of its call alone, whether the sweep runs
 * whole on the cpu, is cut between devices, or runs a range of sets that cuts a group. */
Test(scores, sets_that_share_a_pass_score_bitwise_as_each_set_alone, .timeout = 300) {
    apo_runtime *cpu = test_runtime("cpu");
    apo_runtime *many = test_runtime("cpu,sim:a:rate=2e8");
    const size_t rows = 3, cols = 6000;
    double *x = walk_with_gaps(rows, cols, 46);
    const double periods[] = {12, 30}, ups[] = {0.0, 1.5, 2.5}, dns[] = {-1.0, 2.0};
    const apo_sweep_param widths[3] = {
        {"period", periods, 2}, {"nbdev_up", ups, 3}, {"nbdev_dn", dns, 2}};
    const double signals[] = {5, 9}, costs[] = {0.0, 0.001, 0.01};
    const apo_sweep_param macd_grid[2] = {{"signal", signals, 2}, {"cost", costs, 3}};
    const char *band_rules[] = {"bands_revert", "bands_zone"};
    for (size_t r = 0; r < 2; r++) {
        check_sweep_against_sets(cpu, cpu, "bollinger", band_rules[r], x, rows, cols, widths, 3,
                                 APO_SPLIT_AUTO, 0, 0);
        check_sweep_against_sets(many, cpu, "bollinger", band_rules[r], x, rows, cols, widths, 3,
                                 APO_SPLIT_ROWS, 0, 0);
        check_sweep_against_sets(cpu, cpu, "bollinger", band_rules[r], x, rows, cols, widths, 3,
                                 APO_SPLIT_AUTO, 3, 5);
    }
    check_sweep_against_sets(cpu, cpu, "macd", "macd_cross", x, rows, cols, macd_grid, 2,
                             APO_SPLIT_AUTO, 0, 0);
    check_sweep_against_sets(many, cpu, "macd", "macd_cross", x, rows, cols, macd_grid, 2,
                             APO_SPLIT_ROWS, 0, 0);
    free(x);
    apo_runtime_destroy(many);
    apo_runtime_destroy(cpu);
}

/* Sets of several periods (bollinger's passes) run as one call on the cpu, their folds sharing
 * rounds of lanes, a round reading one pass or several (docs/scores.md, "Sets of several
 * periods"): each set scores bitwise as its call alone, in the plain view and the views that
 * fold more, on every side, on the widest vector path and on sse2's (two lanes), over gaps,
 * rows of three tiles and flat stretches (a flat sd): one of 100 bars, flat in every pass, and
 * one of 15, flat in the passes of periods 13 and 8 only, where each period's four sets of the
 * first grid fill rounds of avx2, paired with the next period's (21 beside 13). */
/* The sets of several periods' case: its series and the two grids. */
typedef struct rounds_case {
    const double *x;
    size_t rows, cols;
    const apo_sweep_param (*grids)[3];
} rounds_case;

/* Each rule over each grid, its sweep against its sets alone, on the runtime rt. */
static void check_rounds(apo_runtime *rt, size_t path, void *arg) {
    (void)path;
    const rounds_case *rc = arg;
    const char *rules[] = {"bands_revert", "bands_zone/more", "bands_revert/compound"};
    for (size_t g = 0; g < 2; g++)
        for (size_t r = 0; r < sizeof rules / sizeof rules[0]; r++)
            check_sweep_against_sets(rt, rt, "bollinger", rules[r], rc->x, rc->rows, rc->cols,
                                     rc->grids[g], 3, APO_SPLIT_AUTO, 0, 0);
}

Test(scores, sets_of_several_periods_share_rounds_and_score_as_each_set_alone, .timeout = 300) {
    /* The runtime's choice, and each path by name: on Zen 4 the choice is avx2 for these sets
     * (apo__scored_path_on), so avx512's rounds are reached by name. */
    const size_t rows = 2, cols = 9000;
    double *x = walk_with_gaps(rows, cols, 48);
    for (size_t r = 0; r < rows; r++) {
        for (size_t t = 2000; t < 2100; t++)
            x[r * cols + t] = 100.0;
        for (size_t t = 3000; t < 3015; t++)
            x[r * cols + t] = 101.0;
    }
    const double periods[] = {55, 34, 21, 13, 8};
    const double ups[] = {0.5, 1.5, 2.5}, sides[] = {-1, 0, 1};
    const apo_sweep_param grids[2][3] = {
        {{"period", periods, 5}, {"nbdev_up", ups, 2}, {"side", sides + 1, 2}},
        {{"period", periods, 5}, {"nbdev_up", ups, 3}, {"side", sides, 3}}};
    rounds_case rc = {x, rows, cols, grids};
    test_each_host_path(check_rounds, &rc);
    free(x);
}

/* The path a scored call takes where the runtime picks it: avx2 for sets of several passes
 * folded together, from avx512 on a CPU that runs 512-bit operations in halves (Zen 4) only;
 * every other case keeps the widest. */
Test(scores, sets_of_several_periods_take_avx2_on_halved_avx512_only, .timeout = 60) {
    const int sse2 = APO_CPU_ISA_SSE2, avx2 = APO_CPU_ISA_AVX2, avx512 = APO_CPU_ISA_AVX512;
    const struct {
        size_t n_passes;
        int own, widest, kind, want;
    } cases[] = {
        {2, 1, avx512, APO_AVX512_AMD_HALVED, avx2},
        {12, 1, avx512, APO_AVX512_AMD_HALVED, avx2},
        {1, 1, avx512, APO_AVX512_AMD_HALVED, avx512},
        {2, 0, avx512, APO_AVX512_AMD_HALVED, avx512},
        {2, 1, avx512, APO_AVX512_AMD_WHOLE, avx512},
        {2, 1, avx512, APO_AVX512_INTEL, avx512},
        {2, 1, avx512, APO_AVX512_MEASURED_NONE, avx512},
        {2, 1, avx2, APO_AVX512_AMD_HALVED, avx2},
        {2, 1, sse2, APO_AVX512_AMD_HALVED, sse2},
    };
    const int has_avx2 = apo__cpu_isa_supported(APO_CPU_ISA_AVX2);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const int want = cases[i].want == avx2 && cases[i].widest == avx512 && !has_avx2
                             ? avx512
                             : cases[i].want;
        cr_assert_eq(
            apo__scored_path_on(cases[i].n_passes, cases[i].own, cases[i].widest, cases[i].kind),
            want, "case %zu", i);
    }
}

/* The calls of sets `params` (every parameter of k, n_sets of them) over one row of x. */
static void set_calls(const apo__kernel *k, const double *x, size_t cols, const double *params,
                      size_t n_sets, apo__call *calls, double *scores, double *(*outs)[APO_MAX_IO],
                      const double **in) {
    *in = x;
    for (size_t j = 0; j < n_sets; j++) {
        apo__call *c = &calls[j];
        memset(c, 0, sizeof *c);
        c->kernel = k;
        c->rows = 1;
        c->cols = cols;
        c->inputs = in;
        for (int o = 0; o < APO_N_SCORES; o++)
            outs[j][o] = &scores[j * APO_N_SCORES + o];
        c->outputs = outs[j];
        memcpy(c->params, params + j * k->n_params, k->n_params * sizeof *params);
        c->ctx = &apo__call_ctx_host;
        apo__call_grid(c);
    }
}

/* Which sets share a pass, and a call of several that writes each the scores of its own. */
Test(scores, a_shared_call_gives_each_set_the_scores_of_its_own, .timeout = 60) {
    const apo__kernel *k = apo__scored_kernel_find("bollinger:bands_revert");
    const apo__kernel *mk = apo__scored_kernel_find("macd:macd_cross");
    cr_assert(k != NULL && mk != NULL && k->shares_pass != NULL);
    /* period, nbdev_up, nbdev_dn, cost, periods_per_year, side */
    const double sets[4][6] = {{20, 2, 2, 0, 252, 0},
                               {20, 0.5, -1, 0.001, 252, 0},
                               {20, 3, 1, 0, 98280, 0},
                               {21, 2, 2, 0, 252, 0}};
    cr_assert_eq(k->n_params, 6);
    cr_assert(k->shares_pass(k, sets[0], sets[1]) && k->shares_pass(k, sets[0], sets[2]));
    cr_assert(!k->shares_pass(k, sets[0], sets[3]), "another period is another pass");
    /* fast, slow, signal, cost, periods_per_year, side */
    const double m0[6] = {12, 26, 9, 0, 252, 0}, m1[6] = {12, 26, 9, 0.01, 252, 1},
                 m2[6] = {12, 26, 10, 0, 252, 0};
    cr_assert(mk->shares_pass(mk, m0, m1), "cost and side only enter the fold");
    cr_assert(!mk->shares_pass(mk, m0, m2), "signal moves where a tile restarts the EMAs");

    const size_t cols = 9000;
    double *x = walk_with_gaps(1, cols, 47);
    apo__call alone[3], group[3];
    double want[3 * APO_N_SCORES], got[3 * APO_N_SCORES];
    double *want_outs[3][APO_MAX_IO], *got_outs[3][APO_MAX_IO];
    const double *in_a, *in_g;
    set_calls(k, x, cols, &sets[0][0], 3, alone, want, want_outs, &in_a);
    set_calls(k, x, cols, &sets[0][0], 3, group, got, got_outs, &in_g);
    for (size_t j = 0; j < 3; j++)
        cr_assert_eq(k->run_tile(&alone[j], 0, 0, 1, NULL), APO_OK);
    apo__call shared = group[0];
    shared.shared = group;
    shared.n_shared = 3;
    for (size_t i = 0; i < 3 * APO_N_SCORES; i++)
        got[i] = -12345.0;
    cr_assert_eq(k->run_tile(&shared, 0, 0, 1, NULL), APO_OK, "%s", apo_last_error());
    cr_assert(same_bits(got, want, 3 * APO_N_SCORES), "the shared call's scores");
    cr_assert_neq(want[APO_SCORE_TRADES], want[APO_N_SCORES + APO_SCORE_TRADES],
                  "the widths trade differently");
    free(x);
}

Test(scores, ragged_rows_give_each_series_its_own_scores, .timeout = 300) {
    apo_runtime *rt = test_runtime("cpu,sim:a:rate=2e8");
    const size_t rows = 3, cols = 20000;
    double *x = walk_with_gaps(rows, cols, 45);
    const size_t lengths[3] = {20000, 17, 12345};
    scored_call c = {.kernel = "macd", .rule = "macd_cross", .x = x, .rows = rows, .cols = cols};
    c.row_lengths = lengths;
    size_t n;
    double *all = run_scored(rt, &c, &n);
    for (size_t r = 0; r < rows; r++) {
        size_t m;
        double *s = run_plain(rt, "macd", "macd_cross", x + r * cols, 1, lengths[r], NULL, 0, &m);
        for (int k = 0; k < APO_N_SCORES; k++)
            cr_assert(same_bits(all + k * n + r, s + k * m, 1), "row %zu score %d", r, k);
        free(s);
    }
    /* 17 bars are fewer than macd's warm-up of 33: nothing to score. */
    cr_assert_eq(all[APO_SCORE_BARS * n + 1], 0.0);
    cr_assert_eq(all[APO_SCORE_TRADES * n + 1], 0.0);
    cr_assert(isnan(all[APO_SCORE_SHARPE * n + 1]) && isnan(all[APO_SCORE_TOTAL * n + 1]));
    free(all);
    free(x);
    apo_runtime_destroy(rt);
}

Test(scores, a_series_too_short_scores_no_bar, .timeout = 60) {
    apo_runtime *rt = test_runtime("cpu");
    double x[15];
    apo__test_random_walk(3, 15, 100.0, 0.5, x);
    size_t n;
    /* bollinger's period 20 is more than the 15 bars. */
    double *s = run_plain(rt, "bollinger", "bands_zone", x, 1, 15, NULL, 0, &n);
    cr_assert_eq(s[APO_SCORE_BARS], 0.0);
    cr_assert_eq(s[APO_SCORE_TRADES], 0.0);
    for (int k = 0; k < APO_N_SCORES; k++)
        if (k != APO_SCORE_BARS && k != APO_SCORE_TRADES)
            cr_assert(isnan(s[k]), "score %d is %g", k, s[k]);
    free(s);
    apo_runtime_destroy(rt);
}

/* Returns that never change have sd 0 exactly, hence sharpe NaN, though each is inexact
 * (-2 * 0.1): a flat close and an average alternately below and above it flip the position
 * every bar. A variance taken as mean(r^2) - mean(r)^2 would round to a few ulps of r^2
 * instead (docs/scores.md, "Returns and scores"). */
Test(scores, constant_returns_have_sd_zero_exactly, .timeout = 60) {
    enum { N = 1000 };
    double close[N], avg[N];
    for (size_t t = 0; t < N; t++) {
        close[t] = 100.0;
        avg[t] = t % 2 ? 101.0 : 99.0;
    }
    const double *outs[1] = {avg};
    double s[APO_N_SCORES];
    cr_assert_eq(apo_score_outputs("sma", "price_cross", close, outs, 1, N, 0.1, 252.0, s), APO_OK,
                 "%s", apo_last_error());
    cr_assert_eq(s[APO_SCORE_BARS], N - 1);
    cr_assert_eq(s[APO_SCORE_TRADES], N - 1);
    cr_assert(fabs(s[APO_SCORE_MEAN] + 0.2) < 1e-12, "mean %.17g", s[APO_SCORE_MEAN]);
    cr_assert_eq(s[APO_SCORE_SD], 0.0, "sd %.17g", s[APO_SCORE_SD]);
    cr_assert(isnan(s[APO_SCORE_SHARPE]), "sharpe %g", s[APO_SCORE_SHARPE]);
}

Test(scores, rules_are_refused_where_they_do_not_fit, .timeout = 60) {
    apo_runtime *rt = test_runtime("cpu");
    score_one_row s;
    score_one_row_init_walk(&s, "macd", "bands_revert");
    apo_workload *w = &s.w;
    test_assert_refused(apo_distribute_workload(rt, w, NULL), APO_ERR_INVALID_ARGUMENT,
                        "rule bands_revert does not fit kernel macd");
    w->score = "golden_cross";
    test_assert_refused(apo_distribute_workload(rt, w, NULL), APO_ERR_UNKNOWN_KERNEL,
                        "no rule named \"golden_cross\"");
    w->kernel = "mom";
    w->score = "macd_cross";
    test_assert_refused(apo_distribute_workload(rt, w, NULL), APO_ERR_INVALID_ARGUMENT,
                        "no rule reads its outputs yet");
    w->kernel = "bollinger";
    w->score = "bands_zone";
    apo_param bad[1] = {{"cost", -0.1}};
    w->params = bad;
    w->n_params = 1;
    test_assert_refused(apo_distribute_workload(rt, w, NULL), APO_ERR_BAD_PARAM, "cost");
    double o[1] = {0};
    const double *three[3] = {o, o, o};
    double sc[APO_N_SCORES];
    test_assert_refused(apo_score_outputs("macd", "bands_zone", s.walk, three, 3, 1, 0, 252, sc),
                        APO_ERR_INVALID_ARGUMENT, "does not fit");
    test_assert_refused(
        apo_score_outputs("bollinger", "bands_zone", s.walk, three, 2, 1, 0, 252, sc),
        APO_ERR_INVALID_ARGUMENT, "3 outputs, 2 were given");
    test_assert_refused(apo_score_outputs("bollinger", "bands_zone", s.walk, three, 3, 1, 0, 0, sc),
                        APO_ERR_BAD_PARAM, "periods_per_year");
    score_one_row_assert_unwritten(&s);
    apo_runtime_destroy(rt);
}
