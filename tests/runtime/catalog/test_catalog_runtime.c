/*
 * test_catalog_runtime.c: the indicator catalog through the runtime. kdj's lagged kinds and
 * matype 7 give bitwise the outputs of the cpu device alone on simulated devices at skewed
 * ratios, split by rows and along time (every kernel does so in test_catalog_runtime_slow.c,
 * on the cases of catalog_runtime_fixtures.c); a sweep gives each set
 * the bits of its call alone; the parameters' bounds, series shorter than the lookback and
 * missing inputs are refused with a clear message; the descriptors carry TA-Lib's names and
 * defaults.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_reference.h"
#include "catalog_runtime_fixtures.h"
#include "helpers.h"

/* A call of one kernel's case that the runtime refuses (or, where `want` is APO_OK, takes):
 * the case's job over `cols` samples of one row, with the parameters `set` in place of the
 * case's (set[0].name NULL: the case's own; set[1].name NULL: one parameter) and `n_inputs`
 * of its inputs (0: all). */
typedef struct param_case {
    const char *kernel;
    size_t cols;
    apo_param set[2];
    size_t n_inputs;
    apo_status want;
    const char *fragment;
} param_case;

#define BAD APO_ERR_BAD_PARAM

static void check_param_cases(apo_runtime *rt, const param_case *pc, size_t n) {
    for (size_t i = 0; i < n; i++) {
        const cat_case c = case_of(pc[i].kernel, pc[i].cols);
        cat_job job;
        job_init(&job, rt, &c, 1);
        for (size_t p = 0; p < 2 && pc[i].set[p].name != NULL; p++) {
            job.params[p] = pc[i].set[p];
            job.w.n_params = p + 1;
        }
        if (pc[i].n_inputs > 0)
            job.w.n_inputs = pc[i].n_inputs;
        apo_report report = APO_REPORT_INIT;
        const apo_status st = apo_distribute_workload(rt, &job.w, &report);
        if (pc[i].want == APO_OK)
            cr_assert_eq(st, APO_OK, "%s: %s", pc[i].kernel, apo_last_error());
        else
            test_assert_refused(st, pc[i].want, pc[i].fragment);
        job_free(&job);
    }
}

/* A period that defines the last of the job's 100 samples only, its gap filled first: the
 * outputs are NaN up to the last, which is a value. */
static void check_last_output_only(apo_runtime *rt, cat_job *job, double period) {
    job->params[0].name = "timeperiod";
    job->params[0].value = period;
    job->w.n_params = 1;
    apo_report report = APO_REPORT_INIT;
    cr_assert_eq(apo_distribute_workload(rt, &job->w, &report), APO_OK, "%s", apo_last_error());
    cr_assert(isnan(job->outputs[0][98]) && isfinite(job->outputs[0][99]));
    job_free(job);
}

/* On a cpu runtime: the refusals pc[0 .. n), then `kernel`'s job over 100 samples of one row,
 * job_init's gap at sample 50 filled with the sample before it, at a period that defines the
 * last output only. */
static void check_refusals_and_last_output(const param_case *pc, size_t n, const char *kernel,
                                           double period) {
    apo_runtime *rt = test_runtime("cpu");
    check_param_cases(rt, pc, n);
    const cat_case c = case_of(kernel, 100);
    cat_job job;
    job_init(&job, rt, &c, 1);
    for (size_t i = 0; i < N_COLUMNS; i++)
        job.columns[i][50] = job.columns[i][49];
    check_last_output_only(rt, &job, period);
    apo_runtime_destroy(rt);
}

/* kdj's kinds that read their series several distances back (kdj_tile.h, ma_series_lagged.h:
 * k generated again behind d) give the cpu's bits on every device set, ratio and axis: TRIMA and
 * HMA for k, KAMA and ZLEMA for d (the other average Wilder's, the default). */
Test(catalog_runtime, kdj_lagged_kinds_same_bits_on_every_device_set, .timeout = 900) {
    apo_runtime *cpu = test_runtime("cpu");
    const cat_case c = {"kdj", 0, 25000, HLC};
    const apo_param kinds[] = {
        {"slowk_matype", 5}, {"slowk_matype", 9}, {"slowd_matype", 6}, {"slowd_matype", 12}};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        same_bits_everywhere(cpu, &c, n_cases + n_candlesticks + i, &kinds[i]);
    apo_runtime_destroy(cpu);
}

