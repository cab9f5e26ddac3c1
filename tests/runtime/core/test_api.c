/*
 * The public API end to end: results against the independent references, the report,
 * kernel registration and description, output shapes, and one runtime shared by threads.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/kernel.h"
#include "core/nonfinite_count.h"
#include "core/plan.h"
#include "core/runtime.h"
#include "helpers.h"
#include "reference.h"
#include "test_user_kernel.h"

Test(api, bollinger_end_to_end_matches_long_double_reference, .timeout = 60) {
    apo_runtime *rt = test_runtime("sim:a,sim:b,cpu");
    test_job job;
    size_t rows = 3, cols = 10000;
    test_job_init(&job, rt, "bollinger", rows, cols, 11);
    test_job_param(&job, "period", 30);
    job.w.split = APO_SPLIT_TIME;
    cr_assert_eq(test_job_run(&job, rt, NULL), APO_OK, "%s", apo_last_error());
    double *up = malloc(cols * sizeof *up), *mid = malloc(cols * sizeof *mid),
           *lo = malloc(cols * sizeof *lo);
    for (size_t r = 0; r < rows; r++) {
        apo__ref_bollinger(job.input + r * cols, cols, 30, 2, 2, up, mid, lo);
        for (size_t t = 0; t < cols; t++) {
            double got = job.outputs[1][r * cols + t];
            if (t < 29) {
                cr_assert(isnan(got));
                continue;
            }
            cr_assert_leq(fabs(got - mid[t]), 1e-13 * fabs(mid[t]), "row %zu t %zu", r, t);
            cr_assert_leq(fabs(job.outputs[0][r * cols + t] - up[t]), 1e-13 * fabs(up[t]));
            cr_assert_leq(fabs(job.outputs[2][r * cols + t] - lo[t]), 1e-13 * fabs(lo[t]));
        }
    }
    free(up), free(mid), free(lo);
    test_job_close(&job, rt);
}

Test(api, returns_stats_end_to_end_matches_long_double_reference, .timeout = 60) {
    apo_runtime *rt = test_runtime("sim:a,sim:b,sim:c");
    test_job job;
    size_t rows = 2, cols = 50001;
    test_job_init(&job, rt, "returns_stats", rows, cols, 5);
    cr_assert_eq(test_job_run(&job, rt, NULL), APO_OK, "%s", apo_last_error());
    double *ret = malloc((cols - 1) * sizeof *ret);
    for (size_t r = 0; r < rows; r++) {
        apo__ref_returns(job.input + r * cols, cols, ret);
        apo__ref_moments m;
        apo__ref_moments_of(ret, cols - 1, 1, &m);
        cr_assert_eq(job.outputs[0][r], (double)m.count);
        cr_assert_leq(fabsl(job.outputs[1][r] - m.mean), 1e-12L * fabsl(m.mean) + 1e-18L);
        long double var = m.m2 / (m.count - 1);
        cr_assert_leq(fabsl(job.outputs[2][r] - var), 1e-12L * var);
        cr_assert_eq(job.outputs[3][r], (double)m.min);
        cr_assert_eq(job.outputs[4][r], (double)m.max);
    }
    free(ret);
    test_job_close(&job, rt);
}

Test(api, report_accounts_for_every_element, .timeout = 60) {
    test_job job;
    apo_runtime *rt = test_job_on(&job, test_runtime("sim:a:rate=1M,sim:b:rate=3M,sim:c:rate=4M"),
                                  "macd", 4, 400000, 2);
    double ratios[3] = {1, 3, 4};
    job.w.ratios = ratios;
    job.w.n_ratios = 3;
    apo_report r = APO_REPORT_INIT;
    cr_assert_eq(test_job_run(&job, rt, &r), APO_OK, "%s", apo_last_error());
    cr_assert_str_eq(r.kernel, "macd");
    cr_assert_eq(r.rows, 4);
    cr_assert_eq(r.cols, 400000);
    cr_assert_eq(r.elements, 1600000);
    cr_assert_eq(r.ratio_source, APO_RATIOS_EXPLICIT);
    cr_assert_str_eq(apo_ratio_source_name(r.ratio_source), "explicit");
    cr_assert_eq(r.simulated, 1);
    cr_assert_eq(r.n_devices, 3);
    uint64_t total = 0;
    double shares = 0;
    for (size_t d = 0; d < 3; d++) {
        total += r.devices[d].elements;
        shares += r.devices[d].share;
        cr_assert_eq(r.devices[d].failed, 0);
        cr_assert_eq(r.devices[d].simulated, 1);
    }
    cr_assert_eq(total, r.elements);
    cr_assert_float_eq(shares, 1.0, 1e-12);
    cr_assert_float_eq(r.devices[1].share, 3.0 / 8.0, 1e-12);
    /* Modelled rates proportional to the ratios: balanced to within the tile rounding. */
    cr_assert_geq(r.balance_efficiency, 0.9, "efficiency %g", r.balance_efficiency);
    cr_assert_leq(r.balance_efficiency, 1.0);
    double makespan = 0;
    for (size_t d = 0; d < 3; d++)
        makespan = fmax(makespan, r.devices[d].wall_ms);
    cr_assert_float_eq(r.makespan_ms, makespan, 1e-9);

    /* Without ratios, under a tag nothing is known about: an equal split. */
    job.w.n_ratios = 0;
    job.w.tag = "never_seen";
    cr_assert_eq(test_job_run(&job, rt, &r), APO_OK);
    cr_assert_eq(r.ratio_source, APO_RATIOS_EQUAL);
    cr_assert_float_eq(r.devices[0].share, 1.0 / 3.0, 1e-12);

    /* Under the kernel's own tag, the first call's measurements were learnt: the solved
     * shares follow the devices' rates of 1:3:4 (wall clock, so to within a few percent). */
    job.w.tag = NULL;
    cr_assert_eq(test_job_run(&job, rt, &r), APO_OK);
    cr_assert_eq(r.ratio_source, APO_RATIOS_ONLINE);
    cr_assert_float_eq(r.devices[0].share, 1.0 / 8.0, 0.01, "%g", r.devices[0].share);
    cr_assert_float_eq(r.devices[2].share, 4.0 / 8.0, 0.02, "%g", r.devices[2].share);
    test_job_close(&job, rt);
}

