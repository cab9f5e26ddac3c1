/*
 * test_catalog_runtime.c: the indicator catalog through the runtime. Every catalog kernel
 * gives bitwise the outputs of the cpu device alone on simulated devices at skewed ratios,
 * split by rows and along time, with rows of several tiles and a gap; a sweep gives each set
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
#include "helpers.h"

/* The columns of an OHLCV walk, and a second close for pair kernels (correl, beta); the open
 * last, as the candlestick patterns' first input; UNIT, 1.1 sin of the close, mostly in asin's
 * and acos's domain [-1, 1]. */
enum { HIGH, LOW, CLOSE, VOLUME, Y, OPEN, UNIT, N_COLUMNS };

/* A catalog kernel with a period that makes its tiles several per row (0: the kernel's
 * defaults), the samples per row, and its inputs as columns, in the kernel's order. */
typedef struct cat_case {
    const char *kernel;
    double period;
    size_t cols;
    size_t n_in;
    int in[4];
} cat_case;

#define CLOSE_ONLY                                                                                 \
    1, { CLOSE }
#define HLC                                                                                        \
    3, { HIGH, LOW, CLOSE }
#define HLCV                                                                                       \
    4, { HIGH, LOW, CLOSE, VOLUME }
#define CV                                                                                         \
    2, { CLOSE, VOLUME }
/* The candlestick patterns: rows of three tiles and a part (their tiles are 4096 bars). */
#define OHLC_COLS 13000
#define OHLC                                                                                       \
    4, { OPEN, HIGH, LOW, CLOSE }
/* obv and ad re-run their sum from the row's start in tiles of 65,536: rows of two tiles
 * and a part, so that every later tile's prefix crosses the gap and tile boundaries. */
#define WHOLE_ROW_COLS (2 * 65536 + 1234)

