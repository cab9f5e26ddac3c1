/*
 * Sweeps (apo_workload.sweep, docs/api.md "Sweeps"): a call over several parameter sets
 * gives, for each set s, the bits of a call with set s alone (the contract, and the
 * reference here), on one device and on several with skewed ratios, split by rows and
 * along time, with a device failing part-way; a range of sets is the matching slice of the
 * whole sweep; bad sweeps are refused with messages that say what is wrong.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "call_fixtures.h"
#include "helpers.h"
#include "reference.h"

#define MAX_SETS 16
#define MAX_SWEPT 3

/* A sweep as a test writes it: the grid as value lists, or the list of sets, and the sets
 * that the contract says it stands for, enumerated here by nested loops. */
typedef struct sweep_case {
    const char *kernel;
    size_t rows, cols;
    apo_param fixed[2];
    size_t n_fixed;
    int list; /* the list form, else the grid form */
    const char *names[MAX_SWEPT];
    size_t n_names;
    size_t counts[MAX_SWEPT];           /* grid: values per parameter */
    double values[MAX_SWEPT][MAX_SETS]; /* grid: per parameter; list: per set, see below */
    size_t n_sets;                      /* list: sets, values[s][j] */
} sweep_case;

static const sweep_case cases[] = {
    /* Periods whose tiles differ (4096, and 16 * 300 = 4800), and a window longer than a
     * tile: each set has its own grid. */
    {"bollinger",
     3,
     3 * 4096 + 123,
     {{"nbdev_dn", 1.5}},
     1,
     0,
     {"period", "nbdev_up"},
     2,
     {3, 2},
     {{5, 20, 300}, {1.5, 2}},
     0},
    {"bollinger", 2, 9001, {{0}}, 0, 0, {"nbdev_dn", "period"}, 2, {2, 2}, {{1, 3}, {2, 700}}, 0},
    {"bollinger",
     40,
     700,
     {{0}},
     0,
     1,
     {"period", "nbdev_up"},
     2,
     {0},
     {{700, 2}, {2, 0.5}, {50, 3}},
     3},
    /* signal = 40 lengthens the warm-up past 1024, so its tile is longer than 16384. */
    {"macd", 2, 2 * 16384 + 77, {{0}}, 0, 0, {"fast", "slow"}, 2, {2, 2}, {{5, 12}, {26, 35}}, 0},
    {"macd", 3, 20000, {{"fast", 3}}, 1, 0, {"signal"}, 1, {3}, {{1, 9, 40}}, 0},
    {"macd",
     1,
     40000,
     {{0}},
     0,
     1,
     {"signal", "slow", "fast"},
     3,
     {0},
     {{40, 26, 12}, {9, 12, 26}, {1, 3, 2}},
     3},
    /* bootstrap's only parameter sets an output's shape: a sweep repeats it (a list of equal
     * sets), which still lays the reductions' outputs out set by set. */
    {"bootstrap", 3, 500, {{0}}, 0, 1, {"replicates"}, 1, {0}, {{64}, {64}}, 2},
    {"bootstrap", 1, 3000, {{0}}, 0, 0, {"replicates"}, 1, {1}, {{203}}, 0},
    {"msum", 3, 2500, {{0}}, 0, 0, {"k"}, 1, {3}, {{1, 7, 64}}, 0},
    {"msum", 2, 999, {{0}}, 0, 1, {"k"}, 1, {0}, {{2}, {30}}, 2},
};

/* The sets of a case, first parameter slowest, as swept-parameter values. */
static size_t case_sets(const sweep_case *c, double sets[][MAX_SWEPT]) {
    if (c->list) {
        for (size_t s = 0; s < c->n_sets; s++)
            for (size_t j = 0; j < c->n_names; j++)
                sets[s][j] = c->values[s][j];
        return c->n_sets;
    }
    size_t n = 0;
    size_t c1 = c->n_names > 1 ? c->counts[1] : 1, c2 = c->n_names > 2 ? c->counts[2] : 1;
    for (size_t i0 = 0; i0 < c->counts[0]; i0++)
        for (size_t i1 = 0; i1 < c1; i1++)
            for (size_t i2 = 0; i2 < c2; i2++) {
                sets[n][0] = c->values[0][i0];
                if (c->n_names > 1)
                    sets[n][1] = c->values[1][i1];
                if (c->n_names > 2)
                    sets[n][2] = c->values[2][i2];
                n++;
            }
    return n;
}

