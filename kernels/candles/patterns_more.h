/*
 * patterns_more.h: TA-Lib's patterns of four and five candles, and the hikkakes, whose signal
 * may come up to three bars after their pattern (docs/kernels/candles.md, "Candlestick patterns").
 */
#ifndef APO_KERNELS_PATTERNS_MORE_H
#define APO_KERNELS_PATTERNS_MORE_H

#include "patterns_three.h"

/* Three black crows: a white candle, then three falling black candles with very short lower
 * shadows, each opening inside the body before, the first closing under the white's high. */
static APO_CAT_SPECIALISED APO_HD int apo__cdl3blackcrows_at(const apo__candle_bars *b, size_t t) {
    return apo__cdl_white(b, t - 3) & apo__cdl_black(b, t - 2) & apo__cdl_black(b, t - 1) &
                   apo__cdl_black(b, t) & APO_CDL_LT(b->open[t - 1], b->open[t - 2]) &
                   APO_CDL_GT(b->open[t - 1], b->close[t - 2]) &
                   APO_CDL_LT(b->open[t], b->open[t - 1]) &
                   APO_CDL_GT(b->open[t], b->close[t - 1]) &
                   APO_CDL_GT(b->high[t - 3], b->close[t - 2]) &
                   APO_CDL_GT(b->close[t - 2], b->close[t - 1]) &
                   APO_CDL_GT(b->close[t - 1], b->close[t]) &
                   APO_CDL_LT(apo__cdl_lower_shadow(b, t - 2),
                              APO__CDL_AVG(SHADOW_VERY_SHORT, t - 2)) &
                   APO_CDL_LT(apo__cdl_lower_shadow(b, t - 1),
                              APO__CDL_AVG(SHADOW_VERY_SHORT, t - 1)) &
                   APO_CDL_LT(apo__cdl_lower_shadow(b, t), APO__CDL_AVG(SHADOW_VERY_SHORT, t))
               ? -100
               : 0;
}

/* x within the Near setting of candle j's body (below its bottom, above its top). */
static APO_CAT_SPECIALISED APO_HD int apo__cdl_near_body(const apo__candle_bars *b, double x,
                                                         size_t j) {
    return APO_CDL_GE(x, apo__cdl_body_bottom(b, j) - APO__CDL_AVG(NEAR, j)) &
           APO_CDL_LE(x, apo__cdl_body_top(b, j) + APO__CDL_AVG(NEAR, j));
}

/* Three-line strike: three candles of one colour, each opening inside or near the body before
 * and closing beyond it, then one of the other colour opening beyond the third's close and
 * closing beyond the first's open. */
static APO_CAT_SPECIALISED APO_HD int apo__cdl3linestrike_at(const apo__candle_bars *b, size_t t) {
    const double *o = b->open, *c = b->close;
    const int white = apo__cdl_white(b, t - 1);
    const int three = (apo__cdl_white(b, t - 3) == white) & (apo__cdl_white(b, t - 2) == white) &
                      (apo__cdl_white(b, t) != white) & apo__cdl_near_body(b, o[t - 2], t - 3) &
                      apo__cdl_near_body(b, o[t - 1], t - 2);
    const int up = white & APO_CDL_GT(c[t - 1], c[t - 2]) & APO_CDL_GT(c[t - 2], c[t - 3]) &
                   APO_CDL_GT(o[t], c[t - 1]) & APO_CDL_LT(c[t], o[t - 3]);
    const int down = (white == 0) & APO_CDL_LT(c[t - 1], c[t - 2]) &
                     APO_CDL_LT(c[t - 2], c[t - 3]) & APO_CDL_LT(o[t], c[t - 1]) &
                     APO_CDL_GT(c[t], o[t - 3]);
    return three & (up | down) ? apo__cdl_color(b, t - 1) * 100 : 0;
}

/* Breakaway: a long candle, a body gap in its direction, two more candles going on that way,
 * and one of the other colour closing inside the gap. */
