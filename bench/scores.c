/*
 * scores.c: the scored-sweep section of apo-bench-kernels (declared in scores.h; figures in
 * docs/perf-log/2026-11-23-scored-sweeps.md, "Scored sweeps").
 *
 * A scored call folds each set's scores bar by bar while its indicator is computed tile by
 * tile (docs/scores.md, "Scores"). Two costs make up a set-bar: the indicator's pass, which
 * sets that differ only in what it leaves out share (bollinger's band widths), and each
 * set's fold. The cases separate them: a lone set pays both, a shared pass of 5 widths pays
 * the pass once per 5 set-bars, and 2 and 3 widths are the groups smaller than avx2's round
 * of lanes (kernels/dispatch/lanes_dispatch.c picks how each is folded); 4 periods x 5 widths
 * pay 4 passes and fold their sets in rounds that mix the periods (docs/scores.md, "Sets of
 * several periods"), against 5 widths of one period the rounds they save.
 *
 * The runtime is one cpu thread ("cpu:threads=1"), so CPU time per set-bar is the work of a
 * set-bar on this machine whatever else runs on it: the machine is shared, and wall clock
 * would measure the neighbours. The cases run interleaved round by round; the table gives the
 * best and the median round. Before timing, each sweep's scores are compared bitwise with its
 * sets called alone (docs/api.md, "Sweeps"), so that a fast wrong answer is never a figure.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "scores.h"

#define SCORES_MAX_VALUES 5
#define SCORES_MAX_SETS (SCORES_MAX_VALUES * SCORES_MAX_VALUES)

typedef struct score_case {
    const char *label;
    const char *kernel, *rule;
    const char *swept;                /* the parameter the sets differ in (NULL: one set) */
    double values[SCORES_MAX_VALUES]; /* its values */
    size_t n_values;                  /* how many (1: one set) */
    /* A grid's second parameter (NULL: none): the sets are n_values of `swept` (slowest) times
     * n_values2 of it. */
    const char *swept2;
    double values2[SCORES_MAX_VALUES];
    size_t n_values2;
} score_case;

static const score_case score_cases[] = {
    {"bollinger bands_zone, 1 set", "bollinger", "bands_zone", NULL, {0}, 1, NULL, {0}, 0},
    {"bollinger bands_revert, 1 set", "bollinger", "bands_revert", NULL, {0}, 1, NULL, {0}, 0},
    {"bollinger bands_revert, 5 widths (1 pass)",
     "bollinger",
     "bands_revert",
     "nbdev_up",
     {1.0, 1.5, 2.0, 2.5, 3.0},
     5,
     NULL,
     {0},
     0},
    /* Sets of several passes: their rounds of lanes mix the periods (docs/scores.md, "Sets
     * of several periods"), where each period alone takes two rounds for its 5 widths. */
    {"bollinger bands_revert, 4 periods x 5 widths (4 passes)",
     "bollinger",
     "bands_revert",
     "period",
     {10, 20, 30, 40},
     4,
     "nbdev_up",
     {1.0, 1.5, 2.0, 2.5, 3.0},
     5},
    {"macd macd_cross, 1 set", "macd", "macd_cross", NULL, {0}, 1, NULL, {0}, 0},
    /* Fewer sets than avx2's 4 lanes: two each alone, three in one round of avx2. */
    {"bollinger bands_zone, 2 widths (1 pass)",
     "bollinger",
     "bands_zone",
     "nbdev_up",
     {1.0, 2.0},
     2,
     NULL,
     {0},
     0},
    {"bollinger bands_zone, 3 widths (1 pass)",
     "bollinger",
     "bands_zone",
     "nbdev_up",
     {1.0, 2.0, 3.0},
     3,
     NULL,
     {0},
     0},
    /* Sets of three sides in one pass, and one round of lanes (docs/scores.md, "Sides"): the
     * case ignores --scores-side. */
    {"bollinger bands_revert, 3 sides (1 pass)",
     "bollinger",
     "bands_revert",
     "side",
     {-1.0, 0.0, 1.0},
     3,
     NULL,
     {0},
     0},
};
#define N_SCORE_CASES (sizeof score_cases / sizeof score_cases[0])

