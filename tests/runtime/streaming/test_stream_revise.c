/*
 * apo_stream_revise and apo_stream_resume (docs/streaming.md, "Revise", "Resume from a
 * window"), for every kernel that streams (the built-ins with per-bar outputs, by the
 * registry, and a user kernel whose tiles of 500 bars the history crosses), on series with
 * NaN gaps and a flat stretch, bitwise against the batch over the true history:
 *
 * - each update (after a peek at the true bars, now and then: the batch's bits, the state
 *   unchanged) feeds its last bars wrong (scaled by 1.01), then revises them, and more
 *   before them where the kept window allows, with the true bars: the revised outputs and
 *   every later update give the batch's bits, and the saved state is byte for byte that of
 *   a stream fed the true bars alone; updates stop one bar past the first tile boundary, where
 *   a revise needs the tile before it;
 * - a revise beyond the kept window (more bars than revise_bars, or than the series has) is
 *   refused with the saved state unchanged; the kernels that carry a state (obv, ad, nvi,
 *   pvi, sar, sarext, the ht_*, the index kernels) revise as the others, from their state K
 *   bars back, and refuse resumes;
 * - a stream resumed from the last apo_stream_resume_needs() bars of a history, at positions
 *   around a tile boundary, goes on with the bits of a stream fed the whole history, and one
 *   bar fewer is refused;
 * - a version-2 state (before revise_bars) still loads, as a stream that keeps none.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "le_bytes.h"
#include "stream_fixtures.h"

#define ROWS 3
#define KEEP 40 /* revise_bars of the streams that revise */

/* Bars each series revises at an update: all it keeps, fewer, none. */
static const size_t revise_of[ROWS] = {KEEP, 17, 0};

static apo_stream *revising_stream(apo_runtime *rt, const stream_case *c, size_t keep) {
    apo_stream_desc d = stream_desc_of(c);
    d.revise_bars = keep;
    return stream_created(rt, &d);
}

/* Packs bars [from[r], to) of every series of the case, scaled by `scale` from position
 * wrong[r] on, into in[i] (malloc'ed); n[r] the bars of series r. */
static void pack(const stream_case *c, const size_t *from, size_t to, const size_t *wrong,
                 double scale, size_t *n, const double **in) {
    size_t total = 0;
    for (size_t r = 0; r < ROWS; r++)
        total += n[r] = to - from[r];
    for (size_t i = 0; i < c->n_inputs; i++) {
        double *p = malloc((total + 1) * sizeof *p);
        cr_assert_not_null(p);
        size_t at = 0;
        for (size_t r = 0; r < ROWS; r++)
            for (size_t t = from[r]; t < to; t++)
                p[at++] = c->in[i][r * c->cols + t] * (t >= wrong[r] ? scale : 1.0);
        in[i] = p;
    }
}

/* Fails unless the packed outputs of bars [from[r], to) are the batch's. */
static void assert_packed(const stream_case *c, double *const *out, const size_t *from, size_t to,
                          const char *what) {
    for (size_t o = 0; o < c->n_outputs; o++) {
        size_t at = 0;
        for (size_t r = 0; r < ROWS; r++)
            for (size_t t = from[r]; t < to; t++, at++) {
                const double *g = &out[o][at], *w = &c->batch[o][r * c->cols + t];
                if (memcmp(g, w, sizeof *g) != 0)
                    cr_assert_fail("%s, %s: output %zu, series %zu, bar %zu (tile %zu): got "
                                   "%.17g, batch %.17g",
                                   c->kernel, what, o, r, t, c->tile, *g, *w);
            }
    }
}

static void free_io(const double **in, double **out) {
    for (size_t k = 0; k < APO_MAX_IO; k++)
        free((void *)in[k]), free(out[k]), in[k] = NULL, out[k] = NULL;
}

static void alloc_out(const stream_case *c, double **out) {
    for (size_t o = 0; o < c->n_outputs; o++)
        cr_assert_not_null(out[o] = malloc((ROWS * c->cols + 1) * sizeof(double)));
}

/* Feeds bars [t, t + m): the last revise_of[r] of them wrong, then revises the last
 * revise_of[r] bars of each series (as many as it has) with the true ones. */
