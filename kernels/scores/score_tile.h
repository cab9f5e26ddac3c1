/*
 * score_tile.h: rules and scores (docs/scores.md, "Scores"), the arithmetic shared by every
 * path that scores: the runtime's scored kernels, which fold each bar as soon as its
 * indicator outputs are computed, and apo__score_series(), which scores outputs already in
 * memory. Both call apo__score_bar() on the same values in the same order, so a scored
 * sweep and a sweep materialised and then scored give the same bits.
 *
 * A rule turns a bar into a position in {-1, 0, +1} from the previous position, the bar's
 * close and the indicator's outputs at the bar (in the kernel's output order). The fold
 * keeps what the scores need and nothing that grows with the series: the position, the sums
 * and the running peak.
 */
#ifndef APO_SCORE_TILE_H
#define APO_SCORE_TILE_H

#include "apo_hd.h"

/* The kinds of rule. The first three read their own kernel's outputs by position
 * (bollinger's upper, middle, lower; macd's macd, signal, hist); the others are generic: a
 * kind applied to the output(s) named in apo__rule, with the rule's own thresholds, so one
 * row of runtime/catalog/scored_table.c's table makes a rule on any catalog indicator. */
enum {
    APO_RULE_BANDS_REVERT = 0,
    APO_RULE_BANDS_ZONE = 1,
    APO_RULE_MACD_CROSS = 2,
    APO_RULE_ZONE = 3,        /* +1 below lower, -1 above upper, else 0 */
    APO_RULE_REVERT = 4,      /* enter as ZONE, exit at the middle of lower and upper */
    APO_RULE_CROSS = 5,       /* the sign of out[a] - out[b] */
    APO_RULE_PRICE_CROSS = 6, /* the sign of close - out[a] */
    APO_RULE_SIGNAL = 7       /* the sign of out[a], held while out[a] is 0 or NaN */
};

/* A rule as a fold applies it: its kind, the outputs it reads and, for ZONE and REVERT, its
 * thresholds (a set's parameters, so each set of a sweep has its own). */
typedef struct apo__rule {
    int kind;
    int a, b; /* the outputs read: ZONE, REVERT, PRICE_CROSS and SIGNAL a; CROSS a, b */
    double lower, upper, middle; /* ZONE and REVERT; middle = (lower + upper) / 2 */
    int side; /* the positions it may take: APO_SIDE_BOTH (every rule's default), LONG, SHORT */
} apo__rule;

/* A rule's side (the scored kernels' parameter `side`): long-only rules stay flat where they
 * would go short, short-only ones where they would go long. */
enum { APO_SIDE_SHORT = -1, APO_SIDE_BOTH = 0, APO_SIDE_LONG = 1 };

/* A rule of `kind` on outputs a and b with thresholds lower and upper (any values for the
 * kinds that take none). The middle is taken here, once, so every path exits at the same
 * bits. */
static inline APO_HD apo__rule apo__rule_make(int kind, int a, int b, double lower, double upper) {
    apo__rule r;
    r.kind = kind;
    r.a = a;
    r.b = b;
    r.lower = lower;
    r.upper = upper;
    r.middle = (lower + upper) / 2;
    r.side = APO_SIDE_BOTH;
    return r;
}

/* The scores, in the order of a scored call's outputs (apportion.h repeats the order). */
enum {
    APO_SCORE_IX_TOTAL = 0,
    APO_SCORE_IX_MEAN,
    APO_SCORE_IX_SD,
    APO_SCORE_IX_SHARPE,
    APO_SCORE_IX_MAX_DRAWDOWN,
    APO_SCORE_IX_TRADES,
    APO_SCORE_IX_EXPOSURE,
    APO_SCORE_IX_BARS,
    APO_SCORE_IX_COUNT
};

/* Whether a value is below `lower` (+1), above `upper` (-1) or neither (0); below wins if
 * both (bands of a negative width). A NaN compares false both ways: 0. Comparisons turned
 * into integers rather than branches: the zone changes from bar to bar as the prices do, so
 * a branch on it is mispredicted often, and the fold is a chain through every bar. */
static inline APO_HD int apo__rule_zone(double v, double lower, double upper) {
    const int below = v<lower, above = v> upper;
    return below - (above & !below);
}

/* The revert rules' step: from flat, enter as the zone says; long, stay while v is below
 * the middle; short, stay while v is above it (a NaN middle or v: flat). Branch-free, as
 * apo__rule_zone. */
static inline APO_HD int apo__rule_revert_step(int prev, double v, double lower, double middle,
                                               double upper) {
    const int hold_long = (prev > 0) & (v < middle);
    const int hold_short = (prev < 0) & (v > middle);
    /* A product, not a conditional: compilers turn `prev == 0 ? zone : 0` into a branch. */
    return (prev == 0) * apo__rule_zone(v, lower, upper) + hold_long - hold_short;
}

/* The sign of a - b, 0 when either is NaN. */
static inline APO_HD int apo__rule_sign(double a, double b) { return (a > b) - (a < b); }

