/*
 * peer_kernels.c: the rows of peer_kernels.h and the calls into TA-Lib and Tulip they
 * drive. Parameters are TA-Lib's defaults (which are the catalog's defaults too:
 * docs/kernels.md, "The catalog"), passed explicitly so that all three libraries get the
 * same values. Tulip's input and output orders were read from its indicator table
 * (tiamalgamation.c, ti_indicators); TA-Lib's signatures from ta_func.h.
 */
#include <stdio.h>
#include <string.h>

#include "peer_kernels.h"

/* Inputs, in the kernel's order. */
#define CLOSE .n_inputs = 1, .inputs = {PEER_CLOSE}
#define HL .n_inputs = 2, .inputs = {PEER_HIGH, PEER_LOW}
#define HLC .n_inputs = 3, .inputs = {PEER_HIGH, PEER_LOW, PEER_CLOSE}
#define HLCV .n_inputs = 4, .inputs = {PEER_HIGH, PEER_LOW, PEER_CLOSE, PEER_VOLUME}
#define XY .n_inputs = 2, .inputs = {PEER_CLOSE, PEER_OTHER}
#define CV .n_inputs = 2, .inputs = {PEER_CLOSE, PEER_VOLUME}

/* One output; a timeperiod (TA-Lib's optInTimePeriod) or no parameter. */
#define ONE_OUT .n_outputs = 1
#define PERIOD(v) .n_params = 1, .params = {{"timeperiod", v}}
#define NO_PARAMS .n_params = 0
/* STDDEV and VAR: the period and nbdev 1 (Tulip's have no nbdev: theirs is 1). */
#define PERIOD_NBDEV(v) .n_params = 2, .params = {{"timeperiod", v}, {"nbdev", 1}}
#define DRIFTS .running_sums = 1

#define TA(fn, shape) .ta_name = "TA_" fn, .ta_shape = PEER_TA_##shape
/* A Tulip indicator of one output whose options are the period (or nothing). */
#define TI_PERIOD(nm, v) .ti_name = nm, .ti_n_options = 1, .ti_options = {v}, .ti_n_outputs = 1
#define TI_NONE(nm) .ti_name = nm, .ti_n_options = 0, .ti_n_outputs = 1
/* One of two outputs, or both: the Tulip outputs that hold apportion's, in its order. */
#define TI_PERIOD_OF_TWO(nm, v, ...)                                                               \
    .ti_name = nm, .ti_n_options = 1, .ti_options = {v}, .ti_n_outputs = 2, .ti_out = {__VA_ARGS__}

