/*
 * Ragged rows (apo_workload.row_lengths, docs/api.md "Ragged rows"): series of different
 * lengths in one call. The contract, and the reference here, is that row r's outputs are
 * bitwise those of a call with that series alone (one row of row_lengths[r] samples), on
 * one device and on several with skewed ratios, split by rows and along time, with a sweep,
 * and with a device failing part-way; outputs past a row's own length are NaN. Bad lengths
 * are refused with messages that name the row.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "call_fixtures.h"
#include "helpers.h"
#include "reference.h"

#define MAX_ROWS 6
#define MAX_SETS 4

/* A ragged call as a test writes it, and an optional sweep of one parameter over it. */
typedef struct ragged_case {
    const char *kernel;
    size_t rows, cols;
    size_t lengths[MAX_ROWS];
    apo_param fixed[2];
    size_t n_fixed;
    const char *swept; /* NULL: no sweep */
    double values[MAX_SETS];
    size_t n_values;
} ragged_case;

/* Lengths of one sample, of exactly a tile, a tile and one, several tiles, and the stride
 * itself (a row of the full width). */
static const ragged_case cases[] = {
    {"bollinger",
     5,
     3 * 4096 + 123,
     {3 * 4096 + 123, 5, 4096, 4097, 777},
     {{"period", 5}},
     1,
     NULL,
     {0},
     0},
    {"bollinger",
     4,
     9001,
     {400, 9001, 300, 8000},
     {{"nbdev_dn", 1.5}},
     1,
     "period",
     {20, 5, 300},
     3},
    {"macd", 5, 2 * 16384 + 77, {1, 16384, 2 * 16384 + 77, 16385, 40}, {{0}}, 0, NULL, {0}, 0},
    {"macd", 3, 20000, {20000, 35, 19999}, {{"fast", 3}}, 1, "signal", {1, 9, 40}, 3},
    {"returns_stats",
     6,
     3 * 8192 + 5,
     {1, 2, 8192, 8193, 3 * 8192 + 5, 100},
     {{0}},
     0,
     NULL,
     {0},
     0},
    {"bootstrap", 4, 3000, {2, 3000, 500, 1999}, {{"replicates", 203}}, 1, NULL, {0}, 0},
    {"bootstrap", 3, 700, {700, 2, 64}, {{0}}, 0, "replicates", {64, 64}, 2},
    {"msum", 4, 2500, {2500, 1, 999, 1001}, {{0}}, 0, "k", {1, 7, 64}, 3},
    {"msum", 3, 999, {10, 999, 500}, {{"k", 30}}, 1, NULL, {0}, 0},
};

/* The case's call on rt with the settings o (its ragged rows among them); fails the test,
 * saying `what`, unless it succeeds. */
static void ragged_call(apo_runtime *rt, const ragged_case *c, const double *x, const call_opts *o,
                        call_outputs *got, apo_report *report, const char *what) {
    call_run_ok(rt, c->kernel, c->rows, c->cols, x, c->fixed, c->n_fixed, o, got, report, what);
}

/* The case's input: each row a random walk of its own length, and past it, up to the
 * stride, values that would show in any output that read them. */
static double *ragged_input(const ragged_case *c, uint64_t seed) {
    double *x = malloc(c->rows * c->cols * sizeof *x);
    cr_assert_not_null(x);
    for (size_t r = 0; r < c->rows; r++) {
        apo__test_random_walk(seed + r, c->lengths[r], 100.0, 0.1, x + r * c->cols);
        for (size_t t = c->lengths[r]; t < c->cols; t++)
            x[r * c->cols + t] = (t % 2) ? 1e300 : NAN;
    }
    return x;
}

/* The parameters of set s: the fixed ones and the swept one's value. */
static size_t set_params(const ragged_case *c, size_t s, apo_param *params) {
    size_t n = 0;
    for (size_t i = 0; i < c->n_fixed; i++)
        params[n++] = c->fixed[i];
    if (c->swept != NULL)
        params[n++] = (apo_param){c->swept, c->values[s]};
    return n;
}

