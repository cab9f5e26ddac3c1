/*
 * test_catalog_cumulative_runtime.c: the catalog's running sums obv and ad through the
 * runtime, beyond the split-invariance table of test_catalog_runtime.c. Ragged rows give
 * each row the bits of its series alone, on simulated devices at skewed ratios split by rows
 * and along time; a device failing part-way leaves the bits; the descriptors say whole-row,
 * no parameter, lookback 0 (a one-sample series has its value).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_reference.h"
#include "helpers.h"

#define TILE 65536
#define POISON (-12345.678)
#define MAX_ROWS 5

enum { HIGH, LOW, CLOSE, VOLUME, N_COLUMNS };

typedef struct cum_kernel {
    const char *name;
    size_t n_in;
    int in[4];
} cum_kernel;

static const cum_kernel kernels[] = {{"obv", 2, {CLOSE, VOLUME}},
                                     {"ad", 4, {HIGH, LOW, CLOSE, VOLUME}}};

/* Rows x cols of OHLCV walks, each row `lengths[r]` long, values past its length that would
 * show in any output that read them, and a gap in the longest row. */
typedef struct bars {
    size_t rows, cols;
    double *col[N_COLUMNS];
} bars;

static bars make_bars(size_t rows, size_t cols, const size_t *lengths) {
    bars b = {rows, cols, {NULL}};
    for (size_t i = 0; i < N_COLUMNS; i++) {
        b.col[i] = malloc(rows * cols * sizeof(double));
        cr_assert_not_null(b.col[i]);
    }
    for (size_t r = 0; r < rows; r++) {
        const size_t at = r * cols;
        apo__ref_ohlcv(300 + r, lengths[r], 100.0, 0.5, NULL, b.col[HIGH] + at, b.col[LOW] + at,
                       b.col[CLOSE] + at, b.col[VOLUME] + at);
        for (size_t i = 0; i < N_COLUMNS; i++)
            for (size_t t = lengths[r]; t < cols; t++)
                b.col[i][at + t] = (t % 2) ? 1e300 : NAN;
        if (lengths[r] > 2 * TILE)
            b.col[CLOSE][at + TILE + 17] = NAN;
    }
    return b;
}

static void free_bars(bars *b) {
    for (size_t i = 0; i < N_COLUMNS; i++)
        free(b->col[i]);
}

/* Runs kernel k on rows [row0, row0 + rows) of b (cols samples a row) into a fresh,
 * poisoned output; row_lengths, ratios and split as given. */
static double *run(apo_runtime *rt, const cum_kernel *k, const bars *b, size_t row0, size_t rows,
                   size_t cols, const size_t *row_lengths, const double *ratios, size_t n_ratios,
                   apo_split split) {
    const double *in[4];
    for (size_t i = 0; i < k->n_in; i++)
        in[i] = b->col[k->in[i]] + row0 * b->cols;
    double *out = malloc(rows * cols * sizeof(double));
    cr_assert_not_null(out);
    for (size_t t = 0; t < rows * cols; t++)
        out[t] = POISON;
    double *outs[1] = {out};
    apo_workload w = test_workload(k->name, rows, cols, in, k->n_in, outs, 1);
    w.row_lengths = row_lengths;
    w.ratios = ratios;
    w.n_ratios = n_ratios;
    w.split = split;
    apo_report report = APO_REPORT_INIT;
    cr_assert_eq(apo_distribute_workload(rt, &w, &report), APO_OK, "%s: %s", k->name,
                 apo_last_error());
    return out;
}

