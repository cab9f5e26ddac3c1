/*
 * sweeps.c: the sweep section of apo-bench-kernels (declared in sweeps.h; figures in
 * docs/PERF.md).
 *
 * Two sweeps a backtest runs (issue 19's figures):
 *   - bollinger, period = 10, 20, ..., 200 (20 sets) over one series of 1e6 bars;
 *   - macd, a 3 x 3 x 3 grid of fast, slow and signal (27 sets) over 100 series of 10,000
 *     bars.
 * Each runs on the runtime under test and on three simulated devices (sim:a,sim:b,sim:c on
 * the virtual clock, explicit ratios 0.5/0.2/0.3, split along time, so that devices cut
 * through sets and rows). On each:
 *   1. correctness first: the sweep runs once, then every set runs alone in a call of its
 *      own on the same runtime, writing where the sweep puts that set (as a caller keeping
 *      every set's outputs would: neither side's outputs stay in cache), and each value
 *      of set s's block of the sweep's outputs that is not bitwise equal to that call's
 *      counts as wrong (docs/api.md, "Sweeps": set s's outputs are those of a call with
 *      set s alone);
 *   2. timing, interleaved round by round so that both see the same machine: one sweep
 *      call, then one call per set. The table gives the medians: the sweep's time, its time
 *      per set, a single call's time (the round's per-set calls over the sets) and how many
 *      times faster a set is inside the sweep.
 * Then the tile-order experiment (sweep_order.c) on the same sweeps, a second table.
 * The per-set parameters are decoded here from the grid (first parameter slowest), not
 * taken from the library, so that a wrong set order shows as wrong values. Any wrong value
 * makes the program exit 1 (bench_kernels.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "sweeps.h"

#define SWEEP_MAX_AXES 3
#define SWEEP_MAX_VALUES 20

typedef struct sweep_axis {
    const char *name;
    double values[SWEEP_MAX_VALUES];
    size_t n;
} sweep_axis;

typedef struct scenario {
    const char *kernel;
    const char *grid; /* for the table */
    size_t rows, cols;
    sweep_axis axes[SWEEP_MAX_AXES];
    size_t n_axes;
    apo_param fixed[2]; /* parameters not swept */
    size_t n_fixed;
} scenario;

static const scenario scenarios[] = {
    {"bollinger",
     "period=10:200:10",
     1,
     1000000,
     {{"period",
       {10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130, 140, 150, 160, 170, 180, 190, 200},
       20}},
     1,
     {{"nbdev_up", 2}, {"nbdev_dn", 2}},
     2},
    {"macd",
     "fast x slow x signal 3x3x3",
     100,
     10000,
     {{"fast", {8, 12, 16}, 3}, {"slow", {21, 26, 31}, 3}, {"signal", {5, 9, 13}, 3}},
     3,
     {{NULL, 0}},
     0},
};
#define N_SCENARIOS (sizeof scenarios / sizeof scenarios[0])

/* Where a sweep runs: a runtime and how the call splits on it. */
typedef struct target {
    apo_runtime *rt;
    const char *label;
    apo_split split;
    const double *ratios;
    size_t n_ratios;
} target;

static size_t sets_of(const scenario *sc) {
    size_t n = 1;
    for (size_t j = 0; j < sc->n_axes; j++)
        n *= sc->axes[j].n;
    return n;
}

/* Set s's parameters, fixed then swept, with the grid's first parameter varying slowest.
 * Returns their number. */
static size_t set_params(const scenario *sc, size_t s, apo_param *out) {
    size_t n = 0;
    for (size_t i = 0; i < sc->n_fixed; i++)
        out[n++] = sc->fixed[i];
    size_t stride = sets_of(sc);
    for (size_t j = 0; j < sc->n_axes; j++) {
        stride /= sc->axes[j].n;
        out[n++] = (apo_param){sc->axes[j].name, sc->axes[j].values[(s / stride) % sc->axes[j].n]};
    }
    return n;
}

/* The value of parameter `name` in set s: swept or fixed; NaN when the scenario lacks it. */
static double param_value(const scenario *sc, size_t s, const char *name) {
    apo_param p[2 + SWEEP_MAX_AXES];
    const size_t n = set_params(sc, s, p);
    for (size_t i = 0; i < n; i++)
        if (strcmp(p[i].name, name) == 0)
            return p[i].value;
    return NAN;
}

