/*
 * test_catalog_cumulative.c: the catalog's whole-row kernels, the running sums obv, ad and vwap
 * (kernels/volume/obv_tile.h, ad_tile.h, vwap_tile.h), the volume indexes nvi and pvi (nvi_tile.h),
 * the price volume trend pvt (pvt_tile.h) and the parabolic SAR's sar and sarext
 * (kernels/trend/sar_tile.h), against independent long-double references
 * (catalog_reference_cumulative.c, catalog_reference_stats_sar.c) on seeded OHLCV walks of lengths
 * 1 to 2e5 with ties, flat and inverted bars and gaps; obv, ad, vwap, nvi and pvi bitwise against
 * TA-Lib's recursion written in plain double on every output, over several tiles; the same bits for
 * any cut of a row into tiles, in any order; small series worked by hand.
 *
 * Measured worst errors are printed on stderr; docs/kernels.md quotes them.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_compare.h"
#include "catalog_dispatch.h"
#include "catalog_reference.h"
#include "catalog_reference_cumulative.h"
#include "catalog_reference_new_volume.h"
#include "catalog_reference_stats_sar.h"
#include "catalog_reference_talib_more1.h"
#include "catalog_reference_talib_more2.h"
#include "cpu_isa.h"
#include "reference.h"

typedef struct cum_kernel {
    apo__cat_id id;
    const char *name;
    size_t n_in;
    size_t cols[4]; /* its inputs, as columns of series.col */
    apo__cat_ref_more_fn ref;
    size_t lookback;
    double p[APO_CAT_MAX_PAR]; /* its parameters (none: zeros) */
} cum_kernel;

enum { HIGH, LOW, CLOSE, VOLUME };

/* The running sums and products and the path-dependent SAR, which read their rows from the
 * first bar (tests/kernels/trend/test_trend.c names sar and sarext, and
 * tests/kernels/transforms/test_transforms.c cumsum, whose rows these are). */
static const cum_kernel kernels[] = {
    {APO_CAT_OBV, "obv", 2, {CLOSE, VOLUME}, apo__ref_cat_obv, 0, {0}},
    {APO_CAT_AD, "ad", 4, {HIGH, LOW, CLOSE, VOLUME}, apo__ref_cat_ad, 0, {0}},
    {APO_CAT_NVI, "nvi", 2, {CLOSE, VOLUME}, apo__ref_cat_nvi, 0, {0}},
    {APO_CAT_PVI, "pvi", 2, {CLOSE, VOLUME}, apo__ref_cat_pvi, 0, {0}},
    {APO_CAT_SAR, "sar", 2, {HIGH, LOW}, apo__ref_cat_sar, 1, {0.02, 0.2}},
    /* An acceleration above its maximum is the maximum (TA-Lib's correction). */
    {APO_CAT_SAR, "sar (0.3, 0.25)", 2, {HIGH, LOW}, apo__ref_cat_sar, 1, {0.3, 0.25}},
    {APO_CAT_SAREXT,
     "sarext",
     2,
     {HIGH, LOW},
     apo__ref_cat_sarext,
     1,
     {0, 0, 0.02, 0.02, 0.2, 0.02, 0.02, 0.2}},
    /* Forced long and short starts, offsets on reverse, long and short sides apart, an initial
     * acceleration and an increment above their maximum. */
    {APO_CAT_SAREXT,
     "sarext long start",
     2,
     {HIGH, LOW},
     apo__ref_cat_sarext,
     1,
     {95, 0.01, 0.03, 0.01, 0.15, 0.05, 0.04, 0.3}},
    {APO_CAT_SAREXT,
     "sarext short start",
     2,
     {HIGH, LOW},
     apo__ref_cat_sarext,
     1,
     {-120, 0.002, 0.5, 0.6, 0.4, 0.01, 0.02, 0.1}},
    {APO_CAT_PVT, "pvt", 2, {CLOSE, VOLUME}, apo__ref_cat_pvt, 0, {0}},
    /* wad (kernels/oscillators/wad_tile.h; its family's test names it too). */
    {APO_CAT_WAD, "wad", 3, {HIGH, LOW, CLOSE}, apo__ref_cat_wad, 0, {0}},
    {APO_CAT_CUMSUM, "cumsum", 1, {CLOSE}, apo__ref_cat_cumsum, 0, {0}},
    {APO_CAT_VWAP, "vwap", 4, {HIGH, LOW, CLOSE, VOLUME}, apo__ref_cat_vwap, 0, {0}},
};
#define N_KERNELS (sizeof kernels / sizeof kernels[0])