const peer_kernel peer_kernels[] = {
    /* averages */
    {.name = "sma",
     CLOSE,
     ONE_OUT,
     PERIOD(30),
     TA("SMA", 1IN_I_1OUT),
     TI_PERIOD("sma", 30),
     DRIFTS},
    {.name = "ema", CLOSE, ONE_OUT, PERIOD(30), TA("EMA", 1IN_I_1OUT), TI_PERIOD("ema", 30)},
    {.name = "wma",
     CLOSE,
     ONE_OUT,
     PERIOD(30),
     TA("WMA", 1IN_I_1OUT),
     TI_PERIOD("wma", 30),
     DRIFTS},
    {.name = "dema", CLOSE, ONE_OUT, PERIOD(30), TA("DEMA", 1IN_I_1OUT), TI_PERIOD("dema", 30)},
    {.name = "tema", CLOSE, ONE_OUT, PERIOD(30), TA("TEMA", 1IN_I_1OUT), TI_PERIOD("tema", 30)},
    {.name = "kama", CLOSE, ONE_OUT, PERIOD(30), TA("KAMA", 1IN_I_1OUT), TI_PERIOD("kama", 30)},
    /* oscillators */
    {.name = "rsi", CLOSE, ONE_OUT, PERIOD(14), TA("RSI", 1IN_I_1OUT), TI_PERIOD("rsi", 14)},
    {.name = "stoch",
     HLC,
     .n_outputs = 2,
     .n_params = 5,
     .params = {{"fastk_period", 5},
                {"slowk_period", 3},
                {"slowk_matype", 0},
                {"slowd_period", 3},
                {"slowd_matype", 0}},
     TA("STOCH", 3IN_IIIII_2OUT),
     /* Tulip's %k period, %k slowing, %d period; both means simple, as TA-Lib's matype 0. */
     .ti_name = "stoch",
     .ti_n_options = 3,
     .ti_options = {5, 3, 3},
     .ti_n_outputs = 2,
     .ti_out = {0, 1}},
    {.name = "stochf",
     HLC,
     .n_outputs = 2,
     .n_params = 3,
     .params = {{"fastk_period", 5}, {"fastd_period", 3}, {"fastd_matype", 0}},
     TA("STOCHF", 3IN_III_2OUT)},
    {.name = "willr", HLC, ONE_OUT, PERIOD(14), TA("WILLR", 3IN_I_1OUT), TI_PERIOD("willr", 14)},
    {.name = "cci", HLC, ONE_OUT, PERIOD(14), TA("CCI", 3IN_I_1OUT), TI_PERIOD("cci", 14)},
    {.name = "mom", CLOSE, ONE_OUT, PERIOD(10), TA("MOM", 1IN_I_1OUT), TI_PERIOD("mom", 10)},
    {.name = "roc", CLOSE, ONE_OUT, PERIOD(10), TA("ROC", 1IN_I_1OUT), TI_PERIOD("roc", 10)},
    {.name = "cmo", CLOSE, ONE_OUT, PERIOD(14), TA("CMO", 1IN_I_1OUT), TI_PERIOD("cmo", 14)},
    /* trend */
    {.name = "atr", HLC, ONE_OUT, PERIOD(14), TA("ATR", 3IN_I_1OUT), TI_PERIOD("atr", 14)},
    {.name = "natr", HLC, ONE_OUT, PERIOD(14), TA("NATR", 3IN_I_1OUT), TI_PERIOD("natr", 14)},
    {.name = "trange", HLC, ONE_OUT, NO_PARAMS, TA("TRANGE", 3IN_1OUT), TI_NONE("tr")},
    {.name = "adx", HLC, ONE_OUT, PERIOD(14), TA("ADX", 3IN_I_1OUT), TI_PERIOD("adx", 14)},
    /* Tulip's di writes +DI and -DI in one call: its time is for both. */
    {.name = "plus_di",
     HLC,
     ONE_OUT,
     PERIOD(14),
     TA("PLUS_DI", 3IN_I_1OUT),
     TI_PERIOD_OF_TWO("di", 14, 0)},
    {.name = "minus_di",
     HLC,
     ONE_OUT,
     PERIOD(14),
     TA("MINUS_DI", 3IN_I_1OUT),
     TI_PERIOD_OF_TWO("di", 14, 1)},
    {.name = "aroon",
     HL,
     .n_outputs = 2,
     PERIOD(14),
     TA("AROON", 2IN_I_2OUT),
     TI_PERIOD_OF_TWO("aroon", 14, 0, 1)},
    /* volume */
    {.name = "obv", CV, ONE_OUT, NO_PARAMS, TA("OBV", 2IN_1OUT), TI_NONE("obv")},
    {.name = "ad", HLCV, ONE_OUT, NO_PARAMS, TA("AD", 4IN_1OUT), TI_NONE("ad")},
    {.name = "adosc",
     HLCV,
     ONE_OUT,
     .n_params = 2,
     .params = {{"fastperiod", 3}, {"slowperiod", 10}},
     TA("ADOSC", 4IN_II_1OUT),
     .ti_name = "adosc",
     .ti_n_options = 2,
     .ti_options = {3, 10},
     .ti_n_outputs = 1},
    {.name = "mfi", HLCV, ONE_OUT, PERIOD(14), TA("MFI", 4IN_I_1OUT), TI_PERIOD("mfi", 14)},
    /* statistics */
    {.name = "stddev",
     CLOSE,
     ONE_OUT,
     PERIOD_NBDEV(5),
     TA("STDDEV", 1IN_ID_1OUT),
     TI_PERIOD("stddev", 5),
     DRIFTS},
    {.name = "var",
     CLOSE,
     ONE_OUT,
     PERIOD_NBDEV(5),
     TA("VAR", 1IN_ID_1OUT),
     TI_PERIOD("var", 5),
     DRIFTS},
    {.name = "linearreg",
     CLOSE,
     ONE_OUT,
     PERIOD(14),
     TA("LINEARREG", 1IN_I_1OUT),
     TI_PERIOD("linreg", 14),
     DRIFTS},
    {.name = "linearreg_slope",
     CLOSE,
     ONE_OUT,
     PERIOD(14),
     TA("LINEARREG_SLOPE", 1IN_I_1OUT),
     TI_PERIOD("linregslope", 14),
     DRIFTS},
    {.name = "correl", XY, ONE_OUT, PERIOD(30), TA("CORREL", 2IN_I_1OUT), DRIFTS},
    {.name = "beta", XY, ONE_OUT, PERIOD(5), TA("BETA", 2IN_I_1OUT), DRIFTS},
    /* reductions over a window */
    {.name = "max", CLOSE, ONE_OUT, PERIOD(30), TA("MAX", 1IN_I_1OUT), TI_PERIOD("max", 30)},
    {.name = "min", CLOSE, ONE_OUT, PERIOD(30), TA("MIN", 1IN_I_1OUT), TI_PERIOD("min", 30)},
};

const size_t peer_kernel_count = sizeof peer_kernels / sizeof peer_kernels[0];

