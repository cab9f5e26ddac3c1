/*
 * test_volume_ta08.c: TA-Lib 0.8's volume kernels (kernels/volume/: marketfi, pvt, cmf, rvol,
 * efi, pvo, vwma) beyond their long-double references, which the later kernels' table
 * (common/test_catalog_more*.c) and the whole-row table (test_catalog_cumulative.c) check:
 * their rules where a definition divides by a volume worked exactly (a stretch without trades
 * after fractional volumes), efi's period 1, pvo bitwise ppo's body on the volume, pvt's
 * first bars by hand with a zero close and a gap, and vwma's weights by hand.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_dispatch.h"
#include "catalog_more_fixtures.h"

/* Runs kernel id once over [0, n) of s, parameters p, into out. */
static void run_whole(apo__cat_id id, const series *s, const double *p, double *out) {
    apo__cat_io io;
    double *outs[1] = {out};
    io_make(&io, id, s, p, outs, 1);
    apo__cpu_catalog_tile(id, &io, 0, s->n);
}

/* run_whole into a new array of s->n doubles (the caller frees it). */
static double *run_whole_alloc(apo__cat_id id, const series *s, const double *p) {
    double *out = alloc_doubles(s->n);
    run_whole(id, s, p, out);
    return out;
}

/* Volumes 0 over [quiet_from, quiet_to) after fractional volumes: marketfi is 0 on the quiet
 * bars, cmf 0 on the windows inside the stretch (the volume sum exactly 0 there, however it
 * was slid: the plain slides' count, kernels/common/sliding_plain.h), rvol NaN where its
 * baseline is all quiet, vwma NaN on the windows inside the stretch (no weight); and values
 * again after. */
Test(volume_ta08, windows_without_trades) {
    const size_t n = 600, p = 20, quiet_from = 200, quiet_to = 400;
    const struct {
        apo__cat_id id;
        cols_kind cols;
        size_t first, last; /* the bars the rule holds on */
        double want;
    } cases[] = {
        {APO_CAT_MARKETFI, HLV, quiet_from, quiet_to, 0.0},
        {APO_CAT_CMF, HLCV, quiet_from + p - 1, quiet_to, 0.0},
        {APO_CAT_RVOL, V, quiet_from + p, quiet_to + 1, NAN},
        {APO_CAT_VWMA, CV, quiet_from + p - 1, quiet_to, NAN},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        series s;
        series_make(&s, 11 + c, n, cases[c].cols, 100.0, 0.5, 0);
        for (size_t t = 0; t < n; t++)
            s.col[3][t] = t >= quiet_from && t < quiet_to ? 0.0 : s.col[3][t] + 0.1;
        const double p3[3] = {(double)p, 0, 0};
        double *out = run_whole_alloc(cases[c].id, &s, p3);
        for (size_t t = cases[c].first; t < cases[c].last; t++) {
            if (isnan(cases[c].want))
                cr_assert(isnan(out[t]), "case %zu t %zu: %g", c, t, out[t]);
            else
                cr_assert_eq(out[t], cases[c].want, "case %zu t %zu: %g", c, t, out[t]);
        }
        cr_assert(isfinite(out[quiet_to + p + 5]) && out[quiet_to + p + 5] != 0.0,
                  "case %zu: trades again give a value", c);
        free(out);
        series_free(&s);
    }
}

/* At period 1 efi is the force itself, (close - close before) * volume, exactly. */
Test(volume_ta08, efi_at_period_one_is_the_force) {
    series s;
    series_make(&s, 5, 300, CV, 100.0, 0.5, 0);
    const double p[3] = {1, 0, 0};
    double *out = run_whole_alloc(APO_CAT_EFI, &s, p);
    cr_assert(isnan(out[0]));
    for (size_t t = 1; t < s.n; t++)
        cr_assert_eq(out[t], (s.in[0][t] - s.in[0][t - 1]) * s.in[1][t], "t %zu", t);
    free(out);
    series_free(&s);
}

/* pvo is ppo's body on the volume: the same bits at every matype the catalog has, on a
 * series with gaps, the periods in either order. */
Test(volume_ta08, pvo_is_ppo_of_the_volume) {
    series s;
    series_make(&s, 9, 3000, V, 100.0, 0.5, 1);
    for (int matype = 0; matype <= 8; matype++) {
        if (matype == 7)
            continue;
        const double p[3] = {matype % 2 ? 26 : 5, matype % 2 ? 12 : 40, matype};
        double *a = run_whole_alloc(APO_CAT_PVO, &s, p), *b = run_whole_alloc(APO_CAT_PPO, &s, p);
        cr_assert(memcmp(a, b, s.n * sizeof(double)) == 0, "matype %d", matype);
        free(a);
        free(b);
    }
    series_free(&s);
}

/* pvt by hand: 0 at the first clean bar; a step from a zero close adds nothing; a gap bar is
 * NaN and not a previous close. */
