/*
 * Streams over a sweep (apo_stream_desc.sweep; docs/streaming.md, "Sweeps"): fed in random
 * pieces, every set's outputs are bitwise the batch sweep's over the whole history (grid and
 * list forms, a range of sets, gaps); a sweep's state saved mid-way and loaded goes on with
 * the same bits; a state that is not the expected sweep, a damaged container and a bad set
 * are refused with the reason.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "reference.h"
#include "stream_fixtures.h"

#define ROWS 3
#define COLS 2600

/* One kernel's sweep: the inputs (a random walk per row, row 1 with NaN bars), the batch
 * sweep's outputs, and the streamed ones gathered at the same places. */
typedef struct sweep_case {
    apo_runtime *rt;
    apo_stream_desc desc;
    size_t n_sets, n_inputs, n_outputs;
    double *in[APO_MAX_IO];
    double *batch[APO_MAX_IO];
    double *streamed[APO_MAX_IO];
} sweep_case;

static void case_init(sweep_case *c, apo_runtime *rt, const char *kernel, const apo_sweep *sweep) {
    memset(c, 0, sizeof *c);
    c->rt = rt;
    c->desc = stream_desc_named(kernel, ROWS);
    c->desc.sweep = sweep;
    apo_kernel_info info = APO_KERNEL_INFO_INIT;
    cr_assert_eq(apo_kernel_get(rt, kernel, &info), APO_OK, "%s", apo_last_error());
    c->n_inputs = info.n_inputs;
    c->n_outputs = info.n_outputs;
    apo_workload w = test_workload(kernel, ROWS, COLS, NULL, c->n_inputs, NULL, c->n_outputs);
    w.sweep = sweep;
    for (size_t i = 0; i < c->n_inputs; i++) {
        c->in[i] = malloc(ROWS * COLS * sizeof(double));
        for (size_t r = 0; r < ROWS; r++)
            apo__test_random_walk(31 * r + i, COLS, 100.0 + (double)i, 0.5, c->in[i] + r * COLS);
    }
    for (size_t t = 700; t < 760; t += 7)
        for (size_t i = 0; i < c->n_inputs; i++)
            c->in[i][COLS + t] = NAN;
    w.inputs = (const double *const *)c->in;
    w.outputs = c->batch;
    size_t orows = 0, ocols = 0;
    for (size_t o = 0; o < c->n_outputs; o++) {
        cr_assert_eq(apo_output_shape(rt, &w, o, &orows, &ocols), APO_OK, "%s", apo_last_error());
        c->batch[o] = malloc(orows * ocols * sizeof(double));
        c->streamed[o] = malloc(orows * ocols * sizeof(double));
        for (size_t k = 0; k < orows * ocols; k++)
            c->streamed[o][k] = -7777.0;
    }
    c->n_sets = orows / ROWS;
    cr_assert_eq(apo_distribute_workload(rt, &w, NULL), APO_OK, "%s", apo_last_error());
}

static void case_free(sweep_case *c) {
    for (size_t i = 0; i < c->n_inputs; i++)
        free(c->in[i]);
    for (size_t o = 0; o < c->n_outputs; o++)
        free(c->batch[o]), free(c->streamed[o]);
}

/* One update of up to `most` bars per series (random, zero included), from `fed` on; the
 * outputs scattered where the batch has them. Returns the bars fed to each series. */
static void feed_once(sweep_case *c, apo_stream *s, size_t *fed, uint64_t *rng, size_t most) {
    size_t n_new[ROWS], total = 0;
    for (size_t r = 0; r < ROWS; r++) {
        size_t want = (size_t)(stream_rng(rng) % (most + 1));
        n_new[r] = want < COLS - fed[r] ? want : COLS - fed[r];
        total += n_new[r];
    }
    double *in[APO_MAX_IO], *out[APO_MAX_IO];
    for (size_t i = 0; i < c->n_inputs; i++) {
        in[i] = malloc((total + 1) * sizeof(double));
        for (size_t r = 0, at = 0; r < ROWS; at += n_new[r], r++)
            memcpy(in[i] + at, c->in[i] + r * COLS + fed[r], n_new[r] * sizeof(double));
    }
    for (size_t o = 0; o < c->n_outputs; o++)
        out[o] = malloc((c->n_sets * total + 1) * sizeof(double));
    cr_assert_eq(apo_stream_update(s, n_new, (const double *const *)in, out), APO_OK, "%s",
                 apo_last_error());
    for (size_t o = 0; o < c->n_outputs; o++) {
        for (size_t j = 0; j < c->n_sets; j++)
            for (size_t r = 0, at = 0; r < ROWS; at += n_new[r], r++)
                memcpy(c->streamed[o] + (j * ROWS + r) * COLS + fed[r], out[o] + j * total + at,
                       n_new[r] * sizeof(double));
        free(out[o]);
    }
    for (size_t i = 0; i < c->n_inputs; i++)
        free(in[i]);
    for (size_t r = 0; r < ROWS; r++)
        fed[r] += n_new[r];
}

