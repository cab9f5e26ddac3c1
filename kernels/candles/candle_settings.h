/*
 * candle_settings.h: what TA-Lib's candlestick patterns share (docs/kernels/candles.md,
 * "Candlestick patterns"): the bars (open, high, low, close), a candle's parts (real body, shadows,
 * colour, gaps) and TA-Lib's candle settings, each a range type, an averaging period and a factor,
 * with the average of a setting over the bars before a bar.
 *
 * Every helper reads the bars it names and nothing else. A mean is summed in index order from
 * 0.0 over the `period` bars before the candle, for each candle on its own: TA-Lib keeps these
 * sums running (it adds the newest range and subtracts the oldest), so its sums drift by
 * roundings that depend on where its loop started, which would make a tile's outputs depend on
 * its start. A sum of its own bars is a function of the bars alone, the same on every tile,
 * stream and device; it is TA-Lib's first sum exactly, and differs from its later ones only in
 * roundings, which change an output only where a comparison is that close. The tiles compute
 * these means for a block of bars at once, once for all the settings of a measure
 * (candle_means.h); apo__cdl_mean_fresh is the same sum for one candle.
 */
#ifndef APO_KERNELS_CANDLE_SETTINGS_H
#define APO_KERNELS_CANDLE_SETTINGS_H

#include "apo_hd.h"
#include "catalog.h"

/* How a setting measures a candle: its real body, its high-low range, or its two shadows
 * (whose average TA-Lib halves, so that it compares with one shadow). */
typedef enum apo__candle_range {
    APO_CDL_REAL_BODY,
    APO_CDL_HIGH_LOW,
    APO_CDL_SHADOWS
} apo__candle_range;

/*
 * The measures the settings average: X(measure, range, period), a range type over the period
 * candles before the one compared. Settings of the same range type and period share one measure,
 * so its mean is computed once a bar for all of them (candle_means.h). The averaged measures come
 * first; OWN_BODY, the last, is the candle's own real body (period 0: no average).
 */
#define APO_CANDLE_AVERAGED_MEASURES(X)                                                            \
    X(BODY10, APO_CDL_REAL_BODY, 10)                                                               \
    X(RANGE10, APO_CDL_HIGH_LOW, 10)                                                               \
    X(SHADOWS10, APO_CDL_SHADOWS, 10)                                                              \
    X(RANGE5, APO_CDL_HIGH_LOW, 5)
#define APO_CANDLE_MEASURES(X)                                                                     \
    APO_CANDLE_AVERAGED_MEASURES(X)                                                                \
    X(OWN_BODY, APO_CDL_REAL_BODY, 0)

typedef enum apo__candle_measure {
#define APO__CDL_MEASURE_ID(name, range, period) APO_CDL_##name,
    APO_CANDLE_MEASURES(APO__CDL_MEASURE_ID)
#undef APO__CDL_MEASURE_ID
    /* The number of averaged measures: all but OWN_BODY. */
    APO_CDL_AVERAGED = APO_CDL_OWN_BODY
} apo__candle_measure;

/* A set of averaged measures, one bit each, for the tile to compute (candle_means.h). */
#define APO_CDL_USES(name) (1u << APO_CDL_##name)

/* The four inputs of every pattern, in the catalog's order, and the means of the averaged
 * measures that the pattern's tile computed for the bars at hand: mean[m][j - first] is
 * measure m's mean over the candles before candle j, NULL where the tile computed none (then
 * apo__cdl_avg sums it afresh, with the same bits). */
typedef struct apo__candle_bars {
    const double *open, *high, *low, *close;
    const double *mean[APO_CDL_AVERAGED];
    size_t first;
} apo__candle_bars;

/*
 * TA-Lib's candle settings with its defaults (TA_SetCandleSettings): X(setting, measure,
 * factor), the measure giving TA-Lib's range type and period. A period of 0 (OWN_BODY)
 * compares with the candle's own range, not an average.
 */
#define APO_CANDLE_SETTINGS(X)                                                                     \
    X(BODY_LONG, BODY10, 1.0)                                                                      \
    X(BODY_VERY_LONG, BODY10, 3.0)                                                                 \
    X(BODY_SHORT, BODY10, 1.0)                                                                     \
    X(BODY_DOJI, RANGE10, 0.1)                                                                     \
    X(SHADOW_LONG, OWN_BODY, 1.0)                                                                  \
    X(SHADOW_VERY_LONG, OWN_BODY, 2.0)                                                             \
    X(SHADOW_SHORT, SHADOWS10, 1.0)                                                                \
    X(SHADOW_VERY_SHORT, RANGE10, 0.1)                                                             \
    X(NEAR, RANGE5, 0.2)                                                                           \
    X(FAR, RANGE5, 0.6)                                                                            \
    X(EQUAL, RANGE5, 0.05)