/* refs[s][r]: row r of set s as a call of that series alone, in an array of exactly its
 * length (so that a read past it would be caught by a sanitizer). */
static void single_references(apo_runtime *rt, const ragged_case *c, const double *x,
                              call_outputs refs[MAX_SETS][MAX_ROWS]) {
    size_t sets = c->swept != NULL ? c->n_values : 1;
    for (size_t s = 0; s < sets; s++)
        for (size_t r = 0; r < c->rows; r++) {
            apo_param params[3];
            size_t np = set_params(c, s, params);
            double *alone = malloc(c->lengths[r] * sizeof *alone);
            cr_assert_not_null(alone);
            memcpy(alone, x + r * c->cols, c->lengths[r] * sizeof *alone);
            apo_status st = call_run(rt, c->kernel, 1, c->lengths[r], alone, params, np, NULL,
                                     &refs[s][r], NULL);
            cr_assert_eq(st, APO_OK, "%s set %zu row %zu alone: %s", c->kernel, s, r,
                         apo_last_error());
            free(alone);
        }
}

static void free_references(const ragged_case *c, call_outputs refs[MAX_SETS][MAX_ROWS]) {
    size_t sets = c->swept != NULL ? c->n_values : 1;
    for (size_t s = 0; s < sets; s++)
        for (size_t r = 0; r < c->rows; r++)
            call_outputs_free(&refs[s][r]);
}

/* The ragged call's outputs against the single-row calls: each row's own call_outputs bitwise,
 * NaN from its own length to the stride. */
static void assert_rows_equal(const ragged_case *c, const call_outputs *got,
                              call_outputs refs[MAX_SETS][MAX_ROWS], const char *what) {
    size_t sets = c->swept != NULL ? c->n_values : 1;
    for (size_t i = 0; i < got->n; i++) {
        cr_assert_eq(got->len[i], sets * c->rows * got->cols[i], "%s: output %zu holds %zu", what,
                     i, got->len[i]);
        for (size_t s = 0; s < sets; s++)
            for (size_t r = 0; r < c->rows; r++) {
                const call_outputs *ref = &refs[s][r];
                const double *row = got->data[i] + (s * c->rows + r) * got->cols[i];
                cr_assert_leq(ref->len[i], got->cols[i]);
                cr_assert(memcmp(row, ref->data[i], ref->len[i] * sizeof(double)) == 0,
                          "%s: set %zu row %zu (%zu samples), output %zu differs bitwise from "
                          "the call of that series alone",
                          what, s, r, c->lengths[r], i);
                for (size_t t = ref->len[i]; t < got->cols[i]; t++)
                    cr_assert(isnan(row[t]),
                              "%s: set %zu row %zu, output %zu at %zu past the row's length is "
                              "%g, not NaN",
                              what, s, r, i, t, row[t]);
            }
    }
}

/* The case's sweep, or none; `values` is its storage. */
static const apo_sweep *case_sweep(const ragged_case *c, apo_sweep_param *grid, apo_sweep *sw) {
    if (c->swept == NULL)
        return NULL;
    *sw = (apo_sweep)APO_SWEEP_INIT;
    *grid = (apo_sweep_param){c->swept, c->values, c->n_values};
    sw->grid = grid;
    sw->n_grid = 1;
    return sw;
}

/* A ragged case's call as every placement makes it: its input, settings (ratios and split
 * set per placement), the rows' references and the sets it runs. */
typedef struct ragged_piece {
    const ragged_case *c;
    const double *x;
    call_opts *o;
    call_outputs (*refs)[MAX_ROWS];
    size_t sets;
} ragged_piece;

/* The call so placed gives each row its series' bits alone; on the cpu the report counts the
 * sets, across devices their elements add up (none on the cpu at ratios 2, {0, 1, 2}). */