/* The cost every case charges per unit of position change (the Python bench's). */
#define SCORES_COST 0.0005

/* The side and view of every case's rule (--scores-side, --scores-view). */
typedef struct score_rule_of {
    int side;
    const char *view; /* NULL: the plain scores */
} score_rule_of;

/* Runs set `set` of the case alone (set SIZE_MAX: the whole sweep) into scores[k][row]
 * (k < APO_N_SCORES, rows of every set run), its rule on the side and in the view of `how`
 * (the side unless the case sweeps it). Returns the status of the call. */
static apo_status run_case(apo_runtime *rt, const score_case *c, size_t set,
                           const score_rule_of *how, const double *x, size_t rows, size_t cols,
                           double *const *scores) {
    const int side = how->side;
    char rule[64];
    snprintf(rule, sizeof rule, "%s%s%s", c->rule, how->view != NULL ? "/" : "",
             how->view != NULL ? how->view : "");
    const double *in[1] = {x};
    const int sweeps_side = c->swept != NULL && strcmp(c->swept, "side") == 0;
    apo_param params[4] = {
        {"cost", SCORES_COST}, {"side", (double)side}, {c->swept, 0.0}, {c->swept2, 0.0}};
    apo_sweep_param grid[2] = {{c->swept, c->values, c->n_values}, {c->swept2, c->values2, 1}};
    if (c->swept2 != NULL)
        grid[1].n_values = c->n_values2;
    apo_sweep sweep = APO_SWEEP_INIT;
    apo_workload w = bench_workload(c->kernel, rows, cols, in, 1);
    w.score = rule;
    w.params = params;
    w.n_params = sweeps_side ? 1 : 2;
    if (sweeps_side) /* the swept value goes where the side would */
        params[1] = params[2];
    w.outputs = scores;
    w.n_outputs = APO_N_SCORES;
    w.learn = APO_SWITCH_OFF;
    if (c->swept2 != NULL && set != SIZE_MAX) {
        params[w.n_params].value = c->values[set / c->n_values2];
        params[w.n_params + 1].value = c->values2[set % c->n_values2];
        w.n_params += 2;
    } else if (c->swept != NULL && set != SIZE_MAX) {
        params[w.n_params].value = c->values[set];
        w.n_params++;
    } else if (c->swept != NULL) {
        sweep.grid = grid;
        sweep.n_grid = c->swept2 != NULL ? 2 : 1;
        w.sweep = &sweep;
    }
    return apo_distribute_workload(rt, &w, NULL);
}

/* The sets of case c's call. */
static size_t case_sets(const score_case *c) {
    return c->swept2 != NULL ? c->n_values * c->n_values2 : c->n_values;
}

/* Scores of the whole case, then of each set alone: the values not bitwise equal. -1 when a
 * call failed. */
static long check_case(apo_runtime *rt, const score_case *c, const score_rule_of *how,
                       const double *x, size_t rows, size_t cols, double *const *all,
                       double *const *alone) {
    if (bench_check(run_case(rt, c, SIZE_MAX, how, x, rows, cols, all), c->label))
        return -1;
    long wrong = 0;
    for (size_t s = 0; s < case_sets(c) && c->swept != NULL; s++) {
        if (bench_check(run_case(rt, c, s, how, x, rows, cols, alone), c->label))
            return -1;
        for (size_t k = 0; k < APO_N_SCORES; k++)
            for (size_t r = 0; r < rows; r++)
                wrong += memcmp(&all[k][s * rows + r], &alone[k][r], sizeof(double)) != 0;
    }
    return wrong;
}

