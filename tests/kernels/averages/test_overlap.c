/*
 * test_overlap.c: the catalog's overlap studies and TA-Lib's matype (kernels/averages/: trima,
 * t3, midpoint, midprice, ma, mavp, accbands, bbands, donchian, rma, zlema; ma_type.h) against
 * independent long-double references (catalog_reference_overlap.c), one table of kernels and
 * parameter sets: every output on seeded OHLCV walks with and without gaps over the kernel's tile
 * grid run backwards, and in tiles of another order; ma at each matype has the bits of the catalog
 * kernel of that kind, bbands at matype 0 the built-in bollinger's, and zlema's rounds and cuts
 * each tile's.
 *
 * Measured worst errors are printed on stderr; docs/kernels.md quotes them.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bollinger.h"
#include "catalog_dispatch.h"
#include "catalog_reference_overlap.h"
#include "catalog_reference_talib_more1.h"
#include "cpu_isa.h"
#include "talib_more2_cases.h"

/* The kernels at their defaults and at other parameters: every matype the catalog computes
 * through ma, some through bbands and mavp. mavp's periods input is the second walk, from 15
 * with steps of 0.5 below (so that its periods move). */
static const more2_case cases[] = {
    {APO_CAT_TRIMA, "trima", CLOSE, 1, apo__ref_cat_trima, {30}},
    {APO_CAT_TRIMA, "trima", CLOSE, 1, apo__ref_cat_trima, {2}},
    {APO_CAT_TRIMA, "trima", CLOSE, 1, apo__ref_cat_trima, {7}},
    {APO_CAT_TRIMA, "trima", CLOSE, 1, apo__ref_cat_trima, {1}},
    {APO_CAT_T3, "t3", CLOSE, 1, apo__ref_cat_t3, {5, 0.7}},
    {APO_CAT_T3, "t3", CLOSE, 1, apo__ref_cat_t3, {2, 0.3}},
    {APO_CAT_T3, "t3", CLOSE, 1, apo__ref_cat_t3, {1, 0.7}},
    {APO_CAT_MIDPOINT, "midpoint", CLOSE, 1, apo__ref_cat_midpoint, {14}},
    {APO_CAT_MIDPOINT, "midpoint", CLOSE, 1, apo__ref_cat_midpoint, {2}},
    {APO_CAT_MIDPRICE, "midprice", HL, 1, apo__ref_cat_midprice, {14}},
    {APO_CAT_MIDPRICE, "midprice", HL, 1, apo__ref_cat_midprice, {3}},
    {APO_CAT_MA, "ma", CLOSE, 1, apo__ref_cat_ma, {30, 0}},
    {APO_CAT_MA, "ma", CLOSE, 1, apo__ref_cat_ma, {9, 1}},
    {APO_CAT_MA, "ma", CLOSE, 1, apo__ref_cat_ma, {9, 2}},
    {APO_CAT_MA, "ma", CLOSE, 1, apo__ref_cat_ma, {5, 3}},
    {APO_CAT_MA, "ma", CLOSE, 1, apo__ref_cat_ma, {4, 4}},
    {APO_CAT_MA, "ma", CLOSE, 1, apo__ref_cat_ma, {8, 5}},
    {APO_CAT_MA, "ma", CLOSE, 1, apo__ref_cat_ma, {10, 6}},
    {APO_CAT_MA, "ma", CLOSE, 1, apo__ref_cat_ma, {3, 8}},
    {APO_CAT_MA, "ma", CLOSE, 1, apo__ref_cat_ma, {1, 1}},
    {APO_CAT_MA, "ma", CLOSE, 1, apo__ref_cat_ma, {30, 7}}, /* MAMA: mama whatever the period */
    {APO_CAT_MA, "ma", CLOSE, 1, apo__ref_cat_ma, {2, 7}},
    {APO_CAT_MA, "ma", CLOSE, 1, apo__ref_cat_ma, {1, 7}},
    {APO_CAT_MAVP, "mavp", XY, 1, apo__ref_cat_mavp, {2, 30, 0}},
    {APO_CAT_MAVP, "mavp", XY, 1, apo__ref_cat_mavp, {3, 12, 1}},
    {APO_CAT_MAVP, "mavp", XY, 1, apo__ref_cat_mavp, {2, 9, 5}},
    {APO_CAT_MAVP, "mavp", XY, 1, apo__ref_cat_mavp, {1, 4, 3}},
    {APO_CAT_ACCBANDS, "accbands", HLC, 3, apo__ref_cat_accbands, {20}},
    {APO_CAT_ACCBANDS, "accbands", HLC, 3, apo__ref_cat_accbands, {2}},
    {APO_CAT_BBANDS, "bbands", CLOSE, 3, apo__ref_cat_bbands, {5, 2, 2, 0}},
    {APO_CAT_BBANDS, "bbands", CLOSE, 3, apo__ref_cat_bbands, {20, 1.5, 2.5, 1}},
    {APO_CAT_BBANDS, "bbands", CLOSE, 3, apo__ref_cat_bbands, {6, 2, 1, 3}},
    {APO_CAT_BBANDS, "bbands", CLOSE, 3, apo__ref_cat_bbands, {9, 2, 2, 8}},
    {APO_CAT_BBANDS, "bbands", CLOSE, 3, apo__ref_cat_bbands, {5, 2, 2, 7}},
    {APO_CAT_BBANDS, "bbands", CLOSE, 3, apo__ref_cat_bbands, {50, 1.5, 2, 7}}, /* lead 49 */
    /* TA-Lib 0.8's donchian, rma and zlema (catalog_reference_talib_more1.c). */
    {APO_CAT_DONCHIAN, "donchian", HL, 3, apo__ref_cat_donchian, {20}},
    {APO_CAT_DONCHIAN, "donchian", HL, 3, apo__ref_cat_donchian, {2}},
    {APO_CAT_RMA, "rma", CLOSE, 1, apo__ref_cat_rma, {30}},
    {APO_CAT_RMA, "rma", CLOSE, 1, apo__ref_cat_rma, {14}},
    {APO_CAT_RMA, "rma", CLOSE, 1, apo__ref_cat_rma, {1}},
    {APO_CAT_ZLEMA, "zlema", CLOSE, 1, apo__ref_cat_zlema, {30}},
    {APO_CAT_ZLEMA, "zlema", CLOSE, 1, apo__ref_cat_zlema, {4}},
    {APO_CAT_ZLEMA, "zlema", CLOSE, 1, apo__ref_cat_zlema, {1}},
};