Test(volume_ta08, pvt_worked_by_hand) {
    double close[] = {NAN, 10, 12, 0, 5, NAN, 10};
    double volume[] = {1, 100, 50, 20, 30, 40, 10};
    const double want[] = {NAN, 0, 10, -10, -10, NAN, 0};
    const size_t n = sizeof close / sizeof close[0];
    series s;
    series_make(&s, 1, n, CV, 100.0, 0.5, 0);
    memcpy(s.col[2], close, sizeof close);
    memcpy(s.col[3], volume, sizeof volume);
    const double p[3] = {0, 0, 0};
    double out[7];
    run_whole(APO_CAT_PVT, &s, p, out);
    for (size_t t = 0; t < n; t++) {
        if (isnan(want[t]))
            cr_assert(isnan(out[t]), "t %zu: %g", t, out[t]);
        else
            cr_assert_eq(out[t], want[t], "t %zu: %g", t, out[t]);
    }
    series_free(&s);
}

/* vwma by hand: the closes weighted by their volumes, a bar without volume weighing nothing,
 * and NaN for a window without any (TA-Lib's 0/0); periods 2 and 1. */
Test(volume_ta08, vwma_by_hand) {
    series s;
    series_make(&s, 5, 5, CV, 100.0, 0.5, 0);
    const double close[5] = {1, 2, 3, 4, 5}, volume[5] = {1, 0, 3, 0, 0};
    memcpy(s.col[2], close, sizeof close);
    memcpy(s.col[3], volume, sizeof volume);
    double out[5];
    const double p2[3] = {2, 0, 0}, p1[3] = {1, 0, 0};
    run_whole(APO_CAT_VWMA, &s, p2, out);
    cr_assert(isnan(out[0]), "the lookback is 1");
    cr_assert_eq(out[1], 1.0);
    cr_assert_eq(out[2], 3.0);
    cr_assert_eq(out[3], 3.0);
    cr_assert(isnan(out[4]), "a window without volume has no weight: %g", out[4]);
    run_whole(APO_CAT_VWMA, &s, p1, out);
    cr_assert(out[0] == 1.0 && isnan(out[1]) && out[2] == 3.0, "period 1: the close, or NaN");
    series_free(&s);
}

/* adr, cmf, rvol and vwma fed piece by piece (apo__cpu_catalog_resume, pieces of 1 to 37 bars:
 * the per-bar step and the chunks, never the blocks side by side) give the bits of the whole
 * row run at once (the blocks side by side, and on the CPU cmf's flows in vector lanes), over
 * flat and inverted bars (cmf's flow 0, which the lanes give as -0), volumes of 0 and -0, a
 * stretch without trades, a gap and an infinity; periods on both sides of the anchors'
 * spacings (kernels/common/sliding_plain.h). */
Test(volume_ta08, plain_slides_pieces_have_the_whole_rows_bits) {
    const size_t n = 3000;
    const struct {
        apo__cat_id id;
        cols_kind cols;
    } kernels[] = {{APO_CAT_ADR, HL}, {APO_CAT_CMF, HLCV}, {APO_CAT_RVOL, V}, {APO_CAT_VWMA, CV}};
    const double periods[] = {2, 14, 20, 64, 65, 300};
    double *whole = alloc_doubles(n), *pieces = alloc_doubles(n);
    for (size_t ki = 0; ki < sizeof kernels / sizeof kernels[0]; ki++) {
        series s;
        series_make(&s, 40 + ki, n, kernels[ki].cols, 100.0, 0.5, 0);
        for (size_t t = 0; t < n; t++) {
            if (t % 7 == 3)
                s.col[1][t] = s.col[0][t];
            if (t % 11 == 5) {
                const double high = s.col[0][t];
                s.col[0][t] = s.col[1][t];
                s.col[1][t] = high;
            }
            if (t % 5 == 1 || (t >= 400 && t < 480))
                s.col[3][t] = 0.0;
            if (t % 13 == 2)
                s.col[3][t] = -0.0;
        }
        s.col[2][777] = NAN;
        s.col[3][1500] = INFINITY;
        s.col[0][2100] = NAN;
        for (size_t pi = 0; pi < sizeof periods / sizeof periods[0]; pi++) {
            const double p[3] = {periods[pi], 0, 0};
            run_whole(kernels[ki].id, &s, p, whole);
            apo__cat_io io;
            double *outs[1] = {pieces};
            io_make(&io, kernels[ki].id, &s, p, outs, 1);
            void *state = calloc(1, apo__catalog_resume_size(kernels[ki].id));
            cr_assert_not_null(state);
            size_t piece = 1;
            for (size_t t = 0; t < n; piece = piece % 37 + 1) {
                const size_t stop = t + piece < n ? t + piece : n;
                apo__cpu_catalog_resume(kernels[ki].id, &io, state, t == 0, 0, stop);
                t = stop;
            }
            free(state);
            for (size_t t = 0; t < n; t++)
                cr_assert(memcmp(&whole[t], &pieces[t], sizeof whole[t]) == 0,
                          "kernel %zu, period %g: t %zu pieces %.17g, whole %.17g", ki, p[0], t,
                          pieces[t], whole[t]);
        }
        series_free(&s);
    }
    free(whole);
    free(pieces);
}
