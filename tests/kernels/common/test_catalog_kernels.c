/*
 * test_catalog_kernels.c: the indicator catalog's tile bodies (kernels/common/catalog.h)
 * against independent long-double references (catalog_reference.c): parameters at their
 * bounds, short windows bar by bar, each design's switches and fallbacks, ties and gaps on
 * every vector path, tile order and joins, and the recurrences' first tiles bitwise against
 * TA-Lib's recursion in double, with TA-Lib's published values. The costliest cases (every
 * kernel over lengths 1 to 1e5, the halo check, streams' pieces) are the slow suite's, in
 * test_catalog_kernels_slow.c; catalog_fixtures.c holds the table and helpers both use.
 *
 * Measured worst errors are printed on stderr; docs/kernels.md quotes them.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "beta_tile.h"
#include "catalog_dispatch.h"
#include "catalog_fixtures.h"
#include "catalog_reference.h"
#include "correl_tile.h"
#include "cpu_isa.h"
#include "linearreg_tile.h"
#include "var_tile.h"
#include "window_plain.h"

/* The longest periods the parameters allow, on a series just long enough for them. */
Test(catalog, periods_at_their_upper_bound, .timeout = 600) {
    for (size_t ki = 0; ki < n_catalog_kernels; ki++) {
        const ref_kernel *k = &catalog_kernels[ki];
        if (k->min_period == 0)
            continue;
        series s;
        series_make(&s, 7 + ki, 100000 + 3, k->n_in, 50.0, 0.25, 0);
        const double p[APO_CAT_MAX_PAR] = {100000, k->def[0], k->def[1], k->def[2]};
        check_against_reference(k, &s, p, 1e-12, "period 100000");
        series_free(&s);
    }
}

/* TA-Lib's recursions, written from its definitions in plain double (the operation order
 * its sources use: 0.8's fused step for atr), on a series without gaps: the catalog's first tile
 * must have these bits, and later tiles (warm-up) agree to far below an ulp of the data. */
static void talib_ema(const double *x, size_t n, size_t q, double *out) {
    const double k = 2.0 / (double)(q + 1);
    double sum = 0;
    for (size_t t = 0; t < n; t++) {
        out[t] = NAN;
        if (t < q) {
            sum += x[t];
            if (t == q - 1) {
                sum = sum / (double)q;
                out[t] = sum;
            }
            continue;
        }
        sum = ((x[t] - sum) * k) + sum;
        out[t] = sum;
    }
}

static void talib_atr(const series *s, size_t q, double *out) {
    double a = 0;
    for (size_t t = 0; t < s->n; t++) {
        out[t] = NAN;
        if (t == 0)
            continue;
        const double h = s->high[t], l = s->low[t], c = s->close[t - 1];
        double tr = h - l;
        if (fabs(c - h) > tr)
            tr = fabs(c - h);
        if (fabs(l - c) > tr)
            tr = fabs(l - c);
        if (t <= q) {
            a += tr;
            if (t == q) {
                a = a / (double)q;
                out[t] = a;
            }
            continue;
        }
        /* TA-Lib 0.8's fused step (its TA_ATR built for FMA): keep (q - 1) / q of the
         * average and 1 - that of the true range, one rounding for the product and the sum. */
        const double keep = (double)(q - 1) / (double)q;
        a = fma(a, keep, tr * (1.0 - keep));
        out[t] = a;
    }
}

