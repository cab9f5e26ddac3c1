/*
 * test_score_rules.c: the rules on the catalog's indicators (docs/scores.md, "Rules"):
 * zone and revert rules with thresholds, crosses of two outputs and of the close with a
 * moving average, and the rules on any output ("Rules on any output": `zone.<output>`, a
 * signal held between events). Each rule's scores against positions taken by a naive reading of the
 * docs' table over the plain indicator call's outputs, the returns and scores in long
 * double; bitwise equality with those outputs scored by apo_score_outputs_with(), and across
 * devices; a sweep over thresholds that shares one indicator pass, and one over cost for
 * every rule (the sets' folds in vector lanes); thresholds that leave no
 * zone, and rules on kernels they do not fit, refused with the reason. test_scores.c holds
 * what every scored kernel shares (splits, ragged rows, sweeps of the indicator).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/call_span.h"
#include "catalog/scored_kernels.h"
#include "catalog_reference.h"
#include "helpers.h"
#include "reference.h"
#include "score_fixtures.h"
#include "score_reference.h"

#define ROWS 2
#define COLS 3000 /* several of the moving averages' tiles would be slower; scores, not tiles */

typedef struct rule_case {
    const char *kernel, *rule;
    size_t n_in;         /* 1: close; 3: high, low, close; 4: and volume */
    int thresholds;      /* the rule takes lower and upper */
    double lower, upper; /* other thresholds than the defaults, for a second call; a rule on
                          * any output has no defaults and takes these in every call */
    int a, b;            /* a rule on any output: the outputs it reads */
} rule_case;

static const rule_case cases[] = {
    {"rsi", "rsi_zone", 1, 1, 40, 60, 0, 0},
    {"rsi", "rsi_revert", 1, 1, 35, 65, 0, 0},
    {"stochf", "stochf_zone", 3, 1, 10, 90, 0, 0},
    {"stochf", "stochf_revert", 3, 1, 25, 75, 0, 0},
    {"stochf", "stochf_cross", 3, 0, 0, 0, 0, 0},
    {"stoch", "stoch_cross", 3, 0, 0, 0, 0, 0},
    {"willr", "willr_zone", 3, 1, -70, -30, 0, 0},
    {"willr", "willr_revert", 3, 1, -90, -10, 0, 0},
    {"cci", "cci_zone", 3, 1, -50, 150, 0, 0},
    {"cci", "cci_revert", 3, 1, -100, 100, 0, 0},
    {"mfi", "mfi_zone", 4, 1, 30, 70, 0, 0},
    {"mfi", "mfi_revert", 4, 1, 25, 75, 0, 0},
    {"cmo", "cmo_zone", 1, 1, -30, 30, 0, 0},
    {"cmo", "cmo_revert", 1, 1, -40, 60, 0, 0},
    {"sma", "price_cross", 1, 0, 0, 0, 0, 0},
    {"ema", "price_cross", 1, 0, 0, 0, 0, 0},
    {"wma", "price_cross", 1, 0, 0, 0, 0, 0},
    {"dema", "price_cross", 1, 0, 0, 0, 0, 0},
    {"tema", "price_cross", 1, 0, 0, 0, 0, 0},
    {"kama", "price_cross", 1, 0, 0, 0, 0, 0},
    /* Rules on any output, by name (and by position where the kind alone fits). */
    {"rsi", "zone.rsi", 1, 1, 35, 65, 0, 0},
    {"stochf", "revert.fastd", 3, 1, 25, 75, 1, 0},
    {"stoch", "cross.slowd.slowk", 3, 0, 0, 0, 1, 0},
    {"stoch", "cross", 3, 0, 0, 0, 0, 1},
    {"bollinger", "price_cross.middle", 1, 0, 0, 0, 1, 0},
    {"macd", "signal.hist", 1, 0, 0, 0, 2, 0},
    {"mom", "signal", 1, 0, 0, 0, 0, 0},
};
#define N_CASES (sizeof cases / sizeof cases[0])

/* The bars: inputs[0 .. 3] are high, low, close, volume of rows x cols, with a gap of one
 * bar and one of 60 bars (longer than the warm-ups) in every row. */
typedef struct bars {
    double *col[4];
} bars;