/* The signal rule's step: an event (a candlestick pattern's +-100, any output's sign) enters
 * its side and the position is held until an event of the other side reverses it; a bar
 * without one (0, or NaN) keeps the previous position. Branch-free, as the others. */
static inline APO_HD int apo__rule_signal_step(int prev, double v) {
    const int s = apo__rule_sign(v, 0.0);
    return s + (s == 0) * prev;
}

/* The position a rule of either side takes at a bar with a finite close. `out` holds the
 * indicator's outputs at the bar, in the kernel's output order. */
static inline APO_HD int apo__rule_position_both(const apo__rule *rule, int prev, double close,
                                                 const double *out) {
    switch (rule->kind) {
    case APO_RULE_BANDS_REVERT: {
        const double upper = out[0], middle = out[1], lower = out[2];
        /* Flat while the bands are not there: the warm-up, and the window of a gap. */
        const int bands = !isnan(upper) & !isnan(middle) & !isnan(lower);
        return bands * apo__rule_revert_step(prev, close, lower, middle, upper);
    }
    case APO_RULE_BANDS_ZONE: /* no state; a NaN band compares false: flat */
        return apo__rule_zone(close, out[2], out[0]);
    case APO_RULE_MACD_CROSS: /* the sign of the histogram, flat while it is NaN */
        return apo__rule_sign(out[2], 0.0);
    case APO_RULE_ZONE: /* no state; a NaN output compares false: flat */
        return apo__rule_zone(out[rule->a], rule->lower, rule->upper);
    case APO_RULE_REVERT: /* flat while the output is NaN, as bands_revert */
        return apo__rule_revert_step(prev, out[rule->a], rule->lower, rule->middle, rule->upper);
    case APO_RULE_CROSS: /* a NaN on either side compares false: flat */
        return apo__rule_sign(out[rule->a], out[rule->b]);
    case APO_RULE_SIGNAL: /* held between events */
        return apo__rule_signal_step(prev, out[rule->a]);
    default: /* APO_RULE_PRICE_CROSS */
        return apo__rule_sign(close, out[rule->a]);
    }
}

/* The position a rule takes at a bar with a finite close, on its side: a position the side
 * does not allow is flat. The rule is asked with its own previous position, so a stateful
 * rule that was kept flat enters again from flat. APO_SIDE_BOTH keeps every position, the
 * same value (a product by 1). Branch-free, as the rules. */
static inline APO_HD int apo__rule_position(const apo__rule *rule, int prev, double close,
                                            const double *out) {
    const int pos = apo__rule_position_both(rule, prev, close, out);
    const int keep = (rule->side == APO_SIDE_BOTH) | (pos * rule->side > 0);
    return keep * pos;
}

/*
 * The running scores. No division per bar: the spread is kept as sums of the returns'
 * deviations from the first scored return (`shift`), which is close to the returns that
 * follow it, so the sums do not cancel when the variance is taken at the end (and returns
 * that never change give deviations of exactly 0: sd exactly 0). The chain a bar extends
 * is then a few additions, where Welford's update waited on a division. Plain sums: a
 * compensated sum of squares (two-sum) cost more time than the division it replaced on a
 * busy core, and the plain ones' error, about sqrt(bars) rounding steps of the squares,
 * stays far inside the tests' 1e-9 of a long-double two-pass reference
 * (tests/common/score_reference.c).
 */
typedef struct apo__score_fold {
    int pos;        /* the position of the last bar folded (0 before the first) */
    int started;    /* a bar whose outputs were all finite has been folded: later bars score */
    double total;   /* the sum of the returns */
    double shift;   /* the first scored return */
    double dev_sum; /* the sum of (return - shift) */
    double dev_sq;  /* the sum of (return - shift)^2 */
    double peak, drawdown; /* the running sum's peak (from 0) and its largest fall */
    /* Counted as integers: an integer add per bar, where a double's waited on a conversion. */
    int64_t bars, trades, exposed;
} apo__score_fold;

static inline APO_HD void apo__score_fold_init(apo__score_fold *f) {
    f->pos = 0;
    f->started = 0;
    f->total = f->shift = f->dev_sum = f->dev_sq = 0.0;
    f->peak = f->drawdown = 0.0;
    f->bars = f->trades = f->exposed = 0;
}

/* A scored bar's return from the previous position and this bar's: the previous position
 * times the close's change, less cost times |pos - prev|. */
static inline APO_HD double apo__score_return(int prev, int pos, double cost, double move) {
    /* |pos - prev| of two positions in {-1, 0, 1}: 1 for a change, 1 more for a flip.
     * Comparisons as integers: a branch on the change would be mispredicted at every trade. */
    const int change = (pos != prev) + (pos * prev < 0);
    return (double)prev * move - cost * (double)change;
}

/* Adds a scored bar's return r to the sums, the peak and the drawdown, and counts the bar.
 * Apart from apo__score_bar_pos so a fold that takes the returns first and sums them after
 * (kernels/scores/score_lone_lanes.h) adds them by the same operations in the same order. */