static APO_CAT_SPECIALISED APO_HD int apo__cdlbreakaway_at(const apo__candle_bars *b, size_t t) {
    const double *h = b->high, *l = b->low, *c = b->close, *o = b->open;
    const int shape = APO_CDL_GT(apo__cdl_body(b, t - 4), APO__CDL_AVG(BODY_LONG, t - 4)) &
                      (apo__cdl_white(b, t - 4) == apo__cdl_white(b, t - 3)) &
                      (apo__cdl_white(b, t - 3) == apo__cdl_white(b, t - 1)) &
                      (apo__cdl_white(b, t - 1) != apo__cdl_white(b, t));
    const int down = apo__cdl_black(b, t - 4) & apo__cdl_body_gap_down(b, t - 3, t - 4) &
                     APO_CDL_LT(h[t - 2], h[t - 3]) & APO_CDL_LT(l[t - 2], l[t - 3]) &
                     APO_CDL_LT(h[t - 1], h[t - 2]) & APO_CDL_LT(l[t - 1], l[t - 2]) &
                     APO_CDL_GT(c[t], o[t - 3]) & APO_CDL_LT(c[t], c[t - 4]);
    const int up = apo__cdl_white(b, t - 4) & apo__cdl_body_gap_up(b, t - 3, t - 4) &
                   APO_CDL_GT(h[t - 2], h[t - 3]) & APO_CDL_GT(l[t - 2], l[t - 3]) &
                   APO_CDL_GT(h[t - 1], h[t - 2]) & APO_CDL_GT(l[t - 1], l[t - 2]) &
                   APO_CDL_LT(c[t], o[t - 3]) & APO_CDL_GT(c[t], c[t - 4]);
    return shape & (down | up) ? apo__cdl_color(b, t) * 100 : 0;
}

/* Concealing baby swallow: two black marubozu, a black candle gapping down whose upper shadow
 * reaches into the second's body, and a black candle engulfing it, shadows included. */
static APO_CAT_SPECIALISED APO_HD int apo__cdlconcealbabyswall_at(const apo__candle_bars *b,
                                                                  size_t t) {
    return apo__cdl_black(b, t - 3) & apo__cdl_black(b, t - 2) & apo__cdl_black(b, t - 1) &
                   apo__cdl_black(b, t) &
                   APO_CDL_LT(apo__cdl_lower_shadow(b, t - 3),
                              APO__CDL_AVG(SHADOW_VERY_SHORT, t - 3)) &
                   APO_CDL_LT(apo__cdl_upper_shadow(b, t - 3),
                              APO__CDL_AVG(SHADOW_VERY_SHORT, t - 3)) &
                   APO_CDL_LT(apo__cdl_lower_shadow(b, t - 2),
                              APO__CDL_AVG(SHADOW_VERY_SHORT, t - 2)) &
                   APO_CDL_LT(apo__cdl_upper_shadow(b, t - 2),
                              APO__CDL_AVG(SHADOW_VERY_SHORT, t - 2)) &
                   apo__cdl_body_gap_down(b, t - 1, t - 2) &
                   APO_CDL_GT(apo__cdl_upper_shadow(b, t - 1),
                              APO__CDL_AVG(SHADOW_VERY_SHORT, t - 1)) &
                   APO_CDL_GT(b->high[t - 1], b->close[t - 2]) &
                   APO_CDL_GT(b->high[t], b->high[t - 1]) & APO_CDL_LT(b->low[t], b->low[t - 1])
               ? 100
               : 0;
}

/* Ladder bottom: three falling black candles, a black one with an upper shadow, and a white
 * one opening above its open and closing above its high. */
static APO_CAT_SPECIALISED APO_HD int apo__cdlladderbottom_at(const apo__candle_bars *b, size_t t) {
    const double *o = b->open, *c = b->close;
    return apo__cdl_black(b, t - 4) & apo__cdl_black(b, t - 3) & apo__cdl_black(b, t - 2) &
                   APO_CDL_GT(o[t - 4], o[t - 3]) & APO_CDL_GT(o[t - 3], o[t - 2]) &
                   APO_CDL_GT(c[t - 4], c[t - 3]) & APO_CDL_GT(c[t - 3], c[t - 2]) &
                   apo__cdl_black(b, t - 1) &
                   APO_CDL_GT(apo__cdl_upper_shadow(b, t - 1),
                              APO__CDL_AVG(SHADOW_VERY_SHORT, t - 1)) &
                   apo__cdl_white(b, t) & APO_CDL_GT(o[t], o[t - 1]) &
                   APO_CDL_GT(c[t], b->high[t - 1])
               ? 100
               : 0;
}

