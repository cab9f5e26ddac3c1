/*
 * test_statistics_more5.c: TA-Lib 0.8's RVI in the statistics' room (kernels/statistics/
 * rvi_tile.h) against its long-double reference (catalog_reference_talib_more5.c) through group
 * 2's shared check (talib_more2_cases.h), and by hand: the legs' seed, a tie that feeds neither
 * leg, TA-Lib's 50 where both legs are 0, and a gap that both legs skip; and its vector lanes on
 * every path.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_dispatch.h"
#include "catalog_reference_talib_more5.h"
#include "cpu_isa.h"
#include "talib_more2_cases.h"

/* The defaults, the shortest periods, a long smoothing of a short window and a long window. */
static const more2_case cases[] = {
    {APO_CAT_RVI, "rvi", CLOSE, 1, apo__ref_cat_rvi, {14, 10}},
    {APO_CAT_RVI, "rvi", CLOSE, 1, apo__ref_cat_rvi, {1, 2}},
    {APO_CAT_RVI, "rvi", CLOSE, 1, apo__ref_cat_rvi, {200, 3}},
    {APO_CAT_RVI, "rvi", CLOSE, 1, apo__ref_cat_rvi, {5, 120}},
};
MORE2_TABLE_TESTS(statistics_more5, cases)

static void run_rvi(const double *x, double p, double s, double *out, size_t n) {
    const double par[2] = {p, s};
    run_tile_once(APO_CAT_RVI, &x, 1, par, 2, &out, 1, n);
}

/* timeperiod 2, stddevperiod 2: sigma of two closes is half their distance. */
Test(statistics_more5, rvi_by_hand) {
    const double x[] = {10, 12, 11, 11, 15, 7, NAN, 8, 9};
    enum { N = sizeof x / sizeof x[0] };
    double out[N];
    run_rvi(x, 2, 2, out, N);
    cr_assert(isnan(out[0]) && isnan(out[1]), "lookback (2 - 1) + (2 - 1) = 2");
    /* Bar 1: up 1; bar 2: down 0.5. Seed up 0.5, down 0.25: 100 * 0.5 / 0.75. */
    cr_assert(fabs(out[2] - 200.0 / 3.0) < 1e-13, "bar 2: %.17g", out[2]);
    /* Bar 3 is a tie (sigma 0, and neither leg): up 0.25, down 0.125, the same ratio. */
    cr_assert(fabs(out[3] - 200.0 / 3.0) < 1e-13, "bar 3: %.17g", out[3]);
    /* Bar 4: up (0.25 + 2) / 2 = 1.125, down 0.0625: 100 * 1.125 / 1.1875. */
    cr_assert(fabs(out[4] - 100.0 * 1.125 / 1.1875) < 1e-12, "bar 4: %.17g", out[4]);
    /* Bar 5: up 0.5625, down (0.0625 + 4) / 2 = 2.03125. */
    cr_assert(fabs(out[5] - 100.0 * 0.5625 / 2.59375) < 1e-12, "bar 5: %.17g", out[5]);
    /* The NaN at 6 is in the windows of bars 6 and 7; bar 8 (up 0.5) steps from bar 5's legs. */
    cr_assert(isnan(out[6]) && isnan(out[7]), "gap: %g %g", out[6], out[7]);
    cr_assert(fabs(out[8] - 100.0 * 0.53125 / (0.53125 + 1.015625)) < 1e-12, "bar 8: %.17g",
              out[8]);
}

/* Flat closes: both legs exactly 0, TA-Lib's 50. */
Test(statistics_more5, rvi_of_flat_closes_is_50) {
    double x[40], out[40];
    for (size_t t = 0; t < 40; t++)
        x[t] = 3.25;
    run_rvi(x, 14, 10, out, 40);
    for (size_t t = 0; t < 22; t++)
        cr_assert(isnan(out[t]), "bar %zu", t);
    for (size_t t = 22; t < 40; t++)
        cr_assert_eq(out[t], 50.0, "bar %zu: %g", t, out[t]);
}