typedef enum apo__candle_setting {
#define APO__CDL_SETTING_ID(name, measure, factor) APO_CDL_##name,
    APO_CANDLE_SETTINGS(APO__CDL_SETTING_ID)
#undef APO__CDL_SETTING_ID
} apo__candle_setting;

/* A setting's measure and factor, a measure's range type and period; the switches fold where
 * the argument is a constant, as it is at every call. */
static APO_CAT_SPECIALISED APO_HD apo__candle_measure apo__cdl_measure(apo__candle_setting s) {
    switch (s) {
#define APO__CDL_MEASURE_OF(name, measure, factor)                                                 \
    case APO_CDL_##name:                                                                           \
        return APO_CDL_##measure;
        APO_CANDLE_SETTINGS(APO__CDL_MEASURE_OF)
#undef APO__CDL_MEASURE_OF
    }
    return APO_CDL_OWN_BODY;
}

static APO_CAT_SPECIALISED APO_HD double apo__cdl_factor(apo__candle_setting s) {
    switch (s) {
#define APO__CDL_FACTOR_OF(name, measure, factor)                                                  \
    case APO_CDL_##name:                                                                           \
        return factor;
        APO_CANDLE_SETTINGS(APO__CDL_FACTOR_OF)
#undef APO__CDL_FACTOR_OF
    }
    return 0.0;
}

static APO_CAT_SPECIALISED APO_HD apo__candle_range apo__cdl_range_type(apo__candle_measure m) {
    switch (m) {
#define APO__CDL_RANGE_OF(name, range, period)                                                     \
    case APO_CDL_##name:                                                                           \
        return range;
        APO_CANDLE_MEASURES(APO__CDL_RANGE_OF)
#undef APO__CDL_RANGE_OF
    }
    return APO_CDL_REAL_BODY;
}

static APO_CAT_SPECIALISED APO_HD int apo__cdl_period(apo__candle_measure m) {
    switch (m) {
#define APO__CDL_PERIOD_OF(name, range, period)                                                    \
    case APO_CDL_##name:                                                                           \
        return period;
        APO_CANDLE_MEASURES(APO__CDL_PERIOD_OF)
#undef APO__CDL_PERIOD_OF
    }
    return 0;
}

/*
 * The comparisons of the patterns: <, >, <= and >= on doubles as quiet comparisons (C99's isless
 * ...), which give the same results and raise no exception on a NaN, so gcc may compute them
 * where the source does not ask for them yet: a signalling comparison may trap, and gcc keeps it
 * behind the branch of the test before it. Every pattern combines its tests with & and | in
 * these comparisons: every test is computed, with no branch to mispredict, and gcc runs the loop
 * in vector lanes. C's && and || gave the same values and looked faster where the first test is
 * rare (a doji, a long candle), but only on a series replayed call after call, whose branches
 * the CPU learns; on fresh series and at 1e6 bars every pattern measured was faster with &
 * (docs/perf-log/2026-11-30-candle-branches.md). On a GPU the plain operators.
 */
#if defined(__GNUC__) && !defined(__CUDACC__)
#define APO_CDL_LT(x, y) __builtin_isless(x, y)
#define APO_CDL_GT(x, y) __builtin_isgreater(x, y)
#define APO_CDL_LE(x, y) __builtin_islessequal(x, y)
#define APO_CDL_GE(x, y) __builtin_isgreaterequal(x, y)
#else
#define APO_CDL_LT(x, y) ((x) < (y))
#define APO_CDL_GT(x, y) ((x) > (y))
#define APO_CDL_LE(x, y) ((x) <= (y))
#define APO_CDL_GE(x, y) ((x) >= (y))
#endif

