/*
 * patterns_three.h: TA-Lib's three-candle patterns, each TA-Lib's conditions on the candles
 * t - 2, t - 1 and t in TA-Lib's order of operations (docs/kernels/candles.md, "Candlestick
 * patterns").
 */
#ifndef APO_KERNELS_PATTERNS_THREE_H
#define APO_KERNELS_PATTERNS_THREE_H

#include "patterns_two.h"

/* Two crows: a long white candle, a black one gapping up, and a black one opening inside the
 * second's body and closing inside the first's. */
static APO_CAT_SPECIALISED APO_HD int apo__cdl2crows_at(const apo__candle_bars *b, size_t t) {
    return apo__cdl_white(b, t - 2) &
                   APO_CDL_GT(apo__cdl_body(b, t - 2), APO__CDL_AVG(BODY_LONG, t - 2)) &
                   apo__cdl_black(b, t - 1) & apo__cdl_body_gap_up(b, t - 1, t - 2) &
                   apo__cdl_black(b, t) & APO_CDL_LT(b->open[t], b->open[t - 1]) &
                   APO_CDL_GT(b->open[t], b->close[t - 1]) &
                   APO_CDL_GT(b->close[t], b->open[t - 2]) &
                   APO_CDL_LT(b->close[t], b->close[t - 2])
               ? -100
               : 0;
}

/* Three inside up and down: a harami whose third candle closes beyond the first's open. */
static APO_CAT_SPECIALISED APO_HD int apo__cdl3inside_at(const apo__candle_bars *b, size_t t) {
    if (APO_CDL_GT(apo__cdl_body(b, t - 2), APO__CDL_AVG(BODY_LONG, t - 2)) &
        APO_CDL_LE(apo__cdl_body(b, t - 1), APO__CDL_AVG(BODY_SHORT, t - 1)) &
        APO_CDL_LT(apo__cdl_body_top(b, t - 1), apo__cdl_body_top(b, t - 2)) &
        APO_CDL_GT(apo__cdl_body_bottom(b, t - 1), apo__cdl_body_bottom(b, t - 2)) &
        ((apo__cdl_white(b, t - 2) & apo__cdl_black(b, t) &
          APO_CDL_LT(b->close[t], b->open[t - 2])) |
         (apo__cdl_black(b, t - 2) & apo__cdl_white(b, t) &
          APO_CDL_GT(b->close[t], b->open[t - 2]))))
        return -apo__cdl_color(b, t - 2) * 100;
    return 0;
}

/* Three outside up and down: an engulfing pair, then a close beyond the second's. */
static APO_CAT_SPECIALISED APO_HD int apo__cdl3outside_at(const apo__candle_bars *b, size_t t) {
    if ((apo__cdl_white(b, t - 1) & apo__cdl_black(b, t - 2) &
         APO_CDL_GT(b->close[t - 1], b->open[t - 2]) & APO_CDL_LT(b->open[t - 1], b->close[t - 2]) &
         APO_CDL_GT(b->close[t], b->close[t - 1])) |
        (apo__cdl_black(b, t - 1) & apo__cdl_white(b, t - 2) &
         APO_CDL_GT(b->open[t - 1], b->close[t - 2]) & APO_CDL_LT(b->close[t - 1], b->open[t - 2]) &
         APO_CDL_LT(b->close[t], b->close[t - 1])))
        return apo__cdl_color(b, t - 1) * 100;
    return 0;
}

/* Three stars in the south: three black candles, each smaller and higher-lowed than the one
 * before, the last a small marubozu inside the second's range. */
