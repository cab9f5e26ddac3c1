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

/* The commonest rows: one output of the close (or of high, low and close) under a timeperiod
 * that TA-Lib and Tulip both get, so that it is written once; TA-Lib's function and Tulip's
 * indicator by name. */
#define CLOSE_PERIOD(nm, v, fn, ti)                                                                \
    .name = nm, CLOSE, ONE_OUT, PERIOD(v), TA(fn, 1IN_I_1OUT), TI_PERIOD(ti, v)
#define HLC_PERIOD(nm, v, fn, ti)                                                                  \
    .name = nm, HLC, ONE_OUT, PERIOD(v), TA(fn, 3IN_I_1OUT), TI_PERIOD(ti, v)
/* STDDEV and VAR, their period for both libraries (Tulip's nbdev is 1, as theirs). */
#define CLOSE_PERIOD_NBDEV(nm, v, fn, ti)                                                          \
    .name = nm, CLOSE, ONE_OUT, PERIOD_NBDEV(v), TA(fn, 1IN_ID_1OUT), TI_PERIOD(ti, v)
/* +DI and -DI at period 14, from Tulip's di: its output `which` is theirs. */
#define DI_OF_TWO(nm, fn, which)                                                                   \
    .name = nm, HLC, ONE_OUT, PERIOD(14), TA(fn, 3IN_I_1OUT), TI_PERIOD_OF_TWO("di", 14, which)

const peer_kernel peer_kernels[] = {
    /* averages */
    {CLOSE_PERIOD("sma", 30, "SMA", "sma"), DRIFTS},
    {CLOSE_PERIOD("ema", 30, "EMA", "ema")},
    {CLOSE_PERIOD("wma", 30, "WMA", "wma"), DRIFTS},
    {CLOSE_PERIOD("dema", 30, "DEMA", "dema")},
    {CLOSE_PERIOD("tema", 30, "TEMA", "tema")},
    {CLOSE_PERIOD("kama", 30, "KAMA", "kama")},
    /* oscillators */
    {CLOSE_PERIOD("rsi", 14, "RSI", "rsi")},
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
    {HLC_PERIOD("willr", 14, "WILLR", "willr")},
    {HLC_PERIOD("cci", 14, "CCI", "cci")},
    {CLOSE_PERIOD("mom", 10, "MOM", "mom")},
    {CLOSE_PERIOD("roc", 10, "ROC", "roc")},
    {CLOSE_PERIOD("cmo", 14, "CMO", "cmo")},
    /* trend */
    {HLC_PERIOD("atr", 14, "ATR", "atr")},
    {HLC_PERIOD("natr", 14, "NATR", "natr")},
    {.name = "trange", HLC, ONE_OUT, NO_PARAMS, TA("TRANGE", 3IN_1OUT), TI_NONE("tr")},
    {HLC_PERIOD("adx", 14, "ADX", "adx")},
    /* Tulip's di writes +DI and -DI in one call: its time is for both. */
    {DI_OF_TWO("plus_di", "PLUS_DI", 0)},
    {DI_OF_TWO("minus_di", "MINUS_DI", 1)},
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
    {CLOSE_PERIOD_NBDEV("stddev", 5, "STDDEV", "stddev"), DRIFTS},
    {CLOSE_PERIOD_NBDEV("var", 5, "VAR", "var"), DRIFTS},
    {CLOSE_PERIOD("linearreg", 14, "LINEARREG", "linreg"), DRIFTS},
    {CLOSE_PERIOD("linearreg_slope", 14, "LINEARREG_SLOPE", "linregslope"), DRIFTS},
    {.name = "correl", XY, ONE_OUT, PERIOD(30), TA("CORREL", 2IN_I_1OUT), DRIFTS},
    {.name = "beta", XY, ONE_OUT, PERIOD(5), TA("BETA", 2IN_I_1OUT), DRIFTS},
    /* reductions over a window */
    {CLOSE_PERIOD("max", 30, "MAX", "max")},
    {CLOSE_PERIOD("min", 30, "MIN", "min")},
};

const size_t peer_kernel_count = sizeof peer_kernels / sizeof peer_kernels[0];

/* A PEER_TA_ABSTRACT row's TA-Lib function, with the row's parameters (TA-Lib's defaults, or
 * --period's timeperiod) set by name. */