static void update_then_revise(apo_stream *s, const stream_case *c, size_t t, size_t m) {
    const double *in[APO_MAX_IO] = {0};
    double *out[APO_MAX_IO] = {0};
    size_t n[ROWS], from[ROWS], wrong[ROWS];
    for (size_t r = 0; r < ROWS; r++) {
        from[r] = t;
        const size_t k = revise_of[r] < t + m ? revise_of[r] : t + m;
        wrong[r] = t + m - k;
    }
    alloc_out(c, out);
    pack(c, from, t + m, wrong, 1.01, n, in);
    cr_assert_eq(apo_stream_update(s, n, in, out), APO_OK, "%s: %s", c->kernel, apo_last_error());
    /* The update's true bars, after the revises before it, give the batch's bits. */
    for (size_t o = 0; o < c->n_outputs; o++)
        for (size_t r = 0; r < ROWS; r++)
            for (size_t u = t; u < wrong[r]; u++) {
                const double *g = &out[o][r * m + (u - t)], *w = &c->batch[o][r * c->cols + u];
                if (memcmp(g, w, sizeof *g) != 0)
                    cr_assert_fail("%s, updated after revises: output %zu, series %zu, bar %zu: "
                                   "got %.17g, batch %.17g",
                                   c->kernel, o, r, u, *g, *w);
            }
    free_io(in, out);
    alloc_out(c, out);
    pack(c, wrong, t + m, wrong, 1.0, n, in);
    cr_assert_eq(apo_stream_revise(s, n, in, out), APO_OK, "%s: %s", c->kernel, apo_last_error());
    char what[96];
    snprintf(what, sizeof what, "revised at bar %zu", t + m);
    assert_packed(c, out, wrong, t + m, what);
    free_io(in, out);
}

/* The next update's size at bar t: single bars near the first tile boundary (where a revise
 * reaches back into the tile before), chunks elsewhere (stream_far_step), and the rest at once past
 * it; where no boundary is near (a carried run's whole-row tile), sizes below, at and above KEEP in
 * turn, so that a carried run's kept bars both slide and are replaced whole. */
static size_t step_at(const stream_case *c, size_t t) {
    if (c->tile >= c->cols) {
        static const size_t sizes[] = {1, 7, KEEP - 1, KEEP, KEEP + 1, 97};
        const size_t m = sizes[(t * 7 + 3) % (sizeof sizes / sizeof sizes[0])];
        return m < c->cols - t ? m : c->cols - t;
    }
    const size_t near = c->tile > 50 ? c->tile - 50 : 0;
    size_t m = t >= near && t < c->tile + 50 ? 1 : t < near ? stream_far_step(near) : c->cols - t;
    if (t < near && t + m > near)
        m = near - t;
    return m < c->cols - t ? m : c->cols - t;
}

/* The case for kernel, long enough to pass its first tile boundary where that is cheap. */
static void case_for(stream_case *c, apo_runtime *rt, const char *kernel) {
    cr_assert_eq(stream_case_init(c, rt, kernel, NULL, 0, ROWS, 300, 7, STREAM_GAPS | STREAM_FLAT),
                 APO_OK, "%s: %s", kernel, apo_last_error());
    if (c->tile <= 20000 && c->tile + 150 > c->cols) {
        const size_t cols = c->tile + 150;
        stream_case_free(c);
        cr_assert_eq(
            stream_case_init(c, rt, kernel, NULL, 0, ROWS, cols, 7, STREAM_GAPS | STREAM_FLAT),
            APO_OK, "%s: %s", kernel, apo_last_error());
    }
}

/* A peek at bars [t, t + m) gives the batch's bits and leaves s's saved bytes as they were
 * (the kept bars and, for a carried run, its state K bars back). */
static void peek_unchanged(apo_stream *s, const stream_case *c, size_t t, size_t m) {
    const double *in[APO_MAX_IO] = {0};
    double *out[APO_MAX_IO] = {0};
    size_t n[ROWS], from[ROWS] = {t, t, t}, never[ROWS] = {SIZE_MAX, SIZE_MAX, SIZE_MAX};
    size_t len = 0;
    unsigned char *before = stream_state_bytes(s, &len);
    alloc_out(c, out);
    pack(c, from, t + m, never, 1.0, n, in);
    cr_assert_eq(apo_stream_peek(s, n, in, out), APO_OK, "%s: %s", c->kernel, apo_last_error());
    assert_packed(c, out, from, t + m, "peeked");
    stream_assert_state(s, before, len, "after a peek");
    free(before);
    free_io(in, out);
}

/* s saved and loaded back (its desc, K kept, expected), s destroyed: the stream that goes on
 * revises from bytes (its kept bars and, for a carried run, its state K bars back). */
