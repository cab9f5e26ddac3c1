/*
 * score_tile.h: rules and scores (docs/kernels.md, "Scores"), the arithmetic shared by every
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
 * row of runtime/catalog/scored_kernels.c's table makes a rule on any catalog indicator. */
enum {
    APO_RULE_BANDS_REVERT = 0,
    APO_RULE_BANDS_ZONE = 1,
    APO_RULE_MACD_CROSS = 2,
    APO_RULE_ZONE = 3,       /* +1 below lower, -1 above upper, else 0 */
    APO_RULE_REVERT = 4,     /* enter as ZONE, exit at the middle of lower and upper */
    APO_RULE_CROSS = 5,      /* the sign of out[a] - out[b] */
    APO_RULE_PRICE_CROSS = 6 /* the sign of close - out[a] */
};

/* A rule as a fold applies it: its kind, the outputs it reads and, for ZONE and REVERT, its
 * thresholds (a set's parameters, so each set of a sweep has its own). */
typedef struct apo__rule {
    int kind;
    int a, b;                    /* the outputs read: ZONE, REVERT and PRICE_CROSS a; CROSS a, b */
    double lower, upper, middle; /* ZONE and REVERT; middle = (lower + upper) / 2 */
} apo__rule;

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

/* The position a rule takes at a bar with a finite close. `out` holds the indicator's outputs
 * at the bar, in the kernel's output order. */
static inline APO_HD int apo__rule_position(const apo__rule *rule, int prev, double close,
                                            const double *out) {
    switch (rule->kind) {
    case APO_RULE_BANDS_REVERT: {
        const double upper = out[0], middle = out[1], lower = out[2];
        /* Flat while the bands are not there: the warm-up, and the window of a gap. */
        if (isnan(upper) || isnan(middle) || isnan(lower))
            return 0;
        if (prev > 0)
            return close >= middle ? 0 : 1;
        if (prev < 0)
            return close <= middle ? 0 : -1;
        return close < lower ? 1 : close > upper ? -1 : 0;
    }
    case APO_RULE_BANDS_ZONE: /* no state; a NaN band compares false: flat */
        return close < out[2] ? 1 : close > out[0] ? -1 : 0;
    case APO_RULE_MACD_CROSS: /* the sign of the histogram, flat while it is NaN */
        return out[2] > 0 ? 1 : out[2] < 0 ? -1 : 0;
    case APO_RULE_ZONE: { /* no state; a NaN output compares false: flat */
        const double v = out[rule->a];
        return v < rule->lower ? 1 : v > rule->upper ? -1 : 0;
    }
    case APO_RULE_REVERT: {
        const double v = out[rule->a];
        if (isnan(v)) /* flat while the output is not there, as bands_revert */
            return 0;
        if (prev > 0)
            return v >= rule->middle ? 0 : 1;
        if (prev < 0)
            return v <= rule->middle ? 0 : -1;
        return v < rule->lower ? 1 : v > rule->upper ? -1 : 0;
    }
    case APO_RULE_CROSS: /* a NaN on either side compares false: flat */
        return out[rule->a] > out[rule->b] ? 1 : out[rule->a] < out[rule->b] ? -1 : 0;
    default: /* APO_RULE_PRICE_CROSS */
        return close > out[rule->a] ? 1 : close < out[rule->a] ? -1 : 0;
    }
}

typedef struct apo__score_fold {
    int pos;     /* the position of the last bar folded (0 before the first) */
    int started; /* a bar whose outputs were all finite has been folded: later bars score */
    double total, mean, m2; /* the sum of the returns; Welford's running mean and M2 */
    double peak, drawdown;  /* the running sum's peak (from 0) and its largest fall */
    double bars, trades, exposed;
} apo__score_fold;

static inline APO_HD void apo__score_fold_init(apo__score_fold *f) {
    f->pos = 0;
    f->started = 0;
    f->total = f->mean = f->m2 = 0.0;
    f->peak = f->drawdown = 0.0;
    f->bars = f->trades = f->exposed = 0.0;
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
        const int change = pos > prev ? pos - prev : prev - pos;
        const double r = (double)prev * move - cost * (double)change;
        f->bars += 1.0;
        f->total += r;
        const double delta = r - f->mean;
        f->mean += delta / f->bars;
        f->m2 += delta * (r - f->mean);
        if (f->total > f->peak)
            f->peak = f->total;
        if (f->peak - f->total > f->drawdown)
            f->drawdown = f->peak - f->total;
        f->trades += change != 0 ? 1.0 : 0.0;
        f->exposed += pos != 0 ? 1.0 : 0.0;
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
    const double bars = f->bars;
    const double sd = bars > 0 ? sqrt(f->m2 / bars) : NAN;
    const double mean = bars > 0 ? f->total / bars : NAN;
    scores[APO_SCORE_IX_TOTAL] = bars > 0 ? f->total : NAN;
    scores[APO_SCORE_IX_MEAN] = mean;
    scores[APO_SCORE_IX_SD] = sd;
    scores[APO_SCORE_IX_SHARPE] = bars > 0 && sd > 0 ? mean / sd * sqrt_periods : NAN;
    scores[APO_SCORE_IX_MAX_DRAWDOWN] = bars > 0 ? f->drawdown : NAN;
    scores[APO_SCORE_IX_TRADES] = f->trades;
    scores[APO_SCORE_IX_EXPOSURE] = bars > 0 ? f->exposed / bars : NAN;
    scores[APO_SCORE_IX_BARS] = bars;
}

#endif
