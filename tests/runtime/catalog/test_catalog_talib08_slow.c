/*
 * test_catalog_talib08_slow.c: every catalog kernel that TA-Lib has, through the runtime,
 * against TA-Lib 0.8 itself: the C library that the PyPI wheel ta-lib 0.8.2 bundles (TA-Lib
 * 0.8.1), as apo-bench-peers fetches it into its cache folder (bench/peers.c). The catalog's
 * accuracy tests compare with long-double references of their own (tests/common/
 * catalog_reference*.c); this one checks the claim of docs/kernels.md, "The catalog", that the
 * catalog is TA-Lib's computation: with the same parameters, apportion's NaN lead is TA-Lib's
 * lookback and every later output is within 1e-9 of the largest |TA-Lib output| of its row
 * (apo-bench-peers' measure, d_apo), at TA-Lib's defaults and at timeperiod 200.
 *
 * TA-Lib is not part of apportion and no test fetches anything: where the library is not in
 * the folder that APO_PEERS_DIR names (tests/runtime/meson.build sets it to the bench's
 * default cache folder of whoever set the build up), the program says why and exits 77, the
 * skip status. `build/bench/apo-bench-peers --kernels sma --max-size 1e4 --no-batch` fetches
 * it (docs/PERF.md).
 */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_reference.h"
#include "helpers.h"

/* The library's name in the cache folder (bench/peers.c, TALIB_LIB). */
#define TALIB08_LIB "libta-lib-pypi-0.8.2.so"
/* The same computation up to rounding (bench/peers_catalog.c, SAME_DEFINITION). */
#define TOLERANCE 1e-9
#define ROWS 2
#define COLS 30000

enum { HIGH, LOW, CLOSE, VOLUME, Y, N_COLUMNS };

/* The shapes of TA-Lib's C signatures the catalog needs (ta_func.h), as in
 * bench/peer_kernels.h: after (startIdx, endIdx) the inputs, the options (I an int or a
 * TA_MAType, D a double), then (outBegIdx, outNBElement) and the outputs. */
typedef enum ta_shape {
    R_I_1,       /* SMA, RSI, ...: (real, period) */
    R_ID_1,      /* STDDEV, VAR: (real, period, nbdev) */
    RR_1,        /* OBV */
    RR_I_1,      /* CORREL, BETA */
    RR_I_2,      /* AROON */
    RRR_1,       /* TRANGE */
    RRR_I_1,     /* ATR, WILLR, ... */
    RRR_III_2,   /* STOCHF */
    RRR_IIIII_2, /* STOCH */
    RRRR_1,      /* AD */
    RRRR_I_1,    /* MFI */
    RRRR_II_1,   /* ADOSC */
    RR_DD_1,     /* SAR: (high, low, acceleration, maximum) */
    RR_D8_1,     /* SAREXT: (high, low, eight doubles) */
    R_DD_2,      /* MAMA: (real, fastlimit, slowlimit) */
} ta_shape;

typedef struct ta_case {
    const char *kernel, *ta_name;
    ta_shape shape;
    int n_in;
    int in[4];
    int n_params;
    double params[8]; /* TA-Lib's defaults in TA-Lib's order; a timeperiod comes first */
    int has_period;   /* the first parameter is apportion's `timeperiod` */
} ta_case;

#define C1                                                                                         \
    1, { CLOSE }
#define HL2                                                                                        \
    2, { HIGH, LOW }
#define HLC3                                                                                       \
    3, { HIGH, LOW, CLOSE }
#define HLCV4                                                                                      \
    4, { HIGH, LOW, CLOSE, VOLUME }
#define P(v) 1, {v}, 1