static const cat_case cases[] = {
    {"sma", 30, 25000, CLOSE_ONLY},
    {"ema", 9, 25000, CLOSE_ONLY},
    {"wma", 20, 25000, CLOSE_ONLY},
    {"dema", 5, 25000, CLOSE_ONLY},
    {"tema", 4, 25000, CLOSE_ONLY},
    {"kama", 10, 400000, CLOSE_ONLY},
    {"mom", 10, 25000, CLOSE_ONLY},
    {"roc", 1, 25000, CLOSE_ONLY},
    {"rsi", 14, 25000, CLOSE_ONLY},
    {"cmo", 2, 25000, CLOSE_ONLY},
    {"willr", 14, 25000, HLC},
    {"cci", 20, 25000, HLC},
    {"stochf", 0, 25000, HLC},
    {"stoch", 0, 25000, HLC},
    {"stddev", 5, 25000, CLOSE_ONLY},
    {"var", 1, 25000, CLOSE_ONLY},
    {"max", 300, 25000, CLOSE_ONLY},
    {"min", 2, 25000, CLOSE_ONLY},
    {"linearreg", 14, 25000, CLOSE_ONLY},
    {"linearreg_slope", 3, 25000, CLOSE_ONLY},
    /* Past period 128 linearreg's windows slide double-doubles (linearreg_tile.h). */
    {"linearreg_slope", 200, 25000, CLOSE_ONLY},
    {"correl", 30, 25000, 2, {CLOSE, Y}},
    {"beta", 5, 25000, 2, {CLOSE, Y}},
    {"zscore", 20, 25000, CLOSE_ONLY},
    {"trange", 0, 25000, HLC},
    {"atr", 14, 25000, HLC},
    {"natr", 3, 25000, HLC},
    {"aroon", 14, 25000, 2, {HIGH, LOW}},
    {"plus_di", 14, 40000, HLC},
    {"minus_di", 5, 40000, HLC},
    {"adx", 14, 60000, HLC},
    {"mfi", 14, 25000, HLCV},
    {"vwap", 14, 25000, HLCV},
    {"adosc", 0, 25000, HLCV},
    {"obv", 0, WHOLE_ROW_COLS, CV},
    {"ad", 0, WHOLE_ROW_COLS, HLCV},
    {"plus_dm", 14, 25000, 2, {HIGH, LOW}},
    {"minus_dm", 1, 25000, 2, {HIGH, LOW}},
    {"dx", 14, 40000, HLC},
    {"adxr", 14, 60000, HLC},
    {"aroonosc", 14, 25000, 2, {HIGH, LOW}},
    {"bop", 0, 25000, 4, {OPEN, HIGH, LOW, CLOSE}},
    {"imi", 14, 25000, 2, {OPEN, CLOSE}},
    {"ultosc", 0, 25000, HLC},
    {"rocp", 10, 25000, CLOSE_ONLY},
    {"rocr", 3, 25000, CLOSE_ONLY},
    {"rocr100", 10, 25000, CLOSE_ONLY},
    /* The element-wise kernels; avgprice's open is the Y column (any series of prices). */
    {"avgprice", 0, 25000, 4, {Y, HIGH, LOW, CLOSE}},
    {"medprice", 0, 25000, 2, {HIGH, LOW}},
    {"typprice", 0, 25000, HLC},
    {"wclprice", 0, 25000, HLC},
    {"add", 0, 25000, 2, {CLOSE, Y}},
    {"sub", 0, 25000, 2, {CLOSE, Y}},
    {"mult", 0, 25000, 2, {CLOSE, Y}},
    {"div", 0, 25000, 2, {CLOSE, Y}},
    {"sum", 30, 25000, CLOSE_ONLY},
    {"minmax", 14, 25000, CLOSE_ONLY},
    {"ceil", 0, 25000, CLOSE_ONLY},
    {"floor", 0, 25000, CLOSE_ONLY},
    {"sqrt", 0, 25000, CLOSE_ONLY},
    {"exp", 0, 25000, CLOSE_ONLY},
    {"ln", 0, 25000, CLOSE_ONLY},
    {"log10", 0, 25000, CLOSE_ONLY},
    {"sinh", 0, 25000, CLOSE_ONLY},
    {"cosh", 0, 25000, CLOSE_ONLY},
    {"tanh", 0, 25000, CLOSE_ONLY},
    {"ht_dcperiod", 0, WHOLE_ROW_COLS, CLOSE_ONLY},
    {"ht_dcphase", 0, WHOLE_ROW_COLS, CLOSE_ONLY},
    {"ht_phasor", 0, WHOLE_ROW_COLS, CLOSE_ONLY},
    {"ht_sine", 0, WHOLE_ROW_COLS, CLOSE_ONLY},
    {"ht_trendmode", 0, WHOLE_ROW_COLS, CLOSE_ONLY},
    {"ht_trendline", 0, WHOLE_ROW_COLS, CLOSE_ONLY},
    {"trima", 30, 25000, CLOSE_ONLY},
    {"t3", 5, 25000, CLOSE_ONLY},
    {"midpoint", 14, 25000, CLOSE_ONLY},
    {"midprice", 14, 25000, 2, {HIGH, LOW}},
    {"ma", 30, 25000, CLOSE_ONLY},
    {"mavp", 0, 25000, 2, {CLOSE, Y}},
    {"accbands", 20, 25000, HLC},
    {"bbands", 5, 25000, CLOSE_ONLY},
    {"trix", 5, 25000, CLOSE_ONLY},
    {"macdfix", 0, 25000, CLOSE_ONLY},
    {"linearreg_intercept", 14, 25000, CLOSE_ONLY},
    {"tsf", 30, 25000, CLOSE_ONLY},
    {"avgdev", 14, 25000, CLOSE_ONLY},
    {"sar", 0, WHOLE_ROW_COLS, 2, {HIGH, LOW}},
    {"sarext", 0, WHOLE_ROW_COLS, 2, {HIGH, LOW}},
    {"nvi", 0, WHOLE_ROW_COLS, CV},
    {"pvi", 0, WHOLE_ROW_COLS, CV},
    {"linearreg_angle", 200, 25000, CLOSE_ONLY},
    {"apo", 0, 25000, CLOSE_ONLY},
    {"ppo", 0, 25000, CLOSE_ONLY},
    {"acos", 0, 25000, 1, {UNIT}},
    {"asin", 0, 25000, 1, {UNIT}},
    {"atan", 0, 25000, CLOSE_ONLY},
    {"cos", 0, 25000, CLOSE_ONLY},
    {"sin", 0, 25000, CLOSE_ONLY},
    {"tan", 0, 25000, CLOSE_ONLY},
    {"maxindex", 0, WHOLE_ROW_COLS, CLOSE_ONLY},
    {"minindex", 7, WHOLE_ROW_COLS, CLOSE_ONLY},
    {"minmaxindex", 0, WHOLE_ROW_COLS, CLOSE_ONLY},
    {"mama", 0, WHOLE_ROW_COLS, CLOSE_ONLY},
    {"marketfi", 0, 25000, 3, {HIGH, LOW, VOLUME}},
    {"pvt", 0, WHOLE_ROW_COLS, CV},
    {"adr", 14, 25000, 2, {HIGH, LOW}},
    {"cmf", 20, 25000, HLCV},
    {"rvol", 20, 25000, 1, {VOLUME}},
    {"efi", 13, 25000, CV},
    {"pvo", 0, 25000, 1, {VOLUME}},
    {"qstick", 10, 25000, 2, {OPEN, CLOSE}},
    {"ao", 0, 25000, 2, {HIGH, LOW}},
    {"ac", 0, 25000, 2, {HIGH, LOW}},
    {"dpo", 20, 25000, CLOSE_ONLY},
    {"cmou", 14, 25000, CLOSE_ONLY},
    {"er", 10, 25000, CLOSE_ONLY},
    {"vhf", 28, 25000, CLOSE_ONLY},
    {"coppock", 0, 25000, CLOSE_ONLY},
    {"eri", 13, 25000, HLC},
    {"tsi", 0, 25000, CLOSE_ONLY},
    {"vortex", 14, 25000, HLC},
    {"fosc", 5, 25000, CLOSE_ONLY},
    {"macdext", 0, 25000, CLOSE_ONLY},
    {"stochrsi", 0, 25000, CLOSE_ONLY},
    {"wad", 0, WHOLE_ROW_COLS, HLC},
    {"fractal", 0, 25000, 2, {HIGH, LOW}},
    {"percentile", 0, 25000, CLOSE_ONLY},
    {"cumsum", 0, WHOLE_ROW_COLS, CLOSE_ONLY},
    {"donchian", 20, 25000, 2, {HIGH, LOW}},
    {"vwma", 30, 25000, CV},
    {"rma", 30, 25000, CLOSE_ONLY},
    {"zlema", 30, 25000, CLOSE_ONLY},
    {"percentrank", 0, 25000, CLOSE_ONLY},
    {"hma", 20, 25000, CLOSE_ONLY},
    {"massi", 0, 25000, 2, {HIGH, LOW}},
    {"cvi", 10, 25000, 2, {HIGH, LOW}},
    {"kc", 20, 25000, HLC},
    {"supertrend", 10, WHOLE_ROW_COLS, HLC},
    {"ha", 0, 25000, OHLC},
    {"rvi", 14, 25000, CLOSE_ONLY},
    {"smi", 0, 25000, HLC},
    {"kdj", 0, 25000, HLC},
};
#define N_CASES (sizeof cases / sizeof cases[0])