/* ---- outputs that overflow (docs/kernels.md, "Range") ------------------------------------ */

/* Output values that are not finite where the long-double reference (default parameters)
 * is: what apo_report.nonfinite_outputs is to count, found independently of the library's
 * rules. */
static uint64_t overflowed_against_reference(const test_job *job) {
    const size_t rows = job->w.rows, cols = job->w.cols;
    int bollinger = strcmp(job->w.kernel, "bollinger") == 0;
    double *ref[3];
    for (int o = 0; o < 3; o++)
        cr_assert_not_null(ref[o] = malloc(cols * sizeof(double)));
    uint64_t count = 0;
    for (size_t r = 0; r < rows; r++) {
        const double *x = job->input + r * cols;
        if (bollinger)
            apo__ref_bollinger(x, cols, 20, 2, 2, ref[0], ref[1], ref[2]);
        else
            apo__ref_macd(x, cols, 12, 26, 9, ref[0], ref[1], ref[2]);
        for (int o = 0; o < 3; o++)
            for (size_t t = 0; t < cols; t++)
                count += !isfinite(job->outputs[o][r * cols + t]) && isfinite(ref[o][t]);
    }
    for (int o = 0; o < 3; o++)
        free(ref[o]);
    return count;
}

/* The cases: 40 samples near 1e160 (bollinger's squared deviations overflow: upper
 * inf and lower -inf, middle exact) and near 1.7e308 (every sum overflows: NaN everywhere
 * for bollinger; macd's seeds overflow). The exact values are all finite (the largest band
 * is about 1.75e308). macd computes through 1e160. */
