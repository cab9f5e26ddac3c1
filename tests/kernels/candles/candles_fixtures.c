/*
 * candles_fixtures.c: see candles_fixtures.h.
 */
#include "candles_fixtures.h"

#include <criterion/criterion.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* TA-Lib's 61 patterns in its alphabetical order, the catalog's and the fixture's. */
const candle_pattern candle_patterns[N_CANDLE_PATTERNS] = {
    {APO_CAT_CDL2CROWS, "cdl2crows", 0},
    {APO_CAT_CDL3BLACKCROWS, "cdl3blackcrows", 0},
    {APO_CAT_CDL3INSIDE, "cdl3inside", 0},
    {APO_CAT_CDL3LINESTRIKE, "cdl3linestrike", 0},
    {APO_CAT_CDL3OUTSIDE, "cdl3outside", 0},
    {APO_CAT_CDL3STARSINSOUTH, "cdl3starsinsouth", 0},
    {APO_CAT_CDL3WHITESOLDIERS, "cdl3whitesoldiers", 0},
    {APO_CAT_CDLABANDONEDBABY, "cdlabandonedbaby", 0.3},
    {APO_CAT_CDLADVANCEBLOCK, "cdladvanceblock", 0},
    {APO_CAT_CDLBELTHOLD, "cdlbelthold", 0},
    {APO_CAT_CDLBREAKAWAY, "cdlbreakaway", 0},
    {APO_CAT_CDLCLOSINGMARUBOZU, "cdlclosingmarubozu", 0},
    {APO_CAT_CDLCONCEALBABYSWALL, "cdlconcealbabyswall", 0},
    {APO_CAT_CDLCOUNTERATTACK, "cdlcounterattack", 0},
    {APO_CAT_CDLDARKCLOUDCOVER, "cdldarkcloudcover", 0.5},
    {APO_CAT_CDLDOJI, "cdldoji", 0},
    {APO_CAT_CDLDOJISTAR, "cdldojistar", 0},
    {APO_CAT_CDLDRAGONFLYDOJI, "cdldragonflydoji", 0},
    {APO_CAT_CDLENGULFING, "cdlengulfing", 0},
    {APO_CAT_CDLEVENINGDOJISTAR, "cdleveningdojistar", 0.3},
    {APO_CAT_CDLEVENINGSTAR, "cdleveningstar", 0.3},
    {APO_CAT_CDLGAPSIDESIDEWHITE, "cdlgapsidesidewhite", 0},
    {APO_CAT_CDLGRAVESTONEDOJI, "cdlgravestonedoji", 0},
    {APO_CAT_CDLHAMMER, "cdlhammer", 0},
    {APO_CAT_CDLHANGINGMAN, "cdlhangingman", 0},
    {APO_CAT_CDLHARAMI, "cdlharami", 0},
    {APO_CAT_CDLHARAMICROSS, "cdlharamicross", 0},
    {APO_CAT_CDLHIGHWAVE, "cdlhighwave", 0},
    {APO_CAT_CDLHIKKAKE, "cdlhikkake", 0},
    {APO_CAT_CDLHIKKAKEMOD, "cdlhikkakemod", 0},
    {APO_CAT_CDLHOMINGPIGEON, "cdlhomingpigeon", 0},
    {APO_CAT_CDLIDENTICAL3CROWS, "cdlidentical3crows", 0},
    {APO_CAT_CDLINNECK, "cdlinneck", 0},
    {APO_CAT_CDLINVERTEDHAMMER, "cdlinvertedhammer", 0},
    {APO_CAT_CDLKICKING, "cdlkicking", 0},
    {APO_CAT_CDLKICKINGBYLENGTH, "cdlkickingbylength", 0},
    {APO_CAT_CDLLADDERBOTTOM, "cdlladderbottom", 0},
    {APO_CAT_CDLLONGLEGGEDDOJI, "cdllongleggeddoji", 0},
    {APO_CAT_CDLLONGLINE, "cdllongline", 0},
    {APO_CAT_CDLMARUBOZU, "cdlmarubozu", 0},
    {APO_CAT_CDLMATCHINGLOW, "cdlmatchinglow", 0},
    {APO_CAT_CDLMATHOLD, "cdlmathold", 0.5},
    {APO_CAT_CDLMORNINGDOJISTAR, "cdlmorningdojistar", 0.3},
    {APO_CAT_CDLMORNINGSTAR, "cdlmorningstar", 0.3},
    {APO_CAT_CDLONNECK, "cdlonneck", 0},
    {APO_CAT_CDLPIERCING, "cdlpiercing", 0},
    {APO_CAT_CDLRICKSHAWMAN, "cdlrickshawman", 0},
    {APO_CAT_CDLRISEFALL3METHODS, "cdlrisefall3methods", 0},
    {APO_CAT_CDLSEPARATINGLINES, "cdlseparatinglines", 0},
    {APO_CAT_CDLSHOOTINGSTAR, "cdlshootingstar", 0},
    {APO_CAT_CDLSHORTLINE, "cdlshortline", 0},
    {APO_CAT_CDLSPINNINGTOP, "cdlspinningtop", 0},
    {APO_CAT_CDLSTALLEDPATTERN, "cdlstalledpattern", 0},
    {APO_CAT_CDLSTICKSANDWICH, "cdlsticksandwich", 0},
    {APO_CAT_CDLTAKURI, "cdltakuri", 0},
    {APO_CAT_CDLTASUKIGAP, "cdltasukigap", 0},
    {APO_CAT_CDLTHRUSTING, "cdlthrusting", 0},
    {APO_CAT_CDLTRISTAR, "cdltristar", 0},
    {APO_CAT_CDLUNIQUE3RIVER, "cdlunique3river", 0},
    {APO_CAT_CDLUPSIDEGAP2CROWS, "cdlupsidegap2crows", 0},
    {APO_CAT_CDLXSIDEGAP3METHODS, "cdlxsidegap3methods", 0},
};

