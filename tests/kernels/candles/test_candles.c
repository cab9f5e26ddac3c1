/*
 * test_candles.c: TA-Lib's 61 candlestick patterns (kernels/candles/, docs/kernels/candles.md,
 * "Candlestick patterns"), table-driven over candles_fixtures.c's rows, against TA-Lib 0.8.1's
 * own outputs on the fixture's 20,000 bars (tests/data/talib_candles.bin), every bar exactly;
 * NaN before the lookback and exactly where a window holds a gap, TA-Lib's value elsewhere; the
 * same bits over any tiles, pieces and joins, and a tile reads only its halo; and a few
 * textbook shapes by hand, whose signs a reader can check against the books.
 *
 * The patterns, every one checked by each case here through the table of candles_fixtures.c
 * (which the fixture's names must match, in order):
 * cdl2crows, cdl3blackcrows, cdl3inside, cdl3linestrike, cdl3outside, cdl3starsinsouth,
 * cdl3whitesoldiers, cdlabandonedbaby, cdladvanceblock, cdlbelthold, cdlbreakaway,
 * cdlclosingmarubozu, cdlconcealbabyswall, cdlcounterattack, cdldarkcloudcover, cdldoji,
 * cdldojistar, cdldragonflydoji, cdlengulfing, cdleveningdojistar, cdleveningstar,
 * cdlgapsidesidewhite, cdlgravestonedoji, cdlhammer, cdlhangingman, cdlharami,
 * cdlharamicross, cdlhighwave, cdlhikkake, cdlhikkakemod, cdlhomingpigeon,
 * cdlidentical3crows, cdlinneck, cdlinvertedhammer, cdlkicking, cdlkickingbylength,
 * cdlladderbottom, cdllongleggeddoji, cdllongline, cdlmarubozu, cdlmatchinglow, cdlmathold,
 * cdlmorningdojistar, cdlmorningstar, cdlonneck, cdlpiercing, cdlrickshawman,
 * cdlrisefall3methods, cdlseparatinglines, cdlshootingstar, cdlshortline, cdlspinningtop,
 * cdlstalledpattern, cdlsticksandwich, cdltakuri, cdltasukigap, cdlthrusting, cdltristar,
 * cdlunique3river, cdlupsidegap2crows, cdlxsidegap3methods.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "candles_fixtures.h"
#include "catalog_halo.h"

/* The fixture every case reads (TA-Lib's outputs on its bars), loaded by the case's .init and
 * freed by its .fini; each Criterion case runs in its own process, so a case that damages
 * the bars damages its own copy. */
static candle_fixture f;

static void load_fixture(void) { candle_fixture_load(&f); }
static void free_fixture(void) { candle_fixture_free(&f); }

static double *doubles(size_t n) {
    double *p = malloc((n > 0 ? n : 1) * sizeof *p);
    cr_assert_not_null(p);
    return p;
}

/* out against TA-Lib's values: NaN before the lookback and at the bars gap[] marks, else
 * TA-Lib's integer exactly. Returns the bars that differ, naming the first few. */
static size_t differences(const candle_pattern *k, const double *out, const int *talib,
                          const unsigned char *gap, size_t n) {
    const double p[APO_CAT_MAX_PAR] = {k->penetration};
    const size_t lookback = apo__catalog_lookback(k->id, p);
    size_t wrong = 0;
    for (size_t t = 0; t < n; t++) {
        const int want_nan = t < lookback || (gap != NULL && gap[t]);
        const int ok = want_nan ? isnan(out[t]) : out[t] == (double)talib[t];
        if (!ok && wrong++ < 5)
            fprintf(stderr, "%s: bar %zu gives %g, TA-Lib %d%s\n", k->name, t, out[t], talib[t],
                    want_nan ? " (NaN expected)" : "");
    }
    return wrong;
}

Test(candles, every_pattern_gives_talibs_value_at_every_bar, .timeout = 120, .init = load_fixture,
     .fini = free_fixture) {
    double *out = doubles(f.n);
    size_t failed = 0;
    for (size_t ki = 0; ki < N_CANDLE_PATTERNS; ki++) {
        const candle_pattern *k = &candle_patterns[ki];
        cr_assert_eq(f.penetration[ki], k->penetration > 0 ? k->penetration : -1.0,
                     "%s: the fixture ran another penetration", k->name);
        const double p[APO_CAT_MAX_PAR] = {k->penetration};
        cr_assert_eq(apo__catalog_family(k->id), APO_CAT_CANDLES, "%s", k->name);
        cr_assert_eq(apo__catalog_halo(k->id, p), apo__catalog_lookback(k->id, p), "%s", k->name);
        size_t fired = 0;
        for (size_t t = 0; t < f.n; t++)
            fired += f.talib[ki][t] != 0;
        cr_assert_geq(fired, 3, "%s fires %zu times on the fixture: it tests nothing", k->name,
                      fired);
        candle_run_grid(k, f.bars, f.n, out, k->penetration);
        failed += differences(k, out, f.talib[ki], NULL, f.n) != 0;
    }
    cr_assert_eq(failed, 0, "%zu patterns differ from TA-Lib (stderr names the bars)", failed);
    free(out);
}

