/*
 * Kernels of several named inputs (docs/kernels.md, "Inputs"; docs/api.md): a user kernel of
 * three inputs named high, low and close, its names as apo_kernel_get() gives them, the
 * names' checks, and its outputs against a long-double evaluation of its definition and,
 * bit for bit, against one cpu call however the work is split: by rows and along time, on
 * the cpu with two simulated devices at skewed ratios, with ragged rows and with a sweep.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apportion.h"
#include "helpers.h"

#define WINDOW 5 /* the kernel's window: halo WINDOW - 1 */

/* range[t] = (close[t] - min(low over the window)) / (max(high over the window) - min(low
 * over the window)) * scale, NaN for the first WINDOW - 1 positions; spread[t] = high[t] -
 * low[t] + close[t]. The window reads the halo, so a split along time must hand each tile
 * its earlier samples of all three inputs. */
static apo_status hlc_kernel(const apo_kernel_call *c, void *user) {
    (void)user;
    const double *high = c->inputs[0] + c->row * c->cols;
    const double *low = c->inputs[1] + c->row * c->cols;
    const double *close = c->inputs[2] + c->row * c->cols;
    double *range = c->outputs[0] + c->row * c->cols;
    double *spread = c->outputs[1] + c->row * c->cols;
    for (size_t t = c->begin; t < c->end; t++) {
        spread[t] = high[t] - low[t] + close[t];
        if (t + 1 < WINDOW) {
            range[t] = NAN;
            continue;
        }
        double hi = high[t], lo = low[t];
        for (size_t j = t + 1 - WINDOW; j < t; j++) {
            hi = high[j] > hi ? high[j] : hi;
            lo = low[j] < lo ? low[j] : lo;
        }
        range[t] = (close[t] - lo) / (hi - lo) * c->params[0];
    }
    return APO_OK;
}

static const char *const hlc_inputs[] = {"high", "low", "close"};
static const char *const hlc_outputs[] = {"range", "spread"};
static const char *const hlc_params[] = {"scale"};
static const double hlc_defaults[] = {1.0};

static apo_kernel_desc hlc_desc(void) {
    apo_kernel_desc d = APO_KERNEL_DESC_INIT;
    d.name = "hlc";
    d.n_inputs = 3;
    d.input_names = hlc_inputs;
    d.n_outputs = 2;
    d.output_names = hlc_outputs;
    d.n_params = 1;
    d.param_names = hlc_params;
    d.param_defaults = hlc_defaults;
    d.halo = WINDOW - 1;
    d.tile = 64; /* short tiles, so that a split along time cuts inside every row */
    d.cpu = hlc_kernel;
    return d;
}

static apo_runtime *hlc_runtime(const char *devices) {
    apo_runtime *rt = test_runtime(devices);
    apo_kernel_desc d = hlc_desc();
    cr_assert_eq(apo_kernel_register(rt, &d), APO_OK, "%s", apo_last_error());
    return rt;
}

/* Bars of a seeded walk: high above low, close between them. */
typedef struct bars {
    size_t rows, cols;
    double *in[3];
} bars;

static bars make_bars(size_t rows, size_t cols, uint64_t seed) {
    bars b = {rows, cols, {NULL, NULL, NULL}};
    for (int i = 0; i < 3; i++) {
        b.in[i] = malloc(rows * cols * sizeof(double));
        cr_assert_not_null(b.in[i]);
    }
    uint64_t s = seed;
    for (size_t r = 0; r < rows; r++) {
        double p = 100.0 + (double)r;
        for (size_t t = 0; t < cols; t++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            const double u = (double)(s >> 11) / 9007199254740992.0;
            const double v = (double)((s >> 3) & 0xff) / 256.0;
            p += u - 0.5;
            b.in[0][r * cols + t] = p + 0.5 + v;
            b.in[1][r * cols + t] = p - 0.5 - v * 0.5;
            b.in[2][r * cols + t] = p + (u - 0.5) * 0.4;
        }
    }
    return b;
}

static void free_bars(bars *b) {
    for (int i = 0; i < 3; i++)
        free(b->in[i]);
}