/* The apo_sweep of a case; `grid` and `flat` are its storage. */
static apo_sweep case_sweep(const sweep_case *c, apo_sweep_param *grid, double *flat) {
    apo_sweep sw = APO_SWEEP_INIT;
    if (c->list) {
        for (size_t s = 0; s < c->n_sets; s++)
            for (size_t j = 0; j < c->n_names; j++)
                flat[s * c->n_names + j] = c->values[s][j];
        sw.names = c->names;
        sw.n_names = c->n_names;
        sw.values = flat;
        sw.n_sets = c->n_sets;
    } else {
        for (size_t j = 0; j < c->n_names; j++)
            grid[j] = (apo_sweep_param){c->names[j], c->values[j], c->counts[j]};
        sw.grid = grid;
        sw.n_grid = c->n_names;
    }
    return sw;
}

/* A call of the sweep's shape: call_run with its settings as arguments. */
static apo_status run_call(apo_runtime *rt, const char *kernel, size_t rows, size_t cols,
                           const double *x, const apo_param *params, size_t n_params,
                           const apo_sweep *sweep, const double *ratios, size_t n_ratios,
                           apo_split split, call_outputs *out, apo_report *report) {
    const call_opts o = {NULL, sweep, ratios, n_ratios, split};
    return call_run(rt, kernel, rows, cols, x, params, n_params, &o, out, report);
}

/* Each set of a case alone, on `rt`: the references. */
static size_t per_set_references(apo_runtime *rt, const sweep_case *c, const double *x,
                                 call_outputs *refs) {
    double sets[MAX_SETS][MAX_SWEPT];
    size_t n = case_sets(c, sets);
    for (size_t s = 0; s < n; s++) {
        apo_param params[4];
        size_t np = 0;
        for (size_t i = 0; i < c->n_fixed; i++)
            params[np++] = c->fixed[i];
        for (size_t j = 0; j < c->n_names; j++)
            params[np++] = (apo_param){c->names[j], sets[s][j]};
        apo_status st = run_call(rt, c->kernel, c->rows, c->cols, x, params, np, NULL, NULL, 0,
                                 APO_SPLIT_AUTO, &refs[s], NULL);
        cr_assert_eq(st, APO_OK, "%s set %zu alone: %s", c->kernel, s, apo_last_error());
        for (size_t i = 0; i < refs[s].n; i++)
            for (size_t j = 0; j < refs[s].len[i]; j++)
                cr_assert_neq(refs[s].data[i][j], CALL_POISON, "%s set %zu output %zu unwritten",
                              c->kernel, s, i);
    }
    return n;
}

/* Sets [first, first + n) of a sweep's outputs, set-major, against the references. */
static void assert_sets_equal(const call_outputs *got, const call_outputs *refs, size_t first,
                              size_t n, const char *what) {
    for (size_t s = 0; s < n; s++) {
        const call_outputs *ref = &refs[first + s];
        for (size_t i = 0; i < ref->n; i++) {
            cr_assert_eq(got->len[i], n * ref->len[i], "%s: output %zu holds %zu, not %zu x %zu",
                         what, i, got->len[i], n, ref->len[i]);
            const double *block = got->data[i] + s * ref->len[i];
            cr_assert(memcmp(block, ref->data[i], ref->len[i] * sizeof(double)) == 0,
                      "%s: set %zu, output %zu differs bitwise from the call of that set alone",
                      what, first + s, i);
        }
    }
}

static double *walk(size_t n, uint64_t seed) {
    double *x = malloc(n * sizeof *x);
    cr_assert_not_null(x);
    apo__test_random_walk(seed, n, 100.0, 0.1, x);
    return x;
}

/* A case made ready for its sweep calls, the set-up every test of a sweep starts from: its
 * input (a walk of `seed`), its apo_sweep (grid and flat are its storage, so it stays where
 * it was set up) and, when a runtime is given, each set's call alone on it (n references). */