static void ragged_piece_call(const call_placement *p, call_outputs *got, apo_report *report,
                              void *ctx) {
    const ragged_piece *piece = ctx;
    piece->o->ratios = p->ratios;
    piece->o->n_ratios = p->n_ratios;
    piece->o->split = p->split;
    ragged_call(p->rt, piece->c, piece->x, piece->o, got, report, p->what);
    if (p->where == CALL_ON_CPU)
        cr_assert_eq(report->sets, piece->sets, "%s: report.sets %zu", p->what, report->sets);
    assert_rows_equal(piece->c, got, piece->refs, p->what);
    if (p->where == CALL_ON_MULTI) {
        test_assert_elements_add_up(report, p->what);
        if (p->ratios_index == 2)
            cr_assert_eq(report->devices[0].elements, 0, "%s: cpu had no share", p->what);
    }
}

Test(ragged, every_kernel_each_row_equals_its_series_alone, .timeout = 600) {
    apo_runtime *cpu = test_runtime("cpu");
    apo_runtime *multi = test_runtime(CALL_MULTI_DEVICES);
    test_register_moving_sum(cpu);
    test_register_moving_sum(multi);
    /* Skewed shares: the slow sim device gets the most; one device gets nothing. */
    const double skewed[][3] = {{0.1, 0.7, 0.2}, {0.45, 0.05, 0.5}, {0, 1, 2}};
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        const ragged_case *c = &cases[ci];
        double *x = ragged_input(c, 100 * ci);
        call_outputs refs[MAX_SETS][MAX_ROWS];
        single_references(cpu, c, x, refs);
        apo_sweep_param grid;
        apo_sweep sw;
        call_opts o = {c->lengths, case_sweep(c, &grid, &sw), NULL, 0, APO_SPLIT_AUTO};
        const ragged_piece piece = {c, x, &o, refs, c->swept != NULL ? c->n_values : 1};
        call_each_placement(cpu, multi, skewed, sizeof skewed / sizeof skewed[0], c->kernel, ci,
                            ragged_piece_call, (void *)&piece);
        free_references(c, refs);
        free(x);
    }
    apo_runtime_destroy(cpu);
    apo_runtime_destroy(multi);
}

Test(ragged, a_device_failing_mid_call_keeps_the_bits, .timeout = 300) {
    apo_runtime *cpu = test_runtime("cpu");
    const ragged_case *c = &cases[1]; /* bollinger, swept */
    double *x = ragged_input(c, 7);
    call_outputs refs[MAX_SETS][MAX_ROWS];
    single_references(cpu, c, x, refs);
    apo_sweep_param grid;
    apo_sweep sw;
    const double ratios[] = {0.1, 0.6, 0.3};
    const apo_split splits[] = {APO_SPLIT_ROWS, APO_SPLIT_TIME};
    for (size_t si = 0; si < 2; si++) {
        apo_runtime *failing = test_runtime("cpu,sim:a:rate=1e8:fail_after=2,sim:b:rate=3e8");
        call_opts o = {c->lengths, case_sweep(c, &grid, &sw), ratios, 3, splits[si]};
        call_outputs got;
        apo_report report = APO_REPORT_INIT;
        ragged_call(failing, c, x, &o, &got, &report, "with sim:a failing");
        cr_assert_eq(report.failovers, 1, "sim:a should have failed (failovers %zu)",
                     report.failovers);
        cr_assert(report.devices[1].elements_moved_out > 0);
        assert_rows_equal(c, &got, refs, "bollinger with sim:a failing");
        call_outputs_free(&got);
        apo_runtime_destroy(failing);
    }
    free_references(c, refs);
    free(x);
    apo_runtime_destroy(cpu);
}

/* Every row as long as the stride gives the rectangular call's bits, bootstrap aside (its
 * rows each draw as the row of a call alone, docs/api.md "Ragged rows"). */