static bars make_bars(size_t rows, size_t cols, uint64_t seed) {
    bars b;
    for (int i = 0; i < 4; i++) {
        b.col[i] = malloc(rows * cols * sizeof(double));
        cr_assert_not_null(b.col[i]);
    }
    for (size_t r = 0; r < rows; r++) {
        const size_t o = r * cols;
        apo__ref_ohlcv(seed + r, cols, 100.0, 0.5, NULL, b.col[0] + o, b.col[1] + o, b.col[2] + o,
                       b.col[3] + o);
        for (size_t t = 0; t < cols; t++)
            if (t == 377 || (t >= 1500 + 50 * r && t < 1560 + 50 * r))
                for (int i = 0; i < 4; i++)
                    b.col[i][o + t] = NAN;
    }
    return b;
}

static void free_bars(bars *b) {
    for (int i = 0; i < 4; i++)
        free(b->col[i]);
}

/* The kernel's inputs from the bars, in its order. */
static void inputs_of(const rule_case *c, const bars *b, size_t offset, const double **in) {
    if (c->n_in == 1) {
        in[0] = b->col[2] + offset;
        return;
    }
    for (size_t i = 0; i < c->n_in; i++)
        in[i] = b->col[i] + offset;
}

/* ---- the naive reading of docs/kernels.md's table ---------------------------------------- */

static int ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static int sign_of(double a, double b) {
    if (a > b)
        return 1;
    if (a < b)
        return -1;
    return 0;
}

/* A zone's position: long below `lower`, short above `upper`, flat between (and at NaN). */
static int zone_position(double v, double lower, double upper) {
    return v < lower ? 1 : v > upper ? -1 : 0;
}

/* A reversion's position: entered as a zone's, held until v comes back to the middle of the
 * band; flat at NaN. */
static int revert_position(double v, double lower, double upper, int prev) {
    if (isnan(v))
        return 0;
    const double middle = (lower + upper) / 2;
    if (prev == 1)
        return v >= middle ? 0 : 1;
    if (prev == -1)
        return v <= middle ? 0 : -1;
    return zone_position(v, lower, upper);
}