Test(catalog, recurrences_have_talib_bits_in_their_first_tile, .timeout = 300) {
    const size_t periods[] = {1, 2, 3, 14, 30, 200};
    for (size_t pi = 0; pi < sizeof periods / sizeof periods[0]; pi++) {
        const size_t q = periods[pi];
        const double pq[4] = {(double)q, 0, 0, 0};
        /* Both kernels' grids must have later tiles: atr's tiles are shorter than ema's. */
        const size_t len_atr = apo__catalog_tile_len(APO_CAT_ATR, pq);
        const size_t len_ema = q < 2 ? 0 : apo__catalog_tile_len(APO_CAT_EMA, pq);
        const size_t len = len_atr > len_ema ? len_atr : len_ema;
        series s;
        series_make(&s, 5 + pi, 2 * len + 999, 3, 100.0, 0.5, 0);
        double *got = alloc_doubles(s.n), *want = alloc_doubles(s.n);
        for (int which = 0; which < 2; which++) {
            const apo__cat_id id = which == 0 ? APO_CAT_EMA : APO_CAT_ATR;
            if (id == APO_CAT_EMA && q < 2)
                continue;
            const double p[APO_CAT_MAX_PAR] = {(double)q, 0, 0, 0};
            series one = s;
            if (id == APO_CAT_EMA)
                one.in[0] = s.close;
            run_grid(id, &one, p, got, 0);
            if (id == APO_CAT_EMA)
                talib_ema(s.close, s.n, q, want);
            else
                talib_atr(&s, q, want);
            const size_t first = apo__catalog_tile_len(id, p);
            cr_assert(first < s.n, "the series must span several tiles");
            size_t differ = 0;
            for (size_t t = 0; t < s.n; t++) {
                if (t < first) {
                    cr_assert(memcmp(&got[t], &want[t], sizeof got[t]) == 0 ||
                                  (isnan(got[t]) && isnan(want[t])),
                              "%s(%zu) t %zu: %.17g, TA-Lib %.17g",
                              id == APO_CAT_EMA ? "ema" : "atr", q, t, got[t], want[t]);
                } else {
                    cr_assert(fabs(got[t] - want[t]) <= 1e-14 * 200, "t %zu", t);
                    differ += got[t] != want[t];
                }
            }
            fprintf(stderr, "catalog %s(%zu): %zu of %zu later outputs differ from TA-Lib's bits\n",
                    id == APO_CAT_EMA ? "ema" : "atr", q, differ, s.n - first);
        }
        free(got);
        free(want);
        series_free(&s);
    }
}

/* A call of kernel k over series s with parameters p: its output into out, the others into
 * other; io.tile 0 (each call one tile). */
static void io_of(apo__cat_io *io, const ref_kernel *k, const series *s, const double *p,
                  double *out, double *other) {
    memset(io, 0, sizeof *io);
    for (size_t i = 0; i < 3; i++)
        io->in[i] = s->in[i];
    for (size_t o = 0; o < APO_CAT_MAX_OUT; o++)
        io->out[o] = o == k->out_index ? out : other;
    for (size_t i = 0; i < 4; i++)
        io->p[i] = p[i];
    io->h = apo__catalog_halo(k->id, p);
}

/* Any tile grid of the same tile length gives the same bits whatever order its tiles run in,
 * and a tile's bits do not depend on the other tiles' outputs (they are written first with
 * poison). */
Test(catalog, tiles_depend_on_the_grid_only) {
    for (size_t ki = 0; ki < n_catalog_kernels; ki++) {
        const ref_kernel *k = &catalog_kernels[ki];
        series s;
        series_make(&s, 31 + ki, 3 * 4096 + 1000, k->n_in, 100.0, 0.5, 1);
        const double p[APO_CAT_MAX_PAR] = {k->min_period == 0 ? 0 : 9, k->def[0], k->def[1],
                                           k->def[2]};
        double *a = alloc_doubles(s.n), *b = alloc_doubles(s.n);
        run_grid(k->id, &s, p, a, k->out_index);
        apo__cat_io io;
        double *other = alloc_doubles(s.n);
        io_of(&io, k, &s, p, b, other);
        const size_t len = apo__catalog_tile_len(k->id, p);
        for (size_t t = 0; t < s.n; t++)
            b[t] = -1.0;
        for (size_t b0 = 0; b0 < s.n; b0 += len)
            apo__cpu_catalog_tile(k->id, &io, b0, b0 + len < s.n ? b0 + len : s.n);
        cr_assert(memcmp(a, b, s.n * sizeof *a) == 0, "%s: tile order changed bits", k->name);
        free(other);
        free(a);
        free(b);
        series_free(&s);
    }
}

/* A kernel whose tiles join (apo__catalog_tiles_join) gives each tile's bits in one call over
 * several: the whole series and a union starting at the second tile, with the grid in
 * io.tile (ema runs such tiles side by side, ema_tile.h), against one call per tile; with
 * gaps, one at the last bar of a tile's warm-up and one at a tile's first bar. */