/* The tile-order experiment on scenario sc (its params in the order sweep_order.c takes). */
static int order_one(const scenario *sc, const double *x, int rounds, bench_order_result *r) {
    const int is_macd = strcmp(sc->kernel, "macd") == 0;
    static const char *const names[2][3] = {{"period", "nbdev_up", "nbdev_dn"},
                                            {"fast", "slow", "signal"}};
    const size_t sets = sets_of(sc);
    double *params = malloc(sets * 3 * sizeof *params);
    if (params == NULL)
        return -1;
    for (size_t s = 0; s < sets; s++)
        for (size_t j = 0; j < 3; j++)
            params[s * 3 + j] = param_value(sc, s, names[is_macd][j]);
    bench_order_sweep sw = {is_macd, sc->rows, sc->cols, sets, params};
    int rc = bench_sweep_order(&sw, x, rounds, r);
    free(params);
    return rc;
}

typedef struct sweep_result {
    size_t sets;
    int reps;
    double sweep_ms, per_set_ms, single_ms;
    long wrong;
    const char *skipped;
} sweep_result;

static int call_ok(apo_status st, const char *what, int *failed) {
    if (bench_check(st, what)) {
        *failed = 1;
        return 0;
    }
    return 1;
}

/* Values of set s's block of the sweep's outputs not bitwise equal to the single call's. */
static long compare_set(double *const *sweep_out, double *const *single_out, const size_t *block,
                        size_t n_out, size_t s) {
    long wrong = 0;
    for (size_t o = 0; o < n_out; o++) {
        const double *a = sweep_out[o] + s * block[o], *b = single_out[o] + s * block[o];
        for (size_t i = 0; i < block[o]; i++)
            wrong += memcmp(&a[i], &b[i], sizeof(double)) != 0;
    }
    return wrong;
}

/* The single call of set s writes where the sweep puts set s: as a caller keeping every
 * set's outputs would, so that both write the same bytes to memory, and neither gains
 * from outputs that stay in cache. */
static void point_at_set(double *const *single_out, const size_t *block, size_t n_out, size_t s,
                         double **out) {
    for (size_t o = 0; o < n_out; o++)
        out[o] = single_out[o] + s * block[o];
}

/* Calls every set of the sweep alone, `one` being the workload without its sweep, each
 * writing where the sweep puts that set (point_at_set). 0 when a call failed. */
static int run_sets_alone(const scenario *sc, const target *tg, apo_workload *one,
                          apo_param *params, double *const *single_out, const size_t *block,
                          size_t n_out, size_t sets, int *failed) {
    double *set_out[APO_MAX_IO] = {0};
    int ok = 1;
    one->outputs = set_out;
    for (size_t s = 0; s < sets && ok; s++) {
        one->n_params = set_params(sc, s, params);
        point_at_set(single_out, block, n_out, s, set_out);
        ok = call_ok(apo_distribute_workload(tg->rt, one, NULL), "one set alone", failed);
    }
    one->outputs = NULL; /* set_out ends here */
    return ok;
}

