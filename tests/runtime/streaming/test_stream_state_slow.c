/*
 * A stream's state as bytes: saved at every position of a tile and loaded back, the stream
 * goes on bit for bit as the batch; saved by one process and loaded by another, too. A
 * state that is corrupt (any byte flipped), truncated (any length), of another format or
 * library version, of another kernel, parameters, series count or seed, or of a grid this
 * library would not use, is refused whole, saying why.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"
#include "le_bytes.h"
#include "stream_fixtures.h"
#include "test_tmpdir.h"

/* After a deliberate edit, the checksum made right again, so that the check after it is
 * the one that must refuse. */
static void reseal(unsigned char *buf, size_t len) {
    apo__put_u64(buf + len - 8, stream_state_fnv1a(buf, len - 8));
}

static unsigned char *saved(const apo_stream *s, size_t *len) {
    cr_assert_eq(apo_stream_save(s, NULL, 0, len), APO_OK, "%s", apo_last_error());
    unsigned char *buf = malloc(*len);
    cr_assert_not_null(buf);
    cr_assert_eq(apo_stream_save(s, buf, *len, len), APO_OK, "%s", apo_last_error());
    return buf;
}

/* Every load of buf refused with `want`, the message naming `fragment`, nothing made. */
static void assert_load_refused(apo_runtime *rt, const apo_stream_desc *expect,
                                const unsigned char *buf, size_t len, apo_status want,
                                const char *fragment) {
    apo_stream *out = (apo_stream *)buf; /* must come back NULL */
    test_assert_refused(apo_stream_load(rt, expect, buf, len, &out), want, fragment);
    cr_assert_null(out);
}

/* Three series of `kernel` at its defaults fed 30, 5 and 0 bars of `in`, as bytes. */
static unsigned char *three_series_state(apo_runtime *rt, const char *kernel,
                                         const double *const *in, double *const *out, size_t *len) {
    apo_stream_desc d = APO_STREAM_DESC_INIT;
    d.kernel = kernel;
    d.n_series = 3;
    apo_stream *s = NULL;
    cr_assert_eq(apo_stream_create(rt, &d, &s), APO_OK, "%s", apo_last_error());
    size_t n_new[] = {30, 5, 0};
    cr_assert_eq(apo_stream_update(s, n_new, in, out), APO_OK, "%s", apo_last_error());
    unsigned char *buf = saved(s, len);
    apo_stream_destroy(s);
    return buf;
}

static unsigned char *small_state(apo_runtime *rt, size_t *len) {
    double x[35], u[35], m[35], l[35];
    for (size_t t = 0; t < 35; t++)
        x[t] = 100.0 + (double)(t % 7);
    const double *in[] = {x};
    double *out[] = {u, m, l};
    return three_series_state(rt, "bollinger", in, out, len);
}

/* Three series of obv at 30, 5 and 0 bars, as bytes: no kept bars, each series' carried
 * sum, last clean close and seed (docs/streaming.md, "The state"). */
static unsigned char *small_obv_state(apo_runtime *rt, size_t *len) {
    double x[35], v[35], y[35];
    for (size_t t = 0; t < 35; t++)
        x[t] = 100.0 + (double)(t % 7), v[t] = 10.0 + (double)t;
    const double *in[] = {x, v};
    double *out[] = {y};
    unsigned char *buf = three_series_state(rt, "obv", in, out, len);
    cr_assert_eq(*len, 192 + 3 * 8 + 3 * 3 * 8 + 8, "obv state of %zu bytes", *len);
    return buf;
}

/* The case saved and loaded after every update, one bar at a time on series 0. */
static void check_every_bar_reloading(apo_runtime *rt, const stream_case *c, size_t tile) {
    (void)tile;
    stream_check_plan_reloading(stream_for(rt, c), c, PLAN_EVERY_BAR, 1, 0, rt);
}

Test(stream_state, every_position_of_a_tile_round_trips, .timeout = 600) {
    apo_runtime *rt = test_runtime("cpu");
    stream_register_tile_ema(rt);
    const char *const kernels[] = {"bollinger", "tema_user", "atr"};
    stream_each_case_over_tiles(rt, kernels, 3, 3, 1, 150, 3, check_every_bar_reloading);
    apo_runtime_destroy(rt);
}

Test(stream_state, macd_round_trips_at_the_starts_and_boundaries, .timeout = 600) {
    apo_runtime *rt = test_runtime("cpu");
    stream_case c;
    stream_case_over_tiles(&c, rt, "macd", 3, 2, 70, 4, NULL);
    stream_check_plan_reloading(stream_for(rt, &c), &c, PLAN_BAR_BY_BAR, 1, 0, rt);
    stream_check_plan_reloading(stream_for(rt, &c), &c, PLAN_RANDOM, 2, 900, rt);
    stream_case_free(&c);
    apo_runtime_destroy(rt);
}

