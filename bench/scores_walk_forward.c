/*
 * scores_walk_forward.c: the walk-forward section of apo-bench-kernels (declared in scores.h;
 * figures in docs/perf-log/2026-11-26-walk-forward.md and
 * docs/perf-log/2026-11-26-walk-forward-shared.md).
 *
 * A ranged scored call (apo_workload.ranges, docs/scores.md, "Ranges") computes the
 * indicator once and folds each range from its first bar in the same pass; ranges with one
 * first bar share a fold (a chain), and the chains share each set's positions and returns.
 * The cost of a walk-forward is then the pass, a position a bar for each set, and the sums of
 * every chain that covers a bar: an anchored walk-forward's train windows are one chain, a
 * fixed one's are one chain each. The cases: a 1,000-set grid of bollinger's bands_revert
 * (10 periods x 10 upper x 10 lower widths, so 10 passes and 1,000 folds) over one series,
 * scored whole, and over 10 walk-forward windows fixed and anchored.
 *
 * As the scored-sweep section: one cpu thread, process CPU time per call (the machine is
 * shared, and wall clock would measure the neighbours), rounds interleaved, best and median.
 * Before timing, sets 0 and 999 of each walk-forward are checked bitwise on every range
 * against the range scored alone (the whole history's bands, then the range's slice scored by
 * apo_score_outputs_with()), so a fast wrong answer is never a figure.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "scores.h"

#define WF_SETS 1000
#define WF_WINDOWS 10
#define WF_MAX_RANGES (2 * WF_WINDOWS)

static const double wf_periods[10] = {10, 15, 20, 25, 30, 35, 40, 45, 50, 55};
static const double wf_widths[10] = {1.0, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 2.75, 3.0, 3.25};

typedef struct wf_case {
    const char *label;
    int windows; /* 0: the whole series, no ranges */
    int anchored;
} wf_case;

static const wf_case wf_cases[] = {
    {"whole history", 0, 0},
    {"walk-forward, 10 fixed windows", 1, 0},
    {"walk-forward, 10 anchored windows", 1, 1},
};
#define N_WF_CASES (sizeof wf_cases / sizeof wf_cases[0])

/* The grid over one series of cols bars, whole (ranges NULL) or on the ranges. */
static apo_status run_grid(apo_runtime *rt, const double *x, size_t cols, const apo_range *ranges,
                           size_t n_ranges, double *const *scores) {
    const double *in[1] = {x};
    const apo_sweep_param grid[3] = {
        {"period", wf_periods, 10}, {"nbdev_up", wf_widths, 10}, {"nbdev_dn", wf_widths, 10}};
    apo_sweep sweep = APO_SWEEP_INIT;
    sweep.grid = grid;
    sweep.n_grid = 3;
    apo_param cost = {"cost", 0.0005};
    apo_workload w = bench_workload("bollinger", 1, cols, in, 1);
    w.score = "bands_revert";
    w.params = &cost;
    w.n_params = 1;
    w.sweep = &sweep;
    w.outputs = scores;
    w.n_outputs = APO_N_SCORES;
    w.learn = APO_SWITCH_OFF;
    w.ranges = ranges;
    w.n_ranges = n_ranges;
    return apo_distribute_workload(rt, &w, NULL);
}

/* Set s of the grid on every range against each range alone; the count of differing scores,
 * -1 when a call failed. */
static long check_set(apo_runtime *rt, const double *x, size_t cols, size_t s,
                      const apo_range *ranges, size_t n_ranges, double *const *scores) {
    const size_t p = s / 100, u = s / 10 % 10, d = s % 10;
    apo_param params[4] = {{"period", wf_periods[p]},
                           {"nbdev_up", wf_widths[u]},
                           {"nbdev_dn", wf_widths[d]},
                           {"cost", 0.0005}};
    double *bands = malloc(3 * cols * sizeof *bands);
    if (bands == NULL)
        return -1;
    double *out[3] = {bands, bands + cols, bands + 2 * cols};
    const double *in[1] = {x};
    apo_workload w = bench_workload("bollinger", 1, cols, in, 1);
    w.params = params;
    w.n_params = 3;
    w.outputs = out;
    w.n_outputs = 3;
    w.learn = APO_SWITCH_OFF;
    long wrong = 0;
    if (bench_check(apo_distribute_workload(rt, &w, NULL), "bollinger (walk-forward check)")) {
        free(bands);
        return -1;
    }
    for (size_t r = 0; r < n_ranges && wrong >= 0; r++) {
        const size_t a = ranges[r].begin;
        const double *o[3] = {out[0] + a, out[1] + a, out[2] + a};
        double want[APO_N_SCORES];
        if (bench_check(apo_score_outputs_with("bollinger", "bands_revert", x + a, o, 3,
                                               ranges[r].end - a, params, 4, want),
                        "apo_score_outputs_with (walk-forward check)")) {
            wrong = -1;
            break;
        }
        for (size_t k = 0; k < APO_N_SCORES; k++)
            wrong += memcmp(&scores[k][s * n_ranges + r], &want[k], sizeof(double)) != 0;
    }
    free(bands);
    return wrong;
}

