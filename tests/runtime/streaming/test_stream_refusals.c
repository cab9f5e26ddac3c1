/*
 * Refused updates change nothing (docs/streaming.md, "Errors"), for every kernel that
 * streams (the built-ins with per-bar outputs, by the registry, and a user kernel) and every
 * cause the library refuses an update for: counts that overflow, a NULL input or output
 * array, a negative volume in the last series (after the others were checked), and a series
 * asked about that the stream does not have. After each refusal the saved state is byte for
 * byte what it was; then the refused stream and one that never saw a refusal take the same
 * tail, which must give the batch's bits over the whole history in both (the way TA-Lib's
 * issue 386 was shown: a refusal that moved anything would show in the outputs after it).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "stream_fixtures.h"

#define ROWS 3
#define COLS 300
#define HEAD 170

/* One refused update: its inputs and outputs, per-series counts, and what it should give. */
typedef struct refusal {
    const char *what;
    size_t n_new[ROWS];
    int null_inputs, null_outputs; /* the arrays of arrays NULL */
    int null_input, null_output;   /* the last input's (output's) array NULL */
    int negative_volume;           /* the last series' last bar has volume -1 */
    apo_status want;
} refusal;

static const refusal refusals[] = {
    {"counts that overflow", {1, 2, SIZE_MAX}, 0, 0, 0, 0, 0, APO_ERR_OVERFLOW},
    {"inputs NULL", {1, 2, 3}, 1, 0, 0, 0, 0, APO_ERR_NULL},
    {"outputs NULL", {1, 2, 3}, 0, 1, 0, 0, 0, APO_ERR_NULL},
    {"the last input NULL", {4, 0, 2}, 0, 0, 1, 0, 0, APO_ERR_NULL},
    {"the last output NULL", {4, 1, 2}, 0, 0, 0, 1, 0, APO_ERR_NULL},
    {"a negative volume in the last series", {5, 6, 7}, 0, 0, 0, 0, 1, APO_ERR_INVALID_ARGUMENT},
};

/* Whether the kernel has an input named "volume", and its index. */
static int volume_input(const apo_kernel_info *info, size_t *at) {
    for (size_t i = 0; i < info->n_inputs; i++)
        if (strcmp(info->input_names[i], "volume") == 0) {
            *at = i;
            return 1;
        }
    return 0;
}

/* Tries the refusal on s (fed HEAD bars of the case): it must fail as expected and leave the
 * saved state as it was. */
static void try_refusal(apo_stream *s, const stream_case *c, const apo_kernel_info *info,
                        const refusal *f) {
    size_t vol = 0;
    if (f->negative_volume && !volume_input(info, &vol))
        return;
    size_t before_len = 0;
    unsigned char *before = stream_state_bytes(s, &before_len);
    size_t total = 0;
    for (size_t r = 0; r < ROWS; r++)
        total += f->n_new[r] == SIZE_MAX ? 0 : f->n_new[r];
    double *in[APO_MAX_IO] = {0}, *out[APO_MAX_IO] = {0};
    for (size_t i = 0; i < c->n_inputs; i++) {
        cr_assert_not_null(in[i] = malloc((total + 1) * sizeof(double)));
        /* The next bars of each series, as an accepted update would bring them. */
        size_t at = 0;
        for (size_t r = 0; r < ROWS; r++) {
            const size_t m = f->n_new[r] == SIZE_MAX ? 0 : f->n_new[r];
            memcpy(in[i] + at, c->in[i] + r * COLS + HEAD, m * sizeof(double));
            at += m;
        }
    }
    for (size_t o = 0; o < c->n_outputs; o++)
        cr_assert_not_null(out[o] = malloc((total + 1) * sizeof(double)));
    if (f->negative_volume)
        in[vol][total - 1] = -1.0;
    const double *ins[APO_MAX_IO];
    double *outs[APO_MAX_IO];
    for (size_t i = 0; i < APO_MAX_IO; i++)
        ins[i] = in[i], outs[i] = out[i];
    if (f->null_input)
        ins[c->n_inputs - 1] = NULL;
    if (f->null_output)
        outs[c->n_outputs - 1] = NULL;
    const apo_status st =
        apo_stream_update(s, f->n_new, f->null_inputs ? NULL : ins, f->null_outputs ? NULL : outs);
    cr_assert_eq(st, f->want, "%s, %s: status %s (%s), not %s", c->kernel, f->what,
                 apo_status_name(st), apo_last_error(), apo_status_name(f->want));
    char what[256];
    snprintf(what, sizeof what, "%s, refused for %s", c->kernel, f->what);
    stream_assert_state(s, before, before_len, what);
    uint64_t bars = 0;
    cr_assert_eq(apo_stream_bars(s, ROWS, &bars), APO_ERR_NOT_FOUND);
    stream_assert_state(s, before, before_len, "apo_stream_bars of a series out of range");
    for (size_t i = 0; i < APO_MAX_IO; i++)
        free(in[i]), free(out[i]);
    free(before);
}

/* Two streams of the kernel: one takes every refusal after HEAD bars, one none; the same
 * tail then gives both the batch's bits. */
