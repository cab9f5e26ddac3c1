/*
 * Large stream updates on the devices (apo_stream_desc.device_bars; docs/streaming.md,
 * "Large updates"): with device_bars 1, every series that brings a whole tile or more goes
 * to the runtime's devices as a ragged batch call (split across a cpu and two simulated
 * devices), the others stay on the calling thread, and the outputs laid end to end are still
 * bitwise the batch over the whole history, for every built-in kernel with per-bar outputs,
 * with gaps, from the series' start and from deep in the history (where the row starts at a
 * tile boundary before the kept window and the bars before it are NaN). A batch that fails
 * on the devices leaves the stream where it was. obv and ad, whose running sums no such row
 * could carry, stay on the calling thread whatever device_bars says.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "stream_fixtures.h"

#define ROWS 3

static apo_stream *stream_on_devices(apo_runtime *rt, const stream_case *c, size_t device_bars) {
    apo_stream_desc d = stream_desc_of(c);
    d.device_bars = device_bars;
    return stream_created(rt, &d);
}

/* A history of four tiles and a bit: long enough that a series' kept window starts past
 * its first tile for every kernel at its defaults (macd's halo is more than three tiles). */
static size_t history_of(apo_runtime *rt, const char *kernel) {
    const size_t tile = stream_probe_tile(rt, kernel, NULL, 0, ROWS, 1, NULL);
    apo_kernel_info info = APO_KERNEL_INFO_INIT;
    cr_assert_eq(apo_kernel_get(rt, kernel, &info), APO_OK);
    return 2 * tile + info.halo + 2 * tile + 137;
}

/* The kernel's case over history_of() bars, fed to streams on the devices in one chunk and
 * in random counts. */
static size_t check_on_devices(apo_runtime *rt, size_t i, const apo_kernel_info *info) {
    const char *name = info->name;
    stream_case c;
    const size_t cols = history_of(rt, name);
    cr_assert_eq(stream_case_init(&c, rt, name, NULL, 0, ROWS, cols, 21 + i, 1), APO_OK, "%s: %s",
                 name, apo_last_error());
    /* One chunk: every series a batch row from position 0. Random counts up to two
     * tiles and a half: rows from every position of a tile, deep in the history too,
     * beside series with less than a tile that stay on this thread. */
    apo_stream *s = stream_on_devices(rt, &c, 1);
    stream_check_plan(s, &c, PLAN_ONE_CHUNK, 0, 0);
    apo_stream_destroy(s);
    s = stream_on_devices(rt, &c, 1);
    stream_check_plan(s, &c, PLAN_RANDOM, 300 + i, 5 * c.tile / 2);
    apo_stream_destroy(s);
    stream_case_free(&c);
    return 1;
}

Test(stream_devices, every_per_bar_kernel_on_the_devices_equals_batch, .timeout = 900) {
    stream_check_each_per_bar_kernel("cpu,sim:a:rate=2e8,sim:b:rate=5e8", check_on_devices, 37,
                                     "kernels");
}

/* Feeds `m` bars to every series, from position `at` of the case's history. */
static apo_status feed(apo_stream *s, const stream_case *c, size_t at, size_t m, double **out) {
    size_t n_new[ROWS];
    double *in[APO_MAX_IO];
    for (size_t i = 0; i < c->n_inputs; i++) {
        in[i] = malloc(ROWS * m * sizeof(double));
        for (size_t r = 0; r < ROWS; r++)
            memcpy(in[i] + r * m, c->in[i] + r * c->cols + at, m * sizeof(double));
    }
    for (size_t r = 0; r < ROWS; r++)
        n_new[r] = m;
    apo_status st = apo_stream_update(s, n_new, (const double *const *)in, out);
    for (size_t i = 0; i < c->n_inputs; i++)
        free(in[i]);
    return st;
}