/* Mat hold: a long white candle, a short black one gapping up, two more short ones falling
 * but holding within `penetration` of the first's body, and a white candle closing above them
 * all. */
static APO_CAT_SPECIALISED APO_HD int apo__cdlmathold_at(const apo__candle_bars *b, size_t t,
                                                         double penetration) {
    const double *h = b->high, *c = b->close, *o = b->open;
    if (!(APO_CDL_GT(apo__cdl_body(b, t - 4), APO__CDL_AVG(BODY_LONG, t - 4)) &
          APO_CDL_LE(apo__cdl_body(b, t - 3), APO__CDL_AVG(BODY_SHORT, t - 3)) &
          APO_CDL_LE(apo__cdl_body(b, t - 2), APO__CDL_AVG(BODY_SHORT, t - 2)) &
          APO_CDL_LE(apo__cdl_body(b, t - 1), APO__CDL_AVG(BODY_SHORT, t - 1))))
        return 0;
    const double floor = c[t - 4] - apo__cdl_body(b, t - 4) * penetration;
    double highest = APO_CDL_GT(h[t - 3], h[t - 2]) ? h[t - 3] : h[t - 2];
    highest = APO_CDL_GT(highest, h[t - 1]) ? highest : h[t - 1];
    return apo__cdl_white(b, t - 4) & apo__cdl_black(b, t - 3) & apo__cdl_white(b, t) &
                   apo__cdl_body_gap_up(b, t - 3, t - 4) &
                   APO_CDL_LT(apo__cdl_body_bottom(b, t - 2), c[t - 4]) &
                   APO_CDL_LT(apo__cdl_body_bottom(b, t - 1), c[t - 4]) &
                   APO_CDL_GT(apo__cdl_body_bottom(b, t - 2), floor) &
                   APO_CDL_GT(apo__cdl_body_bottom(b, t - 1), floor) &
                   APO_CDL_LT(apo__cdl_body_top(b, t - 2), o[t - 3]) &
                   APO_CDL_LT(apo__cdl_body_top(b, t - 1), apo__cdl_body_top(b, t - 2)) &
                   APO_CDL_GT(o[t], c[t - 1]) & APO_CDL_GT(c[t], highest)
               ? 100
               : 0;
}

/* Rising and falling three methods: a long candle, three short ones of the other colour
 * drifting back inside its range, and a long one of its colour opening beyond the third's close
 * and closing beyond the first's. The comparisons are TA-Lib's: multiplied by the first
 * candle's colour. */
static APO_CAT_SPECIALISED APO_HD int apo__cdlrisefall3methods_at(const apo__candle_bars *b,
                                                                  size_t t) {
    const double *h = b->high, *l = b->low, *c = b->close, *o = b->open;
    if (!(APO_CDL_GT(apo__cdl_body(b, t - 4), APO__CDL_AVG(BODY_LONG, t - 4)) &
          APO_CDL_LT(apo__cdl_body(b, t - 3), APO__CDL_AVG(BODY_SHORT, t - 3)) &
          APO_CDL_LT(apo__cdl_body(b, t - 2), APO__CDL_AVG(BODY_SHORT, t - 2)) &
          APO_CDL_LT(apo__cdl_body(b, t - 1), APO__CDL_AVG(BODY_SHORT, t - 1)) &
          APO_CDL_GT(apo__cdl_body(b, t), APO__CDL_AVG(BODY_LONG, t))))
        return 0;
    const int color = apo__cdl_color(b, t - 4);
    const double sign = (double)color;
    /* The colours read first, so that every test below is a comparison of values joined by
     * `&`: all of them evaluated, without a branch, as in the tests above. */
    const int color3 = apo__cdl_color(b, t - 3), color2 = apo__cdl_color(b, t - 2),
              color1 = apo__cdl_color(b, t - 1), color0 = apo__cdl_color(b, t);
    return (color3 == -color) & (color2 == -color) & (color1 == -color) & (color0 == color) &
                   APO_CDL_LT(apo__cdl_body_bottom(b, t - 3), h[t - 4]) &
                   APO_CDL_GT(apo__cdl_body_top(b, t - 3), l[t - 4]) &
                   APO_CDL_LT(apo__cdl_body_bottom(b, t - 2), h[t - 4]) &
                   APO_CDL_GT(apo__cdl_body_top(b, t - 2), l[t - 4]) &
                   APO_CDL_LT(apo__cdl_body_bottom(b, t - 1), h[t - 4]) &
                   APO_CDL_GT(apo__cdl_body_top(b, t - 1), l[t - 4]) &
                   APO_CDL_LT(c[t - 2] * sign, c[t - 3] * sign) &
                   APO_CDL_LT(c[t - 1] * sign, c[t - 2] * sign) &
                   APO_CDL_GT(o[t] * sign, c[t - 1] * sign) &
                   APO_CDL_GT(c[t] * sign, c[t - 4] * sign)
               ? color * 100
               : 0;
}