/* The candlestick patterns: each is a case of OHLC_COLS samples, its defaults and the inputs
 * OHLC, checked as the cases above are. */
static const char *const candlesticks[] = {
    "cdl2crows",           "cdl3blackcrows",      "cdl3inside",         "cdl3linestrike",
    "cdl3outside",         "cdl3starsinsouth",    "cdl3whitesoldiers",  "cdlabandonedbaby",
    "cdladvanceblock",     "cdlbelthold",         "cdlbreakaway",       "cdlclosingmarubozu",
    "cdlconcealbabyswall", "cdlcounterattack",    "cdldarkcloudcover",  "cdldoji",
    "cdldojistar",         "cdldragonflydoji",    "cdlengulfing",       "cdleveningdojistar",
    "cdleveningstar",      "cdlgapsidesidewhite", "cdlgravestonedoji",  "cdlhammer",
    "cdlhangingman",       "cdlharami",           "cdlharamicross",     "cdlhighwave",
    "cdlhikkake",          "cdlhikkakemod",       "cdlhomingpigeon",    "cdlidentical3crows",
    "cdlinneck",           "cdlinvertedhammer",   "cdlkicking",         "cdlkickingbylength",
    "cdlladderbottom",     "cdllongleggeddoji",   "cdllongline",        "cdlmarubozu",
    "cdlmatchinglow",      "cdlmathold",          "cdlmorningdojistar", "cdlmorningstar",
    "cdlonneck",           "cdlpiercing",         "cdlrickshawman",     "cdlrisefall3methods",
    "cdlseparatinglines",  "cdlshootingstar",     "cdlshortline",       "cdlspinningtop",
    "cdlstalledpattern",   "cdlsticksandwich",    "cdltakuri",          "cdltasukigap",
    "cdlthrusting",        "cdltristar",          "cdlunique3river",    "cdlupsidegap2crows",
    "cdlxsidegap3methods"};