/* One call of hlc; outputs malloc'd (sets x rows x cols each). */
static void run_hlc(apo_runtime *rt, const bars *b, const size_t *lengths, const double *ratios,
                    apo_split split, const apo_sweep *sweep, size_t sets, double *out[2]) {
    for (int i = 0; i < 2; i++) {
        out[i] = malloc(sets * b->rows * b->cols * sizeof(double));
        cr_assert_not_null(out[i]);
        for (size_t k = 0; k < sets * b->rows * b->cols; k++)
            out[i][k] = -1.0; /* never a value the kernel writes */
    }
    const double *inputs[3] = {b->in[0], b->in[1], b->in[2]};
    apo_workload w = test_workload("hlc", b->rows, b->cols, inputs, 3, out, 2);
    w.split = split;
    w.ratios = ratios;
    w.n_ratios = ratios != NULL ? 3 : 0;
    w.row_lengths = lengths;
    w.sweep = sweep;
    apo_report report = APO_REPORT_INIT;
    cr_assert_eq(apo_distribute_workload(rt, &w, &report), APO_OK, "%s", apo_last_error());
}

Test(multi_input, names_in_the_kernel_info) {
    apo_runtime *rt = hlc_runtime("cpu");
    apo_kernel_info info = APO_KERNEL_INFO_INIT;
    cr_assert_eq(apo_kernel_get(rt, "hlc", &info), APO_OK);
    cr_assert_eq(info.n_inputs, 3);
    for (int i = 0; i < 3; i++)
        cr_assert_str_eq(info.input_names[i], hlc_inputs[i]);
    /* The built-ins read one series, named close. */
    cr_assert_eq(apo_kernel_get(rt, "bollinger", &info), APO_OK);
    cr_assert_eq(info.n_inputs, 1);
    cr_assert_str_eq(info.input_names[0], "close");

    /* Without names, in0, in1, ... */
    apo_kernel_desc d = hlc_desc();
    d.name = "unnamed";
    d.input_names = NULL;
    cr_assert_eq(apo_kernel_register(rt, &d), APO_OK, "%s", apo_last_error());
    cr_assert_eq(apo_kernel_get(rt, "unnamed", &info), APO_OK);
    cr_assert_str_eq(info.input_names[0], "in0");
    cr_assert_str_eq(info.input_names[2], "in2");
    apo_runtime_destroy(rt);
}

Test(multi_input, bad_names_are_refused) {
    apo_runtime *rt = test_runtime("cpu");
    const char *const twice[] = {"high", "low", "HIGH"};
    const char *const bad[] = {"high", "lo w", "close"};
    const char *const empty[] = {"high", "", "close"};
    const char *const *cases[] = {twice, bad, empty};
    const char *fragments[] = {"repeated", "invalid name", "invalid name"};
    for (size_t c = 0; c < 3; c++) {
        apo_kernel_desc d = hlc_desc();
        d.input_names = cases[c];
        test_assert_refused(apo_kernel_register(rt, &d), APO_ERR_INVALID_ARGUMENT, fragments[c]);
    }
    size_t count = 0;
    cr_assert_eq(apo_kernel_count(rt, &count), APO_OK);
    apo_kernel_info info = APO_KERNEL_INFO_INIT;
    cr_assert_eq(apo_kernel_get(rt, "hlc", &info), APO_ERR_UNKNOWN_KERNEL,
                 "a refused kernel must not be registered");
    apo_runtime_destroy(rt);
}

Test(multi_input, outputs_match_a_long_double_reference) {
    apo_runtime *rt = hlc_runtime("cpu");
    bars b = make_bars(3, 300, 11);
    double *out[2];
    run_hlc(rt, &b, NULL, NULL, APO_SPLIT_AUTO, NULL, 1, out);
    for (size_t r = 0; r < b.rows; r++) {
        for (size_t t = 0; t < b.cols; t++) {
            const size_t k = r * b.cols + t;
            const long double spread =
                (long double)b.in[0][k] - (long double)b.in[1][k] + (long double)b.in[2][k];
            cr_assert(fabsl(out[1][k] - spread) <= 1e-13L * fabsl(spread), "spread at %zu", k);
            if (t + 1 < WINDOW) {
                cr_assert(isnan(out[0][k]), "warm-up at %zu", k);
                continue;
            }
            long double hi = -INFINITY, lo = INFINITY;
            for (size_t j = t + 1 - WINDOW; j <= t; j++) {
                hi = fmaxl(hi, b.in[0][r * b.cols + j]);
                lo = fminl(lo, b.in[1][r * b.cols + j]);
            }
            const long double want = ((long double)b.in[2][k] - lo) / (hi - lo);
            cr_assert(fabsl(out[0][k] - want) <= 1e-12L * fmaxl(1.0L, fabsl(want)),
                      "range at row %zu, %zu: %.17g, want %.17Lg", r, t, out[0][k], want);
        }
    }
    free(out[0]), free(out[1]);
    free_bars(&b);
    apo_runtime_destroy(rt);
}

