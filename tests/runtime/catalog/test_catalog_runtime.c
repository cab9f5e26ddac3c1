/*
 * test_catalog_runtime.c: the indicator catalog through the runtime. Every catalog kernel
 * gives bitwise the outputs of the cpu device alone on simulated devices at skewed ratios,
 * split by rows and along time; a sweep gives each set the bits of its call alone; the
 * parameters' bounds and series shorter than the lookback are refused with a clear message.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_reference.h"
#include "helpers.h"

/* Every catalog kernel, with a period that makes its tiles several per row (0: none). */
typedef struct cat_case {
    const char *kernel;
    double period;
} cat_case;

static const cat_case cases[] = {
    {"sma", 30},
    {"ema", 9},
    {"wma", 20},
    {"dema", 5},
    {"tema", 4},
    {"mom", 10},
    {"roc", 1},
    {"rsi", 14},
    {"cmo", 2},
    {"willr", 14},
    {"cci", 20},
    {"stddev", 5},
    {"var", 1},
    {"max", 300},
    {"min", 2},
    {"linearreg", 14},
    {"linearreg_slope", 3},
    {"correl", 30},
    {"beta", 5},
    {"aroon", 14},
    {"stochf", 0},
    {"stoch", 0},
    {"trange", 0},
    {"atr", 14},
    {"natr", 3},
};
#define N_CASES (sizeof cases / sizeof cases[0])

/* A workload of `kernel` on OHLCV walks of rows x cols, its inputs by name, its outputs
 * poisoned. */
typedef struct cat_job {
    apo_workload w;
    double *columns[5]; /* open, high, low, close, volume */
    const double *inputs[APO_MAX_IO];
    double *outputs[APO_MAX_IO];
    apo_param params[APO_MAX_PARAMS];
    size_t len;
} cat_job;

static const char *const column_names[5] = {"open", "high", "low", "close", "volume"};

static void job_init(cat_job *job, apo_runtime *rt, const cat_case *c, size_t rows, size_t cols) {
    memset(job, 0, sizeof *job);
    apo_workload w = APO_WORKLOAD_INIT;
    job->w = w;
    job->w.kernel = c->kernel;
    job->w.rows = rows;
    job->w.cols = cols;
    job->len = rows * cols;
    for (size_t i = 0; i < 5; i++) {
        job->columns[i] = malloc(job->len * sizeof(double));
        cr_assert_not_null(job->columns[i]);
    }
    for (size_t r = 0; r < rows; r++)
        apo__ref_ohlcv(11 + r, cols, 100.0, 0.5, job->columns[0] + r * cols,
                       job->columns[1] + r * cols, job->columns[2] + r * cols,
                       job->columns[3] + r * cols, job->columns[4] + r * cols);
    /* A gap in the middle of the first row, in every column. */
    for (size_t i = 0; i < 5; i++)
        job->columns[i][cols / 2] = NAN;
    apo_kernel_info info = APO_KERNEL_INFO_INIT;
    cr_assert_eq(apo_kernel_get(rt, c->kernel, &info), APO_OK, "%s", apo_last_error());
    job->w.n_inputs = info.n_inputs;
    /* The catalog's inputs are close alone; high, low, close; or two series (high, low
     * here, for aroon's high and low and for the x and y of correl and beta). */
    if (info.n_inputs == 1) {
        job->inputs[0] = job->columns[3];
    } else {
        cr_assert(info.n_inputs == 2 || info.n_inputs == 3);
        for (size_t i = 0; i < info.n_inputs; i++)
            job->inputs[i] = job->columns[1 + i];
    }
    (void)column_names;
    job->w.inputs = job->inputs;
    job->w.n_outputs = info.n_outputs;
    for (size_t o = 0; o < info.n_outputs; o++) {
        job->outputs[o] = malloc(job->len * sizeof(double));
        cr_assert_not_null(job->outputs[o]);
        for (size_t t = 0; t < job->len; t++)
            job->outputs[o][t] = -12345.678;
    }
    job->w.outputs = job->outputs;
    job->w.params = job->params;
    if (c->period > 0) {
        job->params[0].name = "timeperiod";
        job->params[0].value = c->period;
        job->w.n_params = 1;
    }
}

