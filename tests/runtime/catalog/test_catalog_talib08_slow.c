/*
 * test_catalog_talib08_slow.c: every catalog kernel that TA-Lib has, through the runtime,
 * against TA-Lib 0.8 itself: the C library that the PyPI wheel ta-lib 0.8.2 bundles (TA-Lib
 * 0.8.1), as apo-bench-peers fetches it into its cache folder (bench/peers.c). The catalog's
 * accuracy tests compare with long-double references of their own (tests/common/
 * catalog_reference*.c); this one checks the claim of docs/kernels.md, "The catalog", that the
 * catalog is TA-Lib's computation: with the same parameters, apportion's NaN lead is TA-Lib's
 * lookback and every later output is within 1e-9 of the largest |TA-Lib output| of its row
 * (apo-bench-peers' measure, d_apo), and an integer output of TA-Lib's (a candlestick's
 * signal, an index) is exactly TA-Lib's, at TA-Lib's defaults and at timeperiod 200, and kdj at
 * each kind of average it takes.
 *
 * The rows are the runtime's own list of kernels: every kernel whose name, in upper case, is a
 * function of the library, called through TA-Lib's abstract interface (bench/
 * talib_abstract.h), which gives each function's inputs, parameters and output types, so a
 * kernel added to the catalog is checked here with no line of this file. `known` below is the
 * one table to edit: where a kernel is knowingly not TA-Lib's computation, the bound it keeps
 * and why (docs/kernels/talib.md, "Every TA-Lib function", has the same reasons).
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
#include "talib_abstract.h"

/* The library's name in the cache folder (bench/peers.c, TALIB_LIB). */
#define TALIB08_LIB "libta-lib-pypi-0.8.2.so"
/* The same computation up to rounding (bench/peers_catalog.c, SAME_DEFINITION). */
#define TOLERANCE 1e-9
#define ROWS 2
#define COLS 30000
/* The kernels of TA-Lib's name compared at the defaults: all 201 of TA-Lib 0.8's functions since
 * vwap became TA-Lib's running VWAP (2026-12-04); fewer is a broken lookup, not a pass. */
#define MIN_COMPARED 201

/* UNIT: a series inside [-1, 1], acos's and asin's domain, where the close (about 100) would
 * make both sides NaN and leave nothing to compare. */
enum { OPEN, HIGH, LOW, CLOSE, VOLUME, Y, PERIODS, UNIT, N_COLUMNS };

/* A kernel that is knowingly not TA-Lib's computation: its outputs within `bound` of
 * max|TA-Lib| (NaN lead still TA-Lib's), and why. A row no longer needed fails the test, so
 * the table cannot outlive its reasons. */
typedef struct known_difference {
    const char *kernel;
    double bound;
    const char *why;
} known_difference;

static const known_difference known[] = {
    {NULL, 0, NULL},
};

static void *talib;
static talib_abstract ta;

static void *lookup(void *lib, const char *name) { return dlsym(lib, name); }

static const known_difference *find_known(const char *kernel) {
    for (size_t i = 0; known[i].kernel != NULL; i++)
        if (strcmp(known[i].kernel, kernel) == 0)
            return &known[i];
    return NULL;
}

/* The series a kernel's input reads, by its name (the same rule as test_talib_coverage.c),
 * but for the kernels defined on [-1, 1] alone. */
static int column_of(const char *kernel, const char *input) {
    if (strcmp(kernel, "acos") == 0 || strcmp(kernel, "asin") == 0)
        return UNIT;
    static const char *const names[] = {"open", "high", "low", "close", "volume", "y", "periods"};
    for (int c = 0; c < (int)(sizeof names / sizeof names[0]); c++)
        if (strcmp(input, names[c]) == 0)
            return c;
    return CLOSE; /* x, and any series of its own */
}

static double *make_columns(double *col[N_COLUMNS]) {
    const size_t len = (size_t)ROWS * COLS;
    double *all = malloc(len * N_COLUMNS * sizeof(double));
    cr_assert_not_null(all);
    for (int i = 0; i < N_COLUMNS; i++)
        col[i] = all + (size_t)i * len;
    for (size_t r = 0; r < ROWS; r++) {
        const size_t at = r * COLS;
        apo__ref_ohlcv(21 + r, COLS, 100.0, 0.5, col[OPEN] + at, col[HIGH] + at, col[LOW] + at,
                       col[CLOSE] + at, col[VOLUME] + at);
        apo__ref_ohlcv(921 + r, COLS, 60.0, 0.3, NULL, NULL, NULL, col[Y] + at, NULL);
        for (size_t t = 0; t < COLS; t++)
            col[PERIODS][at + t] = (double)(2 + (t * 7 + r) % 29); /* mavp's 2 .. 30 */
        for (size_t t = 0; t < COLS; t++)
            col[UNIT][at + t] = fmax(-1.0, fmin(1.0, (col[CLOSE][at + t] - 100.0) / 25.0));
    }
    return all;
}

