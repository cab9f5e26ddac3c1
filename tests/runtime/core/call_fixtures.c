/*
 * call_fixtures.c: a call of one input into poisoned outputs sized by apo_output_shape(),
 * for the tests of calls in pieces (call_fixtures.h).
 */
#include <criterion/criterion.h>
#include <stdio.h>
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
    apo_workload w = test_workload(kernel, rows, cols, inputs, 1, NULL, 0);
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

/* call(p) into outputs of its own, freed after. */
static void place_call(const call_placement *p,
                       void (*call)(const call_placement *p, call_outputs *got, apo_report *report,
                                    void *ctx),
                       void *ctx) {
    call_outputs got;
    apo_report report = APO_REPORT_INIT;
    call(p, &got, &report, ctx);
    call_outputs_free(&got);
}

void call_each_placement(apo_runtime *cpu, apo_runtime *multi, const double (*skewed)[3],
                         size_t n_skewed, const char *kernel, size_t ci,
                         void (*call)(const call_placement *p, call_outputs *got,
                                      apo_report *report, void *ctx),
                         void *ctx) {
    static const apo_split splits[] = {APO_SPLIT_AUTO, APO_SPLIT_ROWS, APO_SPLIT_TIME};
    char what[200];
    for (size_t si = 0; si < 3; si++) {
        snprintf(what, sizeof what, "%s case %zu on cpu, split %s", kernel, ci,
                 apo_split_name(splits[si]));
        const call_placement alone = {CALL_ON_CPU, cpu, NULL, 0, 0, splits[si], what};
        place_call(&alone, call, ctx);
        for (size_t ri = 0; ri < n_skewed; ri++) {
            snprintf(what, sizeof what, "%s case %zu on %s, ratios %zu, split %s", kernel, ci,
                     CALL_MULTI_DEVICES, ri, apo_split_name(splits[si]));
            const call_placement shared = {CALL_ON_MULTI, multi, skewed[ri], 3, ri,
                                           splits[si],    what};
            place_call(&shared, call, ctx);
        }
    }
    apo_runtime *failing = call_runtime_failing_b();
    snprintf(what, sizeof what, "%s case %zu with sim:b failing", kernel, ci);
    const call_placement failover = {CALL_ON_FAILING, failing, skewed[1], 3, 1,
                                     APO_SPLIT_TIME,  what};
    place_call(&failover, call, ctx);
    apo_runtime_destroy(failing);
}