/* The ranges of case c: none, or 10 windows whose tests fill the second half. */
static int case_ranges(const wf_case *c, size_t cols, apo_range *ranges, size_t *n_ranges) {
    *n_ranges = 0;
    if (!c->windows)
        return 0;
    size_t tr[WF_WINDOWS], te[WF_WINDOWS], n_w;
    const size_t test = cols / 2 / WF_WINDOWS;
    return bench_check(apo_walk_forward(cols, cols - WF_WINDOWS * test, test, c->anchored,
                                        WF_WINDOWS, ranges, n_ranges, tr, te, &n_w),
                       "apo_walk_forward");
}

json_t *bench_walk_forward(size_t cols, int reps, long *wrong, int *failed) {
    if (reps <= 0)
        reps = 7;
    json_t *out = json_array();
    apo_runtime *rt = NULL;
    apo_config cfg = APO_CONFIG_INIT;
    cfg.devices = "cpu:threads=1";
    cfg.profiles = APO_SWITCH_OFF;
    apo_range ranges[N_WF_CASES][WF_MAX_RANGES];
    size_t n_ranges[N_WF_CASES];
    double *x = malloc(cols * sizeof *x);
    double *mem = malloc(APO_N_SCORES * WF_SETS * WF_MAX_RANGES * sizeof *mem);
    double *times = malloc(N_WF_CASES * (size_t)reps * sizeof *times);
    if (x == NULL || mem == NULL || times == NULL ||
        bench_check(apo_runtime_create(&cfg, &rt), "apo_runtime_create (walk-forward)")) {
        *failed = 1;
        goto done;
    }
    bench_fill_walk(x, 1, cols, 37);
    double *scores[APO_N_SCORES];
    for (size_t k = 0; k < APO_N_SCORES; k++)
        scores[k] = mem + k * WF_SETS * WF_MAX_RANGES;
    char load[64];
    bench_load_average(load, sizeof load);
    printf("\n# walk-forward: a %d-set bollinger bands_revert grid over 1 random walk x %zu bars, "
           "devices cpu:threads=1, load average %s\n",
           WF_SETS, cols, load);
    printf("# correctness: sets 0 and 999 on every range bitwise against the range alone\n");
    for (size_t c = 0; c < N_WF_CASES; c++) {
        if (case_ranges(&wf_cases[c], cols, ranges[c], &n_ranges[c]) != 0) {
            *failed = 1;
            goto done;
        }
        if (n_ranges[c] == 0)
            continue;
        if (bench_check(run_grid(rt, x, cols, ranges[c], n_ranges[c], scores), wf_cases[c].label)) {
            *failed = 1;
            goto done;
        }
        for (size_t s = 0; s < WF_SETS; s += WF_SETS - 1) {
            const long w = check_set(rt, x, cols, s, ranges[c], n_ranges[c], scores);
            if (w < 0) {
                *failed = 1;
                goto done;
            }
            *wrong += w;
        }
    }
    for (int r = 0; r < reps; r++)
        for (size_t c = 0; c < N_WF_CASES; c++) {
            const double t0 = bench_process_cpu();
            if (bench_check(
                    run_grid(rt, x, cols, n_ranges[c] ? ranges[c] : NULL, n_ranges[c], scores),
                    wf_cases[c].label)) {
                *failed = 1;
                goto done;
            }
            times[c * (size_t)reps + (size_t)r] = bench_process_cpu() - t0;
        }
    const double whole = bench_median(times, (size_t)reps);
    printf("| case | ranges | best s | median s | median / whole |\n|---|---|---|---|---|\n");
    for (size_t c = 0; c < N_WF_CASES; c++) {
        double *t = times + c * (size_t)reps;
        const double best = bench_min(t, (size_t)reps), median = bench_median(t, (size_t)reps);
        printf("| %s | %zu | %.3f | %.3f | %.2f |\n", wf_cases[c].label, n_ranges[c], best, median,
               median / whole);
        json_t *j = json_object();
        json_object_set_new(j, "case", json_string(wf_cases[c].label));
        json_object_set_new(j, "ranges", json_integer((json_int_t)n_ranges[c]));
        json_object_set_new(j, "best_s", json_real(best));
        json_object_set_new(j, "median_s", json_real(median));
        json_object_set_new(j, "median_over_whole", json_real(median / whole));
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