/* Row r, output o: the worst distance from TA-Lib's, relative to max|TA-Lib| (0 for an
 * integer output, whose every value must be TA-Lib's: fails the test otherwise). */
static double compare_output(const char *kernel, double period, size_t r, size_t o,
                             const double *got, const double *want, int begin, int exact) {
    double scale = 0, worst = 0;
    for (size_t t = (size_t)begin; t < COLS; t++)
        scale = fmax(scale, fabs(want[t - (size_t)begin]));
    scale = scale > 0 ? scale : 1;
    for (size_t t = 0; t < COLS; t++) {
        if (t < (size_t)begin) {
            cr_assert(isnan(got[t]),
                      "%s(%g) row %zu output %zu: %g at %zu, in TA-Lib's lookback %d", kernel,
                      period, r, o, got[t], t, begin);
            continue;
        }
        const double w = want[t - (size_t)begin];
        cr_assert(isfinite(got[t]) && isfinite(w),
                  "%s(%g) row %zu output %zu at %zu: %g, TA-Lib %g", kernel, period, r, o, t,
                  got[t], w);
        if (exact)
            cr_assert(got[t] == w, "%s(%g) row %zu output %zu at %zu: %g, TA-Lib's %g (exact)",
                      kernel, period, r, o, t, got[t], w);
        worst = fmax(worst, fabs(got[t] - w) / scale);
    }
    return worst;
}

/* Kernel `info` with the parameters params[0 .. n_params) (none: the defaults, passed to
 * apportion as no parameter at all, so that its defaults are checked to be TA-Lib's) against
 * TA-Lib's function given the same: every row and output. Returns the worst relative distance
 * over them. The first parameter's value names the run in messages. */
static double check_kernel(apo_runtime *rt, const apo_kernel_info *info, talib_call *c,
                           double *const col[N_COLUMNS], const apo_param *params, size_t n_params) {
    const double period = n_params > 0 ? params[0].value : 0;
    const size_t len = (size_t)ROWS * COLS;
    cr_assert_eq(info->n_inputs, (size_t)c->n_in, "%s: %zu inputs, TA-Lib's %d", info->name,
                 info->n_inputs, c->n_in);
    cr_assert_eq(info->n_outputs, (size_t)c->n_out, "%s", info->name);
    const double *in[APO_MAX_IO];
    double *apo[APO_MAX_IO], *want[TALIB_MAX_OUT];
    int *ints[TALIB_MAX_OUT];
    for (size_t i = 0; i < info->n_inputs; i++)
        in[i] = col[column_of(info->name, info->input_names[i])];
    for (size_t o = 0; o < info->n_outputs; o++) {
        cr_assert_not_null(apo[o] = malloc(len * sizeof(double)));
        cr_assert_not_null(want[o] = malloc(COLS * sizeof(double)));
        cr_assert_not_null(ints[o] = malloc(COLS * sizeof(int)));
    }
    apo_workload w =
        test_workload(info->name, ROWS, COLS, in, info->n_inputs, apo, info->n_outputs);
    w.params = params;
    w.n_params = n_params;
    cr_assert_eq(apo_distribute_workload(rt, &w, NULL), APO_OK, "%s: %s", info->name,
                 apo_last_error());
    for (size_t p = 0; p < n_params; p++)
        cr_assert_eq(talib_call_set(c, params[p].name, params[p].value), 0, "%s %s", c->name,
                     params[p].name);
    double worst = 0;
    for (size_t r = 0; r < ROWS; r++) {
        const double *row_in[APO_MAX_IO];
        for (size_t i = 0; i < info->n_inputs; i++)
            row_in[i] = in[i] + r * COLS;
        int begin = -1;
        cr_assert_eq(talib_call_run(c, COLS, row_in, want, ints, &begin), 0, "%s(%g)", c->name,
                     period);
        for (size_t o = 0; o < info->n_outputs; o++) {
            if (c->out_integer[o])
                for (int t = 0; t + begin < COLS; t++)
                    want[o][t] = ints[o][t];
            const double e = compare_output(info->name, period, r, o, apo[o] + r * COLS, want[o],
                                            begin, c->out_integer[o]);
            worst = fmax(worst, e);
        }
    }
    for (size_t o = 0; o < info->n_outputs; o++)
        free(apo[o]), free(want[o]), free(ints[o]);
    return worst;
}