/* stoch and stochf at matypes other than 0 take kdj's body, each tile from its own warm-up
 * (oscillators/stoch_ma.h), and give the cpu's bits on every device set, ratio and axis. */
Test(catalog_runtime, stochastics_of_other_kinds_same_bits_on_every_device_set, .timeout = 900) {
    apo_runtime *cpu = test_runtime("cpu");
    const cat_case stoch = {"stoch", 0, 25000, HLC}, stochf = {"stochf", 0, 25000, HLC};
    const apo_param kinds[] = {{"slowk_matype", 1}, {"slowd_matype", 3}, {"fastd_matype", 8}};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        same_bits_everywhere(cpu, i < 2 ? &stoch : &stochf, n_cases + n_candlesticks + 4 + i,
                             &kinds[i]);
    apo_runtime_destroy(cpu);
}

/* A sweep over the period gives each set the bits of its call alone. */
Test(catalog_runtime, sweeps_give_each_set_its_call_alone, .timeout = 600) {
    apo_runtime *rt = test_runtime("sim:a,sim:b,sim:c");
    static const char *const kernels[] = {"sma", "ema", "stddev", "atr", "zscore", "adx", "mfi"};
    const double periods[] = {2, 14, 77};
    for (size_t ki = 0; ki < sizeof kernels / sizeof kernels[0]; ki++) {
        const cat_case c = case_of(kernels[ki], 9000);
        const size_t rows = 2, sets = 3;
        cat_job sweep;
        job_init(&sweep, rt, &c, rows);
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
        sweep.w.n_params = 0;
        run(rt, &sweep, NULL, 0, APO_SPLIT_TIME);
        for (size_t s = 0; s < sets; s++) {
            cat_case one_case = c;
            one_case.period = periods[s];
            cat_job one;
            job_init(&one, rt, &one_case, rows);
            run(rt, &one, NULL, 0, APO_SPLIT_AUTO);
            for (size_t o = 0; o < one.w.n_outputs; o++)
                cr_assert(memcmp(sweep.outputs[o] + s * one.len, one.outputs[o],
                                 one.len * sizeof(double)) == 0,
                          "%s set %zu output %zu", c.kernel, s, o);
            job_free(&one);
        }
        job_free(&sweep);
    }
    apo_runtime_destroy(rt);
}