Test(api, report_counts_outputs_that_overflow_where_the_exact_value_is_finite, .timeout = 60) {
    static const struct {
        const char *kernel;
        double scale;
        uint64_t expected; /* windows (21 or 7 positions) x outputs that overflow */
    } cases[] = {
        {"bollinger", 1e160, 21 * 2}, {"bollinger", 1.7e308, 21 * 3}, {"macd", 1.7e308, 7 * 3},
        {"macd", 1e160, 0},           {"bollinger", 1.0, 0},          {"macd", 1.0, 0},
    };
    apo_runtime *rt = test_runtime("cpu");
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        test_job job;
        test_job_init(&job, rt, cases[c].kernel, 1, 40, 3);
        for (size_t i = 0; i < 40; i++)
            job.input[i] = cases[c].scale * (1.0 + 0.02 * sin((double)i));
        apo_report report = APO_REPORT_INIT;
        cr_assert_eq(test_job_run(&job, rt, &report), APO_OK, "%s", apo_last_error());
        uint64_t want = overflowed_against_reference(&job);
        cr_assert_eq(want, cases[c].expected, "%s at %g: the reference finds %llu", cases[c].kernel,
                     cases[c].scale, (unsigned long long)want);
        cr_assert_eq(report.nonfinite_outputs, want, "%s at %g: reported %llu, expected %llu",
                     cases[c].kernel, cases[c].scale, (unsigned long long)report.nonfinite_outputs,
                     (unsigned long long)want);
        test_job_free(&job);
    }

    /* A band whose exact value is itself beyond the largest double (nbdev_up 1e300 times an
     * sd near 1e10) is counted too: every sample of its window is finite. */
    test_job job;
    test_job_init(&job, rt, "bollinger", 1, 40, 3);
    test_job_param(&job, "nbdev_up", 1e300);
    for (size_t i = 0; i < 40; i++)
        job.input[i] = 1e12 * (1.0 + 0.02 * sin((double)i));
    apo_report report = APO_REPORT_INIT;
    cr_assert_eq(test_job_run(&job, rt, &report), APO_OK, "%s", apo_last_error());
    cr_assert_eq(report.nonfinite_outputs, 21, "%llu",
                 (unsigned long long)report.nonfinite_outputs);
    double up[40], mid[40], lo[40];
    apo__ref_bollinger(job.input, 40, 20, 1e300, 2, up, mid, lo);
    for (size_t t = 19; t < 40; t++)
        cr_assert(isinf(up[t]) && isfinite(mid[t]) && isfinite(lo[t]), "t %zu", t);
    test_job_close(&job, rt);
}

/* Two rows over several tiles: a random walk with NaN and infinite samples (their NaN
 * outputs are the definition, not an overflow), a stretch near 1e160 in one row and near
 * 1e307 in the other (sums of 20 or 26 such samples overflow; no exact value does), where
 * a macd tile starts its warm-up (32768 - 809), since macd overflows only in its seeds. The count
 * equals the reference's on one cpu and on a time split over a cpu and sim devices, one of them
 * flaky (tiles redone in failover are counted once); the same data without the stretches counts 0.
 */
Test(api, nonfinite_count_skips_gaps_and_does_not_depend_on_the_split, .timeout = 120) {
    static const char *const kernels[2] = {"bollinger", "macd"};
    static const char *const device_lists[2] = {"cpu",
                                                "cpu:threads=1,sim:a,sim:b:flaky=0.4:seed=7"};
    const size_t rows = 2, cols = 60000;
    for (int stretches = 0; stretches < 2; stretches++) {
        for (int k = 0; k < 2; k++) {
            uint64_t first = 0;
            for (int d = 0; d < 2; d++) {
                test_job job;
                apo_runtime *rt =
                    test_job_on(&job, test_runtime(device_lists[d]), kernels[k], rows, cols, 17);
                for (size_t i = 0; i < rows * cols; i++) {
                    if (i % 997 == 0)
                        job.input[i] = NAN;
                    else if (i % 4999 == 0)
                        job.input[i] = i % 2 ? INFINITY : -INFINITY;
                }
                if (stretches) {
                    for (size_t t = 31900; t < 32300; t++) {
                        if (isfinite(job.input[t]))
                            job.input[t] *= 1e158;
                        if (isfinite(job.input[cols + t]))
                            job.input[cols + t] = 1e307 * (1.0 + 0.03 * sin((double)t));
                    }
                }
                job.w.split = APO_SPLIT_TIME;
                apo_report report = APO_REPORT_INIT;
                cr_assert_eq(test_job_run(&job, rt, &report), APO_OK, "%s", apo_last_error());
                uint64_t want = overflowed_against_reference(&job);
                cr_assert_eq(report.nonfinite_outputs, want,
                             "%s on %s: reported %llu, the reference finds %llu", kernels[k],
                             device_lists[d], (unsigned long long)report.nonfinite_outputs,
                             (unsigned long long)want);
                if (!stretches)
                    cr_assert_eq(want, 0, "%s: a gap was counted", kernels[k]);
                else
                    cr_assert_gt(want, 0, "%s: the stretches overflow nothing", kernels[k]);
                if (d == 0)
                    first = report.nonfinite_outputs;
                cr_assert_eq(report.nonfinite_outputs, first, "%s: the count depends on the split",
                             kernels[k]);
                test_job_close(&job, rt);
            }
        }
    }
}

