/*
 * call_fixtures.c: a call of one input into poisoned outputs sized by apo_output_shape(),
 * for the tests of calls in pieces (call_fixtures.h).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "call_fixtures.h"
#include "helpers.h"

void call_outputs_free(call_outputs *o) {
    for (size_t i = 0; i < o->n; i++)
        free(o->data[i]);
    memset(o, 0, sizeof *o);
}

apo_workload call_workload(const char *kernel, size_t rows, size_t cols, const double **inputs,
                           const apo_param *params, size_t n_params, const call_opts *o) {
    apo_workload w = APO_WORKLOAD_INIT;
    w.kernel = kernel;
    w.rows = rows;
    w.cols = cols;
    w.inputs = inputs;
    w.n_inputs = 1;
    w.params = params;
    w.n_params = n_params;
    w.seed = 99;
    if (o != NULL) {
        w.row_lengths = o->row_lengths;
        w.sweep = o->sweep;
        w.ratios = o->ratios;
        w.n_ratios = o->n_ratios;
        w.split = o->split;
    }
    return w;
}

apo_status call_run(apo_runtime *rt, const char *kernel, size_t rows, size_t cols, const double *x,
                    const apo_param *params, size_t n_params, const call_opts *o, call_outputs *out,
                    apo_report *report) {
    apo_kernel_info info = APO_KERNEL_INFO_INIT;
    cr_assert_eq(apo_kernel_get(rt, kernel, &info), APO_OK, "%s", apo_last_error());
    const double *inputs[1] = {x};
    apo_workload w = call_workload(kernel, rows, cols, inputs, params, n_params, o);
    memset(out, 0, sizeof *out);
    out->n = info.n_outputs;
    for (size_t i = 0; i < info.n_outputs; i++) {
        size_t r = 0, oc = 0;
        apo_status st = apo_output_shape(rt, &w, i, &r, &oc);
        if (st != APO_OK) {
            call_outputs_free(out);
            return st;
        }
        out->len[i] = r * oc;
        out->cols[i] = oc;
        out->data[i] = malloc(out->len[i] * sizeof(double));
        cr_assert_not_null(out->data[i]);
        for (size_t j = 0; j < out->len[i]; j++)
            out->data[i][j] = CALL_POISON;
    }
    w.outputs = out->data;
    w.n_outputs = out->n;
    return apo_distribute_workload(rt, &w, report);
}

void call_run_ok(apo_runtime *rt, const char *kernel, size_t rows, size_t cols, const double *x,
                 const apo_param *params, size_t n_params, const call_opts *o, call_outputs *out,
                 apo_report *report, const char *what) {
    apo_status st = call_run(rt, kernel, rows, cols, x, params, n_params, o, out, report);
    cr_assert_eq(st, APO_OK, "%s: %s: %s", what, apo_status_name(st), apo_last_error());
}

apo_runtime *call_runtime_failing_b(void) {
    apo_runtime *rt = test_runtime("cpu,sim:a:rate=1e8,sim:b:rate=3e8:fail_after=2");
    test_register_moving_sum(rt);
    return rt;
}
