/*
 * patterns_one.h: TA-Lib's one-candle patterns (docs/kernels/candles.md, "Candlestick patterns"),
 * each TA-Lib's conditions on the candle t against the settings' averages of the bars before it
 * (candle_settings.h), in TA-Lib's order of operations. The value is TA-Lib's: 100 (bullish, or
 * the pattern's only sign), -100 (bearish), or the candle's colour times 100.
 */
#ifndef APO_KERNELS_PATTERNS_ONE_H
#define APO_KERNELS_PATTERNS_ONE_H

#include "candle_settings.h"

/* Belt-hold: a long candle opening at its extreme (a very short shadow on the open's side). The
 * candle's test alone is also separating lines' second candle (patterns_two.h). */
static APO_CAT_SPECIALISED APO_HD int apo__cdl_belt_hold(const apo__candle_bars *b, size_t t) {
    return APO_CDL_GT(apo__cdl_body(b, t), APO__CDL_AVG(BODY_LONG, t)) &
           ((apo__cdl_white(b, t) &
             APO_CDL_LT(apo__cdl_lower_shadow(b, t), APO__CDL_AVG(SHADOW_VERY_SHORT, t))) |
            (apo__cdl_black(b, t) &
             APO_CDL_LT(apo__cdl_upper_shadow(b, t), APO__CDL_AVG(SHADOW_VERY_SHORT, t))));
}

static APO_CAT_SPECIALISED APO_HD int apo__cdlbelthold_at(const apo__candle_bars *b, size_t t) {
    if (apo__cdl_belt_hold(b, t))
        return apo__cdl_color(b, t) * 100;
    return 0;
}

/* Closing marubozu: a long candle closing at its extreme. */
static APO_CAT_SPECIALISED APO_HD int apo__cdlclosingmarubozu_at(const apo__candle_bars *b,
                                                                 size_t t) {
    if (APO_CDL_GT(apo__cdl_body(b, t), APO__CDL_AVG(BODY_LONG, t)) &
        ((apo__cdl_white(b, t) &
          APO_CDL_LT(apo__cdl_upper_shadow(b, t), APO__CDL_AVG(SHADOW_VERY_SHORT, t))) |
         (apo__cdl_black(b, t) &
          APO_CDL_LT(apo__cdl_lower_shadow(b, t), APO__CDL_AVG(SHADOW_VERY_SHORT, t)))))
        return apo__cdl_color(b, t) * 100;
    return 0;
}

/* Doji: a real body no longer than the doji's share of the average range. */
static APO_CAT_SPECIALISED APO_HD int apo__cdl_is_doji(const apo__candle_bars *b, size_t j) {
    return APO_CDL_LE(apo__cdl_body(b, j), APO__CDL_AVG(BODY_DOJI, j));
}

static APO_CAT_SPECIALISED APO_HD int apo__cdldoji_at(const apo__candle_bars *b, size_t t) {
    return apo__cdl_is_doji(b, t) ? 100 : 0;
}

/* Dragonfly doji: a doji with no upper shadow to speak of and a lower one. */
static APO_CAT_SPECIALISED APO_HD int apo__cdldragonflydoji_at(const apo__candle_bars *b,
                                                               size_t t) {
    return apo__cdl_is_doji(b, t) &
                   APO_CDL_LT(apo__cdl_upper_shadow(b, t), APO__CDL_AVG(SHADOW_VERY_SHORT, t)) &
                   APO_CDL_GT(apo__cdl_lower_shadow(b, t), APO__CDL_AVG(SHADOW_VERY_SHORT, t))
               ? 100
               : 0;
}

/* Gravestone doji: a doji with no lower shadow to speak of and an upper one. */
static APO_CAT_SPECIALISED APO_HD int apo__cdlgravestonedoji_at(const apo__candle_bars *b,
                                                                size_t t) {
    return apo__cdl_is_doji(b, t) &
                   APO_CDL_LT(apo__cdl_lower_shadow(b, t), APO__CDL_AVG(SHADOW_VERY_SHORT, t)) &
                   APO_CDL_GT(apo__cdl_upper_shadow(b, t), APO__CDL_AVG(SHADOW_VERY_SHORT, t))
               ? 100
               : 0;
}

/* High-wave: a short body with both shadows very long. */
static APO_CAT_SPECIALISED APO_HD int apo__cdlhighwave_at(const apo__candle_bars *b, size_t t) {
    if (APO_CDL_LT(apo__cdl_body(b, t), APO__CDL_AVG(BODY_SHORT, t)) &
        APO_CDL_GT(apo__cdl_upper_shadow(b, t), APO__CDL_AVG(SHADOW_VERY_LONG, t)) &
        APO_CDL_GT(apo__cdl_lower_shadow(b, t), APO__CDL_AVG(SHADOW_VERY_LONG, t)))
        return apo__cdl_color(b, t) * 100;
    return 0;
}