Test(catalog_cumulative_runtime, ragged_rows_give_each_row_its_series_alone, .timeout = 300) {
    const size_t lengths[MAX_ROWS] = {1, TILE, TILE + 1, 3 * TILE + 7, 100};
    const size_t rows = MAX_ROWS, cols = 3 * TILE + 7;
    bars b = make_bars(rows, cols, lengths);
    apo_runtime *cpu = test_runtime("cpu");
    apo_runtime *multi = test_runtime("cpu,sim:a,sim:b");
    for (size_t ki = 0; ki < sizeof kernels / sizeof kernels[0]; ki++) {
        const cum_kernel *k = &kernels[ki];
        /* Each row as a call of its own: one row of its own length, read in place at the
         * row's start (the stride does not matter to a one-row call). */
        double *alone[MAX_ROWS];
        for (size_t r = 0; r < rows; r++)
            alone[r] = run(cpu, k, &b, r, 1, lengths[r], NULL, NULL, 0, APO_SPLIT_AUTO);
        for (int trial = 0; trial < 3; trial++) {
            double ratios[3];
            test_random_ratios(40 + 10 * ki + (uint64_t)trial, 3, ratios);
            const apo_split splits[] = {APO_SPLIT_ROWS, APO_SPLIT_TIME};
            for (size_t si = 0; si < 2; si++) {
                double *got = run(multi, k, &b, 0, rows, cols, lengths, trial ? ratios : NULL,
                                  trial ? 3 : 0, splits[si]);
                for (size_t r = 0; r < rows; r++) {
                    cr_assert(memcmp(got + r * cols, alone[r], lengths[r] * sizeof(double)) == 0,
                              "%s trial %d split %s: row %zu differs from its series alone",
                              k->name, trial, apo_split_name(splits[si]), r);
                    for (size_t t = lengths[r]; t < cols; t++)
                        cr_assert(isnan(got[r * cols + t]), "%s row %zu t %zu past its length",
                                  k->name, r, t);
                }
                free(got);
            }
        }
        for (size_t r = 0; r < rows; r++)
            free(alone[r]);
    }
    apo_runtime_destroy(multi);
    apo_runtime_destroy(cpu);
    free_bars(&b);
}

Test(catalog_cumulative_runtime, a_device_failing_mid_call_keeps_the_bits, .timeout = 300) {
    const size_t rows = 2, cols = 6 * TILE + 3;
    const size_t lengths[2] = {cols, cols};
    bars b = make_bars(rows, cols, lengths);
    apo_runtime *cpu = test_runtime("cpu");
    for (size_t ki = 0; ki < sizeof kernels / sizeof kernels[0]; ki++) {
        const cum_kernel *k = &kernels[ki];
        double *want = run(cpu, k, &b, 0, rows, cols, NULL, NULL, 0, APO_SPLIT_AUTO);
        /* A device failing from its second task on: its tiles move, the bits stay. */
        apo_runtime *failing = test_runtime("cpu,sim:a:rate=1e8,sim:b:rate=3e8:fail_after=2");
        const double ratios[3] = {0.1, 0.3, 0.6};
        double *got = run(failing, k, &b, 0, rows, cols, NULL, ratios, 3, APO_SPLIT_TIME);
        cr_assert(memcmp(got, want, rows * cols * sizeof(double)) == 0, "%s", k->name);
        free(got);
        free(want);
        apo_runtime_destroy(failing);
    }
    apo_runtime_destroy(cpu);
    free_bars(&b);
}

Test(catalog_cumulative_runtime, descriptors_say_whole_row_and_no_parameter, .timeout = 60) {
    apo_runtime *rt = test_runtime("cpu");
    for (size_t ki = 0; ki < sizeof kernels / sizeof kernels[0]; ki++) {
        const cum_kernel *k = &kernels[ki];
        apo_kernel_info info = APO_KERNEL_INFO_INIT;
        cr_assert_eq(apo_kernel_get(rt, k->name, &info), APO_OK, "%s", apo_last_error());
        cr_assert(info.halo_whole_row && info.halo == 0, "%s", k->name);
        cr_assert_eq(info.n_params, 0);
        cr_assert_eq(info.n_inputs, k->n_in);
        cr_assert_eq(info.n_outputs, 1);
        cr_assert_str_eq(info.output_names[0], k->name);
        cr_assert_str_eq(info.input_names[info.n_inputs - 2], "close");
        cr_assert_str_eq(info.input_names[info.n_inputs - 1], "volume");
        /* Lookback 0: a series of one sample has its value (obv: its volume). */
        const size_t one = 1;
        bars b = make_bars(1, 1, &one);
        double *out = run(rt, k, &b, 0, 1, 1, NULL, NULL, 0, APO_SPLIT_AUTO);
        cr_assert(isfinite(out[0]), "%s", k->name);
        if (ki == 0)
            cr_assert_eq(out[0], b.col[VOLUME][0]);
        free(out);
        free_bars(&b);
    }
    apo_runtime_destroy(rt);
}
