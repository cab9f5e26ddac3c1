/*
 * patterns_two.h: TA-Lib's two-candle patterns, and the one-candle patterns that look at the
 * candle before (hammer, hanging man, inverted hammer, shooting star), each TA-Lib's conditions
 * on the candles t - 1 and t in TA-Lib's order of operations (docs/kernels/candles.md, "Candlestick
 * patterns").
 */
#ifndef APO_KERNELS_PATTERNS_TWO_H
#define APO_KERNELS_PATTERNS_TWO_H

#include "patterns_one.h"

/* A long body with very short shadows at both ends. */
static APO_CAT_SPECIALISED APO_HD int apo__cdl_is_marubozu(const apo__candle_bars *b, size_t j) {
    return APO_CDL_GT(apo__cdl_body(b, j), APO__CDL_AVG(BODY_LONG, j)) &
           APO_CDL_LT(apo__cdl_upper_shadow(b, j), APO__CDL_AVG(SHADOW_VERY_SHORT, j)) &
           APO_CDL_LT(apo__cdl_lower_shadow(b, j), APO__CDL_AVG(SHADOW_VERY_SHORT, j));
}

/* x within the Equal setting of y, candle j's. */
static APO_CAT_SPECIALISED APO_HD int apo__cdl_equal(const apo__candle_bars *b, double x, double y,
                                                     size_t j) {
    return APO_CDL_LE(x, y + APO__CDL_AVG(EQUAL, j)) & APO_CDL_GE(x, y - APO__CDL_AVG(EQUAL, j));
}

/* Counterattack: two long candles of opposite colours closing at the same price. */
static APO_CAT_SPECIALISED APO_HD int apo__cdlcounterattack_at(const apo__candle_bars *b,
                                                               size_t t) {
    return (apo__cdl_white(b, t - 1) != apo__cdl_white(b, t)) &
                   APO_CDL_GT(apo__cdl_body(b, t - 1), APO__CDL_AVG(BODY_LONG, t - 1)) &
                   APO_CDL_GT(apo__cdl_body(b, t), APO__CDL_AVG(BODY_LONG, t)) &
                   apo__cdl_equal(b, b->close[t], b->close[t - 1], t - 1)
               ? apo__cdl_color(b, t) * 100
               : 0;
}

/* Dark cloud cover: a long white candle, then a black one opening above its high and closing
 * inside its body, below its close by `penetration` of it. */
static APO_CAT_SPECIALISED APO_HD int apo__cdldarkcloudcover_at(const apo__candle_bars *b, size_t t,
                                                                double penetration) {
    return apo__cdl_white(b, t - 1) &
                   APO_CDL_GT(apo__cdl_body(b, t - 1), APO__CDL_AVG(BODY_LONG, t - 1)) &
                   apo__cdl_black(b, t) & APO_CDL_GT(b->open[t], b->high[t - 1]) &
                   APO_CDL_GT(b->close[t], b->open[t - 1]) &
                   APO_CDL_LT(b->close[t], b->close[t - 1] - apo__cdl_body(b, t - 1) * penetration)
               ? -100
               : 0;
}

/* Doji star: a long candle, then a doji whose body gaps away in its direction. */
static APO_CAT_SPECIALISED APO_HD int apo__cdldojistar_at(const apo__candle_bars *b, size_t t) {
    if (APO_CDL_GT(apo__cdl_body(b, t - 1), APO__CDL_AVG(BODY_LONG, t - 1)) &
        apo__cdl_is_doji(b, t) &
        ((apo__cdl_white(b, t - 1) & apo__cdl_body_gap_up(b, t, t - 1)) |
         (apo__cdl_black(b, t - 1) & apo__cdl_body_gap_down(b, t, t - 1))))
        return -apo__cdl_color(b, t - 1) * 100;
    return 0;
}

/* Engulfing: a body of the other colour covering the one before; 100 when it covers it with
 * room at both ends, 80 when it meets it at one end. */