MORE2_TABLE_TESTS_AS(overlap, cases, {"overlap", 5003, 4, 1})

/* ma at each matype is the catalog kernel of that kind, bit for bit, over that kind's grid:
 * at matype 7 (MAMA) mama's first output at its defaults, TA-Lib's MA's limits. */
Test(overlap, ma_has_the_bits_of_each_kind) {
    static const apo__cat_id kinds[] = {APO_CAT_SMA,  APO_CAT_EMA,  APO_CAT_WMA,
                                        APO_CAT_DEMA, APO_CAT_TEMA, APO_CAT_TRIMA,
                                        APO_CAT_KAMA, APO_CAT_MAMA, APO_CAT_T3};
    for (int m = 0; m < 9; m++) {
        const more2_case ma = {APO_CAT_MA, "ma", CLOSE, 1, apo__ref_cat_ma, {6, m}};
        more2_case kind = {kinds[m], "kind", CLOSE, 1, apo__ref_cat_ma, {6, 0.7}};
        if (kinds[m] == APO_CAT_MAMA)
            kind.p[0] = 0.5, kind.p[1] = 0.05;
        series s;
        more2_case_series(&s, &ma, 5 + m, 3000, 1);
        double *a[1] = {alloc_doubles(s.n)}, *b[1] = {alloc_doubles(s.n)};
        const size_t len = 1000;
        more2_run_tiles(&ma, &s, a, len, 0);
        more2_run_tiles(&kind, &s, b, len, 0);
        cr_assert(memcmp(a[0], b[0], s.n * sizeof(double)) == 0, "ma at matype %d", m);
        free(a[0]);
        free(b[0]);
        series_free(&s);
    }
}

/* bbands at matype 0 is the built-in bollinger, bit for bit, gaps included. */
Test(overlap, bbands_at_matype_0_is_bollinger) {
    const double periods[] = {2, 5, 20, 77};
    for (size_t pi = 0; pi < sizeof periods / sizeof periods[0]; pi++) {
        const more2_case c = {APO_CAT_BBANDS, "bbands", CLOSE, 3, NULL, {periods[pi], 2, 1.5, 0}};
        series s;
        more2_case_series(&s, &c, 77 + pi, 5000, 1);
        double *got[3], *want[3];
        for (size_t o = 0; o < 3; o++) {
            got[o] = alloc_doubles(s.n);
            want[o] = alloc_doubles(s.n);
        }
        const size_t len = apo__catalog_tile_len(APO_CAT_BBANDS, c.p);
        more2_run_tiles(&c, &s, got, len, 0);
        for (size_t b = 0; b < s.n; b += len)
            apo__cpu_bollinger_tile(s.in[0], s.n, b, b + len < s.n ? b + len : s.n,
                                    (size_t)periods[pi], 2, 1.5, want[0], want[1], want[2]);
        for (size_t o = 0; o < 3; o++)
            cr_assert(memcmp(got[o], want[o], s.n * sizeof(double)) == 0, "period %g output %zu",
                      periods[pi], o);
        for (size_t o = 0; o < 3; o++) {
            free(got[o]);
            free(want[o]);
        }
        series_free(&s);
    }
}