#define N_CANDLESTICKS (sizeof candlesticks / sizeof candlesticks[0])

/* The case of `kernel`, with `cols` samples a row. */
static cat_case case_of(const char *kernel, size_t cols) {
    for (size_t i = 0; i < N_CASES; i++)
        if (strcmp(cases[i].kernel, kernel) == 0) {
            cat_case c = cases[i];
            c.cols = cols;
            return c;
        }
    cr_assert_fail("no case for %s", kernel);
    return cases[0];
}

typedef struct cat_job {
    apo_workload w;
    double *columns[N_COLUMNS];
    const double *inputs[APO_MAX_IO];
    double *outputs[APO_MAX_IO];
    apo_param params[APO_MAX_PARAMS];
    size_t len;
} cat_job;

static void job_init(cat_job *job, apo_runtime *rt, const cat_case *c, size_t rows) {
    memset(job, 0, sizeof *job);
    job->w = test_workload(c->kernel, rows, c->cols, NULL, 0, NULL, 0);
    job->len = rows * c->cols;
    for (size_t i = 0; i < N_COLUMNS; i++) {
        job->columns[i] = malloc(job->len * sizeof(double));
        cr_assert_not_null(job->columns[i]);
    }
    for (size_t r = 0; r < rows; r++) {
        const size_t at = r * c->cols;
        apo__ref_ohlcv(11 + r, c->cols, 100.0, 0.5, job->columns[OPEN] + at,
                       job->columns[HIGH] + at, job->columns[LOW] + at, job->columns[CLOSE] + at,
                       job->columns[VOLUME] + at);
        apo__ref_ohlcv(911 + r, c->cols, 60.0, 0.3, NULL, NULL, NULL, job->columns[Y] + at, NULL);
        for (size_t t = 0; t < c->cols; t++)
            job->columns[UNIT][at + t] = 1.1 * sin(job->columns[CLOSE][at + t]);
    }
    /* A gap in the middle of the first row, in every column. */
    for (size_t i = 0; i < N_COLUMNS; i++)
        job->columns[i][c->cols / 2] = NAN;
    apo_kernel_info info = APO_KERNEL_INFO_INIT;
    cr_assert_eq(apo_kernel_get(rt, c->kernel, &info), APO_OK, "%s", apo_last_error());
    cr_assert_eq(info.n_inputs, c->n_in, "%s", c->kernel);
    job->w.n_inputs = c->n_in;
    for (size_t i = 0; i < c->n_in; i++)
        job->inputs[i] = job->columns[c->in[i]];
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
    /* Period 0: the kernel's defaults (adosc's fastperiod 3 and slowperiod 10), or no
     * parameter at all (trange, obv, ad). */
    if (c->period > 0) {
        job->params[0].name = "timeperiod";
        job->params[0].value = c->period;
        job->w.n_params = 1;
    }
}