static const ta_case cases[] = {
    {"sma", "TA_SMA", R_I_1, C1, P(30)},
    {"ema", "TA_EMA", R_I_1, C1, P(30)},
    {"wma", "TA_WMA", R_I_1, C1, P(30)},
    {"dema", "TA_DEMA", R_I_1, C1, P(30)},
    {"tema", "TA_TEMA", R_I_1, C1, P(30)},
    {"kama", "TA_KAMA", R_I_1, C1, P(30)},
    {"rsi", "TA_RSI", R_I_1, C1, P(14)},
    {"stoch", "TA_STOCH", RRR_IIIII_2, HLC3, 5, {5, 3, 0, 3, 0}, 0},
    {"stochf", "TA_STOCHF", RRR_III_2, HLC3, 3, {5, 3, 0}, 0},
    {"willr", "TA_WILLR", RRR_I_1, HLC3, P(14)},
    {"cci", "TA_CCI", RRR_I_1, HLC3, P(14)},
    {"mom", "TA_MOM", R_I_1, C1, P(10)},
    {"roc", "TA_ROC", R_I_1, C1, P(10)},
    {"cmo", "TA_CMO", R_I_1, C1, P(14)},
    {"atr", "TA_ATR", RRR_I_1, HLC3, P(14)},
    {"natr", "TA_NATR", RRR_I_1, HLC3, P(14)},
    {"trange", "TA_TRANGE", RRR_1, HLC3, 0, {0}, 0},
    {"adx", "TA_ADX", RRR_I_1, HLC3, P(14)},
    {"plus_di", "TA_PLUS_DI", RRR_I_1, HLC3, P(14)},
    {"minus_di", "TA_MINUS_DI", RRR_I_1, HLC3, P(14)},
    {"aroon", "TA_AROON", RR_I_2, HL2, P(14)},
    {"obv", "TA_OBV", RR_1, 2, {CLOSE, VOLUME}, 0, {0}, 0},
    {"ad", "TA_AD", RRRR_1, HLCV4, 0, {0}, 0},
    {"adosc", "TA_ADOSC", RRRR_II_1, HLCV4, 2, {3, 10}, 0},
    {"mfi", "TA_MFI", RRRR_I_1, HLCV4, P(14)},
    {"stddev", "TA_STDDEV", R_ID_1, C1, 2, {5, 1}, 1},
    {"var", "TA_VAR", R_ID_1, C1, 2, {5, 1}, 1},
    {"linearreg", "TA_LINEARREG", R_I_1, C1, P(14)},
    {"linearreg_slope", "TA_LINEARREG_SLOPE", R_I_1, C1, P(14)},
    {"correl", "TA_CORREL", RR_I_1, 2, {CLOSE, Y}, P(30)},
    {"beta", "TA_BETA", RR_I_1, 2, {CLOSE, Y}, P(5)},
    {"max", "TA_MAX", R_I_1, C1, P(30)},
    {"min", "TA_MIN", R_I_1, C1, P(30)},
    {"linearreg_intercept", "TA_LINEARREG_INTERCEPT", R_I_1, C1, P(14)},
    {"tsf", "TA_TSF", R_I_1, C1, P(14)},
    {"avgdev", "TA_AVGDEV", R_I_1, C1, P(14)},
    {"sar", "TA_SAR", RR_DD_1, HL2, 2, {0.02, 0.2}, 0},
    {"sarext", "TA_SAREXT", RR_D8_1, HL2, 8, {0, 0, 0.02, 0.02, 0.2, 0.02, 0.02, 0.2}, 0},
    {"nvi", "TA_NVI", RR_1, 2, {CLOSE, VOLUME}, 0, {0}, 0},
    {"pvi", "TA_PVI", RR_1, 2, {CLOSE, VOLUME}, 0, {0}, 0},
    {"linearreg_angle", "TA_LINEARREG_ANGLE", R_I_1, C1, P(14)},
    {"mama", "TA_MAMA", R_DD_2, C1, 2, {0.5, 0.05}, 0},
};
#define N_CASES (sizeof cases / sizeof cases[0])

static void *talib;

typedef void (*any_fn)(void);
typedef int (*f_r_i_1)(int, int, const double *, int, int *, int *, double *);
typedef int (*f_r_id_1)(int, int, const double *, int, double, int *, int *, double *);
typedef int (*f_rr_1)(int, int, const double *, const double *, int *, int *, double *);
typedef int (*f_rr_i_1)(int, int, const double *, const double *, int, int *, int *, double *);
typedef int (*f_rr_i_2)(int, int, const double *, const double *, int, int *, int *, double *,
                        double *);