typedef struct sweep_setup {
    const sweep_case *c;
    double *x;
    apo_sweep_param grid[MAX_SWEPT];
    double flat[MAX_SETS * MAX_SWEPT];
    apo_sweep sw;
    call_outputs refs[MAX_SETS];
    size_t n;
} sweep_setup;

static void sweep_setup_init(sweep_setup *s, const sweep_case *c, uint64_t seed,
                             apo_runtime *refs_on) {
    s->c = c;
    s->x = walk(c->rows * c->cols, seed);
    s->n = refs_on != NULL ? per_set_references(refs_on, c, s->x, s->refs) : 0;
    s->sw = case_sweep(c, s->grid, s->flat);
}

static void sweep_setup_free(sweep_setup *s) {
    for (size_t k = 0; k < s->n; k++)
        call_outputs_free(&s->refs[k]);
    free(s->x);
}

/* The case's sweep (s->sw as it is now) on rt with these ratios and split; fails the test,
 * saying `what`, unless the call succeeds. */
static void sweep_call(const sweep_setup *s, apo_runtime *rt, const double *ratios, size_t n_ratios,
                       apo_split split, call_outputs *got, apo_report *report, const char *what) {
    const sweep_case *c = s->c;
    const call_opts o = {NULL, &s->sw, ratios, n_ratios, split};
    call_run_ok(rt, c->kernel, c->rows, c->cols, s->x, c->fixed, c->n_fixed, &o, got, report, what);
}

/* The sweep so placed gives each set its call's bits alone; on the cpu the report counts every
 * set, from the first; across devices their elements add up. */
static void sweep_piece_call(const call_placement *p, call_outputs *got, apo_report *report,
                             void *ctx) {
    const sweep_setup *su = ctx;
    const size_t n = su->n;
    sweep_call(su, p->rt, p->ratios, p->n_ratios, p->split, got, report, p->what);
    if (p->where == CALL_ON_CPU) {
        cr_assert_eq(report->sets, n, "%s: report.sets %zu", p->what, report->sets);
        cr_assert_eq(report->sweep_sets, n);
        cr_assert_eq(report->first_set, 0);
    }
    assert_sets_equal(got, su->refs, 0, n, p->what);
    /* Every device that got a share computed part of the sweep. */
    if (p->where == CALL_ON_MULTI)
        test_assert_elements_add_up(report, p->what);
}

Test(sweep, every_kernel_each_set_equals_its_call_alone, .timeout = 600) {
    apo_runtime *cpu = test_runtime("cpu");
    apo_runtime *multi = test_runtime(CALL_MULTI_DEVICES);
    test_register_moving_sum(cpu);
    test_register_moving_sum(multi);
    /* Skewed shares: the slow sim device gets the most. */
    const double skewed[][3] = {{0.1, 0.7, 0.2}, {0.45, 0.05, 0.5}};
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        const sweep_case *c = &cases[ci];
        sweep_setup su;
        sweep_setup_init(&su, c, 11 + ci, cpu);
        call_each_placement(cpu, multi, skewed, sizeof skewed / sizeof skewed[0], c->kernel, ci,
                            sweep_piece_call, &su);
        sweep_setup_free(&su);
    }
    apo_runtime_destroy(cpu);
    apo_runtime_destroy(multi);
}

Test(sweep, a_device_failing_mid_sweep_keeps_the_bits, .timeout = 300) {
    apo_runtime *cpu = test_runtime("cpu");
    apo_runtime *failing = test_runtime("cpu,sim:a:rate=1e8:fail_after=2,sim:b:rate=3e8");
    sweep_setup su;
    sweep_setup_init(&su, &cases[0], 5, cpu);
    const double ratios[] = {0.1, 0.6, 0.3};
    call_outputs got;
    apo_report report = APO_REPORT_INIT;
    sweep_call(&su, failing, ratios, 3, APO_SPLIT_TIME, &got, &report, "with sim:a failing");
    cr_assert_eq(report.failovers, 1, "sim:a should have failed (failovers %zu)", report.failovers);
    cr_assert(report.devices[1].elements_moved_out > 0);
    assert_sets_equal(&got, su.refs, 0, su.n, "bollinger with sim:a failing");
    call_outputs_free(&got);
    sweep_setup_free(&su);
    apo_runtime_destroy(cpu);
    apo_runtime_destroy(failing);
}