typedef struct series {
    size_t n;
    double *col[4]; /* high, low, close, volume */
} series;

/* What a series holds besides the walk. */
enum { PLAIN = 0, ODD_BARS = 1, GAPS = 2 };

static void series_make(series *s, uint64_t seed, size_t n, int what) {
    s->n = n;
    for (size_t i = 0; i < 4; i++)
        s->col[i] = alloc_doubles(n);
    apo__ref_ohlcv(seed, n, 100.0, 0.5, NULL, s->col[HIGH], s->col[LOW], s->col[CLOSE],
                   s->col[VOLUME]);
    if (what & ODD_BARS) {
        /* Ties (obv's unchanged branch), bars without range and bars with high below low
         * (ad adds nothing for either). */
        for (size_t t = 1; t < n; t++) {
            if (t % 7 == 0)
                s->col[CLOSE][t] = s->col[CLOSE][t - 1];
            if (t % 11 == 0)
                s->col[HIGH][t] = s->col[LOW][t] = s->col[CLOSE][t];
            if (t % 13 == 0) {
                const double h = s->col[HIGH][t];
                s->col[HIGH][t] = s->col[LOW][t];
                s->col[LOW][t] = h;
            }
        }
    }
    if (what & GAPS) {
        /* A leading gap, a lone NaN, an infinity, a run and a gap near the end, spread over
         * the columns in turn (volume alone, close alone, ...). */
        const size_t at[] = {0, n / 7, n / 3, n / 2, n / 2 + 1, n / 2 + 2, n - 1 - n / 50};
        for (size_t i = 0; i < sizeof at / sizeof at[0]; i++)
            if (at[i] < n)
                s->col[(i + 2) % 4][at[i]] = i == 2 ? -INFINITY : NAN;
    }
}

static void series_free(series *s) {
    for (size_t i = 0; i < 4; i++)
        free(s->col[i]);
}

static void io_make(apo__cat_io *io, const cum_kernel *k, const series *s, double *out) {
    memset(io, 0, sizeof *io);
    for (size_t i = 0; i < k->n_in; i++)
        io->in[i] = s->col[k->cols[i]];
    io->out[0] = out;
    for (size_t i = 0; i < APO_CAT_MAX_PAR; i++)
        io->p[i] = k->p[i];
    io->h = apo__catalog_halo(k->id, io->p);
}

/* Runs the kernel over the tile grid of apo__catalog_tile_len, the tiles backwards. */
static void run_grid(const cum_kernel *k, const series *s, double *out) {
    apo__cat_io io;
    io_make(&io, k, s, out);
    const size_t len = apo__catalog_tile_len(k->id, io.p);
    const size_t tiles = (s->n + len - 1) / len;
    for (size_t j = tiles; j-- > 0;) {
        const size_t b = j * len, e = b + len < s->n ? b + len : s->n;
        apo__cpu_catalog_tile(k->id, &io, b, e);
    }
}

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* Every output against the reference: NaN exactly where it is NaN, else within tol of the
 * scale. Returns the worst error relative to the scale. */
static double check(const cum_kernel *k, const series *s, double tol, const char *what) {
    const size_t n = s->n;
    double *got = alloc_doubles(n), *want = alloc_doubles(n), *scale = alloc_doubles(n);
    for (size_t t = 0; t < n; t++)
        got[t] = -12345.678;
    if (n > 0)
        run_grid(k, s, got);
    const double *in[4];
    for (size_t i = 0; i < k->n_in; i++)
        in[i] = s->col[k->cols[i]];
    k->ref(in, n, k->p, &want, &scale);
    const double worst = compare_with_reference(k->name, what, got, want, scale, n, tol, 1);
    free(got);
    free(want);
    free(scale);
    return worst;
}