/* The first half fed by a child process, which saves the state to a file and exits; this
 * process, which never had that stream, loads the file and feeds the second half. */
Test(stream_state, a_state_saved_by_another_process_goes_on, .timeout = 300) {
    apo_runtime *rt = test_runtime("cpu");
    stream_case c;
    cr_assert_eq(stream_case_init(&c, rt, "bollinger", NULL, 0, 2, 9000, 5, 1), APO_OK, "%s",
                 apo_last_error());
    char path[512];
    snprintf(path, sizeof path, "%s/apo_stream_state_%ld.bin", test_tmpdir(), (long)getpid());
    const size_t half = 5000;
    double *got[3], *pin = malloc(2 * c.cols * sizeof(double)), *pout[3];
    cr_assert_not_null(pin);
    for (size_t o = 0; o < 3; o++) {
        cr_assert_not_null(got[o] = malloc(2 * c.cols * sizeof(double)));
        cr_assert_not_null(pout[o] = malloc(2 * c.cols * sizeof(double)));
    }
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        /* The child's outputs go to the parent through a file too: the first half's. */
        apo_stream *s = NULL;
        apo_stream_desc d = stream_desc_of(&c);
        int ok = apo_stream_create(rt, &d, &s) == APO_OK;
        size_t n_new[] = {half, half - 1};
        memcpy(pin, c.in[0], half * sizeof(double));
        memcpy(pin + half, c.in[0] + c.cols, (half - 1) * sizeof(double));
        const double *in[] = {pin};
        ok = ok && apo_stream_update(s, n_new, in, pout) == APO_OK;
        size_t len = 0;
        ok = ok && apo_stream_save(s, NULL, 0, &len) == APO_OK;
        unsigned char *buf = ok ? malloc(len) : NULL;
        ok = ok && buf != NULL && apo_stream_save(s, buf, len, &len) == APO_OK;
        FILE *f = ok ? fopen(path, "wb") : NULL;
        ok = ok && f != NULL && fwrite(buf, 1, len, f) == len;
        for (size_t o = 0; ok && o < 3; o++)
            ok = fwrite(pout[o], sizeof(double), 2 * half - 1, f) == 2 * half - 1;
        ok = f != NULL && fclose(f) == 0 && ok;
        _exit(ok ? 0 : 1);
    }
    int status = 0;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child failed");

    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f);
    size_t outs_len = 3 * (2 * half - 1) * sizeof(double);
    cr_assert_eq(fseek(f, 0, SEEK_END), 0);
    size_t len = (size_t)ftell(f) - outs_len;
    rewind(f);
    unsigned char *buf = malloc(len);
    cr_assert_not_null(buf);
    cr_assert_eq(fread(buf, 1, len, f), len);
    for (size_t o = 0; o < 3; o++) {
        cr_assert_eq(fread(pout[o], sizeof(double), 2 * half - 1, f), 2 * half - 1);
        memcpy(got[o], pout[o], half * sizeof(double));
        memcpy(got[o] + c.cols, pout[o] + half, (half - 1) * sizeof(double));
    }
    fclose(f);
    remove(path);

    apo_stream *s = NULL;
    apo_stream_desc d = stream_desc_of(&c);
    cr_assert_eq(apo_stream_load(rt, &d, buf, len, &s), APO_OK, "%s", apo_last_error());
    size_t n_new[] = {c.cols - half, c.cols - half + 1};
    memcpy(pin, c.in[0] + half, n_new[0] * sizeof(double));
    memcpy(pin + n_new[0], c.in[0] + c.cols + half - 1, n_new[1] * sizeof(double));
    const double *in[] = {pin};
    cr_assert_eq(apo_stream_update(s, n_new, in, pout), APO_OK, "%s", apo_last_error());
    for (size_t o = 0; o < 3; o++) {
        memcpy(got[o] + half, pout[o], n_new[0] * sizeof(double));
        memcpy(got[o] + c.cols + half - 1, pout[o] + n_new[0], n_new[1] * sizeof(double));
        cr_assert_eq(memcmp(got[o], c.batch[o], 2 * c.cols * sizeof(double)), 0,
                     "output %zu differs from the batch", o);
    }
    apo_stream_destroy(s);
    free(buf), free(pin);
    for (size_t o = 0; o < 3; o++)
        free(got[o]), free(pout[o]);
    stream_case_free(&c);
    apo_runtime_destroy(rt);
}

