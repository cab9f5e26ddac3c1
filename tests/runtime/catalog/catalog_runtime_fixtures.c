/* What the catalog's runtime tests share; see catalog_runtime_fixtures.h. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_reference.h"
#include "catalog_runtime_fixtures.h"
#include "helpers.h"

const cat_case cases[] = {
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
    {"mvwap", 14, 25000, HLCV},
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
    {"vwap", 0, WHOLE_ROW_COLS, HLCV},
};
const size_t n_cases = sizeof cases / sizeof cases[0];

/* The candlestick patterns: each is a case of OHLC_COLS samples, its defaults and the inputs
 * OHLC, checked as the cases above are. */
const char *const candlesticks[] = {
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
const size_t n_candlesticks = sizeof candlesticks / sizeof candlesticks[0];

/* The case of `kernel`, with `cols` samples a row. */
cat_case case_of(const char *kernel, size_t cols) {
    for (size_t i = 0; i < n_cases; i++)
        if (strcmp(cases[i].kernel, kernel) == 0) {
            cat_case c = cases[i];
            c.cols = cols;
            return c;
        }
    cr_assert_fail("no case for %s", kernel);
    return cases[0];
}

void job_init(cat_job *job, apo_runtime *rt, const cat_case *c, size_t rows) {
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

void job_free(cat_job *job) {
    for (size_t i = 0; i < N_COLUMNS; i++)
        free(job->columns[i]);
    for (size_t o = 0; o < job->w.n_outputs; o++)
        free(job->outputs[o]);
}

void run(apo_runtime *rt, cat_job *job, const double *ratios, size_t n, apo_split split) {
    job->w.ratios = ratios;
    job->w.n_ratios = n;
    job->w.split = split;
    apo_report report = APO_REPORT_INIT;
    apo_status st = apo_distribute_workload(rt, &job->w, &report);
    cr_assert_eq(st, APO_OK, "%s: %s", job->w.kernel, apo_last_error());
}

size_t bitwise_diff(const cat_job *a, const cat_job *b, size_t o) {
    size_t diff = 0;
    for (size_t t = 0; t < a->len; t++)
        diff += memcmp(&a->outputs[o][t], &b->outputs[o][t], sizeof(double)) != 0;
    return diff;
}

/* The case's job, with one more parameter where `extra` is given (NULL: none). */
void job_init_with(cat_job *job, apo_runtime *rt, const cat_case *c, size_t rows,
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
void same_bits_everywhere(apo_runtime *cpu, const cat_case *c, size_t ci, const apo_param *extra) {
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
