/*
 * The catalog's rule for volumes (docs/kernels.md, "Negative volume"): a call or a stream
 * update of a kernel that reads a volume (mfi, mvwap, vwap, obv, ad, adosc, and their scored
 * calls) is refused when a volume is negative, naming the input, the row and the bar, and
 * writes no output; a NaN, an infinite or a zero volume is not refused (a non-finite one is
 * a gap, as before); ragged rows are checked over their own length only; a refused update
 * leaves the stream where it was; a user kernel's input named "volume" is not checked.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apportion.h"
#include "helpers.h"
#include "test_user_kernel.h"

#define ROWS 3
#define COLS 60
#define POISON 12345.0

/* Bars of a plain pattern (the values do not matter here, only whether a call runs):
 * high above low, close between them, a volume of 1000 and more. */
typedef struct ohlcv {
    double high[ROWS * COLS], low[ROWS * COLS], close[ROWS * COLS], volume[ROWS * COLS];
} ohlcv;

static void fill_bars(ohlcv *b) {
    for (size_t i = 0; i < ROWS * COLS; i++) {
        b->close[i] = 100.0 + (double)(i % 7) - (double)(i % 3);
        b->high[i] = b->close[i] + 1.0;
        b->low[i] = b->close[i] - 1.0;
        b->volume[i] = 1000.0 + (double)(i % 11) * 100.0;
    }
}

/* The kernel's inputs out of b, by the names apo_kernel_get() gives. */
static size_t kernel_inputs(apo_runtime *rt, const char *kernel, const ohlcv *b,
                            const double **in) {
    apo_kernel_info info = APO_KERNEL_INFO_INIT;
    cr_assert_eq(apo_kernel_get(rt, kernel, &info), APO_OK, "%s", apo_last_error());
    for (size_t i = 0; i < info.n_inputs; i++) {
        const char *n = info.input_names[i];
        in[i] = strcmp(n, "high") == 0    ? b->high
                : strcmp(n, "low") == 0   ? b->low
                : strcmp(n, "close") == 0 ? b->close
                                          : b->volume;
        cr_assert(strcmp(n, "volume") == 0 || in[i] != b->volume, "%s: input %s", kernel, n);
    }
    return info.n_inputs;
}

/* Runs `kernel` (scored by `score` when not NULL) over b's rows (of row_lengths when not
 * NULL) into poisoned outputs; says whether every output is still the poison. */
static apo_status run_bars(apo_runtime *rt, const char *kernel, const char *score, const ohlcv *b,
                           const size_t *row_lengths, int *untouched) {
    const double *in[APO_MAX_IO];
    apo_workload w =
        test_workload(kernel, ROWS, COLS, in, kernel_inputs(rt, kernel, b, in), NULL, 0);
    w.score = score;
    w.row_lengths = row_lengths;
    apo_kernel_info info = APO_KERNEL_INFO_INIT;
    cr_assert_eq(apo_kernel_get(rt, kernel, &info), APO_OK);
    w.n_outputs = score != NULL ? APO_N_SCORES : info.n_outputs;
    double *out[APO_N_SCORES];
    size_t len[APO_N_SCORES];
    for (size_t o = 0; o < w.n_outputs; o++) {
        size_t r = 0, c = 0;
        cr_assert_eq(apo_output_shape(rt, &w, o, &r, &c), APO_OK, "%s", apo_last_error());
        len[o] = r * c;
        out[o] = malloc(len[o] * sizeof(double));
        cr_assert_not_null(out[o]);
        for (size_t i = 0; i < len[o]; i++)
            out[o][i] = POISON;
    }
    w.outputs = out;
    const apo_status st = apo_distribute_workload(rt, &w, NULL);
    *untouched = 1;
    for (size_t o = 0; o < w.n_outputs; o++) {
        for (size_t i = 0; i < len[o]; i++)
            *untouched &= out[o][i] == POISON;
        free(out[o]);
    }
    return st;
}

static const char *const volume_kernels[] = {"mfi", "mvwap", "vwap", "obv", "ad", "adosc"};

/* What each case starts from: a runtime and the plain bars of fill_bars(), which the case then
 * edits; set up by the case's .init (on the devices it names), destroyed by its .fini. Each
 * Criterion case runs in its own process, so these are the case's own. */
static apo_runtime *rt;
static ohlcv b;

static void set_up(const char *devices) {
    rt = test_runtime(devices);
    fill_bars(&b);
}
static void on_cpu(void) { set_up("cpu"); }
static void on_cpu_and_sim(void) { set_up("cpu,sim:a:rate=1e8"); }
static void tear_down(void) { apo_runtime_destroy(rt); }

Test(volume_inputs, a_negative_volume_refuses_the_call_naming_row_and_bar, .timeout = 60,
     .init = on_cpu_and_sim, .fini = tear_down) {
    b.volume[1 * COLS + 17] = -500000.0;
    for (size_t k = 0; k < sizeof volume_kernels / sizeof volume_kernels[0]; k++) {
        int untouched = 0;
        const apo_status st = run_bars(rt, volume_kernels[k], NULL, &b, NULL, &untouched);
        test_assert_refused(st, APO_ERR_INVALID_ARGUMENT, "(volume) is -500000 at row 1, bar 17");
        cr_assert(strstr(apo_last_error(), volume_kernels[k]) != NULL, "%s", apo_last_error());
        cr_assert(untouched, "%s wrote outputs before it refused", volume_kernels[k]);
    }
    /* A scored call reads the same volumes. */
    int untouched = 0;
    test_assert_refused(run_bars(rt, "mfi", "mfi_zone", &b, NULL, &untouched),
                        APO_ERR_INVALID_ARGUMENT, "at row 1, bar 17");
    cr_assert(untouched);
}