Test(ragged, full_length_rows_give_the_rectangular_call, .timeout = 120) {
    apo_runtime *rt = test_runtime(CALL_MULTI_DEVICES);
    const char *const kernels[] = {"bollinger", "macd", "returns_stats"};
    const size_t rows = 5, cols = 20000;
    const size_t lengths[] = {cols, cols, cols, cols, cols};
    double *x = malloc(rows * cols * sizeof *x);
    cr_assert_not_null(x);
    apo__test_random_walk(3, rows * cols, 100.0, 0.1, x);
    for (size_t k = 0; k < 3; k++) {
        call_outputs rect, ragged;
        call_opts o = {lengths, NULL, NULL, 0, APO_SPLIT_TIME};
        cr_assert_eq(call_run(rt, kernels[k], rows, cols, x, NULL, 0, NULL, &rect, NULL), APO_OK,
                     "%s", apo_last_error());
        cr_assert_eq(call_run(rt, kernels[k], rows, cols, x, NULL, 0, &o, &ragged, NULL), APO_OK,
                     "%s", apo_last_error());
        for (size_t i = 0; i < rect.n; i++)
            cr_assert(memcmp(rect.data[i], ragged.data[i], rect.len[i] * sizeof(double)) == 0,
                      "%s output %zu: full-length ragged rows differ from the rectangular call",
                      kernels[k], i);
        call_outputs_free(&rect);
        call_outputs_free(&ragged);
    }
    free(x);
    apo_runtime_destroy(rt);
}

/* The ragged rows against the long-double reference too, not only against the library. */
Test(ragged, bollinger_rows_match_the_long_double_reference, .timeout = 120) {
    apo_runtime *rt = test_runtime(CALL_MULTI_DEVICES);
    const ragged_case *c = &cases[0];
    double *x = ragged_input(c, 21);
    call_opts o = {c->lengths, NULL, NULL, 0, APO_SPLIT_TIME};
    call_outputs got;
    ragged_call(rt, c, x, &o, &got, NULL, "bollinger's ragged rows");
    double *ref[3];
    for (size_t i = 0; i < 3; i++)
        ref[i] = malloc(c->cols * sizeof(double));
    for (size_t r = 0; r < c->rows; r++) {
        const size_t n = c->lengths[r];
        apo__ref_bollinger(x + r * c->cols, n, 5, 2, 2, ref[0], ref[1], ref[2]);
        for (size_t i = 0; i < 3; i++)
            for (size_t t = 0; t < n; t++) {
                double g = got.data[i][r * c->cols + t], e = ref[i][t];
                if (isnan(e)) {
                    cr_assert(isnan(g), "row %zu output %zu at %zu: %g, wanted NaN", r, i, t, g);
                    continue;
                }
                cr_assert(fabs(g - e) <= 1e-9 * fabs(e),
                          "row %zu output %zu at %zu: %.17g vs %.17g", r, i, t, g, e);
            }
    }
    for (size_t i = 0; i < 3; i++)
        free(ref[i]);
    call_outputs_free(&got);
    free(x);
    apo_runtime_destroy(rt);
}