Test(stream_devices, a_batch_that_fails_on_the_devices_leaves_the_stream_where_it_was,
     .timeout = 300) {
    /* The only device fails its first task: a large update fails, a small one (on this
     * thread) does not, and the stream saved after the failure goes on with the batch's
     * bits when loaded to run every update on this thread. */
    apo_runtime *ok = test_runtime("cpu");
    stream_case c;
    cr_assert_eq(stream_case_init(&c, ok, "bollinger", NULL, 0, ROWS, 64, 3, 0), APO_OK);
    const size_t tile = c.tile;
    stream_case_free(&c);
    cr_assert_eq(stream_case_init(&c, ok, "bollinger", NULL, 0, ROWS, 3 * tile, 3, 1), APO_OK);
    apo_runtime *rt = test_runtime("sim:a:rate=1e9:fail_after=1");
    apo_stream *s = stream_on_devices(rt, &c, 1);
    double *out[APO_MAX_IO];
    for (size_t o = 0; o < c.n_outputs; o++)
        out[o] = malloc(ROWS * 2 * tile * sizeof(double));
    cr_assert_eq(feed(s, &c, 0, 10, out), APO_OK, "%s", apo_last_error());
    cr_assert_neq(feed(s, &c, 10, tile + 5, out), APO_OK, "the failing device's batch passed");
    uint64_t bars = 0;
    cr_assert_eq(apo_stream_bars(s, 0, &bars), APO_OK);
    cr_assert_eq(bars, 10, "a failed update moved series 0 to %llu bars", (unsigned long long)bars);

    size_t len = 0;
    cr_assert_eq(apo_stream_save(s, NULL, 0, &len), APO_OK, "%s", apo_last_error());
    unsigned char *buf = malloc(len);
    cr_assert_eq(apo_stream_save(s, buf, len, &len), APO_OK);
    apo_stream_destroy(s);
    apo_stream_desc d = stream_desc_of(&c);
    d.device_bars = SIZE_MAX;
    cr_assert_eq(apo_stream_load(rt, &d, buf, len, &s), APO_OK, "%s", apo_last_error());
    const size_t m = 3 * tile - 10;
    for (size_t o = 0; o < c.n_outputs; o++)
        out[o] = realloc(out[o], ROWS * m * sizeof(double));
    cr_assert_eq(feed(s, &c, 10, m, out), APO_OK, "%s", apo_last_error());
    for (size_t o = 0; o < c.n_outputs; o++)
        for (size_t r = 0; r < ROWS; r++)
            for (size_t t = 0; t < m; t++) {
                double want = c.batch[o][r * c.cols + 10 + t], got = out[o][r * m + t];
                cr_assert(memcmp(&want, &got, sizeof want) == 0,
                          "output %zu series %zu bar %zu: %.17g, batch %.17g", o, r, 10 + t, got,
                          want);
            }
    for (size_t o = 0; o < c.n_outputs; o++)
        free(out[o]);
    free(buf);
    apo_stream_destroy(s);
    stream_case_free(&c);
    apo_runtime_destroy(rt);
    apo_runtime_destroy(ok);
}

/* obv and ad with device_bars 1 on a runtime whose only device fails its first task: every
 * update, tiles long included, stays on the calling thread (a row starting at a tile
 * boundary with NaN before it would restart the sum), so none fails, and the outputs are
 * the batch's. */
Test(stream_devices, obv_and_ad_stay_on_the_calling_thread, .timeout = 300) {
    apo_runtime *ok = test_runtime("cpu");
    apo_runtime *rt = test_runtime("sim:a:rate=1e9:fail_after=1");
    const char *kernels[] = {"obv", "ad"};
    for (size_t k = 0; k < 2; k++) {
        stream_case c;
        cr_assert_eq(stream_case_init(&c, ok, kernels[k], NULL, 0, ROWS, 64, 7, 0), APO_OK);
        const size_t tile = c.tile;
        stream_case_free(&c);
        cr_assert_eq(stream_case_init(&c, ok, kernels[k], NULL, 0, ROWS, 3 * tile + 11, 7, 1),
                     APO_OK, "%s", apo_last_error());
        apo_stream *s = stream_on_devices(rt, &c, 1);
        stream_check_plan(s, &c, PLAN_ONE_CHUNK, 0, 0);
        apo_stream_destroy(s);
        s = stream_on_devices(rt, &c, 1);
        stream_check_plan(s, &c, PLAN_RANDOM, 9, 5 * tile / 2);
        apo_stream_destroy(s);
        stream_case_free(&c);
    }
    apo_runtime_destroy(rt);
    apo_runtime_destroy(ok);
}