/*
 * The hikkakes: a pattern at bar j (an inside bar, then a breakout) is 100 (a breakout down:
 * bullish) or -100 at j; TA-Lib then confirms it once, at the first of the three bars after j
 * whose close passes the inside bar's high (bullish) or low (bearish), where it gives 200 or
 * -200, unless a newer pattern came first. Each bar reads its own candles and the three bars'
 * patterns before it, so each output is a function of its window (lookback 5, and 10 for the
 * modified hikkake, whose pattern reads a Near average).
 */

/* Hikkake's pattern at j (j >= 2): 100, -100 or 0. An inside bar, then a breakout down (100)
 * or up (-100): the two are exclusive (the high below or above the one before), so each is a
 * product of comparisons and the value their difference, with no branch (an inside bar's first
 * test passes on about half the bars, and on a long series the branches of the && form were
 * mispredicted: docs/perf-log/2026-11-30-candle-branches.md). */
static APO_CAT_SPECIALISED APO_HD int apo__cdl_hikkake_pattern(const apo__candle_bars *b,
                                                               size_t j) {
    const double *h = b->high, *l = b->low;
    const int inside = APO_CDL_LT(h[j - 1], h[j - 2]) & APO_CDL_GT(l[j - 1], l[j - 2]);
    const int down = inside & APO_CDL_LT(h[j], h[j - 1]) & APO_CDL_LT(l[j], l[j - 1]);
    const int up = inside & APO_CDL_GT(h[j], h[j - 1]) & APO_CDL_GT(l[j], l[j - 1]);
    return 100 * down - 100 * up;
}

/* The modified hikkake's pattern at j (j >= 3): a second inside bar, and the breakout away from
 * the end of the range the first inside bar closed near; exclusive as hikkake's. */
static APO_CAT_SPECIALISED APO_HD int apo__cdl_hikkakemod_pattern(const apo__candle_bars *b,
                                                                  size_t j) {
    const double *h = b->high, *l = b->low, *c = b->close;
    const int inside = APO_CDL_LT(h[j - 2], h[j - 3]) & APO_CDL_GT(l[j - 2], l[j - 3]) &
                       APO_CDL_LT(h[j - 1], h[j - 2]) & APO_CDL_GT(l[j - 1], l[j - 2]);
    const double near = APO__CDL_AVG(NEAR, j - 2);
    const int down = inside & APO_CDL_LT(h[j], h[j - 1]) & APO_CDL_LT(l[j], l[j - 1]) &
                     APO_CDL_LE(c[j - 2], l[j - 2] + near);
    const int up = inside & APO_CDL_GT(h[j], h[j - 1]) & APO_CDL_GT(l[j], l[j - 1]) &
                   APO_CDL_GE(c[j - 2], h[j - 2] - near);
    return 100 * down - 100 * up;
}

/* 1 where the close at k confirms the pattern `signal` found at j: past the inside bar's high
 * (bullish) or low (bearish). */
static APO_CAT_SPECIALISED APO_HD int apo__cdl_hikkake_confirms(const apo__candle_bars *b,
                                                                int signal, size_t j, size_t k) {
    return ((signal > 0) & APO_CDL_GT(b->close[k], b->high[j - 1])) |
           ((signal < 0) & APO_CDL_LT(b->close[k], b->low[j - 1]));
}