static int open_abstract(const talib_abstract *ta, const peer_kernel *k, peer_fns *fns, char *why,
                         size_t why_size) {
    if (ta == NULL) {
        snprintf(why, why_size, "TA-Lib's abstract interface is not loaded");
        return -1;
    }
    const int rc = talib_call_open(ta, k->ta_name, &fns->call, why, why_size);
    if (rc == 1)
        snprintf(why, why_size, "%s not found in TA-Lib", k->ta_name);
    if (rc != 0)
        return -1;
    for (int i = 0; i < k->n_params; i++)
        if (talib_call_set(&fns->call, k->params[i].name, k->params[i].value) != 0) {
            snprintf(why, why_size, "%s: TA-Lib has no parameter %s of value %g", k->ta_name,
                     k->params[i].name, k->params[i].value);
            talib_call_close(&fns->call);
            return -1;
        }
    return 0;
}

int peer_resolve(const bench_peers *p, const talib_abstract *ta, const peer_kernel *k,
                 peer_fns *fns, char *why, size_t why_size) {
    memset(fns, 0, sizeof *fns);
    why[0] = '\0';
    if (k->ta_shape == PEER_TA_ABSTRACT) {
        /* TA-Lib 0.6 has no column here: its functions are called by their shape alone. */
        if (open_abstract(ta, k, fns, why, why_size) != 0)
            return -1;
    } else if (bench_peers_find(p, BENCH_PEER_LIB_TALIB, k->ta_name, &fns->ta) != 0) {
        snprintf(why, why_size, "%s not found in TA-Lib", k->ta_name);
        return -1;
    }
    /* TA-Lib 0.6 where it is at hand; a function it lacks only leaves its column empty. */
    if (k->ta_shape == PEER_TA_ABSTRACT ||
        bench_peers_find(p, BENCH_PEER_LIB_TALIB06, k->ta_name, &fns->ta06) != 0)
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

void peer_release(peer_fns *fns) {
    if (fns->call.params != NULL)
        talib_call_close(&fns->call);
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
    case PEER_TA_ABSTRACT:
        return -1; /* called through peer_call_talib_abstract */
    }
    return rc != 0 ? rc : count == n - *begin ? 0 : -1;
}

int peer_call_talib_abstract(const peer_fns *fns, int n, const double *const *in,
                             double *const *out, int *const *ints, int convert, int *begin) {
    const int rc = talib_call_run(&fns->call, n, in, out, ints, begin);
    if (rc != 0 || !convert)
        return rc;
    for (int k = 0; k < fns->call.n_out; k++)
        if (fns->call.out_integer[k])
            for (int t = 0; t + *begin < n; t++)
                out[k][t] = ints[k][t];
    return 0;
}

/* ---- rows made from the catalog's list ---------------------------------------------------- */

/* Tulip's indicator for a made row, where Tulip has the same computation under its own name
 * and its options are the kernel's parameters in their order (their count is checked): the
 * math and price transforms, the directional movement, and a few windows. ti_out lists, as
 * in the rows above, the Tulip output holding each of apportion's. A Tulip indicator that is
 * another definition is still timed, its ratio marked '*' by the comparison. */
typedef struct tulip_twin {
    const char *kernel, *ti_name;
    int ti_n_outputs;
    unsigned char ti_out[PEER_MAX_OUT];
} tulip_twin;

static const tulip_twin tulip_twins[] = {
    {"acos", "acos", 1, {0}},
    {"asin", "asin", 1, {0}},
    {"atan", "atan", 1, {0}},
    {"ceil", "ceil", 1, {0}},
    {"cos", "cos", 1, {0}},
    {"cosh", "cosh", 1, {0}},
    {"exp", "exp", 1, {0}},
    {"floor", "floor", 1, {0}},
    {"ln", "ln", 1, {0}},
    {"log10", "log10", 1, {0}},
    {"sin", "sin", 1, {0}},
    {"sinh", "sinh", 1, {0}},
    {"sqrt", "sqrt", 1, {0}},
    {"tan", "tan", 1, {0}},
    {"tanh", "tanh", 1, {0}},
    {"add", "add", 1, {0}},
    {"sub", "sub", 1, {0}},
    {"mult", "mul", 1, {0}},
    {"div", "div", 1, {0}},
    {"avgprice", "avgprice", 1, {0}},
    {"medprice", "medprice", 1, {0}},
    {"typprice", "typprice", 1, {0}},
    {"wclprice", "wcprice", 1, {0}},
    {"bop", "bop", 1, {0}},
    {"trima", "trima", 1, {0}},
    {"sum", "sum", 1, {0}},
    {"aroonosc", "aroonosc", 1, {0}},
    {"dx", "dx", 1, {0}},
    {"adxr", "adxr", 1, {0}},
    {"trix", "trix", 1, {0}},
    {"rocr", "rocr", 1, {0}},
    {"ultosc", "ultosc", 1, {0}},
    {"tsf", "tsf", 1, {0}},
    {"linearreg_intercept", "linregintercept", 1, {0}},
    {"avgdev", "md", 1, {0}},
    {"sar", "psar", 1, {0}},
    {"nvi", "nvi", 1, {0}},
    {"pvi", "pvi", 1, {0}},
    {"plus_dm", "dm", 2, {0}},
    {"minus_dm", "dm", 2, {1}},
};