/* Every kernel of TA-Lib's name at `period` (0: the defaults; else the kernels that take a
 * timeperiod, at that one); fails with the list of kernels past their bound. */
static void check_all(double period) {
    apo_runtime *rt = test_runtime("cpu");
    double *col[N_COLUMNS];
    double *storage = make_columns(col);
    size_t count = 0, compared = 0;
    cr_assert_eq(apo_kernel_count(rt, &count), APO_OK);
    char failed[4096] = "";
    for (size_t k = 0; k < count; k++) {
        const char *name = NULL;
        cr_assert_eq(apo_kernel_name(rt, k, &name), APO_OK);
        char upper[64], why[256];
        size_t i = 0;
        for (; name[i] != '\0' && i + 1 < sizeof upper; i++)
            upper[i] = (char)(name[i] >= 'a' && name[i] <= 'z' ? name[i] - 'a' + 'A' : name[i]);
        upper[i] = '\0';
        talib_call c;
        const int open = talib_call_open(&ta, upper, &c, why, sizeof why);
        if (open == 1)
            continue; /* not TA-Lib's */
        cr_assert_eq(open, 0, "%s", why);
        apo_kernel_info info = APO_KERNEL_INFO_INIT;
        cr_assert_eq(apo_kernel_get(rt, name, &info), APO_OK);
        int has_period = 0;
        for (size_t p = 0; p < info.n_params; p++)
            has_period |= strcmp(info.param_names[p], "timeperiod") == 0;
        if (period > 0 && !has_period) {
            talib_call_close(&c);
            continue;
        }
        const apo_param param = {"timeperiod", period};
        const double worst = check_kernel(rt, &info, &c, col, &param, period > 0);
        talib_call_close(&c);
        compared++;
        const known_difference *kd = find_known(name);
        const double bound = kd != NULL ? kd->bound : TOLERANCE;
        cr_log_info("%s(%g): worst %.2e of max|TA-Lib|", name, period, worst);
        if (worst > bound) {
            const size_t used = strlen(failed);
            snprintf(failed + used, sizeof failed - used, " %s (%.2e)", name, worst);
        }
    }
    free(storage);
    apo_runtime_destroy(rt);
    cr_assert_geq(compared, period > 0 ? 40 : MIN_COMPARED, "only %zu kernels compared", compared);
    cr_assert_eq(failed[0], '\0',
                 "timeperiod %g: past the 1e-9 of max|TA-Lib| (or their known bound):%s", period,
                 failed);
}

static void open_talib(void) {
    const char *dir = getenv("APO_PEERS_DIR");
    char path[1024], why[256];
    snprintf(path, sizeof path, "%s/" TALIB08_LIB, dir != NULL ? dir : ".");
    talib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    cr_assert_not_null(talib, "%s", dlerror());
    cr_assert_eq(talib_abstract_load(&ta, lookup, talib, why, sizeof why), 0, "%s", why);
    void *init = dlsym(talib, "TA_Initialize");
    cr_assert_not_null(init);
    int (*ta_initialize)(void);
    memcpy(&ta_initialize, &init, sizeof init);
    /* TA-Lib's EMA reads its globals (the unstable periods), which TA_Initialize sets up. */
    cr_assert_eq(ta_initialize(), 0);
}

Test(catalog_talib08, defaults_are_talib_08s_values, .init = open_talib, .timeout = 600) {
    check_all(0);
}

/* Past the short-window limits the window sums slide as double-doubles, and the recurrences'
 * warm-ups are longer (docs/kernels.md, "Sliding windows"). */
Test(catalog_talib08, timeperiod_200_is_talib_08s_values, .init = open_talib, .timeout = 600) {
    check_all(200);
}

/* kernel (TA-Lib's function `talib_name`) at each of the n_sets parameter sets of its n_params
 * parameters, against TA-Lib 0.8 given the same parameters. */
static void check_sets(const char *kernel, const char *talib_name, const double (*sets)[5],
                       size_t n_sets, size_t n_params) {
    apo_runtime *rt = test_runtime("cpu");
    double *col[N_COLUMNS];
    double *storage = make_columns(col);
    apo_kernel_info info = APO_KERNEL_INFO_INIT;
    cr_assert_eq(apo_kernel_get(rt, kernel, &info), APO_OK);
    cr_assert_eq(info.n_params, n_params);
    for (size_t s = 0; s < n_sets; s++) {
        talib_call c;
        char why[256], shown[96] = "";
        cr_assert_eq(talib_call_open(&ta, talib_name, &c, why, sizeof why), 0, "%s", why);
        apo_param params[5];
        for (size_t p = 0; p < n_params; p++) {
            params[p].name = info.param_names[p];
            params[p].value = sets[s][p];
            const size_t used = strlen(shown);
            snprintf(shown + used, sizeof shown - used, "%s%g", p > 0 ? ", " : "", sets[s][p]);
        }
        const double worst = check_kernel(rt, &info, &c, col, params, n_params);
        talib_call_close(&c);
        cr_log_info("%s(%s): worst %.2e of max|TA-Lib|", kernel, shown, worst);
        cr_expect(worst <= TOLERANCE, "%s(%s): %.2e of max|TA-Lib|", kernel, shown, worst);
    }
    free(storage);
    apo_runtime_destroy(rt);
}