/* The row's scan takes its values in pairs of lanes, sixteen bars a step, then the bars past
 * the last whole step one by one (volume_inputs.c): a negative volume is found in either lane
 * of a pair, in the first and the last step, and in the tail (row 0's 60 bars: 48 in steps). */
Test(volume_inputs, a_negative_volume_is_found_wherever_the_scan_reads_it, .timeout = 60,
     .init = on_cpu, .fini = tear_down) {
    static const size_t bars[] = {0, 1, 14, 15, 32, 47, 48, 53, 59};
    for (size_t i = 0; i < sizeof bars / sizeof bars[0]; i++) {
        fill_bars(&b);
        b.volume[bars[i]] = -0.5;
        char where[64];
        snprintf(where, sizeof where, "(volume) is -0.5 at row 0, bar %zu", bars[i]);
        int untouched = 0;
        test_assert_refused(run_bars(rt, "obv", NULL, &b, NULL, &untouched),
                            APO_ERR_INVALID_ARGUMENT, where);
        cr_assert(untouched, "bar %zu: outputs written before the refusal", bars[i]);
    }
}

Test(volume_inputs, gaps_and_zero_volumes_are_not_refused, .timeout = 60, .init = on_cpu,
     .fini = tear_down) {
    b.volume[3] = NAN;
    b.volume[COLS + 4] = -INFINITY;
    b.volume[COLS + 5] = INFINITY;
    b.volume[2 * COLS + 6] = -0.0;
    b.volume[2 * COLS + 7] = 0.0;
    for (size_t k = 0; k < sizeof volume_kernels / sizeof volume_kernels[0]; k++) {
        int untouched = 1;
        cr_assert_eq(run_bars(rt, volume_kernels[k], NULL, &b, NULL, &untouched), APO_OK, "%s: %s",
                     volume_kernels[k], apo_last_error());
        cr_assert(!untouched);
    }
}

Test(volume_inputs, ragged_rows_are_checked_over_their_own_length, .timeout = 60, .init = on_cpu,
     .fini = tear_down) {
    const size_t lengths[ROWS] = {COLS, 20, COLS};
    /* Past row 1's own 20 bars the array is padding the call never reads. */
    b.volume[1 * COLS + 30] = -1.0;
    int untouched = 1;
    cr_assert_eq(run_bars(rt, "mfi", NULL, &b, lengths, &untouched), APO_OK, "%s",
                 apo_last_error());
    b.volume[2 * COLS + 59] = -2.5;
    test_assert_refused(run_bars(rt, "mfi", NULL, &b, lengths, &untouched),
                        APO_ERR_INVALID_ARGUMENT, "is -2.5 at row 2, bar 59");
    cr_assert(untouched);
}

Test(volume_inputs, a_refused_update_leaves_the_stream_where_it_was, .timeout = 60, .init = on_cpu,
     .fini = tear_down) {
    apo_stream_desc d = APO_STREAM_DESC_INIT;
    d.kernel = "obv";
    d.n_series = 2;
    apo_stream *s = NULL;
    cr_assert_eq(apo_stream_create(rt, &d, &s), APO_OK, "%s", apo_last_error());
    /* obv's inputs are close and volume; the two series' new bars laid end to end. */
    const double *in[2] = {b.close, b.volume};
    double out[2 * COLS];
    double *outs[1] = {out};
    const size_t n_new[2] = {10, 5};
    cr_assert_eq(apo_stream_update(s, n_new, in, outs), APO_OK, "%s", apo_last_error());
    b.volume[10 + 5 + 12] = -7.0; /* series 1's 8th bar of the next update */
    const double *next[2] = {b.close + 15, b.volume + 15};
    const size_t more[2] = {5, 10};
    for (size_t i = 0; i < 2 * COLS; i++)
        out[i] = POISON;
    test_assert_refused(apo_stream_update(s, more, next, outs), APO_ERR_INVALID_ARGUMENT,
                        "is -7 at series 1, bar 7");
    for (size_t i = 0; i < 2 * COLS; i++)
        cr_assert_eq(out[i], POISON);
    uint64_t bars = 0;
    cr_assert_eq(apo_stream_bars(s, 1, &bars), APO_OK);
    cr_assert_eq(bars, 5);
    /* Not broken: the update without the bad bar goes on. */
    b.volume[10 + 5 + 12] = 7.0;
    cr_assert_eq(apo_stream_update(s, more, next, outs), APO_OK, "%s", apo_last_error());
    apo_stream_destroy(s);
}

/* A user kernel of one input it names "volume": its sum of the last two. */
static apo_status pair_sum(const apo_kernel_call *c, void *user) {
    (void)user;
    const double *x = c->inputs[0] + c->row * c->cols;
    double *y = c->outputs[0] + c->row * c->cols;
    for (size_t t = c->begin; t < c->end; t++)
        y[t] = t > 0 ? x[t] + x[t - 1] : x[t];
    return APO_OK;
}

Test(volume_inputs, a_user_kernel_input_named_volume_is_not_checked, .timeout = 60, .init = on_cpu,
     .fini = tear_down) {
    static const char *const inputs[] = {"volume"};
    static const char *const outputs[] = {"sum"};
    apo_kernel_desc d = test_user_kernel("vol_pairs", pair_sum, NULL, 0);
    d.input_names = inputs;
    d.output_names = outputs;
    d.halo = 1;
    test_user_kernel_register(rt, &d);
    const double x[4] = {1, -2, 3, -4};
    double y[4];
    const double *in[1] = {x};
    double *out[1] = {y};
    apo_workload w = test_workload("vol_pairs", 1, 4, in, 1, out, 1);
    cr_assert_eq(apo_distribute_workload(rt, &w, NULL), APO_OK, "%s", apo_last_error());
    cr_assert_eq(y[3], -1.0);
}