static void job_free(cat_job *job) {
    for (size_t i = 0; i < N_COLUMNS; i++)
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

/* The case's job, with one more parameter where `extra` is given (NULL: none). */
static void job_init_with(cat_job *job, apo_runtime *rt, const cat_case *c, size_t rows,
                          const apo_param *extra) {
    job_init(job, rt, c, rows);
    if (extra != NULL)
        job->params[job->w.n_params++] = *extra;
}

/* A case (with `extra`) of `rows` rows and its bits on the cpu device. */
typedef struct placed_case {
    const cat_case *c;
    size_t rows;
    const apo_param *extra;
    const cat_job *ref;
} placed_case;

/* The case placed so gives the cpu device's bits. */
static void same_as_cpu(apo_runtime *rt, const double *ratios, size_t n_ratios, apo_split split,
                        const char *where, void *ctx) {
    const placed_case *p = ctx;
    cat_job got;
    job_init_with(&got, rt, p->c, p->rows, p->extra);
    run(rt, &got, ratios, n_ratios, split);
    for (size_t o = 0; o < p->ref->w.n_outputs; o++)
        cr_assert_eq(bitwise_diff(p->ref, &got, o), 0, "%s %s: output %zu differs", p->c->kernel,
                     where, o);
    job_free(&got);
}

/* Case c (with `extra`) on every device set, ratio and axis gives the cpu device's bits. */
static void same_bits_everywhere(apo_runtime *cpu, const cat_case *c, size_t ci,
                                 const apo_param *extra) {
    static const char *const device_sets[] = {"sim:a,sim:b", "cpu,sim:a",
                                              "sim:a,sim:b,sim:c,sim:d,sim:e"};
    const size_t rows = 3;
    cat_job ref;
    job_init_with(&ref, cpu, c, rows, extra);
    run(cpu, &ref, NULL, 0, APO_SPLIT_AUTO);
    size_t finite = 0;
    for (size_t o = 0; o < ref.w.n_outputs; o++)
        for (size_t t = 0; t < ref.len; t++) {
            cr_assert_neq(ref.outputs[o][t], -12345.678, "%s output %zu[%zu] unwritten", c->kernel,
                          o, t);
            finite += isfinite(ref.outputs[o][t]) != 0;
        }
    cr_assert_gt(finite, ref.len / 2, "%s: most outputs are values", c->kernel);
    const placed_case p = {c, rows, extra, &ref};
    test_each_placement(device_sets, sizeof device_sets / sizeof device_sets[0], 3, 700 * ci,
                        same_as_cpu, (void *)&p);
    job_free(&ref);
}

Test(catalog_runtime, every_kernel_same_bits_on_every_device_set_ratio_and_axis, .timeout = 900) {
    apo_runtime *cpu = test_runtime("cpu");
    for (size_t ci = 0; ci < N_CASES; ci++)
        if (test_kernel_sampled(ci))
            same_bits_everywhere(cpu, &cases[ci], ci, NULL);
    for (size_t i = 0; i < N_CANDLESTICKS; i++) {
        const cat_case c = {candlesticks[i], 0, OHLC_COLS, OHLC};
        if (test_kernel_sampled(N_CASES + i))
            same_bits_everywhere(cpu, &c, N_CASES + i, NULL);
    }
    apo_runtime_destroy(cpu);
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
        same_bits_everywhere(cpu, &c, N_CASES + N_CANDLESTICKS + i, &kinds[i]);
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
        /* stoch offers TA-Lib's default moving average only (matype 0, the SMA). */
        {"stoch", 100, {{"slowd_matype", 1}}, 0, BAD, "slowd_matype"},
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
    apo_runtime *rt = test_runtime("cpu");
    check_param_cases(rt, refusals, sizeof refusals / sizeof refusals[0]);
    /* A period of 100 on 100 samples defines the last output only (job_init's gap
     * filled). */
    const cat_case sma = case_of("sma", 100);
    cat_job job;
    job_init(&job, rt, &sma, 1);
    job.columns[CLOSE][50] = 100.0;
    check_last_output_only(rt, &job, 100);
    apo_runtime_destroy(rt);
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
    apo_runtime *rt = test_runtime("cpu");
    check_param_cases(rt, refusals, sizeof refusals / sizeof refusals[0]);
    /* Period 50, lookback 99: the last sample only (job_init's gap filled). */
    const cat_case adx = case_of("adx", 100);
    cat_job job;
    job_init(&job, rt, &adx, 1);
    for (size_t i = 0; i < N_COLUMNS; i++)
        job.columns[i][50] = job.columns[i][49];
    check_last_output_only(rt, &job, 50);
    apo_runtime_destroy(rt);
}

/* The descriptors carry TA-Lib's output names and defaults. */
Test(catalog_runtime, descriptors_name_talib_outputs) {
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
    apo_runtime_destroy(rt);
}

/* mama's descriptor carries TA-Lib's names, defaults and bounds, and its limits outside TA-Lib's
 * 0.01 .. 0.99 are refused. */
Test(catalog_runtime, mama_is_described_as_talibs) {
    apo_runtime *rt = test_runtime("cpu");
    apo_kernel_info info = APO_KERNEL_INFO_INIT;
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