/* The two small states, bollinger's (small_state) and obv's (small_obv_state: its carried
 * doubles are bytes of the state like the kept bars), each given to check() with its kernel's
 * name, then freed: the refusals of damaged bytes share it. */
static void each_small_state(apo_runtime *rt, void (*check)(apo_runtime *rt, unsigned char *buf,
                                                            size_t len, const char *kernel)) {
    for (int obv = 0; obv < 2; obv++) {
        size_t len;
        unsigned char *buf = obv ? small_obv_state(rt, &len) : small_state(rt, &len);
        check(rt, buf, len, obv ? "obv" : "bollinger");
        free(buf);
    }
}

static void check_flipped_bytes(apo_runtime *rt, unsigned char *buf, size_t len,
                                const char *kernel) {
    apo_stream *ok = NULL;
    cr_assert_eq(apo_stream_load(rt, NULL, buf, len, &ok), APO_OK, "%s: %s", kernel,
                 apo_last_error());
    apo_stream_destroy(ok);
    for (size_t i = 0; i < len; i++)
        for (int bit = 0; bit < 8; bit += 7) {
            buf[i] ^= (unsigned char)(1u << bit);
            apo_stream *out = NULL;
            apo_status st = apo_stream_load(rt, NULL, buf, len, &out);
            cr_assert_eq(st, APO_ERR_INVALID_ARGUMENT, "%s: byte %zu bit %d: %s (%s)", kernel, i,
                         bit, apo_status_name(st), apo_last_error());
            cr_assert_null(out);
            cr_assert(strncmp(apo_last_error(), "apo_stream_load: ", 17) == 0, "%s: %s", kernel,
                      apo_last_error());
            buf[i] ^= (unsigned char)(1u << bit);
        }
}

Test(stream_state, every_flipped_byte_is_refused, .timeout = 120) {
    apo_runtime *rt = test_runtime("cpu");
    each_small_state(rt, check_flipped_bytes);
    apo_runtime_destroy(rt);
}

static void check_truncations(apo_runtime *rt, unsigned char *buf, size_t len, const char *kernel) {
    for (size_t cut = 0; cut < len; cut++) {
        apo_stream *out = NULL;
        apo_status st = apo_stream_load(rt, NULL, buf, cut, &out);
        cr_assert_eq(st, APO_ERR_INVALID_ARGUMENT, "%s: %zu of %zu bytes: %s", kernel, cut, len,
                     apo_last_error());
        cr_assert_null(out);
    }
    assert_load_refused(rt, NULL, buf, len - 1, APO_ERR_INVALID_ARGUMENT, "truncated");
    unsigned char *longer = calloc(len + 1, 1);
    cr_assert_not_null(longer);
    memcpy(longer, buf, len);
    assert_load_refused(rt, NULL, longer, len + 1, APO_ERR_INVALID_ARGUMENT, "wrong length");
    free(longer);
}

Test(stream_state, every_truncation_is_refused, .timeout = 120) {
    apo_runtime *rt = test_runtime("cpu");
    each_small_state(rt, check_truncations);
    apo_runtime_destroy(rt);
}

/* What the cases on bollinger's small state start from: a cpu runtime and the state's bytes,
 * set up by their .init and freed by their .fini (each Criterion case is a process of its
 * own). */
static apo_runtime *rt;
static unsigned char *buf;
static size_t len;

static void with_small_state(void) {
    rt = test_runtime("cpu");
    buf = small_state(rt, &len);
}

static void free_small_state(void) {
    free(buf);
    apo_runtime_destroy(rt);
}

Test(stream_state, another_kernel_parameters_series_or_seed_is_refused, .timeout = 60,
     .init = with_small_state, .fini = free_small_state) {
    apo_stream_desc d = stream_desc_named("bollinger", 3);
    apo_stream *s = NULL;
    cr_assert_eq(apo_stream_load(rt, &d, buf, len, &s), APO_OK, "%s", apo_last_error());
    apo_stream_destroy(s);

    d.kernel = "sma";
    assert_load_refused(rt, &d, buf, len, APO_ERR_INVALID_ARGUMENT, "of kernel bollinger, not sma");
    d.kernel = "bollinger";
    const apo_param p21[] = {{"period", 21}};
    d.params = p21, d.n_params = 1;
    assert_load_refused(rt, &d, buf, len, APO_ERR_INVALID_ARGUMENT, "period = 20, not 21");
    const apo_param dev[] = {{"nbdev_up", 2.5}};
    d.params = dev;
    assert_load_refused(rt, &d, buf, len, APO_ERR_INVALID_ARGUMENT, "nbdev_up");
    d.params = NULL, d.n_params = 0;
    d.n_series = 4;
    assert_load_refused(rt, &d, buf, len, APO_ERR_INVALID_ARGUMENT, "3 series, not 4");
    d.n_series = 3;
    d.seed = 9;
    assert_load_refused(rt, &d, buf, len, APO_ERR_INVALID_ARGUMENT, "seed");

    /* A user kernel's state on a runtime that has no kernel of that name. */
    apo_runtime *with = test_runtime("cpu");
    stream_register_tile_ema(with);
    const apo_stream_desc u = stream_desc_named("tema_user", 1);
    s = stream_created(with, &u);
    size_t user_len;
    unsigned char *user_state = saved(s, &user_len);
    apo_stream_destroy(s);
    assert_load_refused(rt, NULL, user_state, user_len, APO_ERR_UNKNOWN_KERNEL, "tema_user");
    free(user_state);
    apo_runtime_destroy(with);
}