/* The pattern at j of a hikkake (modified: 1 for the modified hikkake's). */
static APO_CAT_SPECIALISED APO_HD int apo__cdl_hikkake_pattern_of(const apo__candle_bars *b,
                                                                  size_t j, int modified) {
    return modified ? apo__cdl_hikkakemod_pattern(b, j) : apo__cdl_hikkake_pattern(b, j);
}

/* The value at t of a hikkake from the patterns p0 .. p3 at t .. t - 3: the pattern at t, else
 * the confirmation (200 or -200, twice the pattern) of the latest pattern of the three bars
 * before, if none of the bars between confirmed it. Every confirmation is computed and the
 * value selected, without a branch on the data. */
static APO_CAT_SPECIALISED APO_HD int apo__cdl_hikkake_pick(const apo__candle_bars *b, size_t t,
                                                            int p0, int p1, int p2, int p3) {
    /* Written out bar by bar, not as loops: gcc vectorises no loop nest in the tile's loop. */
    const int c1 = apo__cdl_hikkake_confirms(b, p1, t - 1, t);
    const int c2 = apo__cdl_hikkake_confirms(b, p2, t - 2, t) &
                   !apo__cdl_hikkake_confirms(b, p2, t - 2, t - 1);
    const int c3 = apo__cdl_hikkake_confirms(b, p3, t - 3, t) &
                   !apo__cdl_hikkake_confirms(b, p3, t - 3, t - 2) &
                   !apo__cdl_hikkake_confirms(b, p3, t - 3, t - 1);
    /* A pattern of 0 adds 0, so each choice of the latest pattern is a sum: integer work that
     * gcc keeps in vector lanes, where selects left control flow in the loop. */
    const int later = 2 * p2 * c2 + (p2 == 0) * 2 * p3 * c3;
    const int before = 2 * p1 * c1 + (p1 == 0) * later;
    return p0 + (p0 == 0) * before;
}

/* The value at t of a hikkake, each of the four patterns computed where it is read: a GPU
 * thread's form, which keeps no buffer. */
static APO_CAT_SPECIALISED APO_HD int apo__cdl_hikkake_value(const apo__candle_bars *b, size_t t,
                                                             int modified) {
    return apo__cdl_hikkake_pick(b, t, apo__cdl_hikkake_pattern_of(b, t, modified),
                                 apo__cdl_hikkake_pattern_of(b, t - 1, modified),
                                 apo__cdl_hikkake_pattern_of(b, t - 2, modified),
                                 apo__cdl_hikkake_pattern_of(b, t - 3, modified));
}

static APO_CAT_SPECIALISED APO_HD int apo__cdlhikkake_at(const apo__candle_bars *b, size_t t) {
    return apo__cdl_hikkake_value(b, t, 0);
}

static APO_CAT_SPECIALISED APO_HD int apo__cdlhikkakemod_at(const apo__candle_bars *b, size_t t) {
    return apo__cdl_hikkake_value(b, t, 1);
}

/* The bars a hikkake's value reads the patterns of, before its own. */
#define APO_CDL_HIKKAKE_BEFORE 3

/* The patterns of bars [from - APO_CDL_HIKKAKE_BEFORE, to) into pat[0 ..], each once, so that a
 * block's values read them rather than computing each four times (a CPU tile's form: a loop
 * the compiler keeps in vector lanes). */
static APO_CAT_SPECIALISED APO_HD void apo__cdl_hikkake_patterns(const apo__candle_bars *b,
                                                                 size_t from, size_t to,
                                                                 int modified, int *pat) {
    for (size_t j = from - APO_CDL_HIKKAKE_BEFORE; j < to; j++)
        pat[j - (from - APO_CDL_HIKKAKE_BEFORE)] = apo__cdl_hikkake_pattern_of(b, j, modified);
}

/* The value at t from the block's patterns (apo__cdl_hikkake_patterns from `from`). */
static APO_CAT_SPECIALISED APO_HD int apo__cdl_hikkake_from(const apo__candle_bars *b, size_t t,
                                                            size_t from, const int *pat) {
    const int *p = pat + (t - from) + APO_CDL_HIKKAKE_BEFORE;
    return apo__cdl_hikkake_pick(b, t, p[0], p[-1], p[-2], p[-3]);
}

#endif /* APO_KERNELS_PATTERNS_MORE_H */
