/*
 * test_catalog_gaps.c: the gap rule of the range oscillators, willr and stochf's fastk (and
 * stoch, which averages fastk): one rule for the family (docs/kernels.md, "Non-finite
 * policy"). An output is NaN where a sample it reads is not finite: a high or a low anywhere
 * in its window, or its own bar's close; a gap of an earlier close costs nothing. Checked on
 * one OHLC series with gaps of each input (NaN, a NaN with a payload, both infinities, a
 * flat window, the first and last bars), against the long-double references
 * (catalog_reference.c), on every vector path and through a stream's pieces.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_dispatch.h"
#include "catalog_fixtures.h"
#include "cpu_isa.h"

#define N_BARS 3000

/* A quiet NaN with a payload: the kernels' NaN must still be the NAN constant. */
static double nan_with_payload(void) {
    const uint64_t bits = 0x7ff80000deadbeefull;
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

/* A walk with gaps: the close alone (lone, adjacent infinities, in a flat stretch, at the
 * first and last bars), the high alone, the low alone, and a close gap just before a high's.
 * Between them, clean stretches longer than the doubling's blocks (window_extreme.h), so that
 * blocks meet windows whose earlier close is a gap. */
static void gapped_series(series *s) {
    series_make(s, 5353, N_BARS, 3, 100.0, 0.5, 0);
    for (size_t t = 2700; t < 2760; t++)
        s->high[t] = s->low[t] = s->close[t] = 50.0;
    const struct {
        double *row;
        size_t at;
        double v;
    } gaps[] = {
        {s->close, 0, NAN},
        {s->close, 400, NAN},
        {s->close, 1000, INFINITY},
        {s->close, 1001, -INFINITY},
        {s->high, 1500, NAN},
        {s->low, 1800, NAN},
        {s->high, 2100, INFINITY},
        {s->close, 2500, NAN},
        {s->high, 2510, NAN},
        {s->close, 2750, NAN},
        {s->close, 2900, nan_with_payload()},
        {s->close, N_BARS - 1, NAN},
    };
    for (size_t i = 0; i < sizeof gaps / sizeof gaps[0]; i++)
        gaps[i].row[gaps[i].at] = gaps[i].v;
}

/* The rule as the docs state it, from the samples: NaN at t when t < p - 1, a high or a low
 * of the window ending at t is not finite, or the close at t is not. */
static int rule_says_nan(const series *s, size_t t, size_t p) {
    if (t + 1 < p || !isfinite(s->close[t]))
        return 1;
    for (size_t j = t + 1 - p; j <= t; j++)
        if (!isfinite(s->high[j]) || !isfinite(s->low[j]))
            return 1;
    return 0;
}

/* 1 when the window ending at t holds a gap of the close before t (the bars where the old
 * willr rule gave NaN and this one does not, when its highs and lows are clean). */
static int earlier_close_gap(const series *s, size_t t, size_t p) {
    for (size_t j = t + 1 >= p ? t + 1 - p : 0; j < t; j++)
        if (!isfinite(s->close[j]))
            return 1;
    return 0;
}

static const size_t periods[] = {2, 3, 14, 30, 63, 64, 65, 256, 257};

/* willr(p) and stochf's fastk over p bars on the same bars, on every vector path: NaN
 * exactly where the rule says (the canonical NaN), the same bars for both, and the other
 * bars within 1e-12 of their references; bars whose window holds an earlier close gap are
 * among the finite ones. */
Test(catalog_gaps, willr_and_stochf_share_one_gap_rule) {
    series s;
    gapped_series(&s);
    double *willr = alloc_doubles(N_BARS), *fastk = alloc_doubles(N_BARS);
    double *want = alloc_doubles(N_BARS), *scale = alloc_doubles(N_BARS);
    const ref_kernel *kw = kernel_named("willr"), *kf = kernel_named("stochf fastk");
    for (int isa = APO_CPU_ISA_SSE2; isa <= APO_CPU_ISA_LAST; isa++) {
        if (!apo__cpu_isa_supported((apo__cpu_isa)isa))
            continue;
        const char *path = apo__cpu_isa_name((apo__cpu_isa)isa);
        for (size_t pi = 0; pi < sizeof periods / sizeof periods[0]; pi++) {
            const size_t p = periods[pi];
            char what[64];
            snprintf(what, sizeof what, "period %zu on %s", p, path);
            const double pw[4] = {(double)p, 0, 0, 0};
            /* fastd over 1 bar: fastk's own lead, p - 1. */
            const double pf[4] = {(double)p, 1, 0, 0};
            run_grid_on(APO_CAT_WILLR, &s, pw, willr, 0, isa);
            run_grid_on(APO_CAT_STOCHF, &s, pf, fastk, 0, isa);
            kw->ref(s.in, N_BARS, pw, want, scale);
            compare_with_reference(kw->name, what, willr, want, scale, N_BARS, 1e-12, 1);
            kf->ref(s.in, N_BARS, pf, want, scale);
            compare_with_reference(kf->name, what, fastk, want, scale, N_BARS, 1e-12, 1);
            size_t spared = 0;
            for (size_t t = 0; t < N_BARS; t++) {
                const int nan = rule_says_nan(&s, t, p);
                cr_assert_eq(isnan(willr[t]) != 0, nan, "willr(%zu) on %s at %zu: %.17g", p, path,
                             t, willr[t]);
                cr_assert_eq(isnan(fastk[t]) != 0, nan, "fastk(%zu) on %s at %zu: %.17g", p, path,
                             t, fastk[t]);
                spared += !nan && earlier_close_gap(&s, t, p);
            }
            /* Each close gap in a clean stretch spares the p - 1 bars after it. */
            cr_assert_geq(spared, p - 1, "period %zu: only %zu bars after a close gap", p, spared);
        }
    }
    free(willr);
    free(fastk);
    free(want);
    free(scale);
    series_free(&s);
}

/* A stream's pieces of willr (apo__cpu_catalog_resume, pieces of 1 to 37 bars, cycling) give
 * the bits of the tile run whole over the same gaps: the state carries the gaps of high and
 * low only, and a close gap leaves the tracked extremes in place. */
Test(catalog_gaps, willr_resumed_pieces_have_the_tiles_bits_over_gaps) {
    series s;
    gapped_series(&s);
    double *whole = alloc_doubles(N_BARS), *pieces = alloc_doubles(N_BARS);
    for (size_t pi = 0; pi < sizeof periods / sizeof periods[0]; pi++) {
        const double p[4] = {(double)periods[pi], 0, 0, 0};
        const size_t len = apo__catalog_tile_len(APO_CAT_WILLR, p);
        run_grid(APO_CAT_WILLR, &s, p, whole, 0);
        apo__cat_io io;
        memset(&io, 0, sizeof io);
        for (size_t i = 0; i < 3; i++)
            io.in[i] = s.in[i];
        io.out[0] = pieces;
        io.p[0] = p[0];
        io.h = apo__catalog_halo(APO_CAT_WILLR, p);
        void *state = calloc(1, apo__catalog_resume_size(APO_CAT_WILLR));
        cr_assert_not_null(state);
        size_t piece = 1;
        for (size_t b0 = 0; b0 < N_BARS; b0 += len) {
            const size_t e = b0 + len < N_BARS ? b0 + len : N_BARS;
            for (size_t t = b0; t < e; piece = piece % 37 + 1) {
                const size_t stop = t + piece < e ? t + piece : e;
                apo__cpu_catalog_resume(APO_CAT_WILLR, &io, state, t == b0, b0, stop);
                t = stop;
            }
        }
        free(state);
        for (size_t t = 0; t < N_BARS; t++)
            cr_assert(memcmp(&whole[t], &pieces[t], sizeof whole[t]) == 0,
                      "willr(%g): t %zu pieces %.17g, whole %.17g", p[0], t, pieces[t], whole[t]);
    }
    free(whole);
    free(pieces);
    series_free(&s);
}