Test(catalog_runtime, bad_parameters_and_short_series_are_refused) {
    static const param_case refusals[] = {
        /* TA-Lib's SMA period is 2 .. 100000. */
        {"sma", 100, {{"timeperiod", 1}}, 0, BAD, "timeperiod"},
        {"sma", 100, {{"timeperiod", 100001}}, 0, BAD, "timeperiod"},
        {"sma", 100, {{"timeperiod", 2.5}}, 0, BAD, "timeperiod"},
        /* 100 samples and a period of 101: no output would be defined. */
        {"sma", 100, {{"timeperiod", 101}}, 0, BAD, "lookback"},
        /* atr's lookback is the period itself: 14 needs 15 samples. */
        {"atr", 14, {{NULL, 0}}, 0, BAD, "lookback"},
        /* stoch and stochf take TA-Lib's moving averages 0 to 8 (kdj's body past the SMA,
         * oscillators/stoch_ma.h) but MAMA, as everywhere but ma and bbands. */
        {"stoch", 100, {{"slowd_matype", 1}}, 0, APO_OK, NULL},
        {"stoch", 100, {{"slowk_matype", 8}, {"slowd_matype", 6}}, 0, APO_OK, NULL},
        {"stoch", 100, {{"slowk_matype", 9}}, 0, BAD, "slowk_matype"},
        {"stoch", 100, {{"slowd_matype", 7}}, 0, BAD, "slowd_matype 7 (MAMA)"},
        {"stochf", 100, {{"fastd_matype", 5}}, 0, APO_OK, NULL},
        {"stochf", 100, {{"fastd_matype", 7}}, 0, BAD, "fastd_matype 7 (MAMA)"},
        /* macdext's signal line is an average of the macd line, which TRIMA and KAMA are not
         * taken as (averages/ma_series.h); at signalperiod 1 any matype is the line itself. */
        {"macdext", 100, {{"signalmatype", 5}}, 0, BAD, "signalmatype 5 (TRIMA)"},
        {"macdext", 100, {{"signalmatype", 6}}, 0, BAD, "signalmatype 6 (KAMA)"},
        {"macdext", 100, {{"signalmatype", 6}, {"signalperiod", 1}}, 0, APO_OK, NULL},
        /* stochrsi's fastd averages its fastk as macdext's signal does, and its fastk windows
         * are kept in a ring of 256 RSI values. */
        {"stochrsi", 1000, {{"fastd_matype", 6}}, 0, BAD, "fastd_matype 6 (KAMA)"},
        {"stochrsi", 1000, {{"fastk_period", 257}}, 0, BAD, "fastk_period 257"},
        {"stochrsi", 1000, {{"fastk_period", 256}}, 0, APO_OK, NULL},
        /* kdj takes every kind of TA-Lib 0.8's MA_Type but MAMA (7), which reads the whole
         * series: TRIMA, KAMA, HMA and ZLEMA are taken, MAMA is refused as everywhere but ma and
         * bbands. */
        {"kdj", 100, {{"slowd_matype", 5}}, 0, APO_OK, NULL},
        {"kdj", 100, {{"slowk_matype", 12}}, 0, APO_OK, NULL},
        {"kdj", 100, {{"slowk_matype", 6}, {"slowd_matype", 9}}, 0, APO_OK, NULL},
        {"kdj", 100, {{"slowd_matype", 7}}, 0, BAD, "slowd_matype 7 (MAMA)"},
        {"kdj", 100, {{"slowd_matype", 0}}, 0, APO_OK, NULL},
        /* Three inputs are required: two are refused. */
        {"atr", 100, {{NULL, 0}}, 2, APO_ERR_INVALID_ARGUMENT, "input"},
    };
    /* A period of 100 on 100 samples defines the last output only. */
    check_refusals_and_last_output(refusals, sizeof refusals / sizeof refusals[0], "sma", 100);
}

Test(catalog_runtime, bounds_of_directional_and_volume_kernels_are_refused) {
    static const param_case refusals[] = {
        /* adx's period is 2 .. 100000 (TA-Lib's) and its lookback 2p - 1. */
        {"adx", 100, {{"timeperiod", 1}}, 0, BAD, "timeperiod"},
        {"adx", 100, {{"timeperiod", 100001}}, 0, BAD, "timeperiod"},
        {"adx", 100, {{"timeperiod", 51}}, 0, BAD, "lookback"}, /* lookback 101 > 100 samples */
        /* Four inputs for mfi: three are refused. */
        {"mfi", 100, {{NULL, 0}}, 3, APO_ERR_INVALID_ARGUMENT, "input"},
        /* mfi's lookback is the period: 14 needs 15 samples. */
        {"mfi", 14, {{NULL, 0}}, 0, BAD, "lookback"},
    };
    /* Period 50, lookback 99: the last sample only. */
    check_refusals_and_last_output(refusals, sizeof refusals / sizeof refusals[0], "adx", 50);
}

/* The descriptors carry TA-Lib's output names, defaults and bounds; mama's limits outside
 * TA-Lib's 0.01 .. 0.99 are refused. */