Test(catalog, joined_tiles_have_each_tiles_bits) {
    const double periods[] = {2, 9, 30, 200};
    for (size_t ki = 0; ki < n_catalog_kernels; ki++)
        for (size_t pi = 0; pi < sizeof periods / sizeof periods[0]; pi++) {
            const ref_kernel *k = &catalog_kernels[ki];
            if (!apo__catalog_tiles_join(k->id))
                continue;
            const double p[APO_CAT_MAX_PAR] = {k->min_period == 0 ? 0 : periods[pi], k->def[0],
                                               k->def[1], k->def[2]};
            const size_t len = apo__catalog_tile_len(k->id, p);
            series s;
            series_make(&s, 41 + ki + pi, 5 * len + 777, k->n_in, 100.0, 0.5, 1);
            s.close[2 * len - 1] = NAN;
            s.close[3 * len] = INFINITY;
            double *a = alloc_doubles(s.n), *b = alloc_doubles(s.n);
            run_grid(k->id, &s, p, a, k->out_index);
            apo__cat_io io;
            double *other = alloc_doubles(s.n);
            io_of(&io, k, &s, p, b, other);
            io.tile = len;
            const size_t from[] = {0, len};
            for (size_t f = 0; f < 2; f++) {
                for (size_t t = 0; t < s.n; t++)
                    b[t] = a[t];
                for (size_t t = from[f]; t < s.n; t++)
                    b[t] = -1.0;
                apo__cpu_catalog_tile(k->id, &io, from[f], s.n);
                for (size_t t = 0; t < s.n; t++)
                    cr_assert(memcmp(&a[t], &b[t], sizeof a[t]) == 0,
                              "%s(%g) from %zu: t %zu joined %.17g, tile by tile %.17g", k->name,
                              p[0], from[f], t, b[t], a[t]);
            }
            free(other);
            free(a);
            free(b);
            series_free(&s);
        }
}

/* Samples full of ties (-1, -0, +0 and 1 at random): max and min must give the latest of the
 * equal samples ending each window (TA-Lib's >=, which decides the sign of a zero), bit for bit
 * against a naive scan, aroon the latest extreme's position, and willr and stochf's fastk their
 * 0 where the window is flat (H = L), against their references, on every vector path and for
 * periods on both sides of the doubling's bound (window_extreme.h). */
Test(catalog, range_kernels_on_samples_full_of_ties) {
    const size_t n = 3000, periods[] = {1, 2, 3, 14, 30, 63, 64, 65, 256, 257};
    const double values[] = {-1.0, -0.0, 0.0, 1.0};
    series s;
    series_of_ties(&s, 12345, n, values, sizeof values / sizeof values[0]);
    double *got = alloc_doubles(n), *want = alloc_doubles(n), *scale = alloc_doubles(n);
    for (int isa = APO_CPU_ISA_SSE2; isa <= APO_CPU_ISA_LAST; isa++) {
        if (!apo__cpu_isa_supported((apo__cpu_isa)isa))
            continue;
        for (size_t pi = 0; pi < sizeof periods / sizeof periods[0]; pi++) {
            const size_t q = periods[pi];
            const double p[APO_CAT_MAX_PAR] = {(double)q, 0, 0, 0};
            for (int largest = 0; largest < 2; largest++) {
                /* max and min read in[0], the highs here. */
                run_grid_on(largest ? APO_CAT_MAX : APO_CAT_MIN, &s, p, got, 0, isa);
                for (size_t t = q - 1; t < n; t++) {
                    double e = s.high[t + 1 - q];
                    for (size_t i = t + 2 - q; i <= t; i++)
                        e = (largest ? s.high[i] >= e : s.high[i] <= e) ? s.high[i] : e;
                    cr_assert_eq(apo__bits_of(got[t]), apo__bits_of(e),
                                 "%s(%zu) on %s at %zu: got %g want %g", largest ? "max" : "min", q,
                                 apo__cpu_isa_name((apo__cpu_isa)isa), t, got[t], e);
                }
            }
            static const char *const names[] = {"aroondown", "aroonup", "willr", "stochf fastk"};
            for (size_t r = 0; r < 4; r++) {
                const ref_kernel *k = kernel_named(names[r]);
                if (q < k->min_period)
                    continue;
                /* stochf's fastd over 1 bar: fastk's lead */
                const double pk[4] = {(double)q, k->id == APO_CAT_STOCHF ? 1 : 0, 0, 0};
                run_grid_on(k->id, &s, pk, got, k->out_index, isa);
                k->ref(s.in, n, pk, want, scale);
                for (size_t t = 0; t < n; t++)
                    cr_assert(isnan(want[t]) ? isnan(got[t])
                                             : fabs(got[t] - want[t]) <= 1e-12 * scale[t],
                              "%s(%zu) on %s at %zu: got %.17g want %.17g", k->name, q,
                              apo__cpu_isa_name((apo__cpu_isa)isa), t, got[t], want[t]);
            }
        }
    }
    free(got);
    free(want);
    free(scale);
    series_free(&s);
}