static apo_stream *reloaded(apo_runtime *rt, const stream_case *c, apo_stream *s) {
    size_t len = 0;
    unsigned char *bytes = stream_state_bytes(s, &len);
    apo_stream_desc d = stream_desc_of(c);
    d.revise_bars = KEEP;
    apo_stream *back = NULL;
    cr_assert_eq(apo_stream_load(rt, &d, bytes, len, &back), APO_OK, "%s: %s", c->kernel,
                 apo_last_error());
    stream_assert_state(back, bytes, len, "loaded back");
    free(bytes);
    apo_stream_destroy(s);
    return back;
}

static void check_revise(apo_runtime *rt, const stream_case *c) {
    apo_stream *s = revising_stream(rt, c, KEEP), *plain = revising_stream(rt, c, KEEP);
    double *got[APO_MAX_IO] = {0};
    for (size_t o = 0; o < c->n_outputs; o++)
        cr_assert_not_null(got[o] = malloc(ROWS * c->cols * sizeof(double)));
    for (size_t t = 0, step = 0; t < c->cols; step++) {
        const size_t m = step_at(c, t);
        if (step % 3 == 0)
            peek_unchanged(s, c, t, m);
        update_then_revise(s, c, t, m);
        if (step % 4 == 1)
            s = reloaded(rt, c, s);
        stream_feed_span(plain, c, t, t + m, got);
        t += m;
        /* The revised stream is the one fed the true bars, byte for byte. */
        size_t len = 0;
        unsigned char *want = stream_state_bytes(plain, &len);
        stream_assert_state(s, want, len, "after a revise");
        free(want);
    }
    stream_assert_span(c, got, 0, c->cols, "a stream fed the true bars");
    for (size_t o = 0; o < APO_MAX_IO; o++)
        free(got[o]);
    apo_stream_destroy(plain);
    apo_stream_destroy(s);
}

/* Revises of more bars than the stream keeps, or than a series has, change nothing. */
static void check_revise_refused(apo_runtime *rt, const stream_case *c) {
    apo_stream *s = revising_stream(rt, c, 5), *none = revising_stream(rt, c, 0);
    const double *in[APO_MAX_IO] = {0};
    double *out[APO_MAX_IO] = {0};
    size_t n[ROWS], from[ROWS] = {0, 0, 0}, wrong[ROWS] = {0, 0, 0};
    double *sink[APO_MAX_IO] = {0};
    alloc_out(c, sink);
    stream_feed_span(s, c, 0, 3, sink);
    stream_feed_span(none, c, 0, 30, sink);
    size_t len = 0, none_len = 0;
    unsigned char *before = stream_state_bytes(s, &len);
    unsigned char *none_before = stream_state_bytes(none, &none_len);
    alloc_out(c, out);
    pack(c, from, 6, wrong, 1.0, n, in); /* 6 bars a series: past revise_bars 5 */
    n[0] = 0, n[1] = 0, n[2] = 4;        /* ... and series 2's 4: past its 3 bars */
    cr_assert_eq(apo_stream_revise(s, n, in, out), APO_ERR_INVALID_ARGUMENT, "%s", c->kernel);
    cr_assert(strstr(apo_last_error(), "cannot be revised") != NULL, "%s", apo_last_error());
    stream_assert_state(s, before, len, "a revise past a series' bars");
    n[0] = 1, n[1] = 0, n[2] = 0;
    cr_assert_eq(apo_stream_revise(none, n, in, out), APO_ERR_INVALID_ARGUMENT, "%s", c->kernel);
    stream_assert_state(none, none_before, none_len, "a revise of a stream that keeps none");
    free_io(in, out);
    /* Within the bounds a revise goes through: every bar of each series. */
    alloc_out(c, out);
    pack(c, from, 3, wrong, 1.0, n, in);
    cr_assert_eq(apo_stream_revise(s, n, in, out), APO_OK, "%s: %s", c->kernel, apo_last_error());
    assert_packed(c, out, from, 3, "revised within the window");
    free_io(in, out);
    for (size_t o = 0; o < APO_MAX_IO; o++)
        free(sink[o]);
    free(before), free(none_before);
    apo_stream_destroy(s);
    apo_stream_destroy(none);
}

/* A stream resumed at bar n of every series from the bars apo_stream_resume_needs() names
 * (series 1 given 5 more, which are not read), fed the rest of the history. */
