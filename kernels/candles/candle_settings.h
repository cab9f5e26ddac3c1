/*
 * candle_settings.h: what TA-Lib's candlestick patterns share (docs/kernels.md, "Candlestick
 * patterns"): the bars (open, high, low, close), a candle's parts (real body, shadows, colour,
 * gaps) and TA-Lib's candle settings, each a range type, an averaging period and a factor,
 * with the average of a setting over the bars before a bar.
 *
 * Every helper reads the bars it names and nothing else. An average is summed afresh at each
 * position, in index order from 0.0, over the `period` bars before the candle: TA-Lib keeps
 * these sums running (it adds the newest range and subtracts the oldest), so its sums drift by
 * roundings that depend on where its loop started, which would make a tile's outputs depend on
 * its start. A fresh sum is a function of the bars alone, the same on every tile, stream and
 * device; it is TA-Lib's first sum exactly, and differs from its later ones only in roundings,
 * which change an output only where a comparison is that close.
 */
#ifndef APO_KERNELS_CANDLE_SETTINGS_H
#define APO_KERNELS_CANDLE_SETTINGS_H

#include "apo_hd.h"

/* The four inputs of every pattern, in the catalog's order. */
typedef struct apo__candle_bars {
    const double *open, *high, *low, *close;
} apo__candle_bars;

/* How a setting measures a candle: its real body, its high-low range, or its two shadows
 * (whose average TA-Lib halves, so that it compares with one shadow). */
typedef enum apo__candle_range {
    APO_CDL_REAL_BODY,
    APO_CDL_HIGH_LOW,
    APO_CDL_SHADOWS
} apo__candle_range;

/*
 * TA-Lib's candle settings with its defaults (TA_SetCandleSettings): X(setting, range,
 * period, factor). A period of 0 compares with the candle's own range, not an average.
 */
#define APO_CANDLE_SETTINGS(X)                                                                     \
    X(BODY_LONG, APO_CDL_REAL_BODY, 10, 1.0)                                                       \
    X(BODY_VERY_LONG, APO_CDL_REAL_BODY, 10, 3.0)                                                  \
    X(BODY_SHORT, APO_CDL_REAL_BODY, 10, 1.0)                                                      \
    X(BODY_DOJI, APO_CDL_HIGH_LOW, 10, 0.1)                                                        \
    X(SHADOW_LONG, APO_CDL_REAL_BODY, 0, 1.0)                                                      \
    X(SHADOW_VERY_LONG, APO_CDL_REAL_BODY, 0, 2.0)                                                 \
    X(SHADOW_SHORT, APO_CDL_SHADOWS, 10, 1.0)                                                      \
    X(SHADOW_VERY_SHORT, APO_CDL_HIGH_LOW, 10, 0.1)                                                \
    X(NEAR, APO_CDL_HIGH_LOW, 5, 0.2)                                                              \
    X(FAR, APO_CDL_HIGH_LOW, 5, 0.6)                                                               \
    X(EQUAL, APO_CDL_HIGH_LOW, 5, 0.05)

typedef enum apo__candle_setting {
#define APO__CDL_SETTING_ID(name, range, period, factor) APO_CDL_##name,
    APO_CANDLE_SETTINGS(APO__CDL_SETTING_ID)
#undef APO__CDL_SETTING_ID
} apo__candle_setting;

/* A setting's range type, period and factor; the switches fold where the setting is a
 * constant, as it is at every call. */
static inline APO_HD apo__candle_range apo__cdl_range_type(apo__candle_setting s) {
    switch (s) {
#define APO__CDL_RANGE_OF(name, range, period, factor)                                             \
    case APO_CDL_##name:                                                                           \
        return range;
        APO_CANDLE_SETTINGS(APO__CDL_RANGE_OF)
#undef APO__CDL_RANGE_OF
    }
    return APO_CDL_REAL_BODY;
}

static inline APO_HD int apo__cdl_period(apo__candle_setting s) {
    switch (s) {
#define APO__CDL_PERIOD_OF(name, range, period, factor)                                            \
    case APO_CDL_##name:                                                                           \
        return period;
        APO_CANDLE_SETTINGS(APO__CDL_PERIOD_OF)
#undef APO__CDL_PERIOD_OF
    }
    return 0;
}

static inline APO_HD double apo__cdl_factor(apo__candle_setting s) {
    switch (s) {
#define APO__CDL_FACTOR_OF(name, range, period, factor)                                            \
    case APO_CDL_##name:                                                                           \
        return factor;
        APO_CANDLE_SETTINGS(APO__CDL_FACTOR_OF)
#undef APO__CDL_FACTOR_OF
    }
    return 0.0;
}

