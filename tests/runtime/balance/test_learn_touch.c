/*
 * The learned models learn the devices' speed, not the caller's page faults
 * (docs/scheduling.md, "What a device's time includes"): calls whose outputs are fresh
 * pages, never touched, pay a page fault per page, which the report shows apart
 * (first_touch_ms) and which online refinement leaves out.
 *
 * The checks compare the model with the report of the same calls, never with a second
 * measurement, so that a busy machine cannot fail them: a runtime with no profile that
 * learns from one call on one size holds that call's time as its model (no latency can be
 * told from one size), which must be wall_ms less first_touch_ms, to rounding, and not
 * wall_ms; after more calls of that size the model's time lies among the times of the calls
 * less their first touch. How much the faults would have cost a model is a figure of the
 * machine, not a test: docs/PERF.md quotes it.
 *
 * The cpu runs one thread so that the first touch and the tiles are one thread's times.
 *
 * Apart from the times, the pass must have faulted in every page a tile writes before the
 * tile starts, whichever way it finds the pages (a store into each page of a short span,
 * mincore() first on a long one; runtime/devices/first_touch.c): a user kernel asks
 * mincore() itself, from inside its tiles.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS beside POSIX */
#include <criterion/criterion.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "helpers.h"
#include "reference.h"
#include "test_user_kernel.h"

#define N 1000000
#define CALLS 6

/* The cpu's stored model of `tag` on rt. */
static apo_device_model cpu_model(apo_runtime *rt, const char *tag) {
    size_t count = 0;
    cr_assert_eq(apo_profile_entry_count(rt, &count), APO_OK);
    for (size_t i = 0; i < count; i++) {
        apo_profile_entry e = APO_PROFILE_ENTRY_INIT;
        cr_assert_eq(apo_profile_entry_get(rt, i, &e), APO_OK, "%s", apo_last_error());
        if (strcmp(e.tag, tag) != 0)
            continue;
        cr_assert_str_eq(e.devices[0].id, "cpu");
        cr_assert(e.devices[0].valid, "the cpu has a model for %s", tag);
        return e.devices[0];
    }
    cr_assert_fail("no entry for %s", tag);
    return (apo_device_model){0};
}

static double predicted_ms(apo_device_model m) { return m.latency_ms + m.ms_per_melem * N / 1e6; }

/* A workload of one series of `cols` samples of `kernel`: one input, `n_outputs` outputs. */
static apo_workload one_series(const char *kernel, const double *const *inputs,
                               double *const *outputs, size_t n_outputs, size_t cols) {
    apo_workload w = test_workload(kernel, 1, cols, inputs, 1, outputs, n_outputs);
    return w;
}

/* One learning call of bollinger on x into three outputs in one fresh mapping, whose every
 * page faults on its first store; returns the report's cpu entry. */
static apo_device_report call_on_fresh_pages(apo_runtime *rt, const double *x, int check) {
    size_t bytes = 3 * (size_t)N * sizeof(double);
    double *mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    cr_assert(mem != MAP_FAILED, "mmap of %zu bytes", bytes);
    const double *inputs[1] = {x};
    double *outputs[3] = {mem, mem + N, mem + 2 * (size_t)N};
    apo_workload w = one_series("bollinger", inputs, outputs, 3, N);
    w.tag = "bollinger";
    apo_report report = APO_REPORT_INIT;
    cr_assert_eq(apo_distribute_workload(rt, &w, &report), APO_OK, "%s", apo_last_error());
    if (check) {
        /* The outputs are the kernel's: spot-check them against the long-double reference. */
        double *up = malloc(N * sizeof *up), *mid = malloc(N * sizeof *mid),
               *lo = malloc(N * sizeof *lo);
        cr_assert(up != NULL && mid != NULL && lo != NULL);
        apo__ref_bollinger(x, N, 20, 2, 2, up, mid, lo);
        for (size_t t = 19; t < N; t += 997)
            cr_assert_leq(fabs(outputs[1][t] - mid[t]), 1e-13 * fabs(mid[t]), "t %zu", t);
        free(up), free(mid), free(lo);
    }
    munmap(mem, bytes);
    cr_assert_eq(report.n_devices, 1);
    return report.devices[0];
}

Test(learn_touch, the_model_learns_the_time_less_the_first_touch, .timeout = 300) {
    apo_runtime *rt = test_runtime("cpu:threads=1");
    double *x = malloc(N * sizeof *x);
    cr_assert(x != NULL);
    apo__test_random_walk(11, N, 100.0, 0.5, x);

    apo_device_report first = call_on_fresh_pages(rt, x, 1);
    cr_assert(first.first_touch_ms > 0 && first.first_touch_ms < first.wall_ms,
              "the report shows the faults apart: first touch %.3f ms of %.3f ms",
              first.first_touch_ms, first.wall_ms);
    double learnt = first.wall_ms - first.first_touch_ms;
    double model = predicted_ms(cpu_model(rt, "bollinger"));
    cr_assert(fabs(model - learnt) <= 1e-9 * learnt,
              "after one call the model predicts %.6f ms for its size; the call took %.6f ms "
              "of which %.6f ms were the first touch: the model holds %.6f ms",
              model, first.wall_ms, first.first_touch_ms, learnt);

    double lowest = learnt, highest = learnt;
    for (int c = 1; c < CALLS; c++) {
        apo_device_report d = call_on_fresh_pages(rt, x, 0);
        cr_assert(d.first_touch_ms > 0 && d.first_touch_ms < d.wall_ms);
        double t = d.wall_ms - d.first_touch_ms;
        lowest = fmin(lowest, t);
        highest = fmax(highest, t);
    }
    model = predicted_ms(cpu_model(rt, "bollinger"));
    cr_assert(model >= lowest * (1 - 1e-9) && model <= highest * (1 + 1e-9),
              "after %d calls the model predicts %.6f ms; the calls less their first touch "
              "took %.6f to %.6f ms",
              CALLS, model, lowest, highest);
    free(x);
    apo_runtime_destroy(rt);
}