static APO_CAT_SPECIALISED APO_HD int apo__cdlengulfing_at(const apo__candle_bars *b, size_t t) {
    const double o = b->open[t], c = b->close[t], o1 = b->open[t - 1], c1 = b->close[t - 1];
    const int engulfs =
        (apo__cdl_white(b, t) & apo__cdl_black(b, t - 1) &
         ((APO_CDL_GE(c, o1) & APO_CDL_LT(o, c1)) | (APO_CDL_GT(c, o1) & APO_CDL_LE(o, c1)))) |
        (apo__cdl_black(b, t) & apo__cdl_white(b, t - 1) &
         ((APO_CDL_GE(o, c1) & APO_CDL_LT(c, o1)) | (APO_CDL_GT(o, c1) & APO_CDL_LE(c, o1))));
    if (!engulfs)
        return 0;
    return apo__cdl_color(b, t) * (((o != c1) & (c != o1)) ? 100 : 80);
}

/* Hammer: a short body at the top of a long lower shadow, at or near the low before. */
static APO_CAT_SPECIALISED APO_HD int apo__cdlhammer_at(const apo__candle_bars *b, size_t t) {
    return APO_CDL_LT(apo__cdl_body(b, t), APO__CDL_AVG(BODY_SHORT, t)) &
                   APO_CDL_GT(apo__cdl_lower_shadow(b, t), APO__CDL_AVG(SHADOW_LONG, t)) &
                   APO_CDL_LT(apo__cdl_upper_shadow(b, t), APO__CDL_AVG(SHADOW_VERY_SHORT, t)) &
                   APO_CDL_LE(apo__cdl_body_bottom(b, t), b->low[t - 1] + APO__CDL_AVG(NEAR, t - 1))
               ? 100
               : 0;
}

/* Hanging man: a hammer's shape at or near the high before. */
static APO_CAT_SPECIALISED APO_HD int apo__cdlhangingman_at(const apo__candle_bars *b, size_t t) {
    return APO_CDL_LT(apo__cdl_body(b, t), APO__CDL_AVG(BODY_SHORT, t)) &
                   APO_CDL_GT(apo__cdl_lower_shadow(b, t), APO__CDL_AVG(SHADOW_LONG, t)) &
                   APO_CDL_LT(apo__cdl_upper_shadow(b, t), APO__CDL_AVG(SHADOW_VERY_SHORT, t)) &
                   APO_CDL_GE(apo__cdl_body_bottom(b, t),
                              b->high[t - 1] - APO__CDL_AVG(NEAR, t - 1))
               ? -100
               : 0;
}

/* Harami and harami cross: a long body, then a small one (`small` its test) inside it;
 * against the first candle's colour, 100 strictly inside, 80 touching an end. Every test is
 * computed and the value formed by arithmetic, with no branch: the first test passes on about
 * 40% of the bars, and a branch on it was mispredicted often. */
static APO_CAT_SPECIALISED APO_HD int apo__cdl_harami_with(const apo__candle_bars *b, size_t t,
                                                           int small) {
    const int long_first = APO_CDL_GT(apo__cdl_body(b, t - 1), APO__CDL_AVG(BODY_LONG, t - 1));
    const double top = apo__cdl_body_top(b, t), bottom = apo__cdl_body_bottom(b, t);
    const double top1 = apo__cdl_body_top(b, t - 1), bottom1 = apo__cdl_body_bottom(b, t - 1);
    const int inside = APO_CDL_LT(top, top1) & APO_CDL_GT(bottom, bottom1);
    const int within = APO_CDL_LE(top, top1) & APO_CDL_GE(bottom, bottom1);
    const int size = inside ? 100 : within ? 80 : 0;
    return (long_first & small) * -apo__cdl_color(b, t - 1) * size;
}

static APO_CAT_SPECIALISED APO_HD int apo__cdlharami_at(const apo__candle_bars *b, size_t t) {
    return apo__cdl_harami_with(b, t, APO_CDL_LE(apo__cdl_body(b, t), APO__CDL_AVG(BODY_SHORT, t)));
}