/* Tiles that no host device checked (those a GPU or a rank computed) are checked after the
 * call: a call whose every tile is left unchecked gives the count of the checked run, at a size
 * counted on one thread and at one (1.2 million elements) counted on every core. */
Test(api, nonfinite_count_checks_tiles_no_device_checked, .timeout = 60) {
    static const size_t cols[2] = {20000, 400000};
    for (int c = 0; c < 2; c++) {
        test_job job;
        apo_runtime *rt = test_job_on(&job, test_runtime("cpu"), "bollinger", 3, cols[c], 5);
        for (size_t t = 5000; t < 5100; t++)
            job.input[cols[c] + t] *= 1e160;
        for (size_t t = cols[c] - 300; t < cols[c] - 200; t++)
            job.input[2 * cols[c] + t] *= 1e160;
        apo_report report = APO_REPORT_INIT;
        cr_assert_eq(test_job_run(&job, rt, &report), APO_OK, "%s", apo_last_error());
        cr_assert_gt(report.nonfinite_outputs, 0);
        apo__call call;
        cr_assert_eq(apo__resolve_call(rt, &job.w, &call, 1), APO_OK, "%s", apo_last_error());
        cr_assert_eq(apo__nonfinite_start(&call), APO_OK);
        cr_assert_not_null(call.nonfinite);
        cr_assert_eq(apo__nonfinite_finish(&call), report.nonfinite_outputs, "%zu columns",
                     cols[c]);
        cr_assert_null(call.nonfinite);
        test_job_close(&job, rt);
    }
}

Test(api, output_shapes) {
    apo_runtime *rt = test_runtime("cpu");
    apo_workload w = APO_WORKLOAD_INIT;
    w.rows = 3;
    w.cols = 100;
    size_t r, c;
    w.kernel = "bollinger";
    cr_assert_eq(apo_output_shape(rt, &w, 2, &r, &c), APO_OK);
    cr_assert(r == 3 && c == 100);
    cr_assert_eq(apo_output_shape(rt, &w, 3, &r, &c), APO_ERR_NOT_FOUND);
    w.kernel = "returns_stats";
    cr_assert_eq(apo_output_shape(rt, &w, 4, &r, &c), APO_OK);
    cr_assert(r == 3 && c == 1);
    w.kernel = "bootstrap";
    apo_param p = {"replicates", 77};
    w.params = &p;
    w.n_params = 1;
    cr_assert_eq(apo_output_shape(rt, &w, 0, &r, &c), APO_OK);
    cr_assert(r == 3 && c == 77);
    cr_assert_eq(apo_output_shape(rt, &w, 2, &r, &c), APO_OK);
    cr_assert(c == 1);
    apo_runtime_destroy(rt);
}