static void run_scenario(const scenario *sc, const target *tg, int reps, const double *x,
                         sweep_result *res, int *failed) {
    memset(res, 0, sizeof *res);
    res->sets = sets_of(sc);
    res->reps = reps;
    res->sweep_ms = res->per_set_ms = res->single_ms = NAN;

    apo_sweep_param grid[SWEEP_MAX_AXES];
    for (size_t j = 0; j < sc->n_axes; j++)
        grid[j] = (apo_sweep_param){sc->axes[j].name, sc->axes[j].values, sc->axes[j].n};
    apo_sweep sweep = APO_SWEEP_INIT;
    sweep.grid = grid;
    sweep.n_grid = sc->n_axes;

    const double *in[1] = {x};
    apo_workload w = bench_workload(sc->kernel, sc->rows, sc->cols, in, 1);
    w.params = sc->fixed;
    w.n_params = sc->n_fixed;
    w.split = tg->split;
    w.ratios = tg->ratios;
    w.n_ratios = tg->n_ratios;
    w.sweep = &sweep;

    apo_kernel_info info = APO_KERNEL_INFO_INIT;
    if (!call_ok(apo_kernel_get(tg->rt, sc->kernel, &info), "apo_kernel_get", failed)) {
        res->skipped = "kernel not found";
        return;
    }
    const size_t n_out = info.n_outputs;
    double *a[APO_MAX_IO] = {0}, *b[APO_MAX_IO] = {0};
    size_t block[APO_MAX_IO] = {0};
    double *sweep_t = calloc((size_t)reps, sizeof *sweep_t);
    double *single_t = calloc((size_t)reps, sizeof *single_t);
    int ok = sweep_t != NULL && single_t != NULL;
    for (size_t o = 0; o < n_out && ok; o++) {
        size_t rows, cols;
        if (!call_ok(apo_output_shape(tg->rt, &w, o, &rows, &cols), "apo_output_shape", failed)) {
            res->skipped = "bad workload";
            goto done;
        }
        block[o] = rows / res->sets * cols;
        ok = (a[o] = malloc(rows * cols * sizeof(double))) != NULL &&
             (b[o] = malloc(rows * cols * sizeof(double))) != NULL;
    }
    if (!ok) {
        res->skipped = "allocation failed";
        goto done;
    }
    w.n_outputs = n_out;

    /* 1. Correctness, before any timing (these calls are the warm-up too). */
    w.outputs = a;
    if (!call_ok(apo_distribute_workload(tg->rt, &w, NULL), "sweep", failed)) {
        res->skipped = "sweep call failed";
        goto done;
    }
    apo_workload one = w;
    apo_param params[2 + SWEEP_MAX_AXES];
    one.sweep = NULL;
    one.params = params;
    if (!run_sets_alone(sc, tg, &one, params, b, block, n_out, res->sets, failed)) {
        res->skipped = "single call failed";
        goto done;
    }
    for (size_t s = 0; s < res->sets; s++)
        res->wrong += compare_set(a, b, block, n_out, s);

    /* 2. Timing, interleaved: a sweep, then one call per set, in each round. */
    for (int r = 0; r < reps; r++) {
        double t0 = bench_now();
        if (!call_ok(apo_distribute_workload(tg->rt, &w, NULL), "sweep", failed)) {
            res->skipped = "sweep call failed";
            goto done;
        }
        double t1 = bench_now();
        if (!run_sets_alone(sc, tg, &one, params, b, block, n_out, res->sets, failed)) {
            res->skipped = "single call failed";
            goto done;
        }
        double t2 = bench_now();
        sweep_t[r] = t1 - t0;
        single_t[r] = (t2 - t1) / (double)res->sets;
    }
    res->sweep_ms = bench_median(sweep_t, (size_t)reps) * 1e3;
    res->per_set_ms = res->sweep_ms / (double)res->sets;
    res->single_ms = bench_median(single_t, (size_t)reps) * 1e3;

done:
    for (size_t o = 0; o < n_out; o++) {
        free(a[o]);
        free(b[o]);
    }
    free(sweep_t);
    free(single_t);
}