static int all_fed(const size_t *fed) {
    for (size_t r = 0; r < ROWS; r++)
        if (fed[r] < COLS)
            return 0;
    return 1;
}

static void check_equal(const sweep_case *c) {
    for (size_t o = 0; o < c->n_outputs; o++) {
        size_t diff = 0, n = c->n_sets * ROWS * COLS;
        for (size_t k = 0; k < n; k++)
            diff += memcmp(&c->batch[o][k], &c->streamed[o][k], sizeof(double)) != 0;
        cr_assert_eq(diff, 0, "%s: output %zu differs from the batch sweep at %zu of %zu values",
                     c->desc.kernel, o, diff, n);
    }
}

/* Streams the case to its end in random pieces of up to `most` bars, saving and loading the
 * stream (with the case's description expected) after update number `reload_at`. */
static void stream_sweep_case(sweep_case *c, size_t most, uint64_t seed, size_t reload_at) {
    apo_stream *s = NULL;
    cr_assert_eq(apo_stream_create(c->rt, &c->desc, &s), APO_OK, "%s", apo_last_error());
    size_t fed[ROWS] = {0};
    uint64_t rng = seed;
    for (size_t update = 0; !all_fed(fed); update++) {
        feed_once(c, s, fed, &rng, most);
        if (update == reload_at) {
            size_t len = 0;
            cr_assert_eq(apo_stream_save(s, NULL, 0, &len), APO_OK);
            unsigned char *buf = malloc(len);
            cr_assert_eq(apo_stream_save(s, buf, len, &len), APO_OK, "%s", apo_last_error());
            apo_stream_destroy(s);
            s = NULL;
            cr_assert_eq(apo_stream_load(c->rt, &c->desc, buf, len, &s), APO_OK, "%s",
                         apo_last_error());
            free(buf);
        }
    }
    apo_stream_destroy(s);
    check_equal(c);
}

static const double periods[] = {5, 20, 33}, widths[] = {1, 2.5};
static const apo_sweep_param band_grid[] = {{"period", periods, 3}, {"nbdev_up", widths, 2}};

static apo_sweep bands_sweep(void) { return stream_grid_sweep(band_grid, 2); }

Test(stream_sweep, a_grid_streamed_in_pieces_equals_the_batch_sweep) {
    apo_runtime *rt = test_runtime("cpu");
    apo_sweep sw = bands_sweep();
    sweep_case c;
    case_init(&c, rt, "bollinger", &sw);
    cr_assert_eq(c.n_sets, 6);
    stream_sweep_case(&c, 400, 1, (size_t)-1);
    case_free(&c);
    /* A catalog kernel of several inputs, in pieces of up to a few bars. */
    const double atr_periods[] = {3, 14};
    const apo_sweep_param atr_grid[] = {{"timeperiod", atr_periods, 2}};
    sw.grid = atr_grid;
    sw.n_grid = 1;
    case_init(&c, rt, "atr", &sw);
    stream_sweep_case(&c, 9, 2, (size_t)-1);
    case_free(&c);
    apo_runtime_destroy(rt);
}

Test(stream_sweep, a_list_and_a_range_of_sets_equal_the_batch) {
    apo_runtime *rt = test_runtime("cpu");
    /* macd's list form, sets 1 and 2 of 3 run (first_set, n_sets_run). */
    const char *names[] = {"fast", "slow", "signal"};
    const double values[] = {12, 26, 9, 5, 35, 5, 30, 10, 4};
    apo_sweep sw = APO_SWEEP_INIT;
    sw.names = names;
    sw.n_names = 3;
    sw.values = values;
    sw.n_sets = 3;
    sw.first_set = 1;
    sw.n_sets_run = 2;
    sweep_case c;
    case_init(&c, rt, "macd", &sw);
    cr_assert_eq(c.n_sets, 2);
    stream_sweep_case(&c, 1500, 3, (size_t)-1);
    case_free(&c);
    apo_runtime_destroy(rt);
}

Test(stream_sweep, a_sweep_saved_and_loaded_goes_on_with_the_same_bits) {
    apo_runtime *rt = test_runtime("cpu");
    apo_sweep sw = bands_sweep();
    sweep_case c;
    case_init(&c, rt, "bollinger", &sw);
    for (size_t at = 0; at < 12; at += 5) {
        for (size_t o = 0; o < c.n_outputs; o++)
            for (size_t k = 0; k < c.n_sets * ROWS * COLS; k++)
                c.streamed[o][k] = -7777.0;
        stream_sweep_case(&c, 500, 10 + at, at);
    }
    case_free(&c);
    apo_runtime_destroy(rt);
}