Test(sweep, a_range_of_sets_is_the_slice_of_the_whole_sweep, .timeout = 300) {
    apo_runtime *multi = test_runtime(CALL_MULTI_DEVICES);
    sweep_setup su; /* cases[0]: 6 sets */
    sweep_setup_init(&su, &cases[0], 3, NULL);
    call_outputs whole;
    sweep_call(&su, multi, NULL, 0, APO_SPLIT_AUTO, &whole, NULL, "the whole sweep");
    const size_t ranges[][2] = {{2, 3}, {5, 1}, {0, 1}, {4, 0}}; /* n_sets_run 0: to the end */
    for (size_t k = 0; k < sizeof ranges / sizeof ranges[0]; k++) {
        su.sw.first_set = ranges[k][0];
        su.sw.n_sets_run = ranges[k][1];
        size_t n_run = ranges[k][1] != 0 ? ranges[k][1] : 6 - ranges[k][0];
        call_outputs part;
        apo_report report = APO_REPORT_INIT;
        const double ratios[] = {0.2, 0.5, 0.3};
        char what[64];
        snprintf(what, sizeof what, "sets from %zu", ranges[k][0]);
        sweep_call(&su, multi, ratios, 3, APO_SPLIT_TIME, &part, &report, what);
        cr_assert_eq(report.sets, n_run);
        cr_assert_eq(report.first_set, ranges[k][0]);
        cr_assert_eq(report.sweep_sets, 6);
        for (size_t i = 0; i < whole.n; i++) {
            size_t per_set = whole.len[i] / 6;
            cr_assert_eq(part.len[i], n_run * per_set);
            cr_assert(memcmp(part.data[i], whole.data[i] + ranges[k][0] * per_set,
                             part.len[i] * sizeof(double)) == 0,
                      "sets from %zu: output %zu is not the slice of the whole sweep", ranges[k][0],
                      i);
        }
        call_outputs_free(&part);
    }
    call_outputs_free(&whole);
    sweep_setup_free(&su);
    apo_runtime_destroy(multi);
}

/* The work of each set counted in its own grid: the sweep's elements are the sum. */
Test(sweep, plan_and_report_count_sets_and_their_elements, .timeout = 120) {
    apo_runtime *multi = test_runtime(CALL_MULTI_DEVICES);
    sweep_setup su;
    sweep_setup_init(&su, &cases[0], 3, NULL);
    const sweep_case *c = su.c;
    su.sw.first_set = 1;
    su.sw.n_sets_run = 4;
    const double *inputs[1] = {su.x};
    const call_opts o = {NULL, &su.sw, NULL, 0, APO_SPLIT_AUTO};
    apo_workload w = call_workload(c->kernel, c->rows, c->cols, inputs, c->fixed, c->n_fixed, &o);
    apo_plan_info plan = APO_PLAN_INFO_INIT;
    cr_assert_eq(apo_plan_workload(multi, &w, &plan), APO_OK, "%s", apo_last_error());
    cr_assert_eq(plan.sets, 4);
    cr_assert_eq(plan.first_set, 1);
    cr_assert_eq(plan.sweep_sets, 6);
    /* bollinger's elements are rows x cols per set. */
    cr_assert_eq(plan.elements, 4 * (uint64_t)c->rows * c->cols);
    uint64_t sum = 0;
    for (size_t d = 0; d < plan.n_devices; d++)
        sum += plan.device_elements[d];
    cr_assert_eq(sum, plan.elements);
    size_t rows = 0, cols = 0;
    cr_assert_eq(apo_output_shape(multi, &w, 0, &rows, &cols), APO_OK);
    cr_assert_eq(rows, 4 * c->rows);
    cr_assert_eq(cols, c->cols);
    /* No sweep: one set. */
    w.sweep = NULL;
    cr_assert_eq(apo_plan_workload(multi, &w, &plan), APO_OK, "%s", apo_last_error());
    cr_assert_eq(plan.sets, 1);
    cr_assert_eq(plan.sweep_sets, 1);
    cr_assert_eq(plan.first_set, 0);
    sweep_setup_free(&su);
    apo_runtime_destroy(multi);
}