/* kdj's kinds of average, slowk_matype and slowd_matype (kdj_tile.h: the recurrences, and the
 * kinds ma_series.h takes over its fastk and k series, TRIMA, KAMA, HMA and ZLEMA among them), at
 * other periods too, against TA-Lib 0.8's KDJ given the same parameters. */
Test(catalog_talib08, kdj_matypes_are_talib_08s_values, .init = open_talib, .timeout = 600) {
    static const double sets[][5] = {
        {9, 3, 0, 3, 0},
        {9, 3, 1, 3, 1},
        {9, 3, 10, 3, 11},
        {14, 5, 2, 4, 3},
        {5, 4, 4, 6, 8},
        {9, 3, 8, 7, 2},
        {5, 10, 13, 7, 0},
        {3, 6, 0, 25, 1},
        {9, 30, 3, 20, 4},
        /* The kinds that read their series several distances back (ma_series_lagged.h). */
        {9, 3, 5, 3, 6},
        {5, 4, 9, 3, 12},
        {14, 10, 6, 9, 9},
        {3, 7, 12, 6, 5},
        {9, 2, 5, 2, 9},
        {5, 2, 12, 2, 6},
        {9, 20, 5, 30, 12},
        {9, 25, 9, 4, 13},
    };
    check_sets("kdj", "KDJ", sets, sizeof sets / sizeof sets[0], 5);
}

/* stoch's and stochf's matypes but 0 and 7 (MAMA, refused), which take kdj's body
 * (oscillators/stoch_ma.h), against TA-Lib 0.8's STOCH and STOCHF given the same parameters. */
Test(catalog_talib08, stochastics_matypes_are_talib_08s_values, .init = open_talib,
     .timeout = 600) {
    static const double stoch[][5] = {
        {5, 3, 1, 3, 1}, {5, 3, 2, 3, 2},    {5, 3, 3, 3, 3},  {5, 3, 4, 3, 4},
        {5, 3, 5, 3, 5}, {5, 3, 6, 3, 6},    {5, 3, 8, 3, 8},  {14, 5, 1, 9, 0},
        {9, 4, 0, 6, 3}, {14, 10, 2, 20, 5}, {5, 30, 8, 4, 6},
    };
    static const double stochf[][5] = {
        {5, 3, 1}, {5, 3, 2}, {5, 3, 3}, {5, 3, 4}, {5, 3, 5}, {5, 3, 6}, {5, 3, 8}, {14, 20, 1},
    };
    check_sets("stoch", "STOCH", stoch, sizeof stoch / sizeof stoch[0], 5);
    check_sets("stochf", "STOCHF", stochf, sizeof stochf / sizeof stochf[0], 3);
}

/* A row of `known` that no kernel needs any more fails: the bound would hide a regression. */
Test(catalog_talib08, every_known_difference_is_still_needed, .init = open_talib, .timeout = 600) {
    apo_runtime *rt = test_runtime("cpu");
    double *col[N_COLUMNS];
    double *storage = make_columns(col);
    for (size_t i = 0; known[i].kernel != NULL; i++) {
        apo_kernel_info info = APO_KERNEL_INFO_INIT;
        cr_assert_eq(apo_kernel_get(rt, known[i].kernel, &info), APO_OK, "%s", known[i].kernel);
        char upper[64], why[256];
        size_t j = 0;
        for (; info.name[j] != '\0' && j + 1 < sizeof upper; j++)
            upper[j] = (char)(info.name[j] >= 'a' && info.name[j] <= 'z' ? info.name[j] - 'a' + 'A'
                                                                         : info.name[j]);
        upper[j] = '\0';
        talib_call c;
        cr_assert_eq(talib_call_open(&ta, upper, &c, why, sizeof why), 0, "%s", why);
        const double worst = check_kernel(rt, &info, &c, col, NULL, 0);
        talib_call_close(&c);
        cr_assert_gt(worst, TOLERANCE,
                     "%s: within %.0e of TA-Lib now (%.2e): delete its row of "
                     "`known` (%s)",
                     known[i].kernel, TOLERANCE, worst, known[i].why);
    }
    free(storage);
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