typedef int (*f_rrr_1)(int, int, const double *, const double *, const double *, int *, int *,
                       double *);
typedef int (*f_rrr_i_1)(int, int, const double *, const double *, const double *, int, int *,
                         int *, double *);
typedef int (*f_rrr_iii_2)(int, int, const double *, const double *, const double *, int, int, int,
                           int *, int *, double *, double *);
typedef int (*f_rrr_iiiii_2)(int, int, const double *, const double *, const double *, int, int,
                             int, int, int, int *, int *, double *, double *);
typedef int (*f_rrrr_1)(int, int, const double *, const double *, const double *, const double *,
                        int *, int *, double *);
typedef int (*f_rrrr_i_1)(int, int, const double *, const double *, const double *, const double *,
                          int, int *, int *, double *);
typedef int (*f_rr_dd_1)(int, int, const double *, const double *, double, double, int *, int *,
                         double *);
typedef int (*f_rr_d8_1)(int, int, const double *, const double *, double, double, double, double,
                         double, double, double, double, int *, int *, double *);
typedef int (*f_rrrr_ii_1)(int, int, const double *, const double *, const double *, const double *,
                           int, int, int *, int *, double *);
typedef int (*f_r_dd_2)(int, int, const double *, double, double, int *, int *, double *, double *);

/* TA-Lib's function of case c on n samples of in[], with options p, writing its first value
 * at out[o][0]. Returns TA-Lib's outBegIdx; fails the test on an error or a short count. */
static int call_talib(const ta_case *c, const double *p, const double *const *in, size_t n,
                      double *const *out) {
    void *sym = dlsym(talib, c->ta_name);
    cr_assert_not_null(sym, "%s not in TA-Lib 0.8", c->ta_name);
    any_fn f;
    memcpy(&f, &sym, sizeof sym);
    int ip[5];
    for (int i = 0; i < 5; i++)
        ip[i] = (int)p[i];
    const int e = (int)n - 1;
    int begin = -1, count = 0, rc = -1;
    switch (c->shape) {
    case R_I_1:
        rc = ((f_r_i_1)f)(0, e, in[0], ip[0], &begin, &count, out[0]);
        break;
    case R_ID_1:
        rc = ((f_r_id_1)f)(0, e, in[0], ip[0], p[1], &begin, &count, out[0]);
        break;
    case RR_1:
        rc = ((f_rr_1)f)(0, e, in[0], in[1], &begin, &count, out[0]);
        break;
    case RR_I_1:
        rc = ((f_rr_i_1)f)(0, e, in[0], in[1], ip[0], &begin, &count, out[0]);
        break;
    case RR_I_2:
        rc = ((f_rr_i_2)f)(0, e, in[0], in[1], ip[0], &begin, &count, out[0], out[1]);
        break;
    case RRR_1:
        rc = ((f_rrr_1)f)(0, e, in[0], in[1], in[2], &begin, &count, out[0]);
        break;
    case RRR_I_1:
        rc = ((f_rrr_i_1)f)(0, e, in[0], in[1], in[2], ip[0], &begin, &count, out[0]);
        break;
    case RRR_III_2:
        rc = ((f_rrr_iii_2)f)(0, e, in[0], in[1], in[2], ip[0], ip[1], ip[2], &begin, &count,
                              out[0], out[1]);
        break;
    case RRR_IIIII_2:
        rc = ((f_rrr_iiiii_2)f)(0, e, in[0], in[1], in[2], ip[0], ip[1], ip[2], ip[3], ip[4],
                                &begin, &count, out[0], out[1]);
        break;
    case RRRR_1:
        rc = ((f_rrrr_1)f)(0, e, in[0], in[1], in[2], in[3], &begin, &count, out[0]);
        break;
    case RRRR_I_1:
        rc = ((f_rrrr_i_1)f)(0, e, in[0], in[1], in[2], in[3], ip[0], &begin, &count, out[0]);
        break;
    case RRRR_II_1:
        rc = ((f_rrrr_ii_1)f)(0, e, in[0], in[1], in[2], in[3], ip[0], ip[1], &begin, &count,
                              out[0]);
        break;
    case RR_DD_1:
        rc = ((f_rr_dd_1)f)(0, e, in[0], in[1], p[0], p[1], &begin, &count, out[0]);
        break;
    case RR_D8_1:
        rc = ((f_rr_d8_1)f)(0, e, in[0], in[1], p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7],
                            &begin, &count, out[0]);
        break;
    case R_DD_2:
        rc = ((f_r_dd_2)f)(0, e, in[0], p[0], p[1], &begin, &count, out[0], out[1]);
        break;
    }
    cr_assert_eq(rc, 0, "%s returned %d", c->ta_name, rc);
    cr_assert(begin >= 0 && (size_t)begin + (size_t)count == n, "%s: %d values from %d of %zu",
              c->ta_name, count, begin, n);
    return begin;
}