/* The work counted from the real lengths: bollinger's elements are the samples. */
Test(ragged, plan_and_report_count_the_rows_real_elements, .timeout = 120) {
    apo_runtime *rt = test_runtime(CALL_MULTI_DEVICES);
    const ragged_case *c = &cases[1]; /* 4 rows, 3 sets */
    double *x = ragged_input(c, 5);
    const double *inputs[1] = {x};
    apo_sweep_param grid;
    apo_sweep sw;
    call_opts o = {c->lengths, case_sweep(c, &grid, &sw), NULL, 0, APO_SPLIT_ROWS};
    apo_workload w = call_workload(c->kernel, c->rows, c->cols, inputs, c->fixed, c->n_fixed, &o);
    uint64_t samples = 0;
    for (size_t r = 0; r < c->rows; r++)
        samples += c->lengths[r];
    apo_plan_info plan = APO_PLAN_INFO_INIT;
    cr_assert_eq(apo_plan_workload(rt, &w, &plan), APO_OK, "%s", apo_last_error());
    cr_assert_eq(plan.sets, 3);
    cr_assert_eq(plan.elements, 3 * samples, "plan.elements %llu, wanted %llu",
                 (unsigned long long)plan.elements, (unsigned long long)(3 * samples));
    uint64_t sum = 0;
    for (size_t d = 0; d < plan.n_devices; d++)
        sum += plan.device_elements[d];
    cr_assert_eq(sum, plan.elements);
    size_t rows = 0, cols = 0;
    cr_assert_eq(apo_output_shape(rt, &w, 0, &rows, &cols), APO_OK, "%s", apo_last_error());
    cr_assert_eq(rows, 3 * c->rows);
    cr_assert_eq(cols, c->cols);

    call_outputs got;
    apo_report report = APO_REPORT_INIT;
    ragged_call(rt, c, x, &o, &got, &report, "the plan's call");
    cr_assert_eq(report.elements, 3 * samples);
    call_outputs_free(&got);
    free(x);
    apo_runtime_destroy(rt);
}

/* ---- refusals ---------------------------------------------------------------------------- */

static apo_status plan_ragged(apo_runtime *rt, const char *kernel, size_t rows, size_t cols,
                              const size_t *lengths, const apo_param *params, size_t n_params,
                              const apo_sweep *sw) {
    call_opts o = {lengths, sw, NULL, 0, APO_SPLIT_AUTO};
    apo_workload w = call_workload(kernel, rows, cols, NULL, params, n_params, &o);
    apo_plan_info plan = APO_PLAN_INFO_INIT;
    return apo_plan_workload(rt, &w, &plan);
}

Test(ragged, bad_lengths_are_refused_naming_the_row, .timeout = 60) {
    apo_runtime *rt = test_runtime("cpu");
    const size_t zero[] = {10, 5, 0};
    test_assert_refused(plan_ragged(rt, "bollinger", 3, 10, zero, NULL, 0, NULL),
                        APO_ERR_INVALID_ARGUMENT, "row_lengths[2] is 0");
    const size_t too_long[] = {10, 11, 3};
    test_assert_refused(plan_ragged(rt, "macd", 3, 10, too_long, NULL, 0, NULL),
                        APO_ERR_INVALID_ARGUMENT, "row_lengths[1] is 11, longer than cols (10)");

    /* A row the kernel refuses alone: bollinger's period longer than the row, bootstrap's
     * row of one sample. */
    const size_t short_row[] = {100, 19, 100};
    test_assert_refused(plan_ragged(rt, "bollinger", 3, 100, short_row, NULL, 0, NULL),
                        APO_ERR_BAD_PARAM, "row 1 (row_lengths[1] = 19 samples)");
    cr_assert(strstr(apo_last_error(), "period 20") != NULL, "%s", apo_last_error());
    const size_t one_sample[] = {2, 1};
    test_assert_refused(plan_ragged(rt, "bootstrap", 2, 5, one_sample, NULL, 0, NULL),
                        APO_ERR_BAD_PARAM, "row 1 ");

    /* With a sweep, the set and the row. */
    const double periods[] = {5, 50};
    apo_sweep_param grid[] = {{"period", periods, 2}};
    apo_sweep sw = APO_SWEEP_INIT;
    sw.grid = grid;
    sw.n_grid = 1;
    const size_t lengths[] = {100, 40};
    test_assert_refused(plan_ragged(rt, "bollinger", 2, 100, lengths, NULL, 0, &sw),
                        APO_ERR_BAD_PARAM, "sweep set 1: row 1 ");
    /* ... also when the range run leaves that set out: the sweep is checked whole. */
    sw.n_sets_run = 1;
    test_assert_refused(plan_ragged(rt, "bollinger", 2, 100, lengths, NULL, 0, &sw),
                        APO_ERR_BAD_PARAM, "sweep set 1: row 1 ");

    /* One call per row: more rows than such calls can be counted in memory. */
    const size_t small[] = {1};
    test_assert_refused(plan_ragged(rt, "returns_stats", SIZE_MAX / 16, 1, small, NULL, 0, NULL),
                        APO_ERR_OVERFLOW, "overflow");

    /* The shape's own checks still come first. */
    test_assert_refused(plan_ragged(rt, "bollinger", 0, 10, zero, NULL, 0, NULL),
                        APO_ERR_INVALID_ARGUMENT, "must be > 0");
    apo_runtime_destroy(rt);
}

