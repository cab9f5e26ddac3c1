/*
 * test_candles_textbook.c: candlestick patterns on shapes built by hand from the books'
 * pictures (kernels/candles/), after twelve quiet bars that set the settings' averages (bodies
 * of 1, ranges of 2): the sign each pattern gives at the shape's last bar, and 0 where the
 * shape is broken. A readable check beside test_candles.c's comparison with TA-Lib.
 */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "candles_fixtures.h"

#define QUIET 12
#define MAX_BARS 24

/* Bars (open, high, low, close) appended to the quiet ones. */
typedef struct shape {
    size_t n;
    double bars[4][MAX_BARS];
} shape;

/* Twelve bars of bodies 1 and ranges 2, alternating colours around 100. */
static void quiet(shape *s) {
    memset(s, 0, sizeof *s);
    for (size_t t = 0; t < QUIET; t++) {
        const double o = t % 2 ? 101.0 : 100.0, c = t % 2 ? 100.0 : 101.0;
        s->bars[0][t] = o;
        s->bars[1][t] = 101.5;
        s->bars[2][t] = 99.5;
        s->bars[3][t] = c;
    }
    s->n = QUIET;
}

static void bar(shape *s, double o, double h, double l, double c) {
    cr_assert_lt(s->n, MAX_BARS);
    s->bars[0][s->n] = o;
    s->bars[1][s->n] = h;
    s->bars[2][s->n] = l;
    s->bars[3][s->n] = c;
    s->n++;
}

/* Pattern id's value at the shape's last bar, at penetration pen. */
static double last_value(apo__cat_id id, shape *s, double pen) {
    candle_pattern k = {id, "", pen};
    double out[MAX_BARS];
    double *bars[4] = {s->bars[0], s->bars[1], s->bars[2], s->bars[3]};
    const apo__cat_io io = candle_io(&k, bars, out, pen);
    apo__cpu_catalog_tile(id, &io, 0, s->n);
    return out[s->n - 1];
}

Test(candles_textbook, doji_and_its_kinds) {
    shape s;
    quiet(&s);
    cr_assert_eq(last_value(APO_CAT_CDLDOJI, &s, 0), 0.0, "a body of 1 is no doji");
    bar(&s, 100.0, 101.0, 99.0, 100.0);
    cr_assert_eq(last_value(APO_CAT_CDLDOJI, &s, 0), 100.0);
    cr_assert_eq(last_value(APO_CAT_CDLLONGLEGGEDDOJI, &s, 0), 100.0);
    cr_assert_eq(last_value(APO_CAT_CDLDRAGONFLYDOJI, &s, 0), 0.0, "it has an upper shadow");
    quiet(&s);
    bar(&s, 101.0, 101.0, 98.0, 101.0); /* no upper shadow, a long lower one */
    cr_assert_eq(last_value(APO_CAT_CDLDRAGONFLYDOJI, &s, 0), 100.0);
    cr_assert_eq(last_value(APO_CAT_CDLTAKURI, &s, 0), 100.0);
    cr_assert_eq(last_value(APO_CAT_CDLGRAVESTONEDOJI, &s, 0), 0.0);
}

Test(candles_textbook, engulfing_both_ways) {
    shape s;
    quiet(&s);
    bar(&s, 101.0, 101.2, 99.8, 100.0); /* black */
    bar(&s, 99.5, 101.7, 99.4, 101.5);  /* white, covering it with room at both ends */
    cr_assert_eq(last_value(APO_CAT_CDLENGULFING, &s, 0), 100.0);
    cr_assert_eq(last_value(APO_CAT_CDL3OUTSIDE, &s, 0), 0.0, "no third bar yet");
    bar(&s, 101.5, 102.6, 101.4, 102.5);
    cr_assert_eq(last_value(APO_CAT_CDL3OUTSIDE, &s, 0), 100.0);
    quiet(&s);
    bar(&s, 100.0, 101.2, 99.8, 101.0); /* white */
    bar(&s, 101.0, 101.1, 99.4, 99.5);  /* black, meeting its close with its open: 80 */
    cr_assert_eq(last_value(APO_CAT_CDLENGULFING, &s, 0), -80.0);
}

Test(candles_textbook, three_white_soldiers_and_three_black_crows) {
    shape s;
    quiet(&s);
    bar(&s, 100.0, 102.05, 99.9, 102.0);
    bar(&s, 101.5, 103.55, 101.4, 103.5);
    bar(&s, 103.0, 105.05, 102.9, 105.0);
    cr_assert_eq(last_value(APO_CAT_CDL3WHITESOLDIERS, &s, 0), 100.0);
    s.bars[1][s.n - 1] = 106.0; /* a long upper shadow on the third: no soldier */
    cr_assert_eq(last_value(APO_CAT_CDL3WHITESOLDIERS, &s, 0), 0.0);
    quiet(&s);
    bar(&s, 100.0, 102.5, 99.9, 102.0); /* the white candle before the crows */
    bar(&s, 102.0, 102.1, 99.95, 100.0);
    bar(&s, 100.5, 100.6, 97.95, 98.0);
    bar(&s, 98.5, 98.6, 95.95, 96.0);
    cr_assert_eq(last_value(APO_CAT_CDL3BLACKCROWS, &s, 0), -100.0);
}