/* Case c at timeperiod `period` (0: TA-Lib's defaults, passed to apportion as no parameter
 * at all, so that its defaults are checked to be TA-Lib's): every row and output against
 * TA-Lib 0.8. */
static void check_case(apo_runtime *rt, const ta_case *c, double period) {
    const size_t len = (size_t)ROWS * COLS;
    double *col[N_COLUMNS], *apo[2], *ta[2];
    for (int i = 0; i < N_COLUMNS; i++)
        cr_assert_not_null(col[i] = malloc(len * sizeof(double)));
    for (size_t r = 0; r < ROWS; r++) {
        const size_t at = r * COLS;
        apo__ref_ohlcv(21 + r, COLS, 100.0, 0.5, NULL, col[HIGH] + at, col[LOW] + at,
                       col[CLOSE] + at, col[VOLUME] + at);
        apo__ref_ohlcv(921 + r, COLS, 60.0, 0.3, NULL, NULL, NULL, col[Y] + at, NULL);
    }
    apo_kernel_info info = APO_KERNEL_INFO_INIT;
    cr_assert_eq(apo_kernel_get(rt, c->kernel, &info), APO_OK, "%s", apo_last_error());
    cr_assert_eq(info.n_inputs, (size_t)c->n_in, "%s", c->kernel);
    const size_t n_out = info.n_outputs;
    for (size_t o = 0; o < n_out; o++) {
        cr_assert_not_null(apo[o] = malloc(len * sizeof(double)));
        cr_assert_not_null(ta[o] = malloc(COLS * sizeof(double)));
    }
    const double *in[4];
    for (int i = 0; i < c->n_in; i++)
        in[i] = col[c->in[i]];
    apo_param param = {"timeperiod", period};
    apo_workload w = APO_WORKLOAD_INIT;
    w.kernel = c->kernel;
    w.rows = ROWS;
    w.cols = COLS;
    w.inputs = in;
    w.n_inputs = (size_t)c->n_in;
    w.outputs = apo;
    w.n_outputs = n_out;
    w.params = &param;
    w.n_params = period > 0;
    cr_assert_eq(apo_distribute_workload(rt, &w, NULL), APO_OK, "%s: %s", c->kernel,
                 apo_last_error());

    double p[8] = {0};
    memcpy(p, c->params, sizeof p);
    if (period > 0)
        p[0] = period;
    for (size_t r = 0; r < ROWS; r++) {
        const double *row_in[4];
        for (int i = 0; i < c->n_in; i++)
            row_in[i] = in[i] + r * COLS;
        const int begin = call_talib(c, p, row_in, COLS, ta);
        for (size_t o = 0; o < n_out; o++) {
            const double *got = apo[o] + r * COLS;
            double scale = 0, worst = 0;
            for (size_t t = 0; t + (size_t)begin < COLS; t++)
                scale = fmax(scale, fabs(ta[o][t]));
            scale = scale > 0 ? scale : 1;
            size_t worst_at = 0;
            for (size_t t = 0; t < COLS; t++) {
                if (t < (size_t)begin) {
                    cr_assert(isnan(got[t]),
                              "%s(%g) row %zu output %zu: %g at %zu, in TA-Lib's "
                              "lookback %d",
                              c->kernel, period, r, o, got[t], t, begin);
                    continue;
                }
                const double want = ta[o][t - (size_t)begin];
                cr_assert(isfinite(got[t]) && isfinite(want),
                          "%s(%g) row %zu output %zu at %zu: %g, TA-Lib %g", c->kernel, period, r,
                          o, t, got[t], want);
                const double e = fabs(got[t] - want) / scale;
                if (e > worst)
                    worst = e, worst_at = t;
            }
            cr_log_info("%s(%g) row %zu output %zu: worst %.2e of max|TA-Lib| at %zu", c->kernel,
                        period, r, o, worst, worst_at);
            cr_assert(worst <= TOLERANCE,
                      "%s(%g) row %zu output %zu: %.3e of max|TA-Lib| at %zu (%.17g, TA-Lib "
                      "%.17g), above %.0e",
                      c->kernel, period, r, o, worst, worst_at, got[worst_at],
                      ta[o][worst_at - (size_t)begin], TOLERANCE);
        }
    }
    for (size_t o = 0; o < n_out; o++)
        free(apo[o]), free(ta[o]);
    for (int i = 0; i < N_COLUMNS; i++)
        free(col[i]);
}