Test(catalog_cumulative, every_kernel_against_its_long_double_reference, .timeout = 300) {
    const size_t tile = APO_CAT_WHOLE_ROW_TILE;
    const size_t lengths[] = {1,    2,     3,      15,   31,       500,
                              4097, 20011, 100000, tile, tile + 1, 3 * tile + 1234};
    for (size_t ki = 0; ki < N_KERNELS; ki++) {
        const cum_kernel *k = &kernels[ki];
        double worst = 0;
        for (size_t li = 0; li < sizeof lengths / sizeof lengths[0]; li++)
            for (int what = 0; what < 4; what++) {
                series s;
                series_make(&s, 4000 + 100 * ki + 10 * li + (uint64_t)what, lengths[li], what);
                char label[64];
                snprintf(label, sizeof label, "n %zu odd bars %d gaps %d", lengths[li],
                         (what & ODD_BARS) != 0, (what & GAPS) != 0);
                const double w = check(k, &s, 1e-12, label);
                worst = w > worst ? w : worst;
                series_free(&s);
            }
        fprintf(stderr, "catalog %s: worst error %.2g of the scale\n", k->name, worst);
    }
}

/* Whole-share volumes: every partial sum of obv is an integer below 2^53, so the double sum is
 * exact and must equal the reference exactly. */
Test(catalog_cumulative, obv_of_whole_share_volumes_is_exact, .timeout = 120) {
    series s;
    series_make(&s, 17, 3 * APO_CAT_WHOLE_ROW_TILE + 99, ODD_BARS | GAPS);
    for (size_t t = 0; t < s.n; t++)
        if (isfinite(s.col[VOLUME][t]))
            s.col[VOLUME][t] = floor(s.col[VOLUME][t]);
    cr_assert_eq(check(&kernels[0], &s, 0.0, "whole shares"), 0.0);
    series_free(&s);
}

/* TA-Lib's OBV and AD, written in plain double from its sources' operation order (obv seeded
 * with the first volume and compared with the previous close; ad from 0, adding where
 * high - low > 0). Without gaps every output, in every tile, must have these bits. */
static void talib_obv(const series *s, double *out) {
    const double *close = s->col[CLOSE], *volume = s->col[VOLUME];
    double obv = volume[0], prev = close[0];
    for (size_t t = 0; t < s->n; t++) {
        if (close[t] > prev)
            obv += volume[t];
        else if (close[t] < prev)
            obv -= volume[t];
        out[t] = obv;
        prev = close[t];
    }
}

static void talib_ad(const series *s, double *out) {
    double ad = 0.0;
    for (size_t t = 0; t < s->n; t++) {
        const double high = s->col[HIGH][t], low = s->col[LOW][t], close = s->col[CLOSE][t];
        const double tmp = high - low;
        if (tmp > 0.0)
            ad += (((close - low) - (high - close)) / tmp) * s->col[VOLUME][t];
        out[t] = ad;
    }
}

/* TA-Lib 0.8's VWAP: the typical price (high + low + close) / 3, its product with the volume
 * rounded and added to one sum, the volume to another, from 0, the output their quotient. */
static void talib_vwap(const series *s, double *out) {
    double flow = 0.0, volume = 0.0;
    for (size_t t = 0; t < s->n; t++) {
        const double tp = (s->col[HIGH][t] + s->col[LOW][t] + s->col[CLOSE][t]) / 3.0;
        const double product = tp * s->col[VOLUME][t];
        flow += product;
        volume += s->col[VOLUME][t];
        out[t] = flow / volume;
    }
}

/* TA-Lib 0.8's NVI and PVI: 1000 at the first bar; at a later bar whose volume fell (NVI) or
 * rose (PVI) from the bar before, and whose previous close is not 0, `next += (close - prev) /
 * prev * next` from the index, kept where finite. */
static void talib_volume_index(const series *s, int negative, double *out) {
    const double *close = s->col[CLOSE], *volume = s->col[VOLUME];
    double index = 1000.0;
    out[0] = index;
    for (size_t t = 1; t < s->n; t++) {
        const int moves = negative ? volume[t] < volume[t - 1] : volume[t] > volume[t - 1];
        if (moves && close[t - 1] != 0.0) {
            double next = index;
            next += (close[t] - close[t - 1]) / close[t - 1] * next;
            if (isfinite(next))
                index = next;
        }
        out[t] = index;
    }
}