static void check_kernel(apo_runtime *rt, const char *kernel) {
    stream_case c;
    cr_assert_eq(stream_case_init(&c, rt, kernel, NULL, 0, ROWS, COLS, 7, 1), APO_OK, "%s: %s",
                 kernel, apo_last_error());
    apo_kernel_info info = APO_KERNEL_INFO_INIT;
    cr_assert_eq(apo_kernel_get(rt, kernel, &info), APO_OK);
    apo_stream *refused = stream_for(rt, &c), *clean = stream_for(rt, &c);
    double *got_refused[APO_MAX_IO] = {0}, *got_clean[APO_MAX_IO] = {0};
    for (size_t o = 0; o < c.n_outputs; o++) {
        cr_assert_not_null(got_refused[o] = malloc(ROWS * COLS * sizeof(double)));
        cr_assert_not_null(got_clean[o] = malloc(ROWS * COLS * sizeof(double)));
    }
    stream_feed_span(refused, &c, 0, HEAD, got_refused);
    stream_feed_span(clean, &c, 0, HEAD, got_clean);
    for (size_t k = 0; k < sizeof refusals / sizeof refusals[0]; k++)
        try_refusal(refused, &c, &info, &refusals[k]);
    /* The tail in two pieces, the second reaching the end of the history. */
    stream_feed_span(refused, &c, HEAD, HEAD + 1, got_refused);
    stream_feed_span(refused, &c, HEAD + 1, COLS, got_refused);
    stream_feed_span(clean, &c, HEAD, HEAD + 1, got_clean);
    stream_feed_span(clean, &c, HEAD + 1, COLS, got_clean);
    stream_assert_span(&c, got_refused, 0, COLS, "after refused updates");
    stream_assert_span(&c, got_clean, 0, COLS, "without a refusal");
    for (size_t o = 0; o < APO_MAX_IO; o++)
        free(got_refused[o]), free(got_clean[o]);
    apo_stream_destroy(refused);
    apo_stream_destroy(clean);
    stream_case_free(&c);
}

Test(stream_refusals, every_kernel_refuses_bad_updates_without_changing_its_state, .timeout = 120) {
    stream_check_every_kernel(check_kernel);
}

/* A sweep's update is refused whole too: a negative volume in the last series is found
 * before any set moves, so no set's state changes. */
Test(stream_refusals, a_sweep_refuses_a_bad_update_in_every_set, .timeout = 60) {
    apo_runtime *rt = test_runtime("cpu");
    const apo_sweep_param grid[] = {{"timeperiod", (const double[]){5, 14, 30}, 3}};
    const apo_sweep sw = stream_grid_sweep(grid, 1);
    apo_stream_desc d = stream_desc_named("mfi", 2);
    d.sweep = &sw;
    apo_stream *s = stream_created(rt, &d);
    double h[6], l[6], c[6], v[6], out[3 * 6];
    for (int t = 0; t < 6; t++)
        h[t] = 11 + t, l[t] = 9 + t, c[t] = 10 + t, v[t] = 100 + t;
    const size_t n_new[2] = {3, 3};
    const double *in[4] = {h, l, c, v};
    double *outs[1] = {out};
    cr_assert_eq(apo_stream_update(s, n_new, in, outs), APO_OK, "%s", apo_last_error());
    size_t len = 0;
    unsigned char *before = stream_state_bytes(s, &len);
    v[5] = -1.0;
    cr_assert_eq(apo_stream_update(s, n_new, in, outs), APO_ERR_INVALID_ARGUMENT);
    stream_assert_state(s, before, len, "a sweep refused for a negative volume");
    free(before);
    apo_stream_destroy(s);
    apo_runtime_destroy(rt);
}

/* maxindex, minindex and minmaxindex carry the last 250 samples for TA-Lib's scans of the
 * window (kernels/transforms/index_tile.h): a stream takes timeperiod up to 251 and refuses a
 * longer one at its creation, naming the bound; a batch call takes any. */
Test(stream_refusals, the_index_kernels_refuse_periods_their_carry_cannot_scan, .timeout = 60) {
    apo_runtime *rt = test_runtime("cpu");
    static const char *const kernels[] = {"maxindex", "minindex", "minmaxindex"};
    for (size_t k = 0; k < 3; k++) {
        apo_param period = {"timeperiod", 251}; /* APO_INDEX_STREAM_PERIOD_MAX */
        apo_stream_desc d = APO_STREAM_DESC_INIT;
        d.kernel = kernels[k];
        d.n_series = 1;
        d.params = &period;
        d.n_params = 1;
        apo_stream *s = NULL;
        cr_assert_eq(apo_stream_create(rt, &d, &s), APO_OK, "%s: %s", kernels[k], apo_last_error());
        apo_stream_destroy(s);
        s = NULL;
        period.value = 252;
        test_assert_refused(apo_stream_create(rt, &d, &s), APO_ERR_BAD_PARAM, "up to 251");
        cr_assert_null(s);
    }
    apo_runtime_destroy(rt);
}