static int starts_with(const char *s, const char *prefix) {
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* A rule on any output, read from the docs' table of kinds: the outputs a (and b) of c. */
static int ref_generic_position(const rule_case *c, double lower, double upper, int prev,
                                double close, const double *o) {
    const double v = o[c->a];
    if (starts_with(c->rule, "price_cross"))
        return sign_of(close, v);
    if (starts_with(c->rule, "cross"))
        return sign_of(v, o[c->b]);
    if (starts_with(c->rule, "signal")) /* an event's side, held until the other side's */
        return v > 0 ? 1 : v < 0 ? -1 : prev;
    if (starts_with(c->rule, "zone"))
        return zone_position(v, lower, upper);
    return revert_position(v, lower, upper, prev);
}

/* Whether c's rule is one on any output: `<kind>.<output>...`, or a kind's name alone. */
static int generic(const rule_case *c) {
    static const char *const kinds[] = {"zone", "revert", "cross", "signal"};
    int alone = 0;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        alone |= strcmp(c->rule, kinds[i]) == 0;
    return alone || strchr(c->rule, '.') != NULL;
}

static int ref_position(const rule_case *c, double lower, double upper, int prev, double close,
                        const double *o) {
    const char *rule = c->rule;
    if (generic(c))
        return ref_generic_position(c, lower, upper, prev, close, o);
    if (strcmp(rule, "price_cross") == 0)
        return sign_of(close, o[0]);
    if (ends_with(rule, "_cross")) /* slowk against slowd, fastk against fastd */
        return sign_of(o[0], o[1]);
    if (ends_with(rule, "_zone"))
        return zone_position(o[0], lower, upper);
    return revert_position(o[0], lower, upper, prev); /* _revert */
}

/* The scores of one series from its closes and the n_out outputs out[k][t], in long double. */
static void ref_scores(const rule_case *c, double lower, double upper, const double *close,
                       double *const *out, size_t n_out, size_t n, double cost, double periods,
                       long double *s) {
    int *pos = malloc(n * sizeof *pos);
    cr_assert_not_null(pos);
    size_t first = n; /* the first bar whose outputs are all finite */
    for (size_t t = 0; t < n; t++) {
        double o[APO_MAX_IO];
        int finite = 1;
        for (size_t k = 0; k < n_out; k++) {
            o[k] = out[k][t];
            finite = finite && isfinite(o[k]);
        }
        const int prev = t > 0 ? pos[t - 1] : 0;
        pos[t] = isfinite(close[t]) ? ref_position(c, lower, upper, prev, close[t], o) : prev;
        if (first == n && finite)
            first = t;
    }
    apo__ref_scores_of_positions(close, pos, n, first, cost, periods, s);
    free(pos);
}

/* ---- calls ------------------------------------------------------------------------------ */

/* The plain indicator call: its n_out outputs over the bars. */
static size_t indicator(apo_runtime *rt, const rule_case *c, const bars *b, double **out) {
    apo_kernel_info info = APO_KERNEL_INFO_INIT;
    cr_assert_eq(apo_kernel_get(rt, c->kernel, &info), APO_OK, "%s", apo_last_error());
    for (size_t k = 0; k < info.n_outputs; k++) {
        out[k] = malloc(ROWS * COLS * sizeof(double));
        cr_assert_not_null(out[k]);
    }
    const double *in[4];
    inputs_of(c, b, 0, in);
    apo_workload w = test_workload(c->kernel, ROWS, COLS, in, c->n_in, out, info.n_outputs);
    w.learn = APO_SWITCH_OFF;
    cr_assert_eq(apo_distribute_workload(rt, &w, NULL), APO_OK, "%s", apo_last_error());
    return info.n_outputs;
}

/* The parameters p of a call of c, and a rule on any output's thresholds (it has no
 * defaults) where p does not give them; returns their count. */
static size_t params_of(const rule_case *c, const apo_param *p, size_t n_p, apo_param *all) {
    int given = 0;
    for (size_t i = 0; i < n_p; i++) {
        all[i] = p[i];
        given |= strcmp(p[i].name, "lower") == 0;
    }
    if (generic(c) && c->thresholds && !given) {
        all[n_p++] = (apo_param){"lower", c->lower};
        all[n_p++] = (apo_param){"upper", c->upper};
    }
    return n_p;
}

/* A scored call of the case over the bars; scores[k * rows + r] is score k of row r (set
 * major with a sweep). */
static double *scored(apo_runtime *rt, const rule_case *c, const bars *b, const apo_param *given,
                      size_t n_given, const apo_sweep *sweep, apo_split split, size_t *out_rows) {
    apo_param p[APO_MAX_PARAMS];
    const size_t n_p = params_of(c, given, n_given, p);
    const double *in[4];
    inputs_of(c, b, 0, in);
    apo_workload w = test_workload(c->kernel, ROWS, COLS, in, c->n_in, NULL, 0);
    w.score = c->rule;
    w.params = p;
    w.n_params = n_p;
    w.sweep = sweep;
    w.split = split;
    w.learn = APO_SWITCH_OFF;
    return score_run(rt, &w, out_rows, NULL);
}

static int same_bits(const double *a, const double *b, size_t n) {
    return memcmp(a, b, n * sizeof *a) == 0;
}

/* ---- tests ------------------------------------------------------------------------------ */

/* Every rule at its default thresholds without cost, and at others with cost: the scores
 * against the naive reading, and bitwise those of the same outputs scored in memory. */
Test(score_rules, every_rule_matches_the_docs_and_the_outputs_scored_in_memory, .timeout = 300) {
    apo_runtime *rt = test_runtime("cpu");
    bars b = make_bars(ROWS, COLS, 51);
    const double periods = 390.0 * 252;
    for (size_t i = 0; i < N_CASES; i++) {
        const rule_case *c = &cases[i];
        double *out[APO_MAX_IO];
        const size_t n_out = indicator(rt, c, &b, out);
        const apo__kernel *k = NULL;
        cr_assert_eq(apo__scored_kernel_of(c->kernel, c->rule, &k), APO_OK, "%s", apo_last_error());
        const size_t np = k->scoring->indicator->n_params;
        for (int second = 0; second < 2; second++) {
            const double cost = second ? 0.0005 : 0.0;
            /* The defaults, from the scored kernel's own parameters. */
            double lower = c->thresholds ? k->params[np].def : 0;
            double upper = c->thresholds ? k->params[np + 1].def : 0;
            if ((second || generic(c)) && c->thresholds)
                lower = c->lower, upper = c->upper;
            apo_param p[6];
            size_t n_p = 0;
            if (second && c->thresholds) {
                p[n_p++] = (apo_param){"lower", lower};
                p[n_p++] = (apo_param){"upper", upper};
            }
            p[n_p++] = (apo_param){"cost", cost};
            p[n_p++] = (apo_param){"periods_per_year", periods};
            apo_param all[APO_MAX_PARAMS];
            n_p = params_of(c, p, n_p, all);
            memcpy(p, all, n_p * sizeof p[0]);
            size_t rows;
            double *s = scored(rt, c, &b, p, n_p, NULL, APO_SPLIT_AUTO, &rows);
            cr_assert_eq(rows, ROWS);
            for (size_t r = 0; r < ROWS; r++) {
                double *o[APO_MAX_IO];
                for (size_t m = 0; m < n_out; m++)
                    o[m] = out[m] + r * COLS;
                const double *close = b.col[2] + r * COLS;
                long double want[APO_N_SCORES];
                ref_scores(c, lower, upper, close, o, n_out, COLS, cost, periods, want);
                cr_assert_gt(want[APO_SCORE_BARS], COLS / 2, "%s: the bars are scored", c->rule);
                cr_assert_gt(want[APO_SCORE_TRADES], 2, "%s:%s trades", c->kernel, c->rule);
                for (int m = 0; m < APO_N_SCORES; m++) {
                    const double got = s[m * rows + r];
                    const long double err = fabsl((long double)got - want[m]);
                    const long double scale = fabsl(want[m]) > 1e-3L ? fabsl(want[m]) : 1e-3L;
                    cr_assert(err <= 1e-9L * scale || (isnan(got) && isnan((double)want[m])),
                              "%s:%s (%g, %g) cost %g row %zu score %d: %.17g, want %.17Lg",
                              c->kernel, c->rule, lower, upper, cost, r, m, got, want[m]);
                }
                double mem[APO_N_SCORES];
                const double *const *oc = (const double *const *)o;
                cr_assert_eq(
                    apo_score_outputs_with(c->kernel, c->rule, close, oc, n_out, COLS, p, n_p, mem),
                    APO_OK, "%s", apo_last_error());
                for (int m = 0; m < APO_N_SCORES; m++)
                    cr_assert(same_bits(&s[m * rows + r], &mem[m], 1),
                              "%s:%s row %zu score %d: scored %.17g, in memory %.17g", c->kernel,
                              c->rule, r, m, s[m * rows + r], mem[m]);
                if (!second && !(generic(c) && c->thresholds)) { /* the default thresholds */
                    cr_assert_eq(apo_score_outputs(c->kernel, c->rule, close, oc, n_out, COLS, cost,
                                                   periods, mem),
                                 APO_OK, "%s", apo_last_error());
                    cr_assert(
                        same_bits(&s[r], &mem[0], 1) &&
                            same_bits(&s[APO_SCORE_SHARPE * rows + r], &mem[APO_SCORE_SHARPE], 1),
                        "%s:%s apo_score_outputs", c->kernel, c->rule);
                }
            }
            free(s);
        }
        for (size_t m = 0; m < n_out; m++)
            free(out[m]);
    }
    free_bars(&b);
    apo_runtime_destroy(rt);
}

Test(score_rules, same_bits_on_any_devices_and_split, .timeout = 300) {
    apo_runtime *one = test_runtime("cpu");
    apo_runtime *many = test_runtime("cpu,sim:a:rate=3e8,sim:b:rate=1e8");
    bars b = make_bars(ROWS, COLS, 52);
    const apo_split splits[] = {APO_SPLIT_AUTO, APO_SPLIT_ROWS, APO_SPLIT_TIME};
    for (size_t i = 0; i < N_CASES; i++) {
        size_t n;
        double *want = scored(one, &cases[i], &b, NULL, 0, NULL, APO_SPLIT_AUTO, &n);
        for (size_t a = 0; a < 3; a++) {
            size_t m;
            double *got = scored(many, &cases[i], &b, NULL, 0, NULL, splits[a], &m);
            cr_assert(m == n && same_bits(got, want, APO_N_SCORES * n), "%s:%s split %d",
                      cases[i].kernel, cases[i].rule, (int)splits[a]);
            free(got);
        }
        free(want);
    }
    free_bars(&b);
    apo_runtime_destroy(many);
    apo_runtime_destroy(one);
}

/* A sweep over thresholds and cost: the sets share one RSI pass (they differ in what only
 * the fold reads), and each set's scores are bitwise those of its call alone, whole on the
 * cpu and cut between devices. */
Test(score_rules, a_sweep_over_thresholds_shares_one_pass_and_keeps_each_sets_bits,
     .timeout = 300) {
    const apo__kernel *k = apo__scored_kernel_find("rsi:rsi_revert");
    cr_assert(k != NULL && k->shares_pass != NULL);
    /* timeperiod, lower, upper, cost, periods_per_year, side */
    const double s0[6] = {14, 30, 70, 0, 252, 0}, s1[6] = {14, 20, 80, 0.001, 98280, -1},
                 s2[6] = {15, 30, 70, 0, 252, 0};
    cr_assert(k->shares_pass(k, s0, s1), "thresholds enter only the fold");
    cr_assert(!k->shares_pass(k, s0, s2), "another period is another pass");

    apo_runtime *cpu = test_runtime("cpu");
    apo_runtime *many = test_runtime("cpu,sim:a:rate=2e8");
    bars b = make_bars(ROWS, COLS, 53);
    const double lowers[] = {20, 25, 30}, uppers[] = {70, 80}, costs[] = {0, 0.001};
    const apo_sweep_param grid[3] = {
        {"lower", lowers, 3}, {"upper", uppers, 2}, {"cost", costs, 2}};
    apo_sweep sweep = APO_SWEEP_INIT;
    sweep.grid = grid;
    sweep.n_grid = 3;
    const rule_case c = {"rsi", "rsi_revert", 1, 1, 0, 0, 0, 0};
    apo_runtime *rts[2] = {cpu, many};
    const apo_split split[2] = {APO_SPLIT_AUTO, APO_SPLIT_ROWS};
    for (int v = 0; v < 2; v++) {
        size_t n;
        double *all = scored(rts[v], &c, &b, NULL, 0, &sweep, split[v], &n);
        cr_assert_eq(n, 12 * ROWS);
        for (size_t set = 0; set < 12; set++) {
            apo_param p[3] = {{"lower", lowers[set / 4]},
                              {"upper", uppers[set / 2 % 2]},
                              {"cost", costs[set % 2]}};
            size_t m;
            double *alone = scored(cpu, &c, &b, p, 3, NULL, APO_SPLIT_AUTO, &m);
            for (int s = 0; s < APO_N_SCORES; s++)
                cr_assert(same_bits(all + s * n + set * ROWS, alone + s * m, ROWS),
                          "devices %d set %zu score %d", v, set, s);
            free(alone);
        }
        /* The thresholds matter: the sets do not all trade alike. */
        cr_assert_neq(all[APO_SCORE_TRADES * n], all[APO_SCORE_TRADES * n + 8 * ROWS]);
        free(all);
    }
    free_bars(&b);
    apo_runtime_destroy(many);
    apo_runtime_destroy(cpu);
}

/* Every rule over a sweep of five costs: the sets share the pass, and their folds run in the
 * lanes of a vector, a full round and a last one of fewer sets on a narrower path
 * (kernels/scores/score_sets.h); each set's scores are bitwise those of its call alone, and
 * the sets alone match the outputs scored in memory (the test above). */
Test(score_rules, a_sweep_over_cost_keeps_each_sets_bits_for_every_rule, .timeout = 300) {
    apo_runtime *cpu = test_runtime("cpu");
    bars b = make_bars(ROWS, COLS, 59);
    const double costs[] = {0.0, 0.0005, 0.001, 0.002, 0.005};
    const apo_sweep_param grid[1] = {{"cost", costs, 5}};
    apo_sweep sweep = APO_SWEEP_INIT;
    sweep.grid = grid;
    sweep.n_grid = 1;
    for (size_t i = 0; i < N_CASES; i++) {
        const rule_case *c = &cases[i];
        size_t n;
        double *all = scored(cpu, c, &b, NULL, 0, &sweep, APO_SPLIT_AUTO, &n);
        cr_assert_eq(n, 5 * ROWS);
        for (size_t set = 0; set < 5; set++) {
            const apo_param p[1] = {{"cost", costs[set]}};
            size_t m;
            double *alone = scored(cpu, c, &b, p, 1, NULL, APO_SPLIT_AUTO, &m);
            for (int s = 0; s < APO_N_SCORES; s++)
                cr_assert(same_bits(all + s * n + set * ROWS, alone + s * m, ROWS),
                          "%s:%s set %zu score %d", c->kernel, c->rule, set, s);
            free(alone);
        }
        /* The cost matters: the totals differ where the rule trades. */
        if (all[APO_SCORE_TRADES * n] > 0)
            cr_assert_neq(all[APO_SCORE_TOTAL * n], all[APO_SCORE_TOTAL * n + 4 * ROWS], "%s:%s",
                          c->kernel, c->rule);
        free(all);
    }
    free_bars(&b);
    apo_runtime_destroy(cpu);
}

Test(score_rules, thresholds_without_a_zone_and_rules_that_do_not_fit_are_refused, .timeout = 60) {
    apo_runtime *rt = test_runtime("cpu");
    score_one_row s;
    score_one_row_init_walk(&s, "rsi", "rsi_zone");
    const double *x = s.walk;
    apo_workload *w = &s.w;
    apo_param same[2] = {{"lower", 50}, {"upper", 50}};
    w->params = same;
    w->n_params = 2;
    test_assert_refused(apo_distribute_workload(rt, w, NULL), APO_ERR_BAD_PARAM,
                        "rsi:rsi_zone: lower (50) must be below upper (50)");
    apo_param crossed[1] = {{"lower", 80}}; /* above the default upper, 70 */
    w->params = crossed;
    w->n_params = 1;
    test_assert_refused(apo_distribute_workload(rt, w, NULL), APO_ERR_BAD_PARAM,
                        "must be below upper");
    apo_param outside[1] = {{"upper", 101}};
    w->params = outside;
    test_assert_refused(apo_distribute_workload(rt, w, NULL), APO_ERR_BAD_PARAM,
                        "upper must be from 0 to 100");
    /* A sweep checks each set: one whose thresholds cross is named. */
    const double lowers[] = {30, 75};
    const apo_sweep_param grid[1] = {{"lower", lowers, 2}};
    apo_sweep sweep = APO_SWEEP_INIT;
    sweep.grid = grid;
    sweep.n_grid = 1;
    w->params = NULL;
    w->n_params = 0;
    w->sweep = &sweep;
    size_t rows, cols;
    test_assert_refused(apo_output_shape(rt, w, 0, &rows, &cols), APO_ERR_BAD_PARAM,
                        "sweep set 1: rsi:rsi_zone: lower (75) must be below upper (70)");
    w->sweep = NULL;
    /* A rule on a kernel it does not fit, and the rules that do. */
    w->kernel = "ema";
    test_assert_refused(apo_distribute_workload(rt, w, NULL), APO_ERR_INVALID_ARGUMENT,
                        "rule rsi_zone does not fit kernel ema: it reads the outputs of another "
                        "kernel; the rules for it are price_cross");
    w->kernel = "rsi";
    w->score = "price_cross";
    test_assert_refused(apo_distribute_workload(rt, w, NULL), APO_ERR_INVALID_ARGUMENT,
                        "the rules for it are rsi_zone, rsi_revert");
    w->score = "stoch_zone"; /* not built: stoch's parameters leave no room (docs) */
    test_assert_refused(apo_distribute_workload(rt, w, NULL), APO_ERR_UNKNOWN_KERNEL,
                        "no rule named \"stoch_zone\" (rules: bands_revert, bands_zone, "
                        "macd_cross, rsi_zone, rsi_revert");
    test_assert_refused(apo_distribute_workload(rt, w, NULL), APO_ERR_UNKNOWN_KERNEL,
                        "stoch_cross");
    /* In memory: the same checks. */
    const double *one[1] = {x};
    apo_param bad[2] = {{"lower", 60}, {"upper", 40}};
    test_assert_refused(
        apo_score_outputs_with("rsi", "rsi_revert", x, one, 1, 100, bad, 2, s.scores),
        APO_ERR_BAD_PARAM, "lower (60) must be below upper (40)");
    apo_param unknown[1] = {{"threshold", 1}};
    test_assert_refused(
        apo_score_outputs_with("rsi", "rsi_revert", x, one, 1, 100, unknown, 1, s.scores),
        APO_ERR_BAD_PARAM, "has no parameter \"threshold\"");
    test_assert_refused(
        apo_score_outputs_with("sma", "rsi_zone", x, one, 1, 100, NULL, 0, s.scores),
        APO_ERR_INVALID_ARGUMENT, "the rules for it are price_cross");
    score_one_row_assert_unwritten(&s);
    apo_runtime_destroy(rt);
}

/* Rules on any output that cannot be built are refused with the reason: an output the
 * indicator lacks, a kind alone where it would have to guess the output, one output too
 * many, parameters past APO_MAX_PARAMS, a name past APO_NAME_MAX, a kernel that is no
 * built-in indicator; and a zone without thresholds, at the call. */
Test(score_rules, rules_on_any_output_that_cannot_be_built_are_refused, .timeout = 60) {
    static const struct {
        const char *kernel, *rule;
        apo_status status;
        const char *message;
    } refused[] = {
        {"rsi", "zone.foo", APO_ERR_INVALID_ARGUMENT,
         "rule zone.foo: rsi has no output \"foo\" (its outputs: rsi)"},
        {"stochf", "zone", APO_ERR_INVALID_ARGUMENT,
         "rule zone on stochf names the output it reads: zone.<output> (the outputs of stochf: "
         "fastk, fastd)"},
        {"rsi", "cross", APO_ERR_INVALID_ARGUMENT, "names the outputs it reads: cross.<a>.<b>"},
        {"stochf", "cross.fastk.fastd.fastk", APO_ERR_INVALID_ARGUMENT,
         "rule cross.fastk.fastd.fastk: cross reads 2 outputs"},
        {"stoch", "zone.slowk", APO_ERR_INVALID_ARGUMENT,
         "stoch cannot be scored so: its 5 parameters and the rule's 5 (lower, upper, cost, "
         "periods_per_year, side) are past APO_MAX_PARAMS (8)"},
        {"linearreg_slope", "signal.linearreg_slope", APO_ERR_INVALID_ARGUMENT,
         "is longer than 31 characters"},
        {"returns_stats", "signal", APO_ERR_INVALID_ARGUMENT, "cannot be scored"},
        {"rsi", "zone.rsi/sum", APO_ERR_UNKNOWN_KERNEL, "after the '/' comes compound"},
        /* price_cross alone stays the averages' rule of the table. */
        {"rsi", "price_cross", APO_ERR_INVALID_ARGUMENT, "the rules for it are rsi_zone"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        const apo__kernel *k = (const apo__kernel *)1;
        cr_assert_eq(apo__scored_kernel_of(refused[i].kernel, refused[i].rule, &k),
                     refused[i].status, "%s:%s: %s", refused[i].kernel, refused[i].rule,
                     apo_last_error());
        cr_assert_null(k, "%s:%s", refused[i].kernel, refused[i].rule);
        cr_assert(strstr(apo_last_error(), refused[i].message) != NULL, "%s:%s: %s",
                  refused[i].kernel, refused[i].rule, apo_last_error());
    }
    /* The same rule asked twice is one kernel, whatever the case of its output's name. */
    const apo__kernel *a = NULL, *b = NULL;
    cr_assert_eq(apo__scored_kernel_of("stochf", "revert.fastd", &a), APO_OK);
    cr_assert_eq(apo__scored_kernel_of("stochf", "revert.FastD", &b), APO_OK);
    cr_assert(a == b && strcmp(a->name, "stochf:revert.fastd") == 0, "%s", a->name);
    cr_assert_eq(apo__scored_kernel_find("stochf:revert.fastd"), a);

    apo_runtime *rt = test_runtime("cpu");
    score_one_row s;
    score_one_row_init_walk(&s, "rsi", "zone.rsi");
    apo_workload *w = &s.w;
    test_assert_refused(apo_distribute_workload(rt, w, NULL), APO_ERR_BAD_PARAM,
                        "rsi:zone.rsi: lower (0) must be below upper (0) (a rule on any output has "
                        "no thresholds of its own: give lower and upper)");
    score_one_row_assert_unwritten(&s);
    apo_runtime_destroy(rt);
}