static APO_CAT_SPECIALISED APO_HD int apo__cdlharamicross_at(const apo__candle_bars *b, size_t t) {
    return apo__cdl_harami_with(b, t, apo__cdl_is_doji(b, t));
}

/* Homing pigeon: a long black candle, then a short black one inside its body. */
static APO_CAT_SPECIALISED APO_HD int apo__cdlhomingpigeon_at(const apo__candle_bars *b, size_t t) {
    return apo__cdl_black(b, t - 1) & apo__cdl_black(b, t) &
                   APO_CDL_GT(apo__cdl_body(b, t - 1), APO__CDL_AVG(BODY_LONG, t - 1)) &
                   APO_CDL_LE(apo__cdl_body(b, t), APO__CDL_AVG(BODY_SHORT, t)) &
                   APO_CDL_LT(b->open[t], b->open[t - 1]) & APO_CDL_GT(b->close[t], b->close[t - 1])
               ? 100
               : 0;
}

/* In-neck: a long black candle, then a white one opening below its low and closing at or just
 * above its close. */
static APO_CAT_SPECIALISED APO_HD int apo__cdlinneck_at(const apo__candle_bars *b, size_t t) {
    return apo__cdl_black(b, t - 1) &
                   APO_CDL_GT(apo__cdl_body(b, t - 1), APO__CDL_AVG(BODY_LONG, t - 1)) &
                   apo__cdl_white(b, t) & APO_CDL_LT(b->open[t], b->low[t - 1]) &
                   APO_CDL_LE(b->close[t], b->close[t - 1] + APO__CDL_AVG(EQUAL, t - 1)) &
                   APO_CDL_GE(b->close[t], b->close[t - 1])
               ? -100
               : 0;
}

/* Inverted hammer: a short body at the bottom of a long upper shadow, gapping down. */
static APO_CAT_SPECIALISED APO_HD int apo__cdlinvertedhammer_at(const apo__candle_bars *b,
                                                                size_t t) {
    return APO_CDL_LT(apo__cdl_body(b, t), APO__CDL_AVG(BODY_SHORT, t)) &
                   APO_CDL_GT(apo__cdl_upper_shadow(b, t), APO__CDL_AVG(SHADOW_LONG, t)) &
                   APO_CDL_LT(apo__cdl_lower_shadow(b, t), APO__CDL_AVG(SHADOW_VERY_SHORT, t)) &
                   apo__cdl_body_gap_down(b, t, t - 1)
               ? 100
               : 0;
}

/* Kicking: two marubozu of opposite colours with a gap between them. */
static APO_CAT_SPECIALISED APO_HD int apo__cdl_is_kick(const apo__candle_bars *b, size_t t) {
    return (apo__cdl_color(b, t - 1) == -apo__cdl_color(b, t)) & apo__cdl_is_marubozu(b, t - 1) &
           apo__cdl_is_marubozu(b, t) &
           ((apo__cdl_black(b, t - 1) & apo__cdl_gap_up(b, t, t - 1)) |
            (apo__cdl_white(b, t - 1) & apo__cdl_gap_down(b, t, t - 1)));
}

static APO_CAT_SPECIALISED APO_HD int apo__cdlkicking_at(const apo__candle_bars *b, size_t t) {
    return apo__cdl_is_kick(b, t) ? apo__cdl_color(b, t) * 100 : 0;
}

/* Kicking by length: the kick's sign is the longer marubozu's colour. */
static APO_CAT_SPECIALISED APO_HD int apo__cdlkickingbylength_at(const apo__candle_bars *b,
                                                                 size_t t) {
    if (!apo__cdl_is_kick(b, t))
        return 0;
    const size_t longer = apo__cdl_body(b, t) > apo__cdl_body(b, t - 1) ? t : t - 1;
    return apo__cdl_color(b, longer) * 100;
}