static APO_CAT_SPECIALISED APO_HD int apo__cdl3starsinsouth_at(const apo__candle_bars *b,
                                                               size_t t) {
    return apo__cdl_black(b, t - 2) & apo__cdl_black(b, t - 1) & apo__cdl_black(b, t) &
                   APO_CDL_GT(apo__cdl_body(b, t - 2), APO__CDL_AVG(BODY_LONG, t - 2)) &
                   APO_CDL_GT(apo__cdl_lower_shadow(b, t - 2), APO__CDL_AVG(SHADOW_LONG, t - 2)) &
                   APO_CDL_LT(apo__cdl_body(b, t - 1), apo__cdl_body(b, t - 2)) &
                   APO_CDL_GT(b->open[t - 1], b->close[t - 2]) &
                   APO_CDL_LE(b->open[t - 1], b->high[t - 2]) &
                   APO_CDL_LT(b->low[t - 1], b->close[t - 2]) &
                   APO_CDL_GE(b->low[t - 1], b->low[t - 2]) &
                   APO_CDL_GT(apo__cdl_lower_shadow(b, t - 1),
                              APO__CDL_AVG(SHADOW_VERY_SHORT, t - 1)) &
                   APO_CDL_LT(apo__cdl_body(b, t), APO__CDL_AVG(BODY_SHORT, t)) &
                   APO_CDL_LT(apo__cdl_lower_shadow(b, t), APO__CDL_AVG(SHADOW_VERY_SHORT, t)) &
                   APO_CDL_LT(apo__cdl_upper_shadow(b, t), APO__CDL_AVG(SHADOW_VERY_SHORT, t)) &
                   APO_CDL_GT(b->low[t], b->low[t - 1]) & APO_CDL_LT(b->high[t], b->high[t - 1])
               ? 100
               : 0;
}

/* Three white candles with rising closes, each opening above the one before and at most
 * near its close (three white soldiers, advance block and stalled pattern start so). */
static APO_CAT_SPECIALISED APO_HD int apo__cdl_three_rising_whites(const apo__candle_bars *b,
                                                                   size_t t) {
    return apo__cdl_white(b, t - 2) & apo__cdl_white(b, t - 1) & apo__cdl_white(b, t) &
           APO_CDL_GT(b->close[t], b->close[t - 1]) & APO_CDL_GT(b->close[t - 1], b->close[t - 2]);
}

/* Three white soldiers: three rising white candles with very short upper shadows, each opening
 * inside or near the body before and none much shorter than the one before. */
static APO_CAT_SPECIALISED APO_HD int apo__cdl3whitesoldiers_at(const apo__candle_bars *b,
                                                                size_t t) {
    return apo__cdl_white(b, t - 2) &
                   APO_CDL_LT(apo__cdl_upper_shadow(b, t - 2),
                              APO__CDL_AVG(SHADOW_VERY_SHORT, t - 2)) &
                   apo__cdl_white(b, t - 1) &
                   APO_CDL_LT(apo__cdl_upper_shadow(b, t - 1),
                              APO__CDL_AVG(SHADOW_VERY_SHORT, t - 1)) &
                   apo__cdl_white(b, t) &
                   APO_CDL_LT(apo__cdl_upper_shadow(b, t), APO__CDL_AVG(SHADOW_VERY_SHORT, t)) &
                   APO_CDL_GT(b->close[t], b->close[t - 1]) &
                   APO_CDL_GT(b->close[t - 1], b->close[t - 2]) &
                   APO_CDL_GT(b->open[t - 1], b->open[t - 2]) &
                   APO_CDL_LE(b->open[t - 1], b->close[t - 2] + APO__CDL_AVG(NEAR, t - 2)) &
                   APO_CDL_GT(b->open[t], b->open[t - 1]) &
                   APO_CDL_LE(b->open[t], b->close[t - 1] + APO__CDL_AVG(NEAR, t - 1)) &
                   APO_CDL_GT(apo__cdl_body(b, t - 1),
                              apo__cdl_body(b, t - 2) - APO__CDL_AVG(FAR, t - 2)) &
                   APO_CDL_GT(apo__cdl_body(b, t),
                              apo__cdl_body(b, t - 1) - APO__CDL_AVG(FAR, t - 1)) &
                   APO_CDL_GT(apo__cdl_body(b, t), APO__CDL_AVG(BODY_SHORT, t))
               ? 100
               : 0;
}

/* Abandoned baby: a long candle, a doji gapping away (shadows included), and a candle of the
 * other colour gapping back and closing `penetration` into the first's body. */