static void open_talib(void) {
    const char *dir = getenv("APO_PEERS_DIR");
    char path[1024];
    snprintf(path, sizeof path, "%s/" TALIB08_LIB, dir != NULL ? dir : ".");
    talib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    cr_assert_not_null(talib, "%s", dlerror());
    void *init = dlsym(talib, "TA_Initialize");
    cr_assert_not_null(init);
    int (*ta_initialize)(void);
    memcpy(&ta_initialize, &init, sizeof init);
    /* TA-Lib's EMA reads its globals (the unstable periods), which TA_Initialize sets up. */
    cr_assert_eq(ta_initialize(), 0);
}

Test(catalog_talib08, defaults_are_talib_08s_values, .init = open_talib, .timeout = 600) {
    apo_runtime *rt = test_runtime("cpu");
    for (size_t i = 0; i < N_CASES; i++)
        check_case(rt, &cases[i], 0);
    apo_runtime_destroy(rt);
}

/* Past the short-window limits the window sums slide as double-doubles, and the recurrences'
 * warm-ups are longer (docs/kernels.md, "Sliding windows"). */
Test(catalog_talib08, timeperiod_200_is_talib_08s_values, .init = open_talib, .timeout = 600) {
    apo_runtime *rt = test_runtime("cpu");
    for (size_t i = 0; i < N_CASES; i++)
        if (cases[i].has_period)
            check_case(rt, &cases[i], 200);
    apo_runtime_destroy(rt);
}

/* ---- main: exit 77 (skip) without TA-Lib 0.8 -------------------------------------------- */

int main(int argc, char *argv[]) {
    const char *dir = getenv("APO_PEERS_DIR");
    char path[1024];
    snprintf(path, sizeof path, "%s/" TALIB08_LIB, dir != NULL ? dir : "(APO_PEERS_DIR unset)");
    void *lib = dir != NULL ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : NULL;
    if (lib == NULL) {
        fprintf(stderr,
                "test_catalog_talib08_slow: skipped: TA-Lib 0.8 is not installed: no %s (the "
                "PyPI wheel ta-lib 0.8.2's library, which `apo-bench-peers --kernels sma "
                "--max-size 1e4 --no-batch` fetches into its cache folder; APO_PEERS_DIR names "
                "that folder)\n",
                path);
        return 77;
    }
    /* The version is checked once here: another library under this name is not the one the
     * claim is about. */
    void *sym = dlsym(lib, "TA_GetVersionString");
    const char *(*version)(void) = NULL;
    if (sym != NULL)
        memcpy(&version, &sym, sizeof sym);
    if (version == NULL || strncmp(version(), "0.8.", 4) != 0) {
        fprintf(stderr, "test_catalog_talib08_slow: FAILED: %s is TA-Lib %s, not 0.8\n", path,
                version != NULL ? version() : "(no TA_GetVersionString)");
        return 1;
    }
    dlclose(lib);
    struct criterion_test_set *tests = criterion_initialize();
    int result = 0;
    if (criterion_handle_args(argc, argv, true))
        result = !criterion_run_all_tests(tests);
    criterion_finalize(tests);
    return result;
}