int peer_resolve(const bench_peers *p, const peer_kernel *k, peer_fns *fns, char *why,
                 size_t why_size) {
    memset(fns, 0, sizeof *fns);
    if (bench_peers_find(p, BENCH_PEER_LIB_TALIB, k->ta_name, &fns->ta) != 0) {
        snprintf(why, why_size, "%s not found in TA-Lib", k->ta_name);
        return -1;
    }
    /* TA-Lib 0.6 where it is at hand; a function it lacks only leaves its column empty. */
    if (bench_peers_find(p, BENCH_PEER_LIB_TALIB06, k->ta_name, &fns->ta06) != 0)
        fns->ta06 = NULL;
    if (k->ti_name != NULL) {
        char name[64];
        snprintf(name, sizeof name, "ti_%s", k->ti_name);
        bench_ti_fn ti = NULL;
        int (*start)(const double *) = NULL;
        if (bench_peers_find(p, BENCH_PEER_LIB_TULIP, name, &ti) == 0) {
            snprintf(name, sizeof name, "ti_%s_start", k->ti_name);
            /* Without its start index Tulip's outputs cannot be placed: left out then. */
            if (bench_peers_find(p, BENCH_PEER_LIB_TULIP, name, &start) == 0) {
                fns->ti = ti;
                fns->ti_start = start;
            }
        }
    }
    return 0;
}

/* TA-Lib's signatures by shape; TA_RetCode and TA_MAType are C enums, passed as int. */
typedef int (*ta_1i_1)(int, int, const double *, int, int *, int *, double *);
typedef int (*ta_1id_1)(int, int, const double *, int, double, int *, int *, double *);
typedef int (*ta_2_1)(int, int, const double *, const double *, int *, int *, double *);
typedef int (*ta_2i_1)(int, int, const double *, const double *, int, int *, int *, double *);
typedef int (*ta_2i_2)(int, int, const double *, const double *, int, int *, int *, double *,
                       double *);
typedef int (*ta_3_1)(int, int, const double *, const double *, const double *, int *, int *,
                      double *);
typedef int (*ta_3i_1)(int, int, const double *, const double *, const double *, int, int *, int *,
                       double *);
typedef int (*ta_3iii_2)(int, int, const double *, const double *, const double *, int, int, int,
                         int *, int *, double *, double *);
typedef int (*ta_3iiiii_2)(int, int, const double *, const double *, const double *, int, int, int,
                           int, int, int *, int *, double *, double *);
typedef int (*ta_4_1)(int, int, const double *, const double *, const double *, const double *,
                      int *, int *, double *);
typedef int (*ta_4i_1)(int, int, const double *, const double *, const double *, const double *,
                       int, int *, int *, double *);
typedef int (*ta_4ii_1)(int, int, const double *, const double *, const double *, const double *,
                        int, int, int *, int *, double *);

int peer_call_talib(const peer_kernel *k, peer_any_fn ta, int n, const double *const *in,
                    double *const *out, int *begin) {
    int ip[PEER_MAX_PARAMS] = {0};
    for (int i = 0; i < k->n_params; i++)
        ip[i] = (int)k->params[i].value;
    const int e = n - 1;
    int count = 0, rc = -1;
    switch (k->ta_shape) {
    case PEER_TA_1IN_I_1OUT:
        rc = ((ta_1i_1)ta)(0, e, in[0], ip[0], begin, &count, out[0]);
        break;
    case PEER_TA_1IN_ID_1OUT:
        rc = ((ta_1id_1)ta)(0, e, in[0], ip[0], k->params[1].value, begin, &count, out[0]);
        break;
    case PEER_TA_2IN_1OUT:
        rc = ((ta_2_1)ta)(0, e, in[0], in[1], begin, &count, out[0]);
        break;
    case PEER_TA_2IN_I_1OUT:
        rc = ((ta_2i_1)ta)(0, e, in[0], in[1], ip[0], begin, &count, out[0]);
        break;
    case PEER_TA_2IN_I_2OUT:
        rc = ((ta_2i_2)ta)(0, e, in[0], in[1], ip[0], begin, &count, out[0], out[1]);
        break;
    case PEER_TA_3IN_1OUT:
        rc = ((ta_3_1)ta)(0, e, in[0], in[1], in[2], begin, &count, out[0]);
        break;
    case PEER_TA_3IN_I_1OUT:
        rc = ((ta_3i_1)ta)(0, e, in[0], in[1], in[2], ip[0], begin, &count, out[0]);
        break;
    case PEER_TA_3IN_III_2OUT:
        rc = ((ta_3iii_2)ta)(0, e, in[0], in[1], in[2], ip[0], ip[1], ip[2], begin, &count, out[0],
                             out[1]);
        break;
    case PEER_TA_3IN_IIIII_2OUT:
        rc = ((ta_3iiiii_2)ta)(0, e, in[0], in[1], in[2], ip[0], ip[1], ip[2], ip[3], ip[4], begin,
                               &count, out[0], out[1]);
        break;
    case PEER_TA_4IN_1OUT:
        rc = ((ta_4_1)ta)(0, e, in[0], in[1], in[2], in[3], begin, &count, out[0]);
        break;
    case PEER_TA_4IN_I_1OUT:
        rc = ((ta_4i_1)ta)(0, e, in[0], in[1], in[2], in[3], ip[0], begin, &count, out[0]);
        break;
    case PEER_TA_4IN_II_1OUT:
        rc = ((ta_4ii_1)ta)(0, e, in[0], in[1], in[2], in[3], ip[0], ip[1], begin, &count, out[0]);
        break;
    }
    return rc != 0 ? rc : count == n - *begin ? 0 : -1;
}