/* A candle's parts, TA-Lib's definitions. White is a close at or above the open. */
static inline APO_HD double apo__cdl_body(const apo__candle_bars *b, size_t j) {
    return fabs(b->close[j] - b->open[j]);
}
static inline APO_HD int apo__cdl_white(const apo__candle_bars *b, size_t j) {
    return b->close[j] >= b->open[j];
}
static inline APO_HD int apo__cdl_black(const apo__candle_bars *b, size_t j) {
    return !apo__cdl_white(b, j);
}
/* +1 for a white candle, -1 for a black one. */
static inline APO_HD int apo__cdl_color(const apo__candle_bars *b, size_t j) {
    return apo__cdl_white(b, j) ? 1 : -1;
}
static inline APO_HD double apo__cdl_body_top(const apo__candle_bars *b, size_t j) {
    return b->close[j] > b->open[j] ? b->close[j] : b->open[j];
}
static inline APO_HD double apo__cdl_body_bottom(const apo__candle_bars *b, size_t j) {
    return b->close[j] < b->open[j] ? b->close[j] : b->open[j];
}
static inline APO_HD double apo__cdl_upper_shadow(const apo__candle_bars *b, size_t j) {
    return b->high[j] - (apo__cdl_white(b, j) ? b->close[j] : b->open[j]);
}
static inline APO_HD double apo__cdl_lower_shadow(const apo__candle_bars *b, size_t j) {
    return (apo__cdl_white(b, j) ? b->open[j] : b->close[j]) - b->low[j];
}
static inline APO_HD double apo__cdl_high_low(const apo__candle_bars *b, size_t j) {
    return b->high[j] - b->low[j];
}

/* Gaps between candle `later` and candle `earlier`: of the real bodies, or of the whole
 * candles (the later low above the earlier high, or the later high below the earlier low). */
static inline APO_HD int apo__cdl_body_gap_up(const apo__candle_bars *b, size_t later,
                                              size_t earlier) {
    return apo__cdl_body_bottom(b, later) > apo__cdl_body_top(b, earlier);
}
static inline APO_HD int apo__cdl_body_gap_down(const apo__candle_bars *b, size_t later,
                                                size_t earlier) {
    return apo__cdl_body_top(b, later) < apo__cdl_body_bottom(b, earlier);
}
static inline APO_HD int apo__cdl_gap_up(const apo__candle_bars *b, size_t later, size_t earlier) {
    return b->low[later] > b->high[earlier];
}
static inline APO_HD int apo__cdl_gap_down(const apo__candle_bars *b, size_t later,
                                           size_t earlier) {
    return b->high[later] < b->low[earlier];
}

/* Candle j measured as setting s measures it. */
static inline APO_HD double apo__cdl_range(const apo__candle_bars *b, apo__candle_setting s,
                                           size_t j) {
    switch (apo__cdl_range_type(s)) {
    case APO_CDL_REAL_BODY:
        return apo__cdl_body(b, j);
    case APO_CDL_HIGH_LOW:
        return apo__cdl_high_low(b, j);
    case APO_CDL_SHADOWS:
        return apo__cdl_upper_shadow(b, j) + apo__cdl_lower_shadow(b, j);
    }
    return 0.0;
}

/* The threshold setting s gives candle j, in TA-Lib's operations: the factor times the mean of
 * the ranges of the `period` candles before j (its own range for a period of 0), halved for
 * shadows. The sum runs in index order from 0.0, afresh at every call (see the top). */
static inline APO_HD double apo__cdl_avg(const apo__candle_bars *b, apo__candle_setting s,
                                         size_t j) {
    const int period = apo__cdl_period(s);
    double mean;
    if (period == 0) {
        mean = apo__cdl_range(b, s, j);
    } else {
        double sum = 0.0;
        for (size_t k = j - (size_t)period; k < j; k++)
            sum += apo__cdl_range(b, s, k);
        mean = sum / (double)period;
    }
    const double scaled = apo__cdl_factor(s) * mean;
    return apo__cdl_range_type(s) == APO_CDL_SHADOWS ? scaled / 2.0 : scaled;
}

/* The patterns' shorthand: candle j's threshold of setting s (BODY_LONG, NEAR, ...) on the bars
 * b of the pattern's scope. */
#define APO__CDL_AVG(s, j) apo__cdl_avg(b, APO_CDL_##s, j)

#endif /* APO_KERNELS_CANDLE_SETTINGS_H */