/* A saved state of the bands sweep after one update. */
static unsigned char *saved_sweep(apo_runtime *rt, const apo_stream_desc *d, size_t *len) {
    apo_stream *s = NULL;
    cr_assert_eq(apo_stream_create(rt, d, &s), APO_OK, "%s", apo_last_error());
    double x[ROWS] = {100, 101, 102}, out[3][6 * ROWS];
    size_t n_new[ROWS] = {1, 1, 1};
    const double *in[] = {x};
    double *outs[] = {out[0], out[1], out[2]};
    cr_assert_eq(apo_stream_update(s, n_new, in, outs), APO_OK, "%s", apo_last_error());
    cr_assert_eq(apo_stream_save(s, NULL, 0, len), APO_OK);
    unsigned char *buf = malloc(*len);
    cr_assert_eq(apo_stream_save(s, buf, *len, len), APO_OK);
    apo_stream_destroy(s);
    return buf;
}

static void expect_refused(apo_runtime *rt, const apo_stream_desc *expect, const void *buf,
                           size_t len, const char *why) {
    apo_stream *s = NULL;
    apo_status st = apo_stream_load(rt, expect, buf, len, &s);
    cr_assert_neq(st, APO_OK, "a state was loaded where %s", why);
    cr_assert_null(s);
    cr_assert(strstr(apo_last_error(), why) != NULL, "the reason \"%s\" does not say \"%s\"",
              apo_last_error(), why);
}

Test(stream_sweep, states_of_another_sweep_or_damaged_are_refused_with_the_reason) {
    apo_runtime *rt = test_runtime("cpu");
    apo_sweep sw = bands_sweep();
    apo_stream_desc d = stream_desc_named("bollinger", ROWS);
    d.sweep = &sw;
    size_t len = 0;
    unsigned char *buf = saved_sweep(rt, &d, &len);

    apo_stream *s = NULL;
    cr_assert_eq(apo_stream_load(rt, NULL, buf, len, &s), APO_OK, "%s", apo_last_error());
    uint64_t bars = 0;
    cr_assert_eq(apo_stream_bars(s, 2, &bars), APO_OK);
    cr_assert_eq(bars, 1);
    apo_stream_destroy(s);

    apo_stream_desc one = d;
    one.sweep = NULL;
    expect_refused(rt, &one, buf, len, "not of one set");
    const double other_widths[] = {1, 3};
    const apo_sweep_param other_grid[] = {{"period", periods, 3}, {"nbdev_up", other_widths, 2}};
    apo_sweep other = bands_sweep();
    other.grid = other_grid;
    apo_stream_desc d_other = d;
    d_other.sweep = &other;
    expect_refused(rt, &d_other, buf, len, "nbdev_up");
    other.grid = band_grid;
    other.n_sets_run = 4;
    expect_refused(rt, &d_other, buf, len, "has 6 sets, not 4");

    for (size_t at = 0; at < len; at += len / 7) {
        buf[at] ^= 0x10;
        expect_refused(rt, NULL, buf, len, at < 8 ? "not a stream state" : "");
        buf[at] ^= 0x10;
    }
    expect_refused(rt, NULL, buf, len - 9, "truncated");

    /* A one-set state where a sweep is expected. */
    size_t one_len = 0;
    apo_stream *single = NULL;
    cr_assert_eq(apo_stream_create(rt, &one, &single), APO_OK);
    cr_assert_eq(apo_stream_save(single, NULL, 0, &one_len), APO_OK);
    unsigned char *one_buf = malloc(one_len);
    cr_assert_eq(apo_stream_save(single, one_buf, one_len, &one_len), APO_OK);
    apo_stream_destroy(single);
    expect_refused(rt, &d, one_buf, one_len, "not of a sweep");
    free(one_buf);
    free(buf);
    apo_runtime_destroy(rt);
}

Test(stream_sweep, a_bad_set_is_refused_at_creation_naming_it) {
    apo_runtime *rt = test_runtime("cpu");
    const double bad_periods[] = {20, 1};
    const apo_sweep_param grid[] = {{"period", bad_periods, 2}};
    apo_sweep sw = stream_grid_sweep(grid, 1);
    apo_stream_desc d = stream_desc_named("bollinger", 2);
    d.sweep = &sw;
    apo_stream *s = NULL;
    cr_assert_eq(apo_stream_create(rt, &d, &s), APO_ERR_BAD_PARAM);
    cr_assert_null(s);
    cr_assert(strstr(apo_last_error(), "sweep set 1") != NULL, "%s", apo_last_error());
    const apo_param fixed[] = {{"period", 10}};
    sw.grid = grid;
    d.params = fixed;
    d.n_params = 1;
    cr_assert_eq(apo_stream_create(rt, &d, &s), APO_ERR_BAD_PARAM);
    cr_assert(strstr(apo_last_error(), "both swept and fixed") != NULL, "%s", apo_last_error());
    apo_runtime_destroy(rt);
}