Test(api, kernels_are_described) {
    apo_runtime *rt = test_runtime("cpu");
    size_t n;
    cr_assert_eq(apo_kernel_count(rt, &n), APO_OK);
    /* The four built-ins first, then the indicator catalog (test_catalog_runtime.c). */
    cr_assert_eq(n, 4 + 202); /* 61 of them TA-Lib's candlestick patterns */
    const char *expect[] = {"bollinger", "macd", "returns_stats", "bootstrap"};
    for (size_t i = 0; i < 4; i++) {
        const char *name;
        cr_assert_eq(apo_kernel_name(rt, i, &name), APO_OK);
        cr_assert_str_eq(name, expect[i]);
    }
    apo_kernel_info info = APO_KERNEL_INFO_INIT;
    cr_assert_eq(apo_kernel_get(rt, "macd", &info), APO_OK);
    cr_assert_eq(info.builtin, 1);
    cr_assert_eq(info.n_outputs, 3);
    cr_assert_str_eq(info.output_names[1], "signal");
    test_assert_params(&info, (const char *const[]){"fastperiod", "slowperiod", "signalperiod"},
                       (const double[]){12, 26, 9}, 3);
    /* Bounds and halos as docs/kernels.md gives them: macd's warm-up H is 809 for 12/26/9. */
    cr_assert_eq(info.param_min[2], 1);
    cr_assert(info.param_integer[0] && info.param_integer[1] && info.param_integer[2]);
    cr_assert_eq(info.halo, 809);
    cr_assert(!info.halo_whole_row && info.halo_rule != NULL);
    cr_assert_eq(apo_kernel_get(rt, "bollinger", &info), APO_OK);
    cr_assert_eq(info.param_min[0], 2);
    cr_assert_eq(info.param_integer[0], 1);
    cr_assert_eq(info.param_integer[1], 0);
    cr_assert_eq(info.param_min[1], -1e300);
    cr_assert_eq(info.param_max[2], 1e300);
    cr_assert_eq(info.halo, 19, "a window of 20 reads the 19 samples before it");
    cr_assert_eq(apo_kernel_get(rt, "returns_stats", &info), APO_OK);
    cr_assert_eq(info.halo, 1);
    cr_assert_eq(apo_kernel_get(rt, "bootstrap", &info), APO_OK);
    cr_assert(info.halo_whole_row && info.halo == 0);
    cr_assert_eq(info.param_max[0], 4294967295.0);
    cr_assert_eq(apo_kernel_get(rt, "nope", &info), APO_ERR_UNKNOWN_KERNEL);
    apo_runtime_destroy(rt);
}

static apo_status failing_kernel(const apo_kernel_call *call, void *user) {
    (void)user;
    return call->begin >= 200 ? APO_ERR_INVALID_ARGUMENT : APO_OK;
}

static apo_status copy_kernel(const apo_kernel_call *call, void *user) {
    int *calls = user;
    __atomic_add_fetch(calls, 1, __ATOMIC_RELAXED);
    for (size_t t = call->begin; t < call->end; t++)
        call->outputs[0][call->row * call->cols + t] = call->inputs[0][call->row * call->cols + t];
    return APO_OK;
}

/* macd takes TA-Lib's parameter names and still the ones it had (fast, slow, signal): both give
 * the same bits; a parameter given under both names is given twice, and refused. */
Test(api, macd_takes_talib_names_and_its_old_ones, .timeout = 60) {
    apo_runtime *rt = test_runtime("cpu");
    const char *names[2][3] = {{"fastperiod", "slowperiod", "signalperiod"},
                               {"fast", "slow", "signal"}};
    const double values[3] = {7, 30, 9};
    test_job job[2];
    for (size_t j = 0; j < 2; j++) {
        test_job_init(&job[j], rt, "macd", 2, 3000, 5);
        for (size_t p = 0; p < 3; p++)
            test_job_param(&job[j], names[j][p], values[p]);
        cr_assert_eq(test_job_run(&job[j], rt, NULL), APO_OK, "%s", apo_last_error());
    }
    for (size_t o = 0; o < 3; o++)
        cr_assert(memcmp(job[0].outputs[o], job[1].outputs[o], 2 * 3000 * sizeof(double)) == 0,
                  "output %zu", o);
    /* The lookback of 7/30/9 is 37, the defaults' (12/26/9) 33: the names were read. */
    cr_assert(isnan(job[0].outputs[0][36]) && isfinite(job[0].outputs[0][37]));
    test_job_param(&job[1], "slowperiod", 30);
    apo_report report = APO_REPORT_INIT;
    test_assert_refused(apo_distribute_workload(rt, &job[1].w, &report), APO_ERR_BAD_PARAM,
                        "slowperiod given twice");
    test_job_free(&job[0]);
    test_job_free(&job[1]);
    apo_runtime_destroy(rt);
}