/* ---- refusals ---------------------------------------------------------------------------- */

static apo_status plan_sweep(apo_runtime *rt, const char *kernel, const apo_param *params,
                             size_t n_params, const apo_sweep *sw) {
    apo_workload w = test_workload(kernel, 2, 1000, NULL, 0, NULL, 0);
    w.params = params;
    w.n_params = n_params;
    w.sweep = sw;
    apo_plan_info plan = APO_PLAN_INFO_INIT;
    return apo_plan_workload(rt, &w, &plan);
}

/* A sweep that must be refused: the call planned (kernel, the parameters fixed beside the
 * sweep, the sweep), the status and the fragments its message must hold (also: NULL or a
 * second one). */
typedef struct sweep_refusal {
    const char *kernel;
    const apo_param *fixed;
    size_t n_fixed;
    apo_sweep sweep;
    apo_status want;
    const char *fragment, *also;
} sweep_refusal;

/* A sweep of the table: APO_SWEEP_INIT with the fields given. */
#define SWEEP(...)                                                                                 \
    { .size = sizeof(apo_sweep), __VA_ARGS__ }

static const double periods[] = {5, 20};
static const double none[] = {0};
static const char *const names[] = {"period"};
static const apo_sweep_param empty[] = {{"period", none, 0}};
static const apo_sweep_param twice[] = {{"period", periods, 2}, {"period", periods, 2}};
static const apo_sweep_param one[] = {{"period", periods, 2}};
static const apo_param fixed_period[] = {{"period", 30}};
static const apo_sweep_param unknown[] = {{"perioud", periods, 2}};
/* Set 2 of the grid (period 1, the first parameter's second value, varying slowest;
 * nbdev_up 1) is the first out of bounds; so is a period longer than the series in set 1 of the
 * list. */
static const double bad_periods[] = {5, 1};
static const double ups[] = {1, 2};
static const apo_sweep_param bad[] = {{"period", bad_periods, 2}, {"nbdev_up", ups, 2}};
static const double long_periods[] = {5, 5000};
static const double not_finite[] = {5, NAN};
/* 300 x 300 sets, past APO_MAX_SWEEP_SETS (many[] is filled by the test). */
static double many[300];
static const apo_sweep_param huge[] = {{"period", many, 300}, {"nbdev_up", many, 300}};
/* Sets whose outputs differ in shape cannot be laid out set by set. */
static const double reps[] = {8, 16};
static const apo_sweep_param replicates[] = {{"replicates", reps, 2}};