/* A candle's parts, TA-Lib's definitions. White is a close at or above the open. */
static APO_CAT_SPECIALISED APO_HD double apo__cdl_body(const apo__candle_bars *b, size_t j) {
    return fabs(b->close[j] - b->open[j]);
}
static APO_CAT_SPECIALISED APO_HD int apo__cdl_white(const apo__candle_bars *b, size_t j) {
    return APO_CDL_GE(b->close[j], b->open[j]);
}
static APO_CAT_SPECIALISED APO_HD int apo__cdl_black(const apo__candle_bars *b, size_t j) {
    return !apo__cdl_white(b, j);
}
/* +1 for a white candle, -1 for a black one. */
static APO_CAT_SPECIALISED APO_HD int apo__cdl_color(const apo__candle_bars *b, size_t j) {
    return apo__cdl_white(b, j) ? 1 : -1;
}
static APO_CAT_SPECIALISED APO_HD double apo__cdl_body_top(const apo__candle_bars *b, size_t j) {
    return apo__pick_double(APO_CDL_GT(b->close[j], b->open[j]), b->close[j], b->open[j]);
}
static APO_CAT_SPECIALISED APO_HD double apo__cdl_body_bottom(const apo__candle_bars *b, size_t j) {
    return apo__pick_double(APO_CDL_LT(b->close[j], b->open[j]), b->close[j], b->open[j]);
}
static APO_CAT_SPECIALISED APO_HD double apo__cdl_upper_shadow(const apo__candle_bars *b,
                                                               size_t j) {
    return b->high[j] - apo__pick_double(apo__cdl_white(b, j), b->close[j], b->open[j]);
}
static APO_CAT_SPECIALISED APO_HD double apo__cdl_lower_shadow(const apo__candle_bars *b,
                                                               size_t j) {
    return apo__pick_double(apo__cdl_white(b, j), b->open[j], b->close[j]) - b->low[j];
}
static APO_CAT_SPECIALISED APO_HD double apo__cdl_high_low(const apo__candle_bars *b, size_t j) {
    return b->high[j] - b->low[j];
}

/* Gaps between candle `later` and candle `earlier`: of the real bodies, or of the whole
 * candles (the later low above the earlier high, or the later high below the earlier low). */
static APO_CAT_SPECIALISED APO_HD int apo__cdl_body_gap_up(const apo__candle_bars *b, size_t later,
                                                           size_t earlier) {
    return APO_CDL_GT(apo__cdl_body_bottom(b, later), apo__cdl_body_top(b, earlier));
}
static APO_CAT_SPECIALISED APO_HD int apo__cdl_body_gap_down(const apo__candle_bars *b,
                                                             size_t later, size_t earlier) {
    return APO_CDL_LT(apo__cdl_body_top(b, later), apo__cdl_body_bottom(b, earlier));
}
static APO_CAT_SPECIALISED APO_HD int apo__cdl_gap_up(const apo__candle_bars *b, size_t later,
                                                      size_t earlier) {
    return APO_CDL_GT(b->low[later], b->high[earlier]);
}
static APO_CAT_SPECIALISED APO_HD int apo__cdl_gap_down(const apo__candle_bars *b, size_t later,
                                                        size_t earlier) {
    return APO_CDL_LT(b->high[later], b->low[earlier]);
}

/* Candle j measured as measure m measures it. */
static APO_CAT_SPECIALISED APO_HD double apo__cdl_range(const apo__candle_bars *b,
                                                        apo__candle_measure m, size_t j) {
    switch (apo__cdl_range_type(m)) {
    case APO_CDL_REAL_BODY:
        return apo__cdl_body(b, j);
    case APO_CDL_HIGH_LOW:
        return apo__cdl_high_low(b, j);
    case APO_CDL_SHADOWS:
        return apo__cdl_upper_shadow(b, j) + apo__cdl_lower_shadow(b, j);
    }
    return 0.0;
}

/* The mean of measure m over the `period` candles before j, summed in index order from 0.0
 * (see the top): what candle_means.h computes for a block of bars, with the same operations. */
static APO_CAT_SPECIALISED APO_HD double apo__cdl_mean_fresh(const apo__candle_bars *b,
                                                             apo__candle_measure m, size_t j) {
    const int period = apo__cdl_period(m);
    double sum = 0.0;
    for (size_t k = j - (size_t)period; k < j; k++)
        sum += apo__cdl_range(b, m, k);
    return sum / (double)period;
}

/* The threshold setting s gives candle j, in TA-Lib's operations: the factor times the mean of
 * the measures of the `period` candles before j (its own measure for a period of 0), halved for
 * shadows. The mean is the tile's where it computed the measure's, else summed afresh: the same
 * bits either way. */
static APO_CAT_SPECIALISED APO_HD double apo__cdl_avg(const apo__candle_bars *b,
                                                      apo__candle_setting s, size_t j) {
    const apo__candle_measure m = apo__cdl_measure(s);
    double mean;
    if (apo__cdl_period(m) == 0)
        mean = apo__cdl_range(b, m, j);
    else if (b->mean[m] != NULL)
        mean = b->mean[m][j - b->first];
    else
        mean = apo__cdl_mean_fresh(b, m, j);
    const double scaled = apo__cdl_factor(s) * mean;
    return apo__cdl_range_type(m) == APO_CDL_SHADOWS ? scaled / 2.0 : scaled;
}

/* The patterns' shorthand: candle j's threshold of setting s (BODY_LONG, NEAR, ...) on the bars
 * b of the pattern's scope. */
#define APO__CDL_AVG(s, j) apo__cdl_avg(b, APO_CDL_##s, j)

#endif /* APO_KERNELS_CANDLE_SETTINGS_H */