static APO_CAT_SPECIALISED APO_HD int apo__cdlabandonedbaby_at(const apo__candle_bars *b, size_t t,
                                                               double penetration) {
    if (APO_CDL_GT(apo__cdl_body(b, t - 2), APO__CDL_AVG(BODY_LONG, t - 2)) &
        apo__cdl_is_doji(b, t - 1) & APO_CDL_GT(apo__cdl_body(b, t), APO__CDL_AVG(BODY_SHORT, t)) &
        ((apo__cdl_white(b, t - 2) & apo__cdl_black(b, t) &
          APO_CDL_LT(b->close[t], b->close[t - 2] - apo__cdl_body(b, t - 2) * penetration) &
          apo__cdl_gap_up(b, t - 1, t - 2) & apo__cdl_gap_down(b, t, t - 1)) |
         (apo__cdl_black(b, t - 2) & apo__cdl_white(b, t) &
          APO_CDL_GT(b->close[t], b->close[t - 2] + apo__cdl_body(b, t - 2) * penetration) &
          apo__cdl_gap_down(b, t - 1, t - 2) & apo__cdl_gap_up(b, t, t - 1))))
        return apo__cdl_color(b, t) * 100;
    return 0;
}

/* Advance block: three rising white candles, the first long, weakening: bodies shrinking or
 * upper shadows growing. */
static APO_CAT_SPECIALISED APO_HD int apo__cdladvanceblock_at(const apo__candle_bars *b, size_t t) {
    if (!(apo__cdl_three_rising_whites(b, t) & APO_CDL_GT(b->open[t - 1], b->open[t - 2]) &
          APO_CDL_LE(b->open[t - 1], b->close[t - 2] + APO__CDL_AVG(NEAR, t - 2)) &
          APO_CDL_GT(b->open[t], b->open[t - 1]) &
          APO_CDL_LE(b->open[t], b->close[t - 1] + APO__CDL_AVG(NEAR, t - 1)) &
          APO_CDL_GT(apo__cdl_body(b, t - 2), APO__CDL_AVG(BODY_LONG, t - 2)) &
          APO_CDL_LT(apo__cdl_upper_shadow(b, t - 2), APO__CDL_AVG(SHADOW_SHORT, t - 2))))
        return 0;
    const double body2 = apo__cdl_body(b, t - 2), body1 = apo__cdl_body(b, t - 1),
                 body0 = apo__cdl_body(b, t);
    const int weakening =
        (APO_CDL_LT(body1, body2 - APO__CDL_AVG(FAR, t - 2)) &
         APO_CDL_LT(body0, body1 + APO__CDL_AVG(NEAR, t - 1))) |
        APO_CDL_LT(body0, body1 - APO__CDL_AVG(FAR, t - 1)) |
        (APO_CDL_LT(body0, body1) & APO_CDL_LT(body1, body2) &
         (APO_CDL_GT(apo__cdl_upper_shadow(b, t), APO__CDL_AVG(SHADOW_SHORT, t)) |
          APO_CDL_GT(apo__cdl_upper_shadow(b, t - 1), APO__CDL_AVG(SHADOW_SHORT, t - 1)))) |
        (APO_CDL_LT(body0, body1) &
         APO_CDL_GT(apo__cdl_upper_shadow(b, t), APO__CDL_AVG(SHADOW_LONG, t)));
    return weakening ? -100 : 0;
}

/* Evening star and evening doji star: a long white candle, a short body (`star` its test)
 * gapping up, and a black candle closing `penetration` into the first's body. */
static APO_CAT_SPECIALISED APO_HD int apo__cdl_evening_with(const apo__candle_bars *b, size_t t,
                                                            int star, double penetration) {
    return APO_CDL_GT(apo__cdl_body(b, t - 2), APO__CDL_AVG(BODY_LONG, t - 2)) &
                   apo__cdl_white(b, t - 2) & star & apo__cdl_body_gap_up(b, t - 1, t - 2) &
                   APO_CDL_GT(apo__cdl_body(b, t), APO__CDL_AVG(BODY_SHORT, t)) &
                   apo__cdl_black(b, t) &
                   APO_CDL_LT(b->close[t], b->close[t - 2] - apo__cdl_body(b, t - 2) * penetration)
               ? -100
               : 0;
}