static const sweep_refusal sweep_refusals[] = {
    {"bollinger", NULL, 0, SWEEP(.n_grid = 0), APO_ERR_INVALID_ARGUMENT, "empty", NULL},
    {"bollinger", NULL, 0, SWEEP(.grid = empty, .n_grid = 1), APO_ERR_INVALID_ARGUMENT,
     "period has an empty list", NULL},
    {"bollinger", NULL, 0, SWEEP(.names = names, .n_names = 1, .values = periods, .n_sets = 0),
     APO_ERR_INVALID_ARGUMENT, "no set", NULL},
    {"bollinger", NULL, 0, SWEEP(.grid = twice, .n_grid = 2), APO_ERR_BAD_PARAM,
     "period is swept twice", NULL},
    {"bollinger", fixed_period, 1, SWEEP(.grid = one, .n_grid = 1), APO_ERR_BAD_PARAM,
     "both swept and fixed", NULL},
    {"bollinger", NULL, 0, SWEEP(.grid = unknown, .n_grid = 1), APO_ERR_BAD_PARAM, "\"perioud\"",
     NULL},
    {"bollinger", NULL, 0, SWEEP(.grid = bad, .n_grid = 2), APO_ERR_BAD_PARAM,
     "sweep set 2: ", "period"},
    {"bollinger", NULL, 0, SWEEP(.names = names, .n_names = 1, .values = long_periods, .n_sets = 2),
     APO_ERR_BAD_PARAM, "sweep set 1: ", NULL},
    {"bollinger", NULL, 0, SWEEP(.names = names, .n_names = 1, .values = not_finite, .n_sets = 2),
     APO_ERR_BAD_PARAM, "sweep set 1: ", NULL},
    {"bollinger", NULL, 0, SWEEP(.grid = huge, .n_grid = 2), APO_ERR_INVALID_ARGUMENT,
     "more than 65536", NULL},
    /* Both forms at once, and a range past the end. */
    {"bollinger", NULL, 0, SWEEP(.grid = one, .n_grid = 1, .names = names, .n_names = 1),
     APO_ERR_INVALID_ARGUMENT, "not both", NULL},
    {"bollinger", NULL, 0, SWEEP(.grid = one, .n_grid = 1, .first_set = 2),
     APO_ERR_INVALID_ARGUMENT, "first_set is 2", NULL},
    {"bollinger", NULL, 0, SWEEP(.grid = one, .n_grid = 1, .first_set = 1, .n_sets_run = 2),
     APO_ERR_INVALID_ARGUMENT, "sets 1 to 2", NULL},
    {"bootstrap", NULL, 0, SWEEP(.grid = replicates, .n_grid = 1), APO_ERR_BAD_PARAM, "same shape",
     NULL},
    /* returns_stats has no parameter to sweep. */
    {"returns_stats", NULL, 0, SWEEP(.grid = one, .n_grid = 1), APO_ERR_BAD_PARAM, "returns_stats",
     NULL},
    /* A sweep struct of another size. */
    {"bollinger",
     NULL,
     0,
     {.size = sizeof(apo_sweep) - 8},
     APO_ERR_INVALID_ARGUMENT,
     "APO_SWEEP_INIT",
     NULL},
};

Test(sweep, bad_sweeps_are_refused_with_what_is_wrong, .timeout = 120) {
    apo_runtime *rt = test_runtime("cpu");
    for (size_t i = 0; i < 300; i++)
        many[i] = 2 + (double)i;
    for (size_t i = 0; i < sizeof sweep_refusals / sizeof sweep_refusals[0]; i++) {
        const sweep_refusal *c = &sweep_refusals[i];
        const apo_status got = plan_sweep(rt, c->kernel, c->fixed, c->n_fixed, &c->sweep);
        cr_assert_eq(got, c->want, "refusal %zu (\"%s\"): got %s, wanted %s (%s)", i, c->fragment,
                     apo_status_name(got), apo_status_name(c->want), apo_last_error());
        cr_assert(strstr(apo_last_error(), c->fragment) != NULL,
                  "refusal %zu: \"%s\" does not say \"%s\"", i, apo_last_error(), c->fragment);
        cr_assert(c->also == NULL || strstr(apo_last_error(), c->also) != NULL,
                  "refusal %zu: \"%s\" does not say \"%s\"", i, apo_last_error(), c->also);
    }
    apo_runtime_destroy(rt);
}

/* The values not swept need not make a valid set on their own: a default period longer
 * than the series is fine when every set sweeps a shorter one. */
Test(sweep, unswept_defaults_need_not_be_valid_alone, .timeout = 60) {
    apo_runtime *rt = test_runtime("cpu");
    const double periods[] = {3, 5};
    apo_sweep_param grid[] = {{"period", periods, 2}};
    apo_sweep sw = APO_SWEEP_INIT;
    sw.grid = grid;
    sw.n_grid = 1;
    double *x = walk(10, 1);
    call_outputs got;
    apo_status st =
        run_call(rt, "bollinger", 1, 10, x, NULL, 0, &sw, NULL, 0, APO_SPLIT_AUTO, &got, NULL);
    cr_assert_eq(st, APO_OK, "%s", apo_last_error());
    cr_assert_eq(got.len[0], 20);
    call_outputs_free(&got);
    free(x);
    apo_runtime_destroy(rt);
}
