/*
 * score_more.h: the statistics beyond the eight (docs/kernels.md, "More statistics and
 * compounding"): what a scored kernel of another view (`<rule>/compound`, `<rule>/log`,
 * `<rule>/more`) folds beside apo__score_fold, and how its scores are finished.
 *
 * The fold stays free of divisions and of logarithms per bar: the compounded equity is a
 * product, its drawdown is compared as a fraction by cross-multiplication, the trades are
 * sums and counts; every division, power and logarithm waits for apo__score_more_finish.
 * A GPU's log and pow are not the host's bits, so none is taken where a GPU could fold
 * (the views fold on the host: runtime/catalog/scored_kernels.c). The returns are those of
 * apo__score_return, bit for bit, so the eight scores of a `/more` call's rule are those of
 * the plain call.
 */
#ifndef APO_SCORE_MORE_H
#define APO_SCORE_MORE_H

#include "score_tile.h"

/* What a scored kernel's outputs are: the eight (APO_SCORE_IX_*) with summed, compounded or
 * log returns, or the eight more (APO_SCORE_MORE_IX_*). */
enum {
    APO_SCORE_VIEW_SUM = 0, /* today's eight: the plain `<rule>` */
    APO_SCORE_VIEW_COMPOUND,
    APO_SCORE_VIEW_LOG,
    APO_SCORE_VIEW_MORE,
    APO_SCORE_VIEW_COUNT
};

/* The outputs of the `/more` view, in order. */
enum {
    APO_SCORE_MORE_IX_SORTINO = 0,
    APO_SCORE_MORE_IX_CALMAR,
    APO_SCORE_MORE_IX_CAGR,
    APO_SCORE_MORE_IX_WIN_RATE,
    APO_SCORE_MORE_IX_PROFIT_FACTOR,
    APO_SCORE_MORE_IX_AVG_TRADE,
    APO_SCORE_MORE_IX_TURNOVER,
    APO_SCORE_MORE_IX_ROUND_TRIPS,
    APO_SCORE_MORE_IX_COUNT
};

typedef struct apo__score_more {
    double down_sq;        /* the sum of min(r, 0)^2: the downside's spread */
    double equity, epeak;  /* the product of (1 + r) from 1, and its running peak (from 1) */
    double dd_num, dd_den; /* the largest fall (epeak - equity) / epeak so far, as a fraction */
    double units;          /* the sum of |pos - prev|: positions traded */
    double trade;          /* the open trade's return so far: the sum of its bars' returns */
    double won, lost;      /* the sums of the closed trades' returns above 0, and below 0 */
    int held;              /* the open trade's side: the position at the last scored bar */
    /* The view folded (APO_SCORE_VIEW_*): what a fold in vector lanes keeps of these fields
     * (score_sets.h), every one for the `/more` view, only the compounded equity (what
     * apo__score_more_compound adds) for another; the scalar body keeps them all. */
    int view;
    int64_t closed, wins; /* trades closed, and those whose return was above 0 */
} apo__score_more;

static inline APO_HD void apo__score_more_init(apo__score_more *m) {
    m->down_sq = 0.0;
    m->equity = m->epeak = 1.0;
    m->dd_num = 0.0, m->dd_den = 1.0;
    m->units = m->trade = m->won = m->lost = 0.0;
    m->held = 0;
    m->view = APO_SCORE_VIEW_MORE;
    m->closed = m->wins = 0;
}

/* Ends the open trade (its return m->trade) into the counts and sums, where `ends` is 1. */
static inline APO_HD void apo__score_more_close(apo__score_more *m, int ends) {
    const double t = m->trade;
    m->closed += ends;
    m->wins += ends & (t > 0);
    m->won += ends && t > 0 ? t : 0.0;
    m->lost += ends && t < 0 ? t : 0.0;
    m->trade = ends ? 0.0 : t;
}

/* Adds a scored bar's return r to the compounded equity, its peak and its drawdown: all that
 * the `/compound` and `/log` views read beside the plain fold (apo__score_more_finish), apart
 * so that a fold of those views in vector lanes (score_lanes.h, score_lone_lanes.h) takes the
 * same operations in the same order. */
static inline APO_HD void apo__score_more_compound(apo__score_more *m, double r) {
    m->equity *= 1.0 + r;
    m->epeak = m->equity > m->epeak ? m->equity : m->epeak;
    /* (epeak - equity) / epeak > dd_num / dd_den, both denominators above 0. */
    const double fall = m->epeak - m->equity;
    const int deeper = fall * m->dd_den > m->dd_num * m->epeak;
    m->dd_num = deeper ? fall : m->dd_num;
    m->dd_den = deeper ? m->epeak : m->dd_den;
}

