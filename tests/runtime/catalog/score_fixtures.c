/*
 * score_fixtures.c: the seeded walks with a gap, the scored call into poisoned scores, the
 * indicator's own outputs that scores are checked from, and the one-row workload of the
 * refusals, that the tests of scores share (score_fixtures.h).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "helpers.h"
#include "reference.h"
#include "score_fixtures.h"

double *score_walk_with_gap(size_t rows, size_t cols, uint64_t seed, size_t first, size_t step,
                            size_t len) {
    double *x = malloc(rows * cols * sizeof *x);
    cr_assert_not_null(x);
    for (size_t r = 0; r < rows; r++)
        apo__test_random_walk(seed + r, cols, 100.0, 0.5, x + r * cols);
    for (size_t r = 0; r < rows; r++)
        for (size_t t = first + step * r; t < first + step * r + len; t++)
            x[r * cols + t] = NAN;
    return x;
}

int score_bands_revert_position(int prev, double close, double upper, double middle, double lower) {
    if (isnan(upper) || isnan(middle) || isnan(lower))
        return 0;
    if (prev > 0)
        return close >= middle ? 0 : 1;
    if (prev < 0)
        return close <= middle ? 0 : -1;
    return close < lower ? 1 : close > upper ? -1 : 0;
}

double *score_run(apo_runtime *rt, apo_workload *w, size_t *out_rows, size_t *out_cols) {
    size_t rows = 0, cols = 0;
    cr_assert_eq(apo_output_shape(rt, w, 0, &rows, &cols), APO_OK, "%s:%s: %s", w->kernel, w->score,
                 apo_last_error());
    const size_t per = rows * cols;
    double *mem = malloc(APO_N_SCORES * per * sizeof *mem);
    cr_assert_not_null(mem);
    for (size_t i = 0; i < APO_N_SCORES * per; i++)
        mem[i] = SCORE_POISON;
    double *outs[APO_N_SCORES];
    for (int k = 0; k < APO_N_SCORES; k++)
        outs[k] = mem + k * per;
    w->outputs = outs;
    w->n_outputs = APO_N_SCORES;
    const apo_status st = apo_distribute_workload(rt, w, NULL);
    w->outputs = NULL; /* outs ends with this call */
    cr_assert_eq(st, APO_OK, "%s:%s: %s", w->kernel, w->score, apo_last_error());
    if (out_rows != NULL)
        *out_rows = rows;
    if (out_cols != NULL)
        *out_cols = cols;
    return mem;
}

void score_one_row_init(score_one_row *s, const char *kernel, const char *rule, const double *x,
                        size_t cols) {
    apo_workload w = APO_WORKLOAD_INIT;
    s->w = w;
    s->in[0] = x;
    for (int k = 0; k < APO_N_SCORES; k++) {
        s->scores[k] = SCORE_POISON;
        s->outs[k] = &s->scores[k];
    }
    s->w.kernel = kernel;
    s->w.score = rule;
    s->w.inputs = s->in;
    s->w.n_inputs = 1;
    s->w.outputs = s->outs;
    s->w.n_outputs = APO_N_SCORES;
    s->w.rows = 1;
    s->w.cols = cols;
    s->w.learn = APO_SWITCH_OFF;
}

void score_one_row_init_walk(score_one_row *s, const char *kernel, const char *rule) {
    apo__test_random_walk(3, SCORE_WALK_COLS, 100.0, 0.5, s->walk);
    score_one_row_init(s, kernel, rule, s->walk, SCORE_WALK_COLS);
}

void score_one_row_assert_unwritten(const score_one_row *s) {
    for (int k = 0; k < APO_N_SCORES; k++)
        cr_assert_eq(s->scores[k], SCORE_POISON, "%s:%s: score %d written", s->w.kernel, s->w.score,
                     k);
}

size_t score_indicator(apo_runtime *rt, const char *kernel, const double *x, size_t rows,
                       size_t cols, const apo_param *params, size_t n_params, double *out[3]) {
    apo_kernel_info info = APO_KERNEL_INFO_INIT;
    cr_assert_eq(apo_kernel_get(rt, kernel, &info), APO_OK, "%s", apo_last_error());
    cr_assert_leq(info.n_outputs, 3, "%s", kernel);
    for (size_t k = 0; k < 3; k++) {
        out[k] = malloc(rows * cols * sizeof(double));
        cr_assert_not_null(out[k]);
    }
    const double *in[1] = {x};
    apo_workload w = test_workload(kernel, rows, cols, in, 1, out, info.n_outputs);
    w.params = params;
    w.n_params = n_params;
    w.learn = APO_SWITCH_OFF;
    cr_assert_eq(apo_distribute_workload(rt, &w, NULL), APO_OK, "%s: %s", kernel, apo_last_error());
    return info.n_outputs;
}

void score_indicator_free(double *out[3]) {
    for (size_t k = 0; k < 3; k++)
        free(out[k]);
}