/* A row too short for the parameters is refused before any work; with a shorter period the
 * same rows run, each row's outputs ending in NaN at its own length, and the lengths array
 * is only read. */
Test(ragged, short_rows_end_in_nan_and_their_lengths_are_only_read, .timeout = 60) {
    apo_runtime *rt = test_runtime("cpu");
    const size_t lengths[] = {30, 10};
    double x[60];
    apo__test_random_walk(1, 60, 100.0, 0.1, x);
    call_outputs got;
    const apo_param period[] = {{"period", 20}};
    call_opts o = {lengths, NULL, NULL, 0, APO_SPLIT_AUTO};
    apo_status st = call_run(rt, "bollinger", 2, 30, x, period, 1, &o, &got, NULL);
    cr_assert_eq(st, APO_ERR_BAD_PARAM, "%s", apo_status_name(st));
    const apo_param short_period[] = {{"period", 10}};
    st = call_run(rt, "bollinger", 2, 30, x, short_period, 1, &o, &got, NULL);
    cr_assert_eq(st, APO_OK, "%s", apo_last_error());
    cr_assert_eq(lengths[0], 30);
    cr_assert_eq(lengths[1], 10);
    /* Row 1's last band value is its own series' (position 9), then NaN. */
    cr_assert(!isnan(got.data[1][30 + 9]));
    cr_assert(isnan(got.data[1][30 + 10]));
    call_outputs_free(&got);
    apo_runtime_destroy(rt);
}

/* Split by rows, ragged rows are shared out by their elements, not their number: one long
 * row and nine short ones on two equal devices give the long row to one and the rest to the
 * other, not five rows each. */
Test(ragged, rows_are_shared_out_by_their_elements, .timeout = 60) {
    apo_runtime *rt = test_runtime("sim:a:rate=1e8,sim:b:rate=1e8");
    const size_t lengths[] = {9000, 100, 100, 100, 100, 100, 100, 100, 100, 1000};
    const double ratios[] = {1, 1};
    call_opts o = {lengths, NULL, ratios, 2, APO_SPLIT_ROWS};
    apo_workload w = call_workload("bollinger", 10, 9000, NULL, NULL, 0, &o);
    apo_plan_info plan = APO_PLAN_INFO_INIT;
    cr_assert_eq(apo_plan_workload(rt, &w, &plan), APO_OK, "%s", apo_last_error());
    cr_assert_eq(plan.split_axis, APO_SPLIT_ROWS);
    cr_assert_eq(plan.elements, 10800);
    cr_assert_eq(plan.device_elements[0], 9000, "sim:a got %llu elements",
                 (unsigned long long)plan.device_elements[0]);
    cr_assert_eq(plan.device_elements[1], 1800, "sim:b got %llu elements",
                 (unsigned long long)plan.device_elements[1]);
    /* A device without a share gets no row, and the other every row. */
    const double one_sided[] = {0, 1};
    o.ratios = one_sided;
    w = call_workload("bollinger", 10, 9000, NULL, NULL, 0, &o);
    cr_assert_eq(apo_plan_workload(rt, &w, &plan), APO_OK, "%s", apo_last_error());
    cr_assert_eq(plan.device_elements[0], 0);
    cr_assert_eq(plan.device_elements[1], 10800);
    apo_runtime_destroy(rt);
}