/*
 * Adds a scored bar whose position was prev before it and is pos at it, with its return r
 * (apo__score_return's). A trade is a run of scored bars holding one side: it opens at the
 * bar its position is taken (that bar's return is its entry cost), takes the return of every
 * bar held, and ends at the bar its position changes, whose whole return is its (the last
 * move and the cost of the change, both units of a flip). A position that changed at a bar
 * that was not scored (a gap) ends the trade before the next scored bar, with no return.
 */
static inline APO_HD void apo__score_more_return(apo__score_more *m, int prev, int pos, double r) {
    const double down = r < 0 ? r : 0.0;
    m->down_sq += down * down;
    apo__score_more_compound(m, r);
    m->units += (double)((pos != prev) + (pos * prev < 0));
    apo__score_more_close(m, (m->held != prev) & (m->held != 0)); /* ended in a gap */
    m->trade += r;
    apo__score_more_close(m, (pos != prev) & (prev != 0));
    m->held = pos;
}

/* Folds a bar as apo__score_bar_pos does, and the more statistics of a scored one. */
static inline APO_HD void apo__score_bar_more(apo__score_fold *f, apo__score_more *m, int pos,
                                              double cost, int closes_finite, double move,
                                              const double *out, size_t n_out) {
    if (f->started && closes_finite)
        apo__score_more_return(m, f->pos, pos, apo__score_return(f->pos, pos, cost, move));
    apo__score_bar_pos(f, pos, cost, closes_finite, move, out, n_out);
}

/* The compounded equity's largest fall from its peak, as a fraction of the peak. */
static inline APO_HD double apo__score_more_drawdown(const apo__score_more *m) {
    return m->dd_num / m->dd_den;
}

/* The scores of view `view` (APO_SCORE_VIEW_*, 8 values) from the fold and its more. No bar
 * scored: the counts 0, the others NaN, as apo__score_finish. */
static inline APO_HD void apo__score_more_finish(const apo__score_fold *f, const apo__score_more *m,
                                                 int view, double periods_per_year,
                                                 double *scores) {
    const double sqrt_periods = sqrt(periods_per_year);
    apo__score_finish(f, sqrt_periods, scores);
    const double bars = (double)f->bars;
    const double dd = apo__score_more_drawdown(m);
    if (view == APO_SCORE_VIEW_COMPOUND || view == APO_SCORE_VIEW_LOG) {
        /* Only the running total and its drawdown change; the per-bar statistics (mean, sd,
         * sharpe) are of the bars' simple returns in every view. Ruined (equity <= 0): a
         * log total of -inf, a log drawdown of +inf. */
        const int log_view = view == APO_SCORE_VIEW_LOG;
        const double e = m->equity;
        const double total = log_view ? (e > 0 ? log(e) : -INFINITY) : e - 1.0;
        const double fall = log_view ? (dd < 1 ? -log1p(-dd) : INFINITY) : dd;
        scores[APO_SCORE_IX_TOTAL] = bars > 0 ? total : NAN;
        scores[APO_SCORE_IX_MAX_DRAWDOWN] = bars > 0 ? fall : NAN;
        return;
    }
    if (view != APO_SCORE_VIEW_MORE)
        return;
    const double mean = scores[APO_SCORE_IX_MEAN];
    const double cagr =
        bars > 0 ? (m->equity > 0 ? pow(m->equity, periods_per_year / bars) - 1.0 : -1.0) : NAN;
    /* The open trade counts, as it stands at the last scored bar (no exit cost). */
    const int open = m->held != 0;
    const double trips = (double)m->closed + open;
    const double wins = (double)m->wins + (open && m->trade > 0);
    const double won = m->won + (open && m->trade > 0 ? m->trade : 0.0);
    const double lost = m->lost + (open && m->trade < 0 ? m->trade : 0.0);
    double out[APO_SCORE_MORE_IX_COUNT];
    out[APO_SCORE_MORE_IX_SORTINO] =
        bars > 0 && m->down_sq > 0 ? mean / sqrt(m->down_sq / bars) * sqrt_periods : NAN;
    out[APO_SCORE_MORE_IX_CALMAR] = bars > 0 && dd > 0 ? cagr / dd : NAN;
    out[APO_SCORE_MORE_IX_CAGR] = cagr;
    out[APO_SCORE_MORE_IX_WIN_RATE] = trips > 0 ? wins / trips : NAN;
    out[APO_SCORE_MORE_IX_PROFIT_FACTOR] = lost < 0 ? won / -lost : NAN;
    out[APO_SCORE_MORE_IX_AVG_TRADE] = trips > 0 ? (won + lost) / trips : NAN;
    out[APO_SCORE_MORE_IX_TURNOVER] = bars > 0 ? m->units / bars * periods_per_year : NAN;
    out[APO_SCORE_MORE_IX_ROUND_TRIPS] = trips;
    for (int k = 0; k < APO_SCORE_MORE_IX_COUNT; k++)
        scores[k] = out[k];
}

#endif /* APO_SCORE_MORE_H */