static void check_resume_at(apo_runtime *rt, const stream_case *c, size_t n, size_t keep) {
    apo_stream_desc d = stream_desc_of(c);
    d.revise_bars = keep;
    size_t need = 0;
    cr_assert_eq(apo_stream_resume_needs(rt, &d, n, &need), APO_OK, "%s", apo_last_error());
    cr_assert_leq(need, n, "%s: %zu bars needed of %zu", c->kernel, need, n);
    size_t from[ROWS], wrong[ROWS] = {SIZE_MAX, SIZE_MAX, SIZE_MAX}, n_bars[ROWS];
    uint64_t first[ROWS];
    for (size_t r = 0; r < ROWS; r++)
        first[r] = from[r] = n - need - (r == 1 && n - need >= 5 ? 5 : 0);
    const double *in[APO_MAX_IO] = {0};
    pack(c, from, n, wrong, 1.0, n_bars, in);
    apo_stream *s = NULL;
    if (need > 0) {
        /* One bar short of what series 0 needs is refused, and nothing made. */
        n_bars[0]--;
        first[0]++;
        in[0] = in[0] + 1;
        for (size_t i = 1; i < c->n_inputs; i++)
            in[i] = in[i] + 1;
        cr_assert_eq(apo_stream_resume(rt, &d, first, n_bars, in, &s), APO_ERR_INVALID_ARGUMENT,
                     "%s at %zu", c->kernel, n);
        cr_assert_null(s);
        cr_assert(strstr(apo_last_error(), "needs its last") != NULL, "%s", apo_last_error());
        for (size_t i = 0; i < c->n_inputs; i++)
            in[i] = in[i] - 1;
        n_bars[0]++;
        first[0]--;
    }
    cr_assert_eq(apo_stream_resume(rt, &d, first, n_bars, in, &s), APO_OK, "%s at %zu: %s",
                 c->kernel, n, apo_last_error());
    for (size_t r = 0; r < ROWS; r++) {
        uint64_t bars = 0;
        cr_assert_eq(apo_stream_bars(s, r, &bars), APO_OK);
        cr_assert_eq(bars, n);
    }
    for (size_t k = 0; k < APO_MAX_IO; k++)
        free((void *)in[k]);
    double *got[APO_MAX_IO] = {0};
    alloc_out(c, got);
    /* A few single bars, then the rest: across the next tile boundary where it is near. */
    size_t t = n;
    for (; t < c->cols && t < n + 3; t++)
        stream_feed_span(s, c, t, t + 1, got);
    if (t < c->cols)
        stream_feed_span(s, c, t, c->cols, got);
    char what[96];
    snprintf(what, sizeof what, "resumed at bar %zu (revise_bars %zu)", n, keep);
    stream_assert_span(c, got, n, c->cols, what);
    if (keep > 0 && c->cols - KEEP >= n) {
        /* A resumed stream revises as far back as one fed from the start. */
        const double *rin[APO_MAX_IO] = {0};
        double *out[APO_MAX_IO] = {0};
        size_t rfrom[ROWS] = {c->cols - KEEP, c->cols - KEEP, c->cols - KEEP}, rn[ROWS];
        alloc_out(c, out);
        pack(c, rfrom, c->cols, wrong, 1.0, rn, rin);
        cr_assert_eq(apo_stream_revise(s, rn, rin, out), APO_OK, "%s", apo_last_error());
        assert_packed(c, out, rfrom, c->cols, "revised after a resume");
        free_io(rin, out);
    }
    for (size_t o = 0; o < APO_MAX_IO; o++)
        free(got[o]);
    apo_stream_destroy(s);
}

static void check_resume(apo_runtime *rt, const stream_case *c) {
    const size_t at[] = {0, 5, c->tile - 1, c->tile, c->tile + 1, c->tile + 60, c->cols - 1};
    for (size_t j = 0; j < sizeof at / sizeof at[0]; j++)
        if (at[j] < c->cols) {
            check_resume_at(rt, c, at[j], 0);
            check_resume_at(rt, c, at[j], KEEP);
        }
}

/* obv and ad carry a running sum, nvi and pvi a running product, sar and sarext their path,
 * the ht_* kernels their transform, the index kernels TA-Lib's tracker, from the series' first
 * bar: no window of bars holds it, so no resume (their revises keep the state K bars back). */
static int refuses_windows(apo_runtime *rt, const char *name) {
    apo_stream_desc d = stream_desc_named(name, 1);
    apo_stream *s = NULL;
    size_t need = 0;
    if (apo_stream_resume_needs(rt, &d, 10, &need) == APO_OK)
        return 0;
    cr_assert(strstr(apo_last_error(), "no window") != NULL, "%s: %s", name, apo_last_error());
    const double x[1] = {1.0};
    const double *in[APO_MAX_IO] = {x, x, x, x, x, x};
    const uint64_t first = 9;
    const size_t n_bars = 1;
    cr_assert_eq(apo_stream_resume(rt, &d, &first, &n_bars, in, &s), APO_ERR_INVALID_ARGUMENT, "%s",
                 name);
    cr_assert_null(s);
    return 1;
}