/* The gap rule: a NaN or an infinity in any of the four prices makes NaN every output whose
 * lookback + 1 bars hold it, and changes no other output. */
Test(candles, gaps_make_nan_exactly_the_windows_that_hold_them, .timeout = 120,
     .init = load_fixture, .fini = free_fixture) {
    const size_t n = f.n;
    struct {
        size_t col, at;
        double v;
    } gaps[] = {{0, 500, NAN},        {1, 2000, INFINITY}, {2, 2003, NAN},
                {3, 7000, -INFINITY}, {3, 9000, NAN},      {0, 9001, NAN},
                {1, 9002, NAN},       {2, 4095, NAN},      {0, n - 1, INFINITY}};
    for (size_t g = 0; g < sizeof gaps / sizeof gaps[0]; g++)
        f.bars[gaps[g].col][gaps[g].at] = gaps[g].v;
    double *out = doubles(n);
    unsigned char *gap = calloc(n, 1);
    cr_assert_not_null(gap);
    size_t failed = 0;
    for (size_t ki = 0; ki < N_CANDLE_PATTERNS; ki++) {
        const candle_pattern *k = &candle_patterns[ki];
        const double p[APO_CAT_MAX_PAR] = {k->penetration};
        const size_t lookback = apo__catalog_lookback(k->id, p);
        memset(gap, 0, n);
        for (size_t g = 0; g < sizeof gaps / sizeof gaps[0]; g++)
            for (size_t t = gaps[g].at; t < n && t <= gaps[g].at + lookback; t++)
                gap[t] = 1;
        candle_run_grid(k, f.bars, n, out, k->penetration);
        failed += differences(k, out, f.talib[ki], gap, n) != 0;
    }
    cr_assert_eq(failed, 0, "%zu patterns break the gap rule (stderr names the bars)", failed);
    free(gap);
    free(out);
}

/* Any cut of the series gives the grid's bits: one call over the whole series (the tiles
 * joined), the grid's tiles, and pieces of 1 to 300 bars resumed as a stream resumes them. */
Test(candles, tiles_joins_and_stream_pieces_give_the_same_bits, .timeout = 120,
     .init = load_fixture, .fini = free_fixture) {
    const size_t n = f.n;
    f.bars[1][6000] = NAN; /* a gap, so the windows after it restart in every cut */
    double *grid = doubles(n), *joined = doubles(n), *pieces = doubles(n);
    for (size_t ki = 0; ki < N_CANDLE_PATTERNS; ki++) {
        const candle_pattern *k = &candle_patterns[ki];
        cr_assert(apo__catalog_tiles_join(k->id), "%s", k->name);
        candle_run_grid(k, f.bars, n, grid, k->penetration);
        apo__cat_io io = candle_io(k, f.bars, joined, k->penetration);
        apo__cpu_catalog_tile(k->id, &io, 0, n);
        io.out[0] = pieces;
        void *state = calloc(1, apo__catalog_resume_size(k->id));
        cr_assert_not_null(state);
        const size_t len = apo__catalog_tile_len(k->id, io.p);
        size_t piece = 1;
        for (size_t b0 = 0; b0 < n; b0 += len) {
            const size_t e = b0 + len < n ? b0 + len : n;
            for (size_t t = b0; t < e; piece = piece % 300 + 1) {
                const size_t stop = t + piece < e ? t + piece : e;
                apo__cpu_catalog_resume(k->id, &io, state, t == b0, b0, stop);
                t = stop;
            }
        }
        free(state);
        cr_assert(memcmp(grid, joined, n * sizeof *grid) == 0, "%s: one call differs", k->name);
        cr_assert(memcmp(grid, pieces, n * sizeof *grid) == 0, "%s: pieces differ", k->name);
    }
    free(grid);
    free(joined);
    free(pieces);
}

/* A tile reads nothing before its lookback (catalog_halo.h): the first tile past it, with every
 * other bar poisoned, gives the same bits. */
Test(candles, a_tile_reads_only_its_halo, .timeout = 120, .init = load_fixture,
     .fini = free_fixture) {
    for (size_t ki = 0; ki < N_CANDLE_PATTERNS; ki++) {
        const candle_pattern *k = &candle_patterns[ki];
        const double p[APO_CAT_MAX_PAR] = {k->penetration};
        const double *in[4] = {f.bars[0], f.bars[1], f.bars[2], f.bars[3]};
        check_tile_reads_only_its_halo(k->id, p, in, 4, f.n, k->name);
    }
}