static void talib_nvi(const series *s, double *out) { talib_volume_index(s, 1, out); }

static void talib_pvi(const series *s, double *out) { talib_volume_index(s, 0, out); }

typedef void (*talib_loop)(const series *s, double *out);

Test(catalog_cumulative, every_output_has_talib_bits, .timeout = 120) {
    const struct {
        apo__cat_id id;
        talib_loop talib;
    } loops[] = {{APO_CAT_OBV, talib_obv},
                 {APO_CAT_AD, talib_ad},
                 {APO_CAT_VWAP, talib_vwap},
                 {APO_CAT_NVI, talib_nvi},
                 {APO_CAT_PVI, talib_pvi}};
    for (size_t li = 0; li < sizeof loops / sizeof loops[0]; li++) {
        size_t ki = 0;
        while (kernels[ki].id != loops[li].id)
            ki++;
        for (int what = 0; what < 2; what++) {
            const cum_kernel *k = &kernels[ki];
            series s;
            series_make(&s, 50 + ki, 4 * APO_CAT_WHOLE_ROW_TILE + 4321, what);
            double *got = alloc_doubles(s.n), *want = alloc_doubles(s.n);
            run_grid(k, &s, got);
            loops[li].talib(&s, want);
            for (size_t t = 0; t < s.n; t++)
                cr_assert(same_bits(got[t], want[t]), "%s t %zu: %.17g, TA-Lib %.17g", k->name, t,
                          got[t], want[t]);
            free(got);
            free(want);
            series_free(&s);
        }
    }
}

/* An index that would overflow keeps its last finite value (TA-Lib's rule), on the CPU's
 * chunks of clean bars too (nvi_tile.h's apo__vi_chunk, which finds it after its chain): the
 * close grows by 1e10 a bar from 1e-10 for 32 bars, the volume falls (nvi) or rises (pvi) at
 * each, so the index would pass 1.8e308 at the 31st; then a walk near 1e300. Bitwise TA-Lib's
 * loop, over the tile grid and from each of the first 70 bars on. */
Test(catalog_cumulative, an_index_that_would_overflow_keeps_its_value, .timeout = 60) {
    for (int negative = 0; negative < 2; negative++) {
        const cum_kernel *k = &kernels[0];
        while (k->id != (negative ? APO_CAT_NVI : APO_CAT_PVI))
            k++;
        series s;
        series_make(&s, 31 + (uint64_t)negative, 700, PLAIN);
        for (size_t t = 0; t < s.n; t++) {
            if (t < 32) {
                s.col[CLOSE][t] = pow(10.0, 10.0 * (double)t - 10.0);
                s.col[VOLUME][t] = 1e6 + (negative ? -(double)t : (double)t);
            } else {
                s.col[CLOSE][t] = 1e298 * s.col[CLOSE][t];
            }
        }
        double *got = alloc_doubles(s.n), *want = alloc_doubles(s.n);
        talib_volume_index(&s, negative, want);
        cr_assert(want[31] == want[30] && want[30] > 1e302, "%s: the index stops at bar 31",
                  k->name);
        run_grid(k, &s, got);
        for (size_t t = 0; t < s.n; t++)
            cr_assert(same_bits(got[t], want[t]), "%s t %zu: %.17g, TA-Lib %.17g", k->name, t,
                      got[t], want[t]);
        apo__cat_io io;
        io_make(&io, k, &s, got);
        for (size_t b = 1; b < 70; b++) {
            for (size_t t = 0; t < s.n; t++)
                got[t] = -1.0;
            apo__cpu_catalog_tile(k->id, &io, b, s.n);
            for (size_t t = b; t < s.n; t++)
                cr_assert(same_bits(got[t], want[t]), "%s from %zu, t %zu: %.17g, TA-Lib %.17g",
                          k->name, b, t, got[t], want[t]);
        }
        free(got);
        free(want);
        series_free(&s);
    }
}

