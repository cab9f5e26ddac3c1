/*
 * The determinism contract, guarantees 1 and 2: every built-in kernel (and a user kernel)
 * gives bitwise identical outputs on the cpu device, on 2 and on 5 simulated devices, with
 * equal and several random ratios, split by rows and along time, run twice.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "helpers.h"
#include "test_user_kernel.h"

/* Shapes with several tiles per row, a ragged last tile, and rows > 1. */
static const kernel_case cases[] = {
    {"bollinger", 1, 3 * 4096 + 123, "period", 20},
    {"bollinger", 3, 9001, "period", 2},
    {"bollinger", 40, 700, "period", 700},
    {"macd", 1, 2 * 16384 + 77, NULL, 0},
    {"macd", 5, 20000, "signal", 1},
    {"returns_stats", 1, 5 * 8192 + 5, NULL, 0},
    {"returns_stats", 37, 3000, NULL, 0},
    {"bootstrap", 1, 3000, "replicates", 203},
    {"bootstrap", 3, 500, "replicates", 64},
};

static const char *const device_sets[] = {
    "sim:a,sim:b",
    "sim:a,sim:b,sim:c,sim:d,sim:e",
    "cpu,sim:a",
};

static void run_case(apo_runtime *rt, const kernel_case *c, test_job *job, const double *ratios,
                     size_t n_ratios, apo_split split) {
    test_job_of_case(job, rt, c, 7);
    job->w.ratios = ratios;
    job->w.n_ratios = n_ratios;
    job->w.split = split;
    apo_report report = APO_REPORT_INIT;
    apo_status st = test_job_run(job, rt, &report);
    cr_assert_eq(st, APO_OK, "%s: %s", c->kernel, apo_last_error());
    cr_assert_eq(report.split_axis, split == APO_SPLIT_AUTO ? report.split_axis : split);
}

static void assert_same(const test_job *ref, const test_job *got, const char *what) {
    for (size_t i = 0; i < ref->w.n_outputs; i++) {
        size_t diff = test_bitwise_diff(ref, got, i);
        cr_assert_eq(diff, 0, "%s %s output %zu: %zu elements differ bitwise", ref->w.kernel, what,
                     i, diff);
    }
}

/* A case and its reference run on the cpu. */
typedef struct reference {
    const kernel_case *c;
    const test_job *ref;
} reference;

/* The case placed so, twice, gives the reference's bits both times. */
static void twice_same_as_reference(apo_runtime *rt, const double *ratios, size_t n_ratios,
                                    apo_split split, const char *where, void *ctx) {
    const reference *r = ctx;
    for (int repeat = 0; repeat < 2; repeat++) {
        test_job got;
        run_case(rt, r->c, &got, ratios, n_ratios, split);
        char what[200];
        snprintf(what, sizeof what, "%s repeat %d", where, repeat);
        assert_same(r->ref, &got, what);
        test_job_free(&got);
    }
}

Test(determinism, every_kernel_same_bits_on_every_device_set_ratio_and_axis, .timeout = 300) {
    apo_runtime *cpu = test_runtime("cpu");
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        const kernel_case *c = &cases[ci];
        test_job ref;
        run_case(cpu, c, &ref, NULL, 0, APO_SPLIT_AUTO);
        /* The reference itself must be complete: no poison left anywhere. */
        for (size_t i = 0; i < ref.w.n_outputs; i++)
            for (size_t j = 0; j < ref.output_len[i]; j++)
                cr_assert_neq(ref.outputs[i][j], -12345.678, "%s output %zu[%zu] unwritten",
                              c->kernel, i, j);

        const reference r = {c, &ref};
        test_each_placement(device_sets, sizeof device_sets / sizeof device_sets[0], 4, 1000 * ci,
                            twice_same_as_reference, (void *)&r);
        test_job_free(&ref);
    }
    apo_runtime_destroy(cpu);
}

/* Ratios that change between calls (as re-profiling would change them) on one runtime. */
Test(determinism, ratios_changed_between_calls, .timeout = 60) {
    apo_runtime *rt = test_runtime("sim:a,sim:b,sim:c");
    test_job first;
    run_case(rt, &cases[0], &first, NULL, 0, APO_SPLIT_TIME);
    for (int call = 0; call < 10; call++) {
        double ratios[3];
        test_random_ratios(500 + (uint64_t)call, 3, ratios);
        if (call % 3 == 0)
            ratios[call % 2] = 0; /* a device left out entirely */
        test_job got;
        run_case(rt, &cases[0], &got, ratios, 3, APO_SPLIT_TIME);
        assert_same(&first, &got, "after a ratio change");
        test_job_free(&got);
    }
    test_job_free(&first);
    apo_runtime_destroy(rt);
}

/* A user kernel whose tiles are deterministic gets guarantees 1 and 2 as well. */
static apo_status diff_kernel(const apo_kernel_call *call, void *user) {
    (void)user;
    const double *x = call->inputs[0] + call->row * call->cols;
    double *y = call->outputs[0] + call->row * call->cols;
    for (size_t t = call->begin; t < call->end; t++)
        y[t] = t == 0 ? NAN : (x[t] - x[t - 1]) * call->params[0];
    return APO_OK;
}

static void register_diff(apo_runtime *rt) {
    static const char *const names[] = {"scale"};
    static const double defaults[] = {1.0};
    apo_kernel_desc d = test_user_kernel("diff", diff_kernel, NULL, 100);
    d.n_params = 1;
    d.param_names = names;
    d.param_defaults = defaults;
    d.halo = 1;
    test_user_kernel_register(rt, &d);
}

Test(determinism, user_kernel_same_bits_across_splits, .timeout = 60) {
    apo_runtime *cpu = test_runtime("cpu");
    apo_runtime *sims = test_runtime("sim:a,sim:b,sim:c,sim:d,sim:e");
    register_diff(cpu);
    register_diff(sims);
    kernel_case c = {"diff", 3, 1234, "scale", 3.0};
    test_job ref;
    run_case(cpu, &c, &ref, NULL, 0, APO_SPLIT_AUTO);
    for (size_t t = 1; t < 1234; t++)
        cr_assert_eq(ref.outputs[0][t], (ref.input[t] - ref.input[t - 1]) * 3.0);
    double ratios[5] = {0.1, 0.5, 0.05, 0.3, 0.05};
    for (int si = 1; si <= 2; si++) {
        test_job got;
        run_case(sims, &c, &got, ratios, 5, (apo_split)si);
        assert_same(&ref, &got, "user kernel");
        test_job_free(&got);
    }
    test_job_free(&ref);
    apo_runtime_destroy(cpu);
    apo_runtime_destroy(sims);
}