/* zlema's tiles of a row side by side in vector lanes, and a lone tile cut into pieces in them
 * (zlema_tile.h, apo__zlema_round; dispatch/catalog_split.h) give each tile's bits on every path
 * this CPU supports: rounds from the row's first tile and from its second, and the whole row as
 * one tile, against one scalar call per tile; with a gap at the last bar of a tile's warm-up, an
 * infinity at a tile's first bar and a sample whose de-lagged value overflows (2 x 1e308) in the
 * steady part, which stop a round's lock-step. */
Test(overlap, zlema_rounds_and_cuts_have_each_tiles_bits) {
    const double periods[] = {2, 3, 9, 30, 200};
    for (size_t pi = 0; pi < sizeof periods / sizeof periods[0]; pi++) {
        const more2_case c = {APO_CAT_ZLEMA, "zlema", CLOSE, 1, NULL, {periods[pi]}};
        const size_t len = apo__catalog_tile_len(APO_CAT_ZLEMA, c.p);
        series s;
        more2_case_series(&s, &c, 91 + pi, 4 * len + 555, 1);
        double *close = (double *)s.in[0];
        close[2 * len - 1] = NAN;
        close[3 * len] = INFINITY;
        close[3 * len + len / 2] = 1e308;
        double *want[1] = {alloc_doubles(s.n)}, *got = alloc_doubles(s.n);
        more2_run_tiles(&c, &s, want, len, 1);
        apo__cat_io io;
        memset(&io, 0, sizeof io);
        io.in[0] = s.in[0];
        io.out[0] = got;
        io.p[0] = c.p[0];
        io.h = apo__catalog_halo(APO_CAT_ZLEMA, io.p);
        apo__tile_span spans[5];
        const size_t n_tiles = (s.n + len - 1) / len;
        cr_assert(n_tiles <= 5);
        for (size_t k = 0; k < n_tiles; k++)
            spans[k] = (apo__tile_span){0, k * len, k + 1 < n_tiles ? (k + 1) * len : s.n};
        for (int isa = APO_CPU_ISA_SSE2; isa <= APO_CPU_ISA_AVX512; isa++) {
            if (!apo__cpu_isa_supported((apo__cpu_isa)isa))
                continue;
            for (size_t from = 0; from < 2; from++) {
                for (size_t t = 0; t < s.n; t++)
                    got[t] = t < spans[from].begin ? want[0][t] : -1.0;
                apo__cpu_catalog_tiles_on(APO_CAT_ZLEMA, &io, spans + from, n_tiles - from, isa);
                for (size_t t = 0; t < s.n; t++)
                    cr_assert(memcmp(&got[t], &want[0][t], sizeof got[t]) == 0,
                              "zlema(%g), path %d, tiles from %zu: t %zu rounds %.17g, tile by "
                              "tile %.17g",
                              periods[pi], isa, from, t, got[t], want[0][t]);
            }
            /* The whole row as one tile (a lone tile, cut where that pays), against the
             * scalar body over the same tile. */
            double *whole = alloc_doubles(s.n);
            io.out[0] = whole;
            apo__cpu_catalog_tile(APO_CAT_ZLEMA, &io, 0, s.n);
            io.out[0] = got;
            for (size_t t = 0; t < s.n; t++)
                got[t] = -1.0;
            apo__cpu_catalog_cut_tile(APO_CAT_ZLEMA, &io, 0, s.n, (apo__cpu_isa)isa);
            for (size_t t = 0; t < s.n; t++)
                cr_assert(memcmp(&got[t], &whole[t], sizeof got[t]) == 0,
                          "zlema(%g), path %d, one tile: t %zu cut %.17g, scalar %.17g",
                          periods[pi], isa, t, got[t], whole[t]);
            free(whole);
        }
        free(want[0]);
        free(got);
        series_free(&s);
    }
}