json_t *bench_sweeps(apo_runtime *rt, const char *rt_label, apo_runtime *rt_sim, int reps,
                     double max_size, const char *kernels, long *wrong, int *failed) {
    static const double sim_ratios[3] = {0.5, 0.2, 0.3};
    const target targets[2] = {
        {rt, rt_label, APO_SPLIT_AUTO, NULL, 0},
        {rt_sim, "sim:a,sim:b,sim:c", APO_SPLIT_TIME, sim_ratios, 3},
    };
    if (reps <= 0)
        reps = 5;
    json_t *out = json_array(), *jorder = json_array();
    bench_order_result orders[N_SCENARIOS];
    int ordered[N_SCENARIOS] = {0};
    printf("\n# sweeps: one call over every set against one call per set (apo_workload.sweep)\n"
           "#   correctness: each sweep first runs once, then every set alone on the same "
           "runtime;\n"
           "#   #wrong = values of set s's block not bitwise equal to the call of set s alone\n"
           "#   timing: %d rounds, each a sweep then one call per set; medians; "
           "single_ms = a round's per-set calls / sets;\n"
           "#   x = single_ms / per_set_ms; sim: virtual clock, ratios 0.5/0.2/0.3, split by "
           "time, wall time\n",
           reps);
    printf("%-10s %-27s %-18s %13s %5s %5s %10s %11s %10s %6s %7s\n", "# kernel", "grid", "devices",
           "rows x cols", "sets", "reps", "sweep_ms", "per_set_ms", "single_ms", "x", "#wrong");
    for (size_t i = 0; i < N_SCENARIOS; i++) {
        const scenario *sc = &scenarios[i];
        if (!bench_selected(kernels, sc->kernel))
            continue;
        const size_t n = sc->rows * sc->cols;
        double *x = NULL;
        if ((double)n <= max_size && (x = malloc(n * sizeof *x)) != NULL)
            bench_fill_walk(x, sc->rows, sc->cols, 0x5eed0000u + sc->rows);
        for (size_t t = 0; t < 2; t++) {
            sweep_result r;
            char shape[48];
            snprintf(shape, sizeof shape, "%zu x %zu", sc->rows, sc->cols);
            if ((double)n > max_size) {
                memset(&r, 0, sizeof r);
                r.skipped = "over --max-size";
            } else if (x == NULL) {
                memset(&r, 0, sizeof r);
                r.skipped = "allocation failed";
            } else {
                run_scenario(sc, &targets[t], reps, x, &r, failed);
            }
            if (r.skipped != NULL) {
                printf("%-10s %-27s %-18s %13s  skipped: %s\n", sc->kernel, sc->grid,
                       targets[t].label, shape, r.skipped);
            } else {
                printf("%-10s %-27s %-18s %13s %5zu %5d %10.2f %11.3f %10.3f %6.2f %7ld\n",
                       sc->kernel, sc->grid, targets[t].label, shape, r.sets, r.reps, r.sweep_ms,
                       r.per_set_ms, r.single_ms, r.single_ms / r.per_set_ms, r.wrong);
            }
            fflush(stdout);
            *wrong += r.wrong;
            json_t *j =
                json_pack("{s:s,s:s,s:s,s:I,s:I,s:I,s:I,s:I}", "kernel", sc->kernel, "grid",
                          sc->grid, "devices", targets[t].label, "rows", (json_int_t)sc->rows,
                          "cols", (json_int_t)sc->cols, "sets", (json_int_t)sets_of(sc), "reps",
                          (json_int_t)r.reps, "wrong", (json_int_t)r.wrong);
            if (r.skipped != NULL) {
                json_object_set_new(j, "skipped", json_string(r.skipped));
            } else {
                json_object_set_new(j, "sweep_ms_median", json_real(r.sweep_ms));
                json_object_set_new(j, "per_set_ms", json_real(r.per_set_ms));
                json_object_set_new(j, "single_ms_median", json_real(r.single_ms));
            }
            json_array_append_new(out, j);
        }
        if (x != NULL && order_one(sc, x, 2 * reps + 1, &orders[i]) == 0) {
            ordered[i] = 1;
            *wrong += orders[i].wrong;
        }
        free(x);
    }

    printf("\n# sweeps, tile order (docs/kernels.md, \"Sweeps: what is shared\"): the same sweeps' "
           "tiles on one thread through the\n"
           "#   kernels' group functions, set by set (as devices run them) against every set's "
           "tiles over one input span back to back;\n"
           "#   %d rounds of both, alternating which goes first; medians; #wrong = values where "
           "the two orders differ\n",
           2 * reps + 1);
    printf("%-10s %-27s %13s %5s %6s %14s %14s %8s %7s\n", "# kernel", "grid", "rows x cols",
           "sets", "lanes", "set_major_ms", "position_ms", "ratio", "#wrong");
    for (size_t i = 0; i < N_SCENARIOS; i++) {
        if (!ordered[i])
            continue;
        const scenario *sc = &scenarios[i];
        const bench_order_result *r = &orders[i];
        char shape[48];
        snprintf(shape, sizeof shape, "%zu x %zu", sc->rows, sc->cols);
        printf("%-10s %-27s %13s %5zu %6zu %14.2f %14.2f %8.3f %7ld\n", sc->kernel, sc->grid, shape,
               sets_of(sc), r->lanes, r->set_major_ms, r->position_major_ms,
               r->position_major_ms / r->set_major_ms, r->wrong);
        json_array_append_new(
            jorder, json_pack("{s:s,s:s,s:I,s:I,s:I,s:I,s:f,s:f,s:I}", "kernel", sc->kernel, "grid",
                              sc->grid, "rows", (json_int_t)sc->rows, "cols", (json_int_t)sc->cols,
                              "sets", (json_int_t)sets_of(sc), "lanes", (json_int_t)r->lanes,
                              "set_major_ms_median", r->set_major_ms, "position_major_ms_median",
                              r->position_major_ms, "wrong", (json_int_t)r->wrong));
    }
    fflush(stdout);
    return json_pack("{s:o,s:o}", "sweeps", out, "tile_order", jorder);
}