static void job_free(cat_job *job) {
    for (size_t i = 0; i < 5; i++)
        free(job->columns[i]);
    for (size_t o = 0; o < job->w.n_outputs; o++)
        free(job->outputs[o]);
}

static void run(apo_runtime *rt, cat_job *job, const double *ratios, size_t n, apo_split split) {
    job->w.ratios = ratios;
    job->w.n_ratios = n;
    job->w.split = split;
    apo_report report = APO_REPORT_INIT;
    apo_status st = apo_distribute_workload(rt, &job->w, &report);
    cr_assert_eq(st, APO_OK, "%s: %s", job->w.kernel, apo_last_error());
}

static size_t bitwise_diff(const cat_job *a, const cat_job *b, size_t o) {
    size_t diff = 0;
    for (size_t t = 0; t < a->len; t++)
        diff += memcmp(&a->outputs[o][t], &b->outputs[o][t], sizeof(double)) != 0;
    return diff;
}

Test(catalog_runtime, every_kernel_same_bits_on_every_device_set_ratio_and_axis, .timeout = 600) {
    static const char *const device_sets[] = {"sim:a,sim:b", "cpu,sim:a",
                                              "sim:a,sim:b,sim:c,sim:d,sim:e"};
    apo_runtime *cpu = test_runtime("cpu");
    for (size_t ci = 0; ci < N_CASES; ci++) {
        const cat_case *c = &cases[ci];
        /* 3 rows of about 2.5 tiles each (the longest tile here is atr(14)'s 9824). */
        const size_t rows = 3, cols = 25000;
        cat_job ref;
        job_init(&ref, cpu, c, rows, cols);
        run(cpu, &ref, NULL, 0, APO_SPLIT_AUTO);
        for (size_t o = 0; o < ref.w.n_outputs; o++)
            for (size_t t = 0; t < ref.len; t++)
                cr_assert_neq(ref.outputs[o][t], -12345.678, "%s output %zu[%zu] unwritten",
                              c->kernel, o, t);
        for (size_t di = 0; di < sizeof device_sets / sizeof device_sets[0]; di++) {
            apo_runtime *rt = test_runtime(device_sets[di]);
            size_t n;
            apo_device_count(rt, &n);
            for (int trial = 0; trial < 3; trial++) {
                double ratios[APO_MAX_DEVICES];
                test_random_ratios(500 * ci + 10 * di + (uint64_t)trial, n, ratios);
                const apo_split splits[] = {APO_SPLIT_ROWS, APO_SPLIT_TIME};
                for (size_t si = 0; si < 2; si++) {
                    cat_job got;
                    job_init(&got, rt, c, rows, cols);
                    run(rt, &got, trial == 0 ? NULL : ratios, trial == 0 ? 0 : n, splits[si]);
                    for (size_t o = 0; o < ref.w.n_outputs; o++)
                        cr_assert_eq(bitwise_diff(&ref, &got, o), 0,
                                     "%s on %s trial %d split %s: output %zu differs", c->kernel,
                                     device_sets[di], trial, apo_split_name(splits[si]), o);
                    job_free(&got);
                }
            }
            apo_runtime_destroy(rt);
        }
        job_free(&ref);
    }
    apo_runtime_destroy(cpu);
}