Test(api, user_kernel_registration_rules) {
    apo_runtime *rt = test_runtime("cpu");
    int calls = 0;
    apo_kernel_desc d = test_user_kernel("copy", copy_kernel, &calls, 100);
    test_user_kernel_register(rt, &d);
    cr_assert_eq(apo_kernel_register(rt, &d), APO_ERR_ALREADY_EXISTS);
    d.name = "bollinger";
    cr_assert_eq(apo_kernel_register(rt, &d), APO_ERR_ALREADY_EXISTS);
    d.name = "bad name";
    cr_assert_eq(apo_kernel_register(rt, &d), APO_ERR_INVALID_ARGUMENT);
    d.name = "nocpu";
    d.cpu = NULL;
    cr_assert_eq(apo_kernel_register(rt, &d), APO_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(apo_last_error(), "cpu function") != NULL);
    d.cpu = copy_kernel;
    d.n_outputs = 0;
    cr_assert_eq(apo_kernel_register(rt, &d), APO_ERR_INVALID_ARGUMENT);
    d.n_outputs = 1;
    d.size = 1;
    cr_assert_eq(apo_kernel_register(rt, &d), APO_ERR_INVALID_ARGUMENT);
    cr_assert_eq(apo_kernel_register(rt, NULL), APO_ERR_NULL);

    apo_kernel_info info = APO_KERNEL_INFO_INIT;
    cr_assert_eq(apo_kernel_get(rt, "copy", &info), APO_OK);
    cr_assert_eq(info.builtin, 0);
    cr_assert_str_eq(info.output_names[0], "out0");
    cr_assert_eq(info.halo, 0);
    cr_assert_not_null(info.halo_rule);

    test_job job;
    test_job_init(&job, rt, "copy", 2, 1050, 1);
    cr_assert_eq(test_job_run(&job, rt, NULL), APO_OK, "%s", apo_last_error());
    cr_assert_eq(memcmp(job.outputs[0], job.input, 2 * 1050 * sizeof(double)), 0);
    cr_assert_eq(calls, 2 * 11, "one call per tile: 11 tiles of 100 per row");
    test_job_close(&job, rt);
}

Test(api, user_kernel_failure_fails_the_call) {
    apo_runtime *rt = test_runtime("sim:a,sim:b");
    apo_kernel_desc d = test_user_kernel("fails", failing_kernel, NULL, 100);
    test_user_kernel_register(rt, &d);
    test_job job;
    test_job_init(&job, rt, "fails", 1, 1000, 1);
    apo_status st = test_job_run(&job, rt, NULL);
    cr_assert_eq(st, APO_ERR_KERNEL_FAILED);
    cr_assert(strstr(apo_last_error(), "APO_ERR_INVALID_ARGUMENT") != NULL, "%s", apo_last_error());
    test_job_close(&job, rt);
}

/* One runtime, many threads: calls are serialised and each gets its own correct result. */
typedef struct thread_arg {
    apo_runtime *rt;
    const test_job *ref;
    int ok;
} thread_arg;

static void *hammer(void *p) {
    thread_arg *a = p;
    a->ok = 1;
    for (int i = 0; i < 20; i++) {
        double *out[3];
        for (int k = 0; k < 3; k++)
            out[k] = malloc(a->ref->output_len[k] * sizeof(double));
        apo_workload w = a->ref->w;
        w.outputs = out;
        if (apo_distribute_workload(a->rt, &w, NULL) != APO_OK)
            a->ok = 0;
        for (int k = 0; k < 3; k++) {
            if (memcmp(out[k], a->ref->outputs[k], a->ref->output_len[k] * sizeof(double)) != 0)
                a->ok = 0;
            free(out[k]);
        }
    }
    return NULL;
}

Test(api, one_runtime_shared_by_threads, .timeout = 120) {
    apo_runtime *rt = test_runtime("cpu,sim:a,sim:b");
    test_job ref;
    test_job_init(&ref, rt, "bollinger", 4, 9000, 3);
    cr_assert_eq(test_job_run(&ref, rt, NULL), APO_OK);
    pthread_t threads[6];
    thread_arg args[6];
    for (int i = 0; i < 6; i++) {
        args[i] = (thread_arg){rt, &ref, 0};
        pthread_create(&threads[i], NULL, hammer, &args[i]);
    }
    for (int i = 0; i < 6; i++) {
        pthread_join(threads[i], NULL);
        cr_assert(args[i].ok, "thread %d saw a failure or a wrong result", i);
    }
    test_job_free(&ref);
    apo_runtime_destroy(rt);
}