/* for_every_kernel's check and its counts: the kernels checked (or a sample of them) and
 * those that carry their state, which a resume's check leaves out (`windows_only`). */
typedef struct window_check {
    void (*check)(apo_runtime *, const stream_case *);
    int windows_only;
    size_t checked, carried;
} window_check;

static void check_one_kernel(apo_runtime *rt, const char *name, void *ctx) {
    window_check *wc = ctx;
    if (refuses_windows(rt, name)) {
        wc->carried++;
        if (wc->windows_only)
            return;
    }
    if (test_stream_kernel_sampled(wc->checked)) {
        stream_case c;
        case_for(&c, rt, name);
        wc->check(rt, &c);
        stream_case_free(&c);
    }
    wc->checked++;
}

/* Runs `check` for every kernel that streams (with `windows_only`, those that keep bars
 * alone), and the user kernel. */
static void for_every_kernel(void (*check)(apo_runtime *, const stream_case *), int windows_only) {
    apo_runtime *rt = test_runtime("cpu");
    stream_register_tile_ema(rt);
    window_check wc = {check, windows_only, 0, 0};
    stream_visit_streaming_kernels(rt, check_one_kernel, &wc);
    const size_t checked = wc.checked, carried = wc.carried;
    /* obv and ad, the six Hilbert-transform kernels and mama, which carry their transform, nvi,
     * pvi, pvt, wad, sar, sarext, cumsum, supertrend and vwap, and maxindex, minindex and
     * minmaxindex, which carry TA-Lib's tracker. */
    cr_assert_eq(
        carried, 21,
        "%zu kernels refused windows, not obv, ad, the six ht_*, mama, nvi, pvi, pvt, wad, sar, "
        "sarext, cumsum, supertrend, vwap, maxindex, minindex and minmaxindex",
        carried);
    cr_assert_geq(checked, windows_only ? 36 : 56, "only %zu kernels streamed", checked);
    apo_runtime_destroy(rt);
}

Test(stream_revise, every_kernel_revises_with_the_batch_bits, .timeout = 600) {
    for_every_kernel(check_revise, 0);
}

Test(stream_revise, a_revise_past_the_kept_window_changes_nothing, .timeout = 300) {
    for_every_kernel(check_revise_refused, 0);
}

Test(stream_revise, every_kernel_resumes_from_a_window, .timeout = 600) {
    for_every_kernel(check_resume, 1);
}

Test(stream_revise, a_version_2_state_loads_as_one_that_keeps_none, .timeout = 60) {
    apo_runtime *rt = test_runtime("cpu");
    stream_case c;
    cr_assert_eq(stream_case_init(&c, rt, "bollinger", NULL, 0, ROWS, 600, 3, STREAM_GAPS), APO_OK,
                 "%s", apo_last_error());
    apo_stream *s = stream_for(rt, &c);
    double *got[APO_MAX_IO] = {0};
    alloc_out(&c, got);
    stream_feed_span(s, &c, 0, 250, got);
    size_t len = 0;
    unsigned char *v3 = stream_state_bytes(s, &len);
    apo_stream_destroy(s);
    /* Version 2: the same bytes without the revise field, its length and checksum redone. */
    unsigned char *v2 = malloc(len - 8);
    cr_assert_not_null(v2);
    memcpy(v2, v3, OFF_REVISE);
    memcpy(v2 + OFF_REVISE, v3 + OFF_REVISE + 8, len - OFF_REVISE - 8);
    v2[OFF_FORMAT] = 2;
    apo__put_u64(v2 + OFF_TOTAL, len - 8);
    apo__put_u64(v2 + len - 16, stream_state_fnv1a(v2, len - 16));
    apo_stream_desc d = stream_desc_of(&c);
    cr_assert_eq(apo_stream_load(rt, &d, v2, len - 8, &s), APO_OK, "%s", apo_last_error());
    stream_assert_state(s, v3, len, "a version-2 state loaded and saved again");
    stream_feed_span(s, &c, 250, c.cols, got);
    stream_assert_span(&c, got, 0, c.cols, "loaded from version 2");
    apo_stream_destroy(s);
    /* Expected to keep bars for revises, it is refused: it keeps none. */
    d.revise_bars = 3;
    cr_assert_eq(apo_stream_load(rt, &d, v2, len - 8, &s), APO_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(apo_last_error(), "revise") != NULL, "%s", apo_last_error());
    for (size_t o = 0; o < APO_MAX_IO; o++)
        free(got[o]);
    free(v2), free(v3);
    stream_case_free(&c);
    apo_runtime_destroy(rt);
}