static inline APO_HD void apo__score_fold_return(apo__score_fold *f, double r) {
    if (f->bars == 0)
        f->shift = r;
    f->bars++;
    f->total += r;
    const double dev = r - f->shift;
    f->dev_sum += dev;
    f->dev_sq += dev * dev;
    f->peak = f->total > f->peak ? f->total : f->peak;
    const double fall = f->peak - f->total;
    f->drawdown = fall > f->drawdown ? fall : f->drawdown;
}

/*
 * Folds one bar at position `pos`, the rule's at the bar (or the previous one carried over a
 * close that is not finite): whether the bar's close and the previous one are both finite
 * (`closes_finite`) and then their relative change `move` = close / prev_close - 1 (any
 * value otherwise), the indicator's n_out outputs at the bar. The bar is scored when a bar
 * before it had every output finite and both closes are finite: its return is the previous
 * position times `move`, less cost times the change of position. A rule that is not an
 * apo__rule (a user's function, runtime/catalog/scored_kernels.c) takes its position itself
 * and folds it here, so its returns and scores are those of a built-in rule bit for bit.
 */
static inline APO_HD void apo__score_bar_pos(apo__score_fold *f, int pos, double cost,
                                             int closes_finite, double move, const double *out,
                                             size_t n_out) {
    const int prev = f->pos;
    if (f->started && closes_finite) {
        apo__score_fold_return(f, apo__score_return(prev, pos, cost, move));
        f->trades += pos != prev;
        f->exposed += pos != 0;
    }
    if (!f->started) {
        int all_finite = 1;
        for (size_t k = 0; k < n_out; k++)
            all_finite &= isfinite(out[k]) ? 1 : 0;
        f->started = all_finite;
    }
    f->pos = pos;
}

/*
 * Folds one bar under a built-in rule: `close`, `closes_finite`, `move` and the outputs as
 * apo__score_bar_pos takes them. The position follows the rule at a finite close and carries
 * over a close that is not finite. The change of the close is the series', not the set's: a
 * fold of several sets over one series takes it once per bar for all
 * (runtime/catalog/scored_kernels.c), with the bits of each.
 */
static inline APO_HD void apo__score_bar_move(apo__score_fold *f, const apo__rule *rule,
                                              double cost, double close, int closes_finite,
                                              double move, const double *out, size_t n_out) {
    const int prev = f->pos;
    const int pos = isfinite(close) ? apo__rule_position(rule, prev, close, out) : prev;
    apo__score_bar_pos(f, pos, cost, closes_finite, move, out, n_out);
}

/* Whether a bar's close and the one before are both finite, and then the close's relative
 * change (0 otherwise): what apo__score_bar_move takes. */
static inline APO_HD int apo__score_move(double prev_close, double close, double *move) {
    const int finite = isfinite(close) && isfinite(prev_close);
    *move = finite ? close / prev_close - 1.0 : 0.0;
    return finite;
}

/* Folds one bar given both closes (prev_close NaN for the first bar of the series). */
static inline APO_HD void apo__score_bar(apo__score_fold *f, const apo__rule *rule, double cost,
                                         double prev_close, double close, const double *out,
                                         size_t n_out) {
    double move;
    const int finite = apo__score_move(prev_close, close, &move);
    apo__score_bar_move(f, rule, cost, close, finite, move, out, n_out);
}

/* The scores of a fold (APO_SCORE_IX_COUNT values). No bar scored: bars and trades 0, the
 * others NaN. `sqrt_periods` is sqrt(periods_per_year), taken once by the caller. */
static inline APO_HD void apo__score_finish(const apo__score_fold *f, double sqrt_periods,
                                            double *scores) {
    const double bars = (double)f->bars;
    /* M2 = sum (r - mean)^2 = sum dev^2 - (sum dev)^2 / bars, dev = r - shift; never below 0
     * (it could round there when the returns barely vary). */
    double sd = NAN;
    if (bars > 0) { /* no 0 / 0 to raise FE_INVALID on a series with no scored bar */
        const double m2 = f->dev_sq - f->dev_sum * (f->dev_sum / bars);
        sd = sqrt(m2 > 0 ? m2 / bars : 0.0);
    }
    const double mean = bars > 0 ? f->total / bars : NAN;
    scores[APO_SCORE_IX_TOTAL] = bars > 0 ? f->total : NAN;
    scores[APO_SCORE_IX_MEAN] = mean;
    scores[APO_SCORE_IX_SD] = sd;
    scores[APO_SCORE_IX_SHARPE] = bars > 0 && sd > 0 ? mean / sd * sqrt_periods : NAN;
    scores[APO_SCORE_IX_MAX_DRAWDOWN] = bars > 0 ? f->drawdown : NAN;
    scores[APO_SCORE_IX_TRADES] = (double)f->trades;
    scores[APO_SCORE_IX_EXPOSURE] = bars > 0 ? (double)f->exposed / bars : NAN;
    scores[APO_SCORE_IX_BARS] = bars;
}

#endif