Test(catalog_runtime, descriptors_carry_talibs_names_defaults_and_bounds) {
    apo_runtime *rt = test_runtime("cpu");
    apo_kernel_info info = APO_KERNEL_INFO_INIT;
    cr_assert_eq(apo_kernel_get(rt, "adosc", &info), APO_OK);
    cr_assert_eq(info.n_inputs, 4);
    cr_assert_eq(info.n_params, 2);
    test_assert_params(&info, (const char *const[]){"fastperiod", "slowperiod"},
                       (const double[]){3, 10}, 2);
    cr_assert_eq(apo_kernel_get(rt, "adx", &info), APO_OK);
    cr_assert_eq(info.param_min[0], 2);
    cr_assert_eq(apo_kernel_get(rt, "mfi", &info), APO_OK);
    cr_assert_eq(info.n_inputs, 4);
    cr_assert_eq(info.param_defaults[0], 14);
    cr_assert_eq(apo_kernel_get(rt, "kama", &info), APO_OK);
    cr_assert_eq(info.param_defaults[0], 30);
    cr_assert_eq(apo_kernel_get(rt, "mama", &info), APO_OK);
    cr_assert_eq(info.n_inputs, 1);
    cr_assert_eq(info.n_outputs, 2);
    test_assert_outputs(&info, (const char *const[]){"mama", "fama"}, 2);
    test_assert_params(&info, (const char *const[]){"fastlimit", "slowlimit"},
                       (const double[]){0.5, 0.05}, 2);
    cr_assert(info.param_min[0] == 0.01 && info.param_max[0] == 0.99);
    cr_assert(info.param_min[1] == 0.01 && info.param_max[1] == 0.99);
    cr_assert(info.halo_whole_row);
    static const param_case refusals[] = {
        {"mama", 200, {{"fastlimit", 1.0}}, 0, BAD, "fastlimit"},
        {"mama", 200, {{"slowlimit", 0.005}}, 0, BAD, "slowlimit"},
    };
    check_param_cases(rt, refusals, 2);
    apo_runtime_destroy(rt);
}

/* TA-Lib's matype 7 (MAMA) in ma and bbands: the runtime hands them whole rows at that matype
 * (docs/kernels/overlap.md, "MAMA, and TA-Lib's matype 7"), so every device set, ratio and axis
 * gives the cpu device's bits, over rows of three whole-row tiles (bbands: two, to keep the test
 * cheap) with a gap; ma's output is mama's first at its defaults, whatever the period, bit for
 * bit. */
Test(catalog_runtime, matype_7_is_mama_on_every_device_set, .timeout = 600) {
    apo_runtime *cpu = test_runtime("cpu");
    const apo_param mama_type = {"matype", 7};
    const cat_case ma = {"ma", 30, WHOLE_ROW_COLS, CLOSE_ONLY};
    const cat_case bbands = {"bbands", 20, 65536 + 1234, CLOSE_ONLY};
    same_bits_everywhere(cpu, &ma, 1, &mama_type);
    same_bits_everywhere(cpu, &bbands, 2, &mama_type);

    cat_job a, b;
    job_init_with(&a, cpu, &ma, 2, &mama_type);
    run(cpu, &a, NULL, 0, APO_SPLIT_AUTO);
    const cat_case mama = case_of("mama", WHOLE_ROW_COLS);
    job_init(&b, cpu, &mama, 2);
    run(cpu, &b, NULL, 0, APO_SPLIT_AUTO);
    cr_assert_eq(bitwise_diff(&a, &b, 0), 0, "ma at matype 7 is mama");
    job_free(&a);
    job_free(&b);
    apo_runtime_destroy(cpu);
}

/* mavp takes no matype 7 (each of its bars is an average of its own, which MAMA would run from
 * the first bar), with a message naming the kernels that do; and a stream of ma at matype 7 is
 * refused, since it would keep the whole history (ma streams by re-running its window). */
Test(catalog_runtime, matype_7_refused_where_it_cannot_be_kept) {
    apo_runtime *rt = test_runtime("cpu");
    static const param_case matypes[] = {
        {"mavp", 200, {{"matype", 7}}, 0, BAD, "mama"},
        {"mavp", 200, {{"matype", 8}}, 0, APO_OK, NULL}, /* another matype is taken */
    };
    check_param_cases(rt, matypes, 2);

    const apo_param params[2] = {{"timeperiod", 30}, {"matype", 7}};
    apo_stream_desc d = APO_STREAM_DESC_INIT;
    d.kernel = "ma";
    d.params = params;
    d.n_params = 2;
    d.n_series = 1;
    apo_stream *s = NULL;
    test_assert_refused(apo_stream_create(rt, &d, &s), APO_ERR_INVALID_ARGUMENT, "whole series");
    d.n_params = 1; /* matype 0 streams */
    cr_assert_eq(apo_stream_create(rt, &d, &s), APO_OK, "%s", apo_last_error());
    apo_stream_destroy(s);
    apo_runtime_destroy(rt);
}