Test(candles_textbook, hammer_and_hanging_man) {
    shape s;
    quiet(&s);
    bar(&s, 99.8, 100.0, 98.0, 100.0); /* small white body on a long lower shadow, at the low */
    cr_assert_eq(last_value(APO_CAT_CDLHAMMER, &s, 0), 100.0);
    cr_assert_eq(last_value(APO_CAT_CDLHANGINGMAN, &s, 0), 0.0, "not near the high before");
    quiet(&s);
    bar(&s, 101.3, 101.5, 99.5, 101.5); /* the same shape at the high before */
    cr_assert_eq(last_value(APO_CAT_CDLHANGINGMAN, &s, 0), -100.0);
}

/* The stars, and the penetration: the third candle must close that far into the first's body. */
Test(candles_textbook, morning_and_evening_stars) {
    shape s;
    quiet(&s);
    bar(&s, 103.0, 103.1, 99.9, 100.0); /* long black */
    bar(&s, 99.5, 99.6, 99.3, 99.4);    /* small body gapping down */
    bar(&s, 99.6, 102.1, 99.5, 102.0);  /* white, 2 of the first's 3 back */
    cr_assert_eq(last_value(APO_CAT_CDLMORNINGSTAR, &s, 0.3), 100.0);
    cr_assert_eq(last_value(APO_CAT_CDLMORNINGSTAR, &s, 0.9), 0.0, "0.9 of the body is 102.7");
    cr_assert_eq(last_value(APO_CAT_CDLMORNINGDOJISTAR, &s, 0.3), 100.0, "a body of 0.1 is a doji");
    cr_assert_eq(last_value(APO_CAT_CDLEVENINGSTAR, &s, 0.3), 0.0);
    quiet(&s);
    bar(&s, 100.0, 103.1, 99.9, 103.0); /* long white */
    bar(&s, 103.5, 103.7, 103.4, 103.6);
    bar(&s, 103.4, 103.5, 100.9, 101.0);
    cr_assert_eq(last_value(APO_CAT_CDLEVENINGSTAR, &s, 0.3), -100.0);
    cr_assert_eq(last_value(APO_CAT_CDLEVENINGSTAR, &s, 0.7), 0.0);
}

Test(candles_textbook, dark_cloud_cover_and_piercing) {
    shape s;
    quiet(&s);
    bar(&s, 100.0, 103.2, 99.9, 103.0);
    bar(&s, 103.5, 103.6, 100.9, 101.0); /* opens above the high, closes 2 of 3 down */
    cr_assert_eq(last_value(APO_CAT_CDLDARKCLOUDCOVER, &s, 0.5), -100.0);
    cr_assert_eq(last_value(APO_CAT_CDLDARKCLOUDCOVER, &s, 0.8), 0.0);
    quiet(&s);
    bar(&s, 103.0, 103.1, 99.8, 100.0);
    bar(&s, 99.5, 102.1, 99.4, 102.0); /* opens below the low, closes above the middle */
    cr_assert_eq(last_value(APO_CAT_CDLPIERCING, &s, 0), 100.0);
}

Test(candles_textbook, kicking) {
    shape s;
    quiet(&s);
    bar(&s, 103.0, 103.0, 100.0, 100.0); /* black marubozu */
    bar(&s, 103.5, 107.0, 103.5, 107.0); /* a longer white marubozu gapping above it */
    cr_assert_eq(last_value(APO_CAT_CDLKICKING, &s, 0), 100.0);
    cr_assert_eq(last_value(APO_CAT_CDLKICKINGBYLENGTH, &s, 0), 100.0);
    s.bars[1][s.n - 1] = s.bars[3][s.n - 1] = 106.0; /* now the black one is the longer */
    cr_assert_eq(last_value(APO_CAT_CDLKICKING, &s, 0), 100.0);
    cr_assert_eq(last_value(APO_CAT_CDLKICKINGBYLENGTH, &s, 0), -100.0);
}

/* Hikkake: an inside bar, a breakout down (100), then a close above the inside bar's high
 * within three bars: the confirmation, 200. */
Test(candles_textbook, hikkake_and_its_confirmation) {
    shape s;
    quiet(&s);
    bar(&s, 100.0, 102.0, 98.0, 101.0);
    bar(&s, 100.0, 101.0, 99.0, 100.5); /* inside */
    bar(&s, 99.5, 100.5, 98.5, 99.0);   /* lower high and lower low */
    cr_assert_eq(last_value(APO_CAT_CDLHIKKAKE, &s, 0), 100.0);
    bar(&s, 99.0, 100.8, 98.9, 100.6);
    cr_assert_eq(last_value(APO_CAT_CDLHIKKAKE, &s, 0), 0.0, "100.6 is not above 101");
    bar(&s, 100.6, 101.8, 100.5, 101.5);
    cr_assert_eq(last_value(APO_CAT_CDLHIKKAKE, &s, 0), 200.0);
    bar(&s, 101.5, 102.8, 101.4, 102.5);
    cr_assert_eq(last_value(APO_CAT_CDLHIKKAKE, &s, 0), 0.0, "confirmed once only");
}