static APO_CAT_SPECIALISED APO_HD int apo__cdleveningdojistar_at(const apo__candle_bars *b,
                                                                 size_t t, double penetration) {
    return apo__cdl_evening_with(b, t, apo__cdl_is_doji(b, t - 1), penetration);
}

static APO_CAT_SPECIALISED APO_HD int apo__cdleveningstar_at(const apo__candle_bars *b, size_t t,
                                                             double penetration) {
    return apo__cdl_evening_with(
        b, t, APO_CDL_LE(apo__cdl_body(b, t - 1), APO__CDL_AVG(BODY_SHORT, t - 1)), penetration);
}

/* Morning star and morning doji star: the evening's mirror, after a long black candle. */
static APO_CAT_SPECIALISED APO_HD int apo__cdl_morning_with(const apo__candle_bars *b, size_t t,
                                                            int star, double penetration) {
    return APO_CDL_GT(apo__cdl_body(b, t - 2), APO__CDL_AVG(BODY_LONG, t - 2)) &
                   apo__cdl_black(b, t - 2) & star & apo__cdl_body_gap_down(b, t - 1, t - 2) &
                   APO_CDL_GT(apo__cdl_body(b, t), APO__CDL_AVG(BODY_SHORT, t)) &
                   apo__cdl_white(b, t) &
                   APO_CDL_GT(b->close[t], b->close[t - 2] + apo__cdl_body(b, t - 2) * penetration)
               ? 100
               : 0;
}

static APO_CAT_SPECIALISED APO_HD int apo__cdlmorningdojistar_at(const apo__candle_bars *b,
                                                                 size_t t, double penetration) {
    return apo__cdl_morning_with(b, t, apo__cdl_is_doji(b, t - 1), penetration);
}

static APO_CAT_SPECIALISED APO_HD int apo__cdlmorningstar_at(const apo__candle_bars *b, size_t t,
                                                             double penetration) {
    return apo__cdl_morning_with(
        b, t, APO_CDL_LE(apo__cdl_body(b, t - 1), APO__CDL_AVG(BODY_SHORT, t - 1)), penetration);
}

/* Gap side-by-side white lines: two white candles of about the same body and open, both
 * gapping away from the candle before; 100 up, -100 down. */
static APO_CAT_SPECIALISED APO_HD int apo__cdlgapsidesidewhite_at(const apo__candle_bars *b,
                                                                  size_t t) {
    const int up = apo__cdl_body_gap_up(b, t - 1, t - 2) & apo__cdl_body_gap_up(b, t, t - 2);
    const int down = apo__cdl_body_gap_down(b, t - 1, t - 2) & apo__cdl_body_gap_down(b, t, t - 2);
    if ((up | down) & apo__cdl_white(b, t - 1) & apo__cdl_white(b, t) &
        APO_CDL_GE(apo__cdl_body(b, t), apo__cdl_body(b, t - 1) - APO__CDL_AVG(NEAR, t - 1)) &
        APO_CDL_LE(apo__cdl_body(b, t), apo__cdl_body(b, t - 1) + APO__CDL_AVG(NEAR, t - 1)) &
        apo__cdl_equal(b, b->open[t], b->open[t - 1], t - 1))
        return apo__cdl_body_gap_up(b, t - 1, t - 2) ? 100 : -100;
    return 0;
}

/* Identical three crows: three falling black candles with very short lower shadows, each
 * opening at the close before. */
static APO_CAT_SPECIALISED APO_HD int apo__cdlidentical3crows_at(const apo__candle_bars *b,
                                                                 size_t t) {
    return apo__cdl_black(b, t - 2) &
                   APO_CDL_LT(apo__cdl_lower_shadow(b, t - 2),
                              APO__CDL_AVG(SHADOW_VERY_SHORT, t - 2)) &
                   apo__cdl_black(b, t - 1) &
                   APO_CDL_LT(apo__cdl_lower_shadow(b, t - 1),
                              APO__CDL_AVG(SHADOW_VERY_SHORT, t - 1)) &
                   apo__cdl_black(b, t) &
                   APO_CDL_LT(apo__cdl_lower_shadow(b, t), APO__CDL_AVG(SHADOW_VERY_SHORT, t)) &
                   APO_CDL_GT(b->close[t - 2], b->close[t - 1]) &
                   APO_CDL_GT(b->close[t - 1], b->close[t]) &
                   apo__cdl_equal(b, b->open[t - 1], b->close[t - 2], t - 2) &
                   apo__cdl_equal(b, b->open[t], b->close[t - 1], t - 1)
               ? -100
               : 0;
}