/* A user kernel that copies its input and counts the pages of its own output elements
 * that were not in memory when its tile began (into the atomic counter `user`). */
static apo_status count_absent_pages(const apo_kernel_call *c, void *user) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    double *out = c->outputs[0] + c->row * c->cols;
    uintptr_t lo = (uintptr_t)(out + c->begin) / page * page;
    uintptr_t hi = (uintptr_t)(out + c->end);
    size_t pages = (hi - lo + page - 1) / page;
    unsigned char *resident = malloc(pages);
    if (resident == NULL || mincore((void *)lo, hi - lo, resident) != 0) {
        free(resident);
        return APO_ERR_INTERNAL;
    }
    unsigned absent = 0;
    for (size_t p = 0; p < pages; p++)
        absent += !(resident[p] & 1);
    free(resident);
    atomic_fetch_add((atomic_uint *)user, absent);
    const double *in = c->inputs[0] + c->row * c->cols;
    for (size_t t = c->begin; t < c->end; t++)
        out[t] = in[t];
    return APO_OK;
}

/* How a probe call is made: learning as the runtime does (the default), or kept out of the
 * models, with or without a report. */
typedef enum probe_call { PROBE_LEARNS, PROBE_UNREAD, PROBE_REPORTED } probe_call;

/* Runs the probe with tiles of `tile` elements on `cols` fresh elements, called as `how`
 * says; returns the pages its tiles found absent. */
static unsigned absent_pages_seen_when(size_t tile, size_t cols, probe_call how) {
    apo_runtime *rt = test_runtime("cpu:threads=1");
    atomic_uint absent = 0;
    apo_kernel_desc k = test_user_kernel("residency_probe", count_absent_pages, &absent, tile);
    test_user_kernel_register(rt, &k);
    double *x = malloc(cols * sizeof *x);
    cr_assert(x != NULL);
    for (size_t t = 0; t < cols; t++)
        x[t] = (double)t;
    size_t bytes = cols * sizeof(double);
    double *out = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    cr_assert(out != MAP_FAILED);
    const double *inputs[1] = {x};
    double *outputs[1] = {out};
    apo_workload w = one_series("residency_probe", inputs, outputs, 1, cols);
    if (how != PROBE_LEARNS)
        w.learn = APO_SWITCH_OFF;
    apo_report report = APO_REPORT_INIT;
    cr_assert_eq(apo_distribute_workload(rt, &w, how == PROBE_REPORTED ? &report : NULL), APO_OK,
                 "%s", apo_last_error());
    for (size_t t = 0; t < cols; t += 1009)
        cr_assert_eq(out[t], (double)t, "t %zu", t);
    munmap(out, bytes);
    free(x);
    apo_runtime_destroy(rt);
    return atomic_load(&absent);
}

static unsigned absent_pages_seen(size_t tile, size_t cols) {
    return absent_pages_seen_when(tile, cols, PROBE_LEARNS);
}

Test(learn_touch, short_spans_are_in_memory_before_their_tiles) {
    /* Tiles of 4096 doubles: 8 or 9 pages each, written page by page without asking. */
    unsigned absent = absent_pages_seen(4096, 40000);
    cr_assert_eq(absent, 0, "%u page(s) of short tiles were still absent", absent);
}

Test(learn_touch, long_spans_are_in_memory_before_their_tiles) {
    /* Tiles of 2^17 doubles: 256 pages each, which the pass asks mincore() about. */
    unsigned absent = absent_pages_seen((size_t)1 << 17, 300000);
    cr_assert_eq(absent, 0, "%u page(s) of long tiles were still absent", absent);
}

/* The pass exists to time the faults apart; a call whose times nobody reads (no report, no
 * learning) skips it, and its tiles fault their pages in themselves (docs/scheduling.md, "A
 * call whose times nobody reads"). A report alone is a reader: its call still makes the
 * pass. */
Test(learn_touch, a_call_whose_times_nobody_reads_leaves_the_faults_to_its_tiles) {
    unsigned absent = absent_pages_seen_when(4096, 40000, PROBE_UNREAD);
    cr_assert_gt(absent, 0, "no tile found a page absent: the pass ran for nobody");
    absent = absent_pages_seen_when(4096, 40000, PROBE_REPORTED);
    cr_assert_eq(absent, 0, "%u page(s) were still absent in a reported call", absent);
}