/* One field of a saved state changed: a byte, a little-endian u64 or a zero-padded string of
 * `width` bytes at `at`; the load is refused saying `fragment`. */
typedef struct state_edit {
    size_t at, width;
    uint64_t value;
    const char *text;
    const char *fragment;
} state_edit;

static void state_edit_apply(unsigned char *buf, const state_edit *e) {
    if (e->width == 1) {
        buf[e->at] = (unsigned char)e->value;
    } else if (e->width == 8) {
        apo__put_u64(buf + e->at, e->value);
    } else {
        memset(buf + e->at, 0, e->width);
        memcpy(buf + e->at, e->text, strlen(e->text));
    }
}

Test(stream_state, another_version_or_grid_is_refused, .timeout = 60, .init = with_small_state,
     .fini = free_small_state) {
    unsigned char *edit = malloc(len);
    cr_assert_not_null(edit);

    /* Each edit on a fresh copy of the state. */
    static const state_edit edits[] = {
        {OFF_FORMAT, 1, 4, NULL, "format version 4"},
        /* Version 1 had no carried doubles (before obv and ad streamed). */
        {OFF_FORMAT, 1, 1, NULL, "format version 1"},
        /* bollinger's state saying its series carry doubles: they would be bytes it lacks. */
        {OFF_CARRY, 8, 3, NULL, "malformed"},
        {OFF_CARRY, 8, 1000, NULL, "carries 1000 doubles"},
        {OFF_VERSION, 16, 0, "0.1.7", "saved by apportion 0.1.7"},
        /* A tile length this library would not use for bollinger(20); every series is inside
         * its first tile under both, so the layout still adds up and the grid check decides. */
        {OFF_TILE, 8, 5000, NULL, "tiles by 5000"},
        /* A period the kernel would refuse. */
        {OFF_PARAMS, 8, 0x3fe0000000000000ULL /* 0.5 */, NULL, "does not accept"},
    };
    for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
        memcpy(edit, buf, len);
        state_edit_apply(edit, &edits[i]);
        reseal(edit, len);
        assert_load_refused(rt, NULL, edit, len, APO_ERR_INVALID_ARGUMENT, edits[i].fragment);
    }

    assert_load_refused(rt, NULL, (const unsigned char *)"nonsense", 8, APO_ERR_INVALID_ARGUMENT,
                        "not a stream state");
    free(edit);
}

Test(stream_state, save_into_a_short_buffer_is_refused, .timeout = 60, .init = with_small_state,
     .fini = free_small_state) {
    apo_stream *s = NULL;
    cr_assert_eq(apo_stream_load(rt, NULL, buf, len, &s), APO_OK, "%s", apo_last_error());
    unsigned char *shorter = malloc(len);
    cr_assert_not_null(shorter);
    memset(shorter, 0x5a, len);
    size_t needed = 0;
    test_assert_refused(apo_stream_save(s, shorter, len - 1, &needed), APO_ERR_INVALID_ARGUMENT,
                        "needs");
    cr_assert_eq(needed, len);
    for (size_t i = 0; i < len; i++)
        cr_assert_eq(shorter[i], 0x5a, "byte %zu written by a refused save", i);
    /* A state saved from a loaded stream is the same bytes. */
    cr_assert_eq(apo_stream_save(s, shorter, len, &needed), APO_OK);
    cr_assert_eq(memcmp(shorter, buf, len), 0);
    apo_stream *other = NULL;
    test_assert_refused(apo_stream_load(rt, NULL, NULL, len, &other), APO_ERR_NULL, "NULL");
    apo_stream_destroy(s);
    free(shorter);
}