/* Stalled pattern: two long rising white candles, then a short one riding on the second's
 * shoulder. */
static APO_CAT_SPECIALISED APO_HD int apo__cdlstalledpattern_at(const apo__candle_bars *b,
                                                                size_t t) {
    return apo__cdl_three_rising_whites(b, t) &
                   APO_CDL_GT(apo__cdl_body(b, t - 2), APO__CDL_AVG(BODY_LONG, t - 2)) &
                   APO_CDL_GT(apo__cdl_body(b, t - 1), APO__CDL_AVG(BODY_LONG, t - 1)) &
                   APO_CDL_LT(apo__cdl_upper_shadow(b, t - 1),
                              APO__CDL_AVG(SHADOW_VERY_SHORT, t - 1)) &
                   APO_CDL_GT(b->open[t - 1], b->open[t - 2]) &
                   APO_CDL_LE(b->open[t - 1], b->close[t - 2] + APO__CDL_AVG(NEAR, t - 2)) &
                   APO_CDL_LT(apo__cdl_body(b, t), APO__CDL_AVG(BODY_SHORT, t)) &
                   APO_CDL_GE(b->open[t],
                              b->close[t - 1] - apo__cdl_body(b, t) - APO__CDL_AVG(NEAR, t - 1))
               ? -100
               : 0;
}

/* Stick sandwich: a white candle between two black ones closing at the same price. */
static APO_CAT_SPECIALISED APO_HD int apo__cdlsticksandwich_at(const apo__candle_bars *b,
                                                               size_t t) {
    return apo__cdl_black(b, t - 2) & apo__cdl_white(b, t - 1) & apo__cdl_black(b, t) &
                   APO_CDL_GT(b->low[t - 1], b->close[t - 2]) &
                   apo__cdl_equal(b, b->close[t], b->close[t - 2], t - 2)
               ? 100
               : 0;
}

/* Tasuki gap: a body gap, then two candles of opposite colours and about the same body, the
 * second opening inside the first's body and closing inside the gap. */
static APO_CAT_SPECIALISED APO_HD int apo__cdltasukigap_at(const apo__candle_bars *b, size_t t) {
    const double o = b->open[t], c = b->close[t], o1 = b->open[t - 1], c1 = b->close[t - 1];
    const int up =
        apo__cdl_body_gap_up(b, t - 1, t - 2) & apo__cdl_white(b, t - 1) & apo__cdl_black(b, t) &
        APO_CDL_LT(o, c1) & APO_CDL_GT(o, o1) & APO_CDL_LT(c, o1) &
        APO_CDL_GT(c, apo__cdl_body_top(b, t - 2)) &
        APO_CDL_LT(fabs(apo__cdl_body(b, t - 1) - apo__cdl_body(b, t)), APO__CDL_AVG(NEAR, t - 1));
    const int down =
        apo__cdl_body_gap_down(b, t - 1, t - 2) & apo__cdl_black(b, t - 1) & apo__cdl_white(b, t) &
        APO_CDL_LT(o, o1) & APO_CDL_GT(o, c1) & APO_CDL_GT(c, o1) &
        APO_CDL_LT(c, apo__cdl_body_bottom(b, t - 2)) &
        APO_CDL_LT(fabs(apo__cdl_body(b, t - 1) - apo__cdl_body(b, t)), APO__CDL_AVG(NEAR, t - 1));
    return up | down ? apo__cdl_color(b, t - 1) * 100 : 0;
}

/* Tri-star: three dojis (each against the first's doji threshold), the middle one gapping
 * away; 100 when it gapped down and the third's body bottom is above its own, -100 the
 * mirror. */