/* TA-Lib's published regression values on its 252-bar close series (its test_rsi.c: RSI(14)
 * at indices 14, 15, 16 and 251, CMO(14) at 14; its test_ma.c: SMA, WMA, EMA), to the
 * decimals it publishes. */
Test(catalog, talib_regression_values) {
    const char *path = APO_TEST_DATA_DIR "/talib_close252.f64";
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot open %s", path);
    double *x = alloc_doubles(252), *out = alloc_doubles(252);
    /* Raw little-endian float64, as tests/kernels/test_kernels.c reads it. */
    const size_t got = fread(x, sizeof(double), 252, f);
    fclose(f);
    cr_assert_eq(got, 252);
    series s;
    memset(&s, 0, sizeof s);
    s.n = 252;
    s.in[0] = x;
    const double p[APO_CAT_MAX_PAR] = {14, 0, 0, 0};
    run_grid(APO_CAT_RSI, &s, p, out, 0);
    cr_assert(isnan(out[13]));
    const size_t at[] = {14, 15, 16, 251};
    const double want[] = {49.14, 52.32, 46.07, 49.63};
    for (size_t i = 0; i < 4; i++)
        cr_assert(fabs(out[at[i]] - want[i]) < 0.01, "rsi[%zu] = %.4f, TA-Lib %.2f", at[i],
                  out[at[i]], want[i]);
    run_grid(APO_CAT_CMO, &s, p, out, 0);
    cr_assert(fabs(out[14] - -1.70) < 0.01, "cmo[14] = %.4f, TA-Lib -1.70", out[14]);
    /* Its test_ma.c (default compatibility): {kernel, period, index, value}. */
    static const struct {
        apo__cat_id id;
        double period;
        size_t at;
        double want;
    } ma[] = {
        {APO_CAT_SMA, 2, 1, 93.15},       {APO_CAT_SMA, 2, 2, 94.59},
        {APO_CAT_SMA, 2, 251, 108.31},    {APO_CAT_SMA, 30, 29, 90.42},
        {APO_CAT_SMA, 30, 30, 90.21},     {APO_CAT_SMA, 30, 251, 108.42},
        {APO_CAT_WMA, 2, 1, 93.71},       {APO_CAT_WMA, 2, 2, 94.52},
        {APO_CAT_WMA, 2, 251, 108.16},    {APO_CAT_WMA, 30, 29, 88.567},
        {APO_CAT_WMA, 30, 251, 109.3466}, {APO_CAT_EMA, 2, 1, 93.15},
        {APO_CAT_EMA, 2, 2, 93.96},       {APO_CAT_EMA, 2, 251, 108.21},
        {APO_CAT_EMA, 10, 9, 93.22},      {APO_CAT_EMA, 10, 10, 93.75},
        {APO_CAT_EMA, 10, 29, 86.46},     {APO_CAT_EMA, 10, 251, 108.97},
    };
    for (size_t i = 0; i < sizeof ma / sizeof ma[0]; i++) {
        const double pm[4] = {ma[i].period, 0, 0, 0};
        run_grid(ma[i].id, &s, pm, out, 0);
        cr_assert(isnan(out[(size_t)ma[i].period - 2]));
        cr_assert(fabs(out[ma[i].at] - ma[i].want) < 0.01, "kernel %d(%g)[%zu] = %.4f, TA-Lib %g",
                  (int)ma[i].id, ma[i].period, ma[i].at, out[ma[i].at], ma[i].want);
    }
    free(x);
    free(out);
}