/* Long-legged doji: a doji with one long shadow or two. */
static APO_CAT_SPECIALISED APO_HD int apo__cdllongleggeddoji_at(const apo__candle_bars *b,
                                                                size_t t) {
    return apo__cdl_is_doji(b, t) &
                   (APO_CDL_GT(apo__cdl_lower_shadow(b, t), APO__CDL_AVG(SHADOW_LONG, t)) |
                    APO_CDL_GT(apo__cdl_upper_shadow(b, t), APO__CDL_AVG(SHADOW_LONG, t)))
               ? 100
               : 0;
}

/* Long line: a long body with short shadows. */
static APO_CAT_SPECIALISED APO_HD int apo__cdllongline_at(const apo__candle_bars *b, size_t t) {
    if (APO_CDL_GT(apo__cdl_body(b, t), APO__CDL_AVG(BODY_LONG, t)) &
        APO_CDL_LT(apo__cdl_upper_shadow(b, t), APO__CDL_AVG(SHADOW_SHORT, t)) &
        APO_CDL_LT(apo__cdl_lower_shadow(b, t), APO__CDL_AVG(SHADOW_SHORT, t)))
        return apo__cdl_color(b, t) * 100;
    return 0;
}

/* Marubozu: a long body with very short shadows. */
static APO_CAT_SPECIALISED APO_HD int apo__cdlmarubozu_at(const apo__candle_bars *b, size_t t) {
    if (APO_CDL_GT(apo__cdl_body(b, t), APO__CDL_AVG(BODY_LONG, t)) &
        APO_CDL_LT(apo__cdl_upper_shadow(b, t), APO__CDL_AVG(SHADOW_VERY_SHORT, t)) &
        APO_CDL_LT(apo__cdl_lower_shadow(b, t), APO__CDL_AVG(SHADOW_VERY_SHORT, t)))
        return apo__cdl_color(b, t) * 100;
    return 0;
}

/* Rickshaw man: a long-legged doji whose body sits near the middle of its range. */
static APO_CAT_SPECIALISED APO_HD int apo__cdlrickshawman_at(const apo__candle_bars *b, size_t t) {
    const double middle = b->low[t] + apo__cdl_high_low(b, t) / 2.0;
    return apo__cdl_is_doji(b, t) &
                   APO_CDL_GT(apo__cdl_lower_shadow(b, t), APO__CDL_AVG(SHADOW_LONG, t)) &
                   APO_CDL_GT(apo__cdl_upper_shadow(b, t), APO__CDL_AVG(SHADOW_LONG, t)) &
                   APO_CDL_LE(apo__cdl_body_bottom(b, t), middle + APO__CDL_AVG(NEAR, t)) &
                   APO_CDL_GE(apo__cdl_body_top(b, t), middle - APO__CDL_AVG(NEAR, t))
               ? 100
               : 0;
}

/* Short line: a short body with short shadows. */
static APO_CAT_SPECIALISED APO_HD int apo__cdlshortline_at(const apo__candle_bars *b, size_t t) {
    return APO_CDL_LT(apo__cdl_body(b, t), APO__CDL_AVG(BODY_SHORT, t)) &
                   APO_CDL_LT(apo__cdl_upper_shadow(b, t), APO__CDL_AVG(SHADOW_SHORT, t)) &
                   APO_CDL_LT(apo__cdl_lower_shadow(b, t), APO__CDL_AVG(SHADOW_SHORT, t))
               ? apo__cdl_color(b, t) * 100
               : 0;
}

/* Spinning top: a short body with both shadows longer than it. */
static APO_CAT_SPECIALISED APO_HD int apo__cdlspinningtop_at(const apo__candle_bars *b, size_t t) {
    const double body = apo__cdl_body(b, t);
    if (APO_CDL_LT(body, APO__CDL_AVG(BODY_SHORT, t)) &
        APO_CDL_GT(apo__cdl_upper_shadow(b, t), body) &
        APO_CDL_GT(apo__cdl_lower_shadow(b, t), body))
        return apo__cdl_color(b, t) * 100;
    return 0;
}

/* Takuri: a dragonfly doji whose lower shadow is very long. */
static APO_CAT_SPECIALISED APO_HD int apo__cdltakuri_at(const apo__candle_bars *b, size_t t) {
    return apo__cdl_is_doji(b, t) &
                   APO_CDL_LT(apo__cdl_upper_shadow(b, t), APO__CDL_AVG(SHADOW_VERY_SHORT, t)) &
                   APO_CDL_GT(apo__cdl_lower_shadow(b, t), APO__CDL_AVG(SHADOW_VERY_LONG, t))
               ? 100
               : 0;
}

#endif /* APO_KERNELS_PATTERNS_ONE_H */