/* ---- what a device's time includes (docs/scheduling.md) --------------------------------- */

Test(api, report_times_the_first_touch_apart, .timeout = 60) {
    test_job job;
    apo_runtime *rt =
        test_job_on(&job, test_runtime("cpu,sim:a:rate=1e8"), "bollinger", 2, 300000, 5);
    double ratios[2] = {1, 1};
    job.w.ratios = ratios;
    job.w.n_ratios = 2;
    apo_report r = APO_REPORT_INIT;
    cr_assert_eq(test_job_run(&job, rt, &r), APO_OK, "%s", apo_last_error());
    for (size_t d = 0; d < 2; d++) {
        const apo_device_report *dr = &r.devices[d];
        cr_assert_gt(dr->elements, 0, "%s computed nothing", dr->id);
        cr_assert(isfinite(dr->first_touch_ms) && dr->first_touch_ms >= 0, "%s: first touch %g",
                  dr->id, dr->first_touch_ms);
        cr_assert(isfinite(dr->kernel_ms) && dr->kernel_ms >= 0, "%s: kernel %g", dr->id,
                  dr->kernel_ms);
        /* The pass is part of the device's time, not of its kernel time. */
        const double parts = dr->first_touch_ms + dr->h2d_ms + dr->kernel_ms + dr->d2h_ms;
        cr_assert(fabs(dr->wall_ms - parts) <= 1e-9 * dr->wall_ms, "%s: wall %.9g, parts %.9g",
                  dr->id, dr->wall_ms, parts);
    }
    /* On the virtual clock every time is modelled: no real first touch is reported, and the
     * kernel time is the model's alone. */
    cr_assert_eq(r.devices[1].first_touch_ms, 0.0);
    cr_assert_float_eq(r.devices[1].kernel_ms, (double)r.devices[1].elements / 1e8 * 1e3, 1e-9);
    test_job_close(&job, rt);
}

/* Writes out0 at even positions only: the odd ones are the caller's. */
static apo_status evens_kernel(const apo_kernel_call *call, void *user) {
    (void)user;
    for (size_t t = call->begin + call->begin % 2; t < call->end; t += 2)
        call->outputs[0][call->row * call->cols + t] = call->inputs[0][call->row * call->cols + t];
    return APO_OK;
}

/* The first-touch pass writes into the caller's pages before the tiles, where a device's
 * span starts and at every page boundary: it must leave every value as it was, whether
 * the array is fresh (zero) or filled by the caller. The arrays are offset by 0 and by one
 * element, so that page boundaries fall on positions the kernel writes and on positions it
 * leaves alone; three devices split the rows mid-page. */
Test(api, first_touch_keeps_what_a_kernel_leaves_alone, .timeout = 60) {
    apo_runtime *rt = test_runtime("cpu,sim:a,sim:b");
    apo_kernel_desc d = test_user_kernel("evens", evens_kernel, NULL, 300);
    test_user_kernel_register(rt, &d);
    const size_t rows = 3, cols = 70001, n = rows * cols;
    double *input = malloc(n * sizeof(double));
    cr_assert_not_null(input);
    for (size_t i = 0; i < n; i++)
        input[i] = 1.0 + (double)i;
    const double *inputs[1] = {input};
    const double ratios[3] = {3, 1, 2};
    for (int filled = 0; filled < 2; filled++) {
        for (size_t offset = 0; offset < 2; offset++) {
            /* calloc: fresh pages for an array this large, never touched before the call. */
            double *block = calloc(n + 1, sizeof(double));
            cr_assert_not_null(block);
            double *out = block + offset;
            const double kept = filled ? -7.25 : 0.0;
            if (filled)
                for (size_t i = 0; i < n; i++)
                    out[i] = kept;
            double *outputs[1] = {out};
            apo_workload w = test_workload("evens", rows, cols, inputs, 1, outputs, 1);
            w.ratios = ratios;
            w.n_ratios = 3;
            apo_report r = APO_REPORT_INIT;
            cr_assert_eq(apo_distribute_workload(rt, &w, &r), APO_OK, "%s", apo_last_error());
            for (size_t i = 0; i < n; i++) {
                const double want = (i % cols) % 2 == 0 ? input[i] : kept;
                cr_assert(out[i] == want, "filled %d, offset %zu: element %zu is %.17g, want %.17g",
                          filled, offset, i, out[i], want);
            }
            free(block);
        }
    }
    free(input);
    apo_runtime_destroy(rt);
}