static size_t gcd(size_t a, size_t b) {
    while (b != 0) {
        const size_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

/* The bits do not even depend on the grid: a row cut at arbitrary points, the pieces run in
 * a shuffled order, gives the bits of one tile over the whole row. */
Test(catalog_cumulative, any_cut_of_a_row_gives_the_same_bits, .timeout = 120) {
    const size_t n = 70001;
    for (size_t ki = 0; ki < N_KERNELS; ki++) {
        const cum_kernel *k = &kernels[ki];
        series s;
        series_make(&s, 90 + ki, n, ODD_BARS | GAPS);
        double *whole = alloc_doubles(n), *cut = alloc_doubles(n);
        apo__cat_io io;
        io_make(&io, k, &s, whole);
        apo__cpu_catalog_tile(k->id, &io, 0, n);
        for (int trial = 0; trial < 5; trial++) {
            size_t bounds[34];
            size_t nb = 0;
            bounds[nb++] = 0;
            for (size_t b = 1; b < 33; b++) {
                const size_t at =
                    (size_t)(apo__test_uniform(700 + 10 * ki + (uint64_t)trial, b) * (double)n);
                if (at > bounds[nb - 1])
                    bounds[nb++] = at;
            }
            /* The uniform cuts are not sorted: keep the increasing ones, then the end. */
            bounds[nb++] = n;
            for (size_t t = 0; t < n; t++)
                cut[t] = -1.0;
            io_make(&io, k, &s, cut);
            /* Every piece once: a stride prime to the number of pieces. */
            size_t stride = 7;
            while (gcd(stride, nb - 1) != 1)
                stride++;
            for (size_t j = 0; j + 1 < nb; j++) {
                const size_t piece = (j * stride + (size_t)trial) % (nb - 1);
                apo__cpu_catalog_tile(k->id, &io, bounds[piece], bounds[piece + 1]);
            }
            cr_assert(memcmp(whole, cut, n * sizeof(double)) == 0, "%s trial %d: %zu pieces",
                      k->name, trial, nb - 1);
        }
        free(whole);
        free(cut);
        series_free(&s);
    }
}

/* Small series worked by hand from the definitions and the gap policy. */
Test(catalog_cumulative, worked_examples, .timeout = 60) {
    /* obv: seed 100; 11 > 10: +200; a tie; a gap (NaN, not a previous close); 10 < 11 (the
     * last clean close): -500; 12 > 10: +600. */
    double close[] = {10, 11, 11, NAN, 10, 12}, volume[] = {100, 200, 300, 400, 500, 600};
    const double obv_want[] = {100, 300, 300, NAN, -200, 400};
    double out[6];
    apo__cat_io io;
    memset(&io, 0, sizeof io);
    io.in[0] = close;
    io.in[1] = volume;
    io.out[0] = out;
    for (size_t b = 0; b < 6; b++) /* every cut into two tiles */
        for (size_t e = b + 1; e <= 6; e++) {
            for (size_t t = 0; t < 6; t++)
                out[t] = -1;
            if (b > 0)
                apo__cpu_catalog_tile(APO_CAT_OBV, &io, 0, b);
            apo__cpu_catalog_tile(APO_CAT_OBV, &io, b, e);
            for (size_t t = 0; t < e; t++)
                cr_assert(same_bits(out[t], obv_want[t]) || (isnan(obv_want[t]) && isnan(out[t])),
                          "obv [%zu, %zu) t %zu: %g", b, e, t, out[t]);
        }
    /* A leading gap: the first clean bar seeds obv with its volume. */
    double close2[] = {NAN, 5, 4}, volume2[] = {1, 2, 3};
    io.in[0] = close2;
    io.in[1] = volume2;
    apo__cpu_catalog_tile(APO_CAT_OBV, &io, 0, 3);
    cr_assert(isnan(out[0]) && out[1] == 2 && out[2] == -1, "%g %g %g", out[0], out[1], out[2]);
    /* ad: (11-8)-(12-11) = 2 over a range of 4, times 100: 50; a bar without range and a bar
     * with high below low add nothing; a gap; (5-5)-(9-5) = -4 over 4, times 40: -40. */
    double high[] = {12, 10, 7, NAN, 9, 5}, low[] = {8, 10, 9, 1, 5, 9};
    double cl[] = {11, 10, 8, 2, 5, 7}, vol[] = {100, 1000, 70, 3, 40, 10};
    const double ad_want[] = {50, 50, 50, NAN, 10, 10};
    memset(&io, 0, sizeof io);
    io.in[0] = high;
    io.in[1] = low;
    io.in[2] = cl;
    io.in[3] = vol;
    io.out[0] = out;
    apo__cpu_catalog_tile(APO_CAT_AD, &io, 3, 6);
    apo__cpu_catalog_tile(APO_CAT_AD, &io, 0, 3);
    for (size_t t = 0; t < 6; t++)
        cr_assert(same_bits(out[t], ad_want[t]) || (isnan(ad_want[t]) && isnan(out[t])),
                  "ad t %zu: %g", t, out[t]);
    /* vwap: no volume in the first five bars (no price: NaN, where TA-Lib writes 0); typical
     * prices 9 and 10 on 30 and 10 shares: 270 / 30, 370 / 40; a gap adds nothing; 12 on 20
     * shares: 610 / 60; 6 on 40: 850 / 100. Every cut into two tiles, the vector path's
     * blocks of four bars meeting the zero volumes and the gap. */
    double vh[] = {3, 6, 4, 2, 5, 10, 11, NAN, 13, 7}, vl[] = {3, 0, 1, 2, 4, 8, 9, 1, 11, 5};
    double vc[] = {3, 3, 1, 2, 3, 9, 10, 2, 12, 6}, vv[] = {0, 0, 0, 0, 0, 30, 10, 5, 20, 40};
    const double vwap_want[] = {NAN, NAN, NAN, NAN, NAN, 9, 9.25, NAN, 610.0 / 60.0, 8.5};
    double vout[10];
    io.in[0] = vh;
    io.in[1] = vl;
    io.in[2] = vc;
    io.in[3] = vv;
    io.out[0] = vout;
    for (int isa = APO_CPU_ISA_SSE2; isa <= APO_CPU_ISA_LAST; isa++) {
        if (!apo__cpu_isa_supported((apo__cpu_isa)isa))
            continue;
        for (size_t b = 0; b < 10; b++)
            for (size_t e = b + 1; e <= 10; e++) {
                for (size_t t = 0; t < 10; t++)
                    vout[t] = -1;
                if (b > 0)
                    apo__cpu_catalog_tile_on(APO_CAT_VWAP, &io, 0, b, isa);
                apo__cpu_catalog_tile_on(APO_CAT_VWAP, &io, b, e, isa);
                for (size_t t = 0; t < e; t++)
                    cr_assert(same_bits(vout[t], vwap_want[t]) ||
                                  (isnan(vwap_want[t]) && same_bits(vout[t], NAN)),
                              "vwap on %s [%zu, %zu) t %zu: %g",
                              apo__cpu_isa_name((apo__cpu_isa)isa), b, e, t, vout[t]);
            }
    }
}

/* No warm-up: the lookback is TA-Lib's (0, SAR's 1), the halo no more (the tiles read from the
 * row's start instead), and the tile is the whole-row length. */
Test(catalog_cumulative, shape_of_the_whole_row_kernels, .timeout = 60) {
    for (size_t ki = 0; ki < N_KERNELS; ki++) {
        const cum_kernel *k = &kernels[ki];
        cr_assert(apo__catalog_whole_row(k->id));
        cr_assert_eq(apo__catalog_lookback(k->id, k->p), k->lookback, "%s", k->name);
        cr_assert_eq(apo__catalog_halo(k->id, k->p), k->lookback, "%s", k->name);
        cr_assert_eq(apo__catalog_tile_len(k->id, k->p), APO_CAT_WHOLE_ROW_TILE);
        const apo__cat_family room = k->id == APO_CAT_SAR || k->id == APO_CAT_SAREXT ? APO_CAT_TREND
                                     : k->id == APO_CAT_WAD    ? APO_CAT_OSCILLATORS
                                     : k->id == APO_CAT_CUMSUM ? APO_CAT_TRANSFORMS
                                                               : APO_CAT_VOLUME;
        cr_assert_eq(apo__catalog_family(k->id), room, "%s", k->name);
    }
    cr_assert(!apo__catalog_whole_row(APO_CAT_ADOSC));
}