json_t *bench_scores(size_t rows, size_t cols, int side, const char *view, int reps, long *wrong,
                     int *failed) {
    const score_rule_of how = {side, view};
    if (reps <= 0)
        reps = 7;
    json_t *out = json_array();
    apo_runtime *rt = NULL;
    apo_config cfg = APO_CONFIG_INIT;
    cfg.devices = "cpu:threads=1";
    cfg.profiles = APO_SWITCH_OFF;
    double *x = malloc(rows * cols * sizeof *x);
    double *mem = malloc(2 * APO_N_SCORES * SCORES_MAX_SETS * rows * sizeof *mem);
    double *times = malloc(N_SCORE_CASES * (size_t)reps * sizeof *times);
    if (x == NULL || mem == NULL || times == NULL ||
        bench_check(apo_runtime_create(&cfg, &rt), "apo_runtime_create (scores)")) {
        *failed = 1;
        goto done;
    }
    bench_fill_walk(x, rows, cols, 31);
    double *all[APO_N_SCORES], *alone[APO_N_SCORES];
    for (size_t k = 0; k < APO_N_SCORES; k++) {
        all[k] = mem + k * SCORES_MAX_SETS * rows;
        alone[k] = mem + (APO_N_SCORES + k) * SCORES_MAX_SETS * rows;
    }

    char load[64];
    bench_load_average(load, sizeof load);
    printf("\n# scored sweeps: %zu random walks x %zu bars, cost %g, side %d, view %s, devices "
           "cpu:threads=1, load average %s\n",
           rows, cols, SCORES_COST, side, view != NULL ? view : "(plain)", load);
    printf("# correctness: each sweep's scores bitwise against its sets called alone\n");
    printf("# timing: process CPU time of one apo_distribute_workload() call per case and "
           "round, %d rounds interleaved\n",
           reps);
    for (size_t c = 0; c < N_SCORE_CASES; c++) {
        const long w = check_case(rt, &score_cases[c], &how, x, rows, cols, all, alone);
        if (w < 0) {
            *failed = 1;
            goto done;
        }
        *wrong += w;
    }
    for (int r = 0; r < reps; r++)
        for (size_t c = 0; c < N_SCORE_CASES; c++) {
            const double t0 = bench_process_cpu();
            if (bench_check(run_case(rt, &score_cases[c], SIZE_MAX, &how, x, rows, cols, all),
                            score_cases[c].label)) {
                *failed = 1;
                goto done;
            }
            times[c * (size_t)reps + (size_t)r] = bench_process_cpu() - t0;
        }
    printf("| case | sets | best ns/set-bar | median ns/set-bar |\n|---|---|---|---|\n");
    for (size_t c = 0; c < N_SCORE_CASES; c++) {
        const score_case *sc = &score_cases[c];
        const double set_bars = (double)case_sets(sc) * (double)rows * (double)cols;
        double *t = times + c * (size_t)reps;
        const double best = bench_min(t, (size_t)reps) / set_bars * 1e9;
        const double median = bench_median(t, (size_t)reps) / set_bars * 1e9;
        printf("| %s | %zu | %.2f | %.2f |\n", sc->label, case_sets(sc), best, median);
        json_t *j = json_object();
        json_object_set_new(j, "case", json_string(sc->label));
        json_object_set_new(j, "sets", json_integer((json_int_t)case_sets(sc)));
        json_object_set_new(j, "side", json_integer(side));
        json_object_set_new(j, "view", json_string(view != NULL ? view : ""));
        json_object_set_new(j, "best_ns_per_set_bar", json_real(best));
        json_object_set_new(j, "median_ns_per_set_bar", json_real(median));
        json_array_append_new(out, j);
    }
    bench_load_average(load, sizeof load);
    printf("# load average at end: %s\n", load);
done:
    apo_runtime_destroy(rt);
    free(times);
    free(mem);
    free(x);
    return out;
}