/* Closes drawn from a few values (a generator seeded with seed), so that ties (a move of 0,
 * neither leg) and flat windows (sigma 0) meet in every lane: flat for the first 200 bars
 * (both legs exactly 0) and for 300 bars from 3000 (after the legs have grown), a NaN or an
 * infinity at each offset modulo 8 from 1000 on. */
static void rvi_closes(double *x, size_t n, uint64_t seed) {
    static const double values[] = {-2.0, -1.0, -0.0, 0.0, 1.0, 3.5};
    uint64_t state = seed;
    for (size_t t = 0; t < n; t++) {
        state = state * 6364136223846793005u + 1442695040888963407u;
        x[t] = t < 200 ? 3.25 : t >= 3000 && t < 3300 ? 1.0 : values[(state >> 33) % 6];
    }
    for (size_t k = 0; k < 24; k++)
        x[1000 + 17 * k] = k % 2 == 0 ? NAN : -INFINITY;
}

/* rvi_tile.h's steady lanes (the legs' terms and the outputs of several vectors of bars at
 * once) and the bar-by-bar steps they fall back to (the seed, a window with a gap), on every
 * path this CPU has, with the output at the start of a 64-byte line and three doubles past
 * it: within 1e-12 of the long-double reference at every bar, and the bits of sse2's run. */
Test(statistics_more5, rvi_lanes_on_every_path_with_flats_ties_and_gaps) {
    enum { N = 4001 };
    static const double params[][2] = {{14, 10}, {2, 2}, {5, 40}};
    double *x = malloc(N * sizeof *x), *want = malloc(N * sizeof *want),
           *scale = malloc(N * sizeof *scale), *first = malloc(N * sizeof *first),
           *line = aligned_alloc(64, ((N + 8) * sizeof(double) + 63) / 64 * 64);
    cr_assert(x && want && scale && first && line);
    rvi_closes(x, N, 2026);
    for (size_t c = 0; c < sizeof params / sizeof params[0]; c++) {
        const double *p = params[c];
        const double *in[1] = {x};
        double *outs[1] = {want}, *scales[1] = {scale};
        apo__ref_cat_rvi(in, N, p, outs, scales);
        apo__cat_io io;
        memset(&io, 0, sizeof io);
        io.in[0] = x;
        io.p[0] = p[0];
        io.p[1] = p[1];
        io.h = apo__catalog_halo(APO_CAT_RVI, p);
        for (int isa = APO_CPU_ISA_SSE2; isa <= APO_CPU_ISA_LAST; isa++) {
            if (!apo__cpu_isa_supported((apo__cpu_isa)isa))
                continue;
            const char *name = apo__cpu_isa_name((apo__cpu_isa)isa);
            for (size_t offset = 0; offset < 8; offset += 3) {
                io.out[0] = line + offset;
                apo__cpu_catalog_tile_on(APO_CAT_RVI, &io, 0, N, isa);
                const double *got = io.out[0];
                if (isa == APO_CPU_ISA_SSE2 && offset == 0)
                    memcpy(first, got, N * sizeof *got);
                for (size_t t = 0; t < N; t++) {
                    cr_assert(isnan(want[t]) ? isnan(got[t])
                                             : fabs(got[t] - want[t]) <= 1e-12 * scale[t],
                              "rvi(%g, %g) on %s at %zu: got %.17g want %.17g", p[0], p[1], name, t,
                              got[t], want[t]);
                    cr_assert(apo__bits_of(got[t]) == apo__bits_of(first[t]),
                              "rvi(%g, %g) on %s, output %zu doubles into a line, at %zu: "
                              "%.17g, sse2's %.17g",
                              p[0], p[1], name, offset, t, got[t], first[t]);
                }
            }
        }
    }
    free(x), free(want), free(scale), free(first), free(line);
}