static APO_CAT_SPECIALISED APO_HD int apo__cdltristar_at(const apo__candle_bars *b, size_t t) {
    const double doji = APO__CDL_AVG(BODY_DOJI, t - 2);
    if (!(APO_CDL_LE(apo__cdl_body(b, t - 2), doji) & APO_CDL_LE(apo__cdl_body(b, t - 1), doji) &
          APO_CDL_LE(apo__cdl_body(b, t), doji)))
        return 0;
    if (apo__cdl_body_gap_up(b, t - 1, t - 2) &
        APO_CDL_LT(apo__cdl_body_top(b, t), apo__cdl_body_top(b, t - 1)))
        return -100;
    if (apo__cdl_body_gap_down(b, t - 1, t - 2) &
        APO_CDL_GT(apo__cdl_body_bottom(b, t), apo__cdl_body_bottom(b, t - 1)))
        return 100;
    return 0;
}

/* Unique three river: a long black candle, a black harami with a lower low, and a short white
 * candle opening above that low. */
static APO_CAT_SPECIALISED APO_HD int apo__cdlunique3river_at(const apo__candle_bars *b, size_t t) {
    return APO_CDL_GT(apo__cdl_body(b, t - 2), APO__CDL_AVG(BODY_LONG, t - 2)) &
                   apo__cdl_black(b, t - 2) & apo__cdl_black(b, t - 1) &
                   APO_CDL_GT(b->close[t - 1], b->close[t - 2]) &
                   APO_CDL_LE(b->open[t - 1], b->open[t - 2]) &
                   APO_CDL_LT(b->low[t - 1], b->low[t - 2]) &
                   APO_CDL_LT(apo__cdl_body(b, t), APO__CDL_AVG(BODY_SHORT, t)) &
                   apo__cdl_white(b, t) & APO_CDL_GT(b->open[t], b->low[t - 1])
               ? 100
               : 0;
}

/* Upside gap two crows: a long white candle, a short black one gapping up, and a black one
 * engulfing it and closing above the first's close. */
static APO_CAT_SPECIALISED APO_HD int apo__cdlupsidegap2crows_at(const apo__candle_bars *b,
                                                                 size_t t) {
    return apo__cdl_white(b, t - 2) &
                   APO_CDL_GT(apo__cdl_body(b, t - 2), APO__CDL_AVG(BODY_LONG, t - 2)) &
                   apo__cdl_black(b, t - 1) &
                   APO_CDL_LE(apo__cdl_body(b, t - 1), APO__CDL_AVG(BODY_SHORT, t - 1)) &
                   apo__cdl_body_gap_up(b, t - 1, t - 2) & apo__cdl_black(b, t) &
                   APO_CDL_GT(b->open[t], b->open[t - 1]) &
                   APO_CDL_LT(b->close[t], b->close[t - 1]) &
                   APO_CDL_GT(b->close[t], b->close[t - 2])
               ? -100
               : 0;
}

/* Upside and downside gap three methods: two candles of one colour with a body gap between,
 * then one of the other colour opening inside the second's body and closing inside the
 * first's. */
static APO_CAT_SPECIALISED APO_HD int apo__cdlxsidegap3methods_at(const apo__candle_bars *b,
                                                                  size_t t) {
    if ((apo__cdl_white(b, t - 2) == apo__cdl_white(b, t - 1)) &
        (apo__cdl_white(b, t - 1) != apo__cdl_white(b, t)) &
        APO_CDL_LT(b->open[t], apo__cdl_body_top(b, t - 1)) &
        APO_CDL_GT(b->open[t], apo__cdl_body_bottom(b, t - 1)) &
        APO_CDL_LT(b->close[t], apo__cdl_body_top(b, t - 2)) &
        APO_CDL_GT(b->close[t], apo__cdl_body_bottom(b, t - 2)) &
        ((apo__cdl_white(b, t - 2) & apo__cdl_body_gap_up(b, t - 1, t - 2)) |
         (apo__cdl_black(b, t - 2) & apo__cdl_body_gap_down(b, t - 1, t - 2))))
        return apo__cdl_color(b, t - 2) * 100;
    return 0;
}

#endif /* APO_KERNELS_PATTERNS_THREE_H */