/* A cursor over the fixture's bytes, every read bounds-checked. */
typedef struct reader {
    const unsigned char *p;
    size_t left;
} reader;

static const unsigned char *take(reader *r, size_t n) {
    cr_assert_geq(r->left, n, "talib_candles.bin ends early");
    const unsigned char *at = r->p;
    r->p += n;
    r->left -= n;
    return at;
}

static uint32_t u32(reader *r) {
    const unsigned char *b = take(r, 4);
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

void candle_fixture_load(candle_fixture *f) {
    memset(f, 0, sizeof *f);
    FILE *file = fopen(APO_TEST_DATA_DIR "/talib_candles.bin", "rb");
    cr_assert_not_null(file,
                       "tests/data/talib_candles.bin: scripts/talib-candle-fixture.py makes it");
    unsigned char *all = malloc(1 << 20);
    cr_assert_not_null(all);
    const size_t size = fread(all, 1, 1 << 20, file);
    fclose(file);
    reader r = {all, size};
    cr_assert(memcmp(take(&r, 8), "APOCDL1", 8) == 0, "not a candle fixture");
    f->n = u32(&r);
    const uint32_t patterns = u32(&r), ticks = u32(&r);
    cr_assert_eq(patterns, N_CANDLE_PATTERNS);
    for (size_t c = 0; c < 4; c++) {
        f->bars[c] = malloc(f->n * sizeof(double));
        cr_assert_not_null(f->bars[c]);
        const unsigned char *b = take(&r, 2 * f->n);
        for (size_t t = 0; t < f->n; t++)
            f->bars[c][t] = (double)(int16_t)(b[2 * t] | b[2 * t + 1] << 8) / ticks;
    }
    for (size_t k = 0; k < N_CANDLE_PATTERNS; k++) {
        char name[25] = {0};
        memcpy(name, take(&r, 24), 24);
        cr_assert_str_eq(name, candle_patterns[k].name, "the fixture's pattern %zu", k);
        memcpy(&f->penetration[k], take(&r, 8), 8);
        const uint32_t records = u32(&r);
        f->talib[k] = calloc(f->n, sizeof(int));
        cr_assert_not_null(f->talib[k]);
        size_t t = 0;
        for (uint32_t i = 0; i < records; i++) {
            const unsigned char *rec = take(&r, 2);
            t += rec[0];
            const int value = (int8_t)rec[1] * 10;
            if (rec[0] == 255 && value == 0)
                continue;
            cr_assert_lt(t, f->n);
            f->talib[k][t] = value;
        }
    }
    cr_assert_eq(r.left, 0, "talib_candles.bin has bytes past its last pattern");
    free(all);
}

void candle_fixture_free(candle_fixture *f) {
    for (size_t c = 0; c < 4; c++)
        free(f->bars[c]);
    for (size_t k = 0; k < N_CANDLE_PATTERNS; k++)
        free(f->talib[k]);
}

apo__cat_io candle_io(const candle_pattern *k, double *const *bars, double *out, double pen) {
    apo__cat_io io;
    memset(&io, 0, sizeof io);
    for (size_t c = 0; c < 4; c++)
        io.in[c] = bars[c];
    io.out[0] = out;
    io.p[0] = pen;
    io.h = apo__catalog_halo(k->id, io.p);
    return io;
}

void candle_run_grid(const candle_pattern *k, double *const *bars, size_t n, double *out,
                     double pen) {
    const apo__cat_io io = candle_io(k, bars, out, pen);
    const size_t len = apo__catalog_tile_len(k->id, io.p);
    for (size_t j = (n + len - 1) / len; j-- > 0;)
        apo__cpu_catalog_tile(k->id, &io, j * len, (j + 1) * len < n ? (j + 1) * len : n);
}