/* The observations behind device `d`'s model of `tag`, or 0 when the tag has no entry. */
static uint64_t model_samples(apo_runtime *rt, const char *tag, size_t d) {
    size_t count = 0;
    cr_assert_eq(apo_profile_entry_count(rt, &count), APO_OK, "%s", apo_last_error());
    for (size_t i = 0; i < count; i++) {
        apo_profile_entry e = APO_PROFILE_ENTRY_INIT;
        cr_assert_eq(apo_profile_entry_get(rt, i, &e), APO_OK, "%s", apo_last_error());
        if (strcmp(e.tag, tag) == 0)
            return d < e.n_devices ? e.devices[d].samples : 0;
    }
    return 0;
}

static apo_ratio_source planned_source(apo_runtime *rt, const apo_workload *w) {
    apo_plan_info plan = APO_PLAN_INFO_INIT;
    cr_assert_eq(apo_plan_workload(rt, w, &plan), APO_OK, "%s", apo_last_error());
    return plan.ratio_source;
}

static apo_runtime *learning_runtime(apo_switch learn) {
    apo_config config = test_config("sim:a:rate=1e8,sim:b:rate=4e8");
    config.learn = learn;
    apo_runtime *rt = NULL;
    cr_assert_eq(apo_runtime_create(&config, &rt), APO_OK, "%s", apo_last_error());
    return rt;
}

Test(api, a_call_with_learn_off_refines_no_model, .timeout = 60) {
    test_job job;
    apo_runtime *rt =
        test_job_on(&job, learning_runtime(APO_SWITCH_UNSET), "bollinger", 1, 200000, 9);
    cr_assert_eq(planned_source(rt, &job.w), APO_RATIOS_EQUAL);

    job.w.learn = APO_SWITCH_OFF;
    for (int c = 0; c < 2; c++)
        cr_assert_eq(test_job_run(&job, rt, NULL), APO_OK, "%s", apo_last_error());
    cr_assert_eq(model_samples(rt, "bollinger", 0), 0, "learn OFF made a model");
    cr_assert_eq(planned_source(rt, &job.w), APO_RATIOS_EQUAL);

    /* UNSET is the runtime's setting, which learns. */
    job.w.learn = APO_SWITCH_UNSET;
    cr_assert_eq(test_job_run(&job, rt, NULL), APO_OK, "%s", apo_last_error());
    const uint64_t learnt = model_samples(rt, "bollinger", 0);
    cr_assert_gt(learnt, 0, "learn UNSET made no model");
    cr_assert_eq(planned_source(rt, &job.w), APO_RATIOS_ONLINE);

    job.w.learn = APO_SWITCH_OFF;
    cr_assert_eq(test_job_run(&job, rt, NULL), APO_OK, "%s", apo_last_error());
    cr_assert_eq(model_samples(rt, "bollinger", 0), learnt, "learn OFF refined the model");
    cr_assert_eq(model_samples(rt, "bollinger", 1), learnt);

    job.w.learn = APO_SWITCH_ON;
    cr_assert_eq(test_job_run(&job, rt, NULL), APO_OK, "%s", apo_last_error());
    cr_assert_gt(model_samples(rt, "bollinger", 0), learnt, "learn ON did not refine");

    job.w.learn = (apo_switch)3;
    cr_assert_eq(test_job_run(&job, rt, NULL), APO_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(apo_last_error(), "apo_workload.learn") != NULL, "%s", apo_last_error());
    test_job_close(&job, rt);

    /* A call cannot make a runtime that does not learn learn. */
    rt = learning_runtime(APO_SWITCH_OFF);
    test_job_init(&job, rt, "bollinger", 1, 200000, 9);
    job.w.learn = APO_SWITCH_ON;
    cr_assert_eq(test_job_run(&job, rt, NULL), APO_OK, "%s", apo_last_error());
    cr_assert_eq(model_samples(rt, "bollinger", 0), 0, "a runtime with learning off learnt");
    test_job_close(&job, rt);
}