/* The series a made row's input reads, by the input's name. */
static int series_of(const char *input) {
    static const struct {
        const char *name;
        int series;
    } names[] = {{"open", PEER_OPEN},      {"high", PEER_HIGH},     {"low", PEER_LOW},
                 {"close", PEER_CLOSE},    {"volume", PEER_VOLUME}, {"y", PEER_OTHER},
                 {"periods", PEER_PERIODS}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(input, names[i].name) == 0)
            return names[i].series;
    return PEER_CLOSE; /* x, and any series of its own */
}

static int has_row(const char *name) {
    for (size_t i = 0; i < peer_kernel_count; i++)
        if (strcmp(peer_kernels[i].name, name) == 0)
            return 1;
    return 0;
}

static void add_twin(peer_kernel *k) {
    for (size_t i = 0; i < sizeof tulip_twins / sizeof tulip_twins[0]; i++) {
        const tulip_twin *tw = &tulip_twins[i];
        if (strcmp(tw->kernel, k->name) != 0 || k->n_params > PEER_MAX_TI_OPTIONS)
            continue;
        k->ti_name = tw->ti_name;
        k->ti_n_options = k->n_params;
        for (int p = 0; p < k->n_params; p++)
            k->ti_options[p] = k->params[p].value;
        k->ti_n_outputs = tw->ti_n_outputs;
        memcpy(k->ti_out, tw->ti_out, sizeof k->ti_out);
    }
}

size_t peer_generate(apo_runtime *rt, const talib_abstract *ta, peer_kernel *rows,
                     peer_ta_name *names, size_t max) {
    size_t count = 0, made = 0;
    if (ta == NULL || apo_kernel_count(rt, &count) != APO_OK)
        return 0;
    for (size_t i = 0; i < count && made < max; i++) {
        const char *name = NULL;
        apo_kernel_info info = APO_KERNEL_INFO_INIT;
        /* bollinger and macd have tables of their own (bench_peers.c). */
        if (apo_kernel_name(rt, i, &name) != APO_OK || apo_kernel_get(rt, name, &info) != APO_OK ||
            strcmp(name, "bollinger") == 0 || strcmp(name, "macd") == 0 || has_row(name) ||
            info.n_inputs > PEER_MAX_IN || info.n_outputs > PEER_MAX_OUT ||
            info.n_params > PEER_MAX_PARAMS)
            continue;
        size_t c = 0;
        for (; name[c] != '\0' && c + 1 < sizeof names[made]; c++)
            names[made][c] =
                (char)(name[c] >= 'a' && name[c] <= 'z' ? name[c] - 'a' + 'A' : name[c]);
        names[made][c] = '\0';
        const void *handle = NULL;
        if (ta->get_func_handle(names[made], &handle) != 0)
            continue; /* not TA-Lib's */
        peer_kernel *k = &rows[made];
        memset(k, 0, sizeof *k);
        k->name = info.name;
        k->n_inputs = (int)info.n_inputs;
        for (size_t in = 0; in < info.n_inputs; in++)
            k->inputs[in] = (unsigned char)series_of(info.input_names[in]);
        k->n_outputs = (int)info.n_outputs;
        k->n_params = (int)info.n_params;
        for (size_t p = 0; p < info.n_params; p++)
            k->params[p] = (apo_param){info.param_names[p], info.param_defaults[p]};
        k->ta_name = names[made];
        k->ta_shape = PEER_TA_ABSTRACT;
        add_twin(k);
        made++;
    }
    return made;
}