static void assert_same_bits(double *const a[2], double *const b[2], size_t n, const char *what) {
    for (int i = 0; i < 2; i++)
        cr_assert_eq(memcmp(a[i], b[i], n * sizeof(double)), 0, "output %d differs: %s", i, what);
}

Test(multi_input, every_split_gives_the_bits_of_one_cpu_call, .timeout = 120) {
    apo_runtime *cpu = hlc_runtime("cpu");
    apo_runtime *multi = hlc_runtime("cpu,sim:a:rate=1e8,sim:b:rate=3e8");
    bars b = make_bars(7, 1000, 23);
    double *want[2];
    run_hlc(cpu, &b, NULL, NULL, APO_SPLIT_AUTO, NULL, 1, want);
    const double skewed[][3] = {{0.7, 0.2, 0.1}, {0.1, 0.1, 0.8}, {0.05, 0.9, 0.05}};
    const apo_split splits[] = {APO_SPLIT_ROWS, APO_SPLIT_TIME};
    for (size_t ri = 0; ri < 3; ri++) {
        for (size_t si = 0; si < 2; si++) {
            double *got[2];
            run_hlc(multi, &b, NULL, skewed[ri], splits[si], NULL, 1, got);
            char what[96];
            snprintf(what, sizeof what, "ratios %zu, split %s", ri,
                     splits[si] == APO_SPLIT_ROWS ? "rows" : "time");
            assert_same_bits(want, got, b.rows * b.cols, what);
            free(got[0]), free(got[1]);
        }
    }

    /* Ragged rows: each row as the series of its length alone, whatever the split. */
    const size_t lengths[7] = {1000, 3, 517, 64, 65, 999, 1};
    double *ragged[2];
    run_hlc(multi, &b, lengths, skewed[1], APO_SPLIT_TIME, NULL, 1, ragged);
    for (size_t r = 0; r < b.rows; r++) {
        bars one = make_bars(1, lengths[r], 0);
        for (int i = 0; i < 3; i++)
            memcpy(one.in[i], b.in[i] + r * b.cols, lengths[r] * sizeof(double));
        double *alone[2];
        run_hlc(cpu, &one, NULL, NULL, APO_SPLIT_AUTO, NULL, 1, alone);
        for (int i = 0; i < 2; i++)
            cr_assert_eq(memcmp(alone[i], ragged[i] + r * b.cols, lengths[r] * sizeof(double)), 0,
                         "ragged row %zu, output %d", r, i);
        free(alone[0]), free(alone[1]);
        free_bars(&one);
    }
    free(ragged[0]), free(ragged[1]);

    /* A sweep over scale: set s is the call with scale s alone. */
    const double scales[] = {0.5, 2.0, 3.0};
    apo_sweep_param grid = {"scale", scales, 3};
    apo_sweep sweep = APO_SWEEP_INIT;
    sweep.grid = &grid;
    sweep.n_grid = 1;
    double *swept[2];
    run_hlc(multi, &b, NULL, skewed[2], APO_SPLIT_TIME, &sweep, 3, swept);
    for (size_t s = 0; s < 3; s++) {
        apo_sweep single = APO_SWEEP_INIT;
        apo_sweep_param one = {"scale", &scales[s], 1};
        single.grid = &one;
        single.n_grid = 1;
        double *alone[2];
        run_hlc(cpu, &b, NULL, NULL, APO_SPLIT_AUTO, &single, 1, alone);
        for (int i = 0; i < 2; i++)
            cr_assert_eq(
                memcmp(alone[i], swept[i] + s * b.rows * b.cols, b.rows * b.cols * sizeof(double)),
                0, "sweep set %zu, output %d", s, i);
        free(alone[0]), free(alone[1]);
    }
    free(swept[0]), free(swept[1]);
    free(want[0]), free(want[1]);
    free_bars(&b);
    apo_runtime_destroy(multi);
    apo_runtime_destroy(cpu);
}