/* Matching low: two black candles closing at the same price. */
static APO_CAT_SPECIALISED APO_HD int apo__cdlmatchinglow_at(const apo__candle_bars *b, size_t t) {
    return apo__cdl_black(b, t - 1) & apo__cdl_black(b, t) &
                   apo__cdl_equal(b, b->close[t], b->close[t - 1], t - 1)
               ? 100
               : 0;
}

/* On-neck: a long black candle, then a white one opening below its low and closing at it. */
static APO_CAT_SPECIALISED APO_HD int apo__cdlonneck_at(const apo__candle_bars *b, size_t t) {
    return apo__cdl_black(b, t - 1) &
                   APO_CDL_GT(apo__cdl_body(b, t - 1), APO__CDL_AVG(BODY_LONG, t - 1)) &
                   apo__cdl_white(b, t) & APO_CDL_LT(b->open[t], b->low[t - 1]) &
                   apo__cdl_equal(b, b->close[t], b->low[t - 1], t - 1)
               ? -100
               : 0;
}

/* Piercing: a long black candle, then a long white one opening below its low and closing above
 * the middle of its body, below its open. */
static APO_CAT_SPECIALISED APO_HD int apo__cdlpiercing_at(const apo__candle_bars *b, size_t t) {
    return apo__cdl_black(b, t - 1) &
                   APO_CDL_GT(apo__cdl_body(b, t - 1), APO__CDL_AVG(BODY_LONG, t - 1)) &
                   apo__cdl_white(b, t) &
                   APO_CDL_GT(apo__cdl_body(b, t), APO__CDL_AVG(BODY_LONG, t)) &
                   APO_CDL_LT(b->open[t], b->low[t - 1]) & APO_CDL_LT(b->close[t], b->open[t - 1]) &
                   APO_CDL_GT(b->close[t], b->close[t - 1] + apo__cdl_body(b, t - 1) * 0.5)
               ? 100
               : 0;
}

/* Separating lines: candles of opposite colours opening at the same price, the second a belt
 * hold. */
static APO_CAT_SPECIALISED APO_HD int apo__cdlseparatinglines_at(const apo__candle_bars *b,
                                                                 size_t t) {
    return (apo__cdl_white(b, t - 1) != apo__cdl_white(b, t)) &
                   apo__cdl_equal(b, b->open[t], b->open[t - 1], t - 1) & apo__cdl_belt_hold(b, t)
               ? apo__cdl_color(b, t) * 100
               : 0;
}

/* Shooting star: an inverted hammer's shape gapping up. */
static APO_CAT_SPECIALISED APO_HD int apo__cdlshootingstar_at(const apo__candle_bars *b, size_t t) {
    return APO_CDL_LT(apo__cdl_body(b, t), APO__CDL_AVG(BODY_SHORT, t)) &
                   APO_CDL_GT(apo__cdl_upper_shadow(b, t), APO__CDL_AVG(SHADOW_LONG, t)) &
                   APO_CDL_LT(apo__cdl_lower_shadow(b, t), APO__CDL_AVG(SHADOW_VERY_SHORT, t)) &
                   apo__cdl_body_gap_up(b, t, t - 1)
               ? -100
               : 0;
}

/* Thrusting: a long black candle, then a white one opening below its low and closing above its
 * close, below the middle of its body. */
static APO_CAT_SPECIALISED APO_HD int apo__cdlthrusting_at(const apo__candle_bars *b, size_t t) {
    return apo__cdl_black(b, t - 1) &
                   APO_CDL_GT(apo__cdl_body(b, t - 1), APO__CDL_AVG(BODY_LONG, t - 1)) &
                   apo__cdl_white(b, t) & APO_CDL_LT(b->open[t], b->low[t - 1]) &
                   APO_CDL_GT(b->close[t], b->close[t - 1] + APO__CDL_AVG(EQUAL, t - 1)) &
                   APO_CDL_LE(b->close[t], b->close[t - 1] + apo__cdl_body(b, t - 1) * 0.5)
               ? -100
               : 0;
}

#endif /* APO_KERNELS_PATTERNS_TWO_H */