/* A sweep over the period gives each set the bits of its call alone. */
Test(catalog_runtime, sweeps_give_each_set_its_call_alone, .timeout = 300) {
    apo_runtime *rt = test_runtime("sim:a,sim:b,sim:c");
    const char *kernels[] = {"sma", "ema", "stddev", "atr"};
    const double periods[] = {2, 14, 77};
    for (size_t ki = 0; ki < 4; ki++) {
        const cat_case c = {kernels[ki], 0};
        const size_t rows = 2, cols = 9000;
        cat_job sweep;
        job_init(&sweep, rt, &c, rows, cols);
        const size_t sets = 3;
        for (size_t o = 0; o < sweep.w.n_outputs; o++) {
            free(sweep.outputs[o]);
            sweep.outputs[o] = malloc(sets * sweep.len * sizeof(double));
            cr_assert_not_null(sweep.outputs[o]);
        }
        const char *names[1] = {"timeperiod"};
        apo_sweep sw = APO_SWEEP_INIT;
        sw.n_sets = sets;
        sw.n_names = 1;
        sw.names = names;
        sw.values = periods;
        sweep.w.sweep = &sw;
        run(rt, &sweep, NULL, 0, APO_SPLIT_TIME);
        for (size_t s = 0; s < sets; s++) {
            const cat_case one_case = {kernels[ki], periods[s]};
            cat_job one;
            job_init(&one, rt, &one_case, rows, cols);
            run(rt, &one, NULL, 0, APO_SPLIT_AUTO);
            for (size_t o = 0; o < one.w.n_outputs; o++)
                cr_assert(memcmp(sweep.outputs[o] + s * one.len, one.outputs[o],
                                 one.len * sizeof(double)) == 0,
                          "%s set %zu output %zu", kernels[ki], s, o);
            job_free(&one);
        }
        job_free(&sweep);
    }
    apo_runtime_destroy(rt);
}

Test(catalog_runtime, bad_parameters_and_short_series_are_refused) {
    apo_runtime *rt = test_runtime("cpu");
    const cat_case sma = {"sma", 30};
    cat_job job;
    job_init(&job, rt, &sma, 1, 100);
    apo_report report = APO_REPORT_INIT;
    job.params[0].value = 1; /* TA-Lib's SMA period is 2 .. 100000 */
    test_assert_refused(apo_distribute_workload(rt, &job.w, &report), APO_ERR_BAD_PARAM,
                        "timeperiod");
    job.params[0].value = 100001;
    test_assert_refused(apo_distribute_workload(rt, &job.w, &report), APO_ERR_BAD_PARAM,
                        "timeperiod");
    job.params[0].value = 2.5;
    test_assert_refused(apo_distribute_workload(rt, &job.w, &report), APO_ERR_BAD_PARAM,
                        "timeperiod");
    /* 100 samples and a period of 101: no output would be defined. */
    job.params[0].value = 101;
    test_assert_refused(apo_distribute_workload(rt, &job.w, &report), APO_ERR_BAD_PARAM,
                        "lookback");
    /* A period of 100 on 100 samples defines the last output only (job_init's gap
     * filled). */
    job.columns[3][50] = 100.0;
    job.params[0].value = 100;
    cr_assert_eq(apo_distribute_workload(rt, &job.w, &report), APO_OK, "%s", apo_last_error());
    cr_assert(isnan(job.outputs[0][98]) && isfinite(job.outputs[0][99]));
    job_free(&job);

    /* atr's lookback is the period itself: 14 needs 15 samples. */
    const cat_case atr = {"atr", 14};
    job_init(&job, rt, &atr, 1, 14);
    test_assert_refused(apo_distribute_workload(rt, &job.w, &report), APO_ERR_BAD_PARAM,
                        "lookback");
    job_free(&job);
    /* stoch offers TA-Lib's default moving average only (matype 0, the SMA). */
    const cat_case stoch = {"stoch", 0};
    job_init(&job, rt, &stoch, 1, 100);
    job.params[0].name = "slowd_matype";
    job.params[0].value = 1;
    job.w.n_params = 1;
    test_assert_refused(apo_distribute_workload(rt, &job.w, &report), APO_ERR_BAD_PARAM,
                        "slowd_matype");
    job_free(&job);
    /* Three inputs are required: two are refused. */
    job_init(&job, rt, &atr, 1, 100);
    job.w.n_inputs = 2;
    test_assert_refused(apo_distribute_workload(rt, &job.w, &report), APO_ERR_INVALID_ARGUMENT,
                        "input");
    job_free(&job);
    apo_runtime_destroy(rt);
}
