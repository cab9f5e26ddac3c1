/*
 * score.h: scoring a series whose indicator outputs are in memory (score_tile.h says how a
 * bar is folded). The runtime's scored kernels fold the same bars in the same order while
 * they compute the outputs tile by tile; this entry point is the materialised path that the
 * tests, and callers who have the outputs already, use (apo_score_outputs()).
 */
#ifndef APO_SCORE_H
#define APO_SCORE_H

#include <stddef.h>

#include "score_more.h"
#include "score_tile.h"

/* Scores n bars: close[t] and the indicator's n_out outputs outputs[k][t], with `rule`
 * (its kind, outputs and thresholds), cost per unit of position change and periods_per_year (> 0).
 * Writes APO_SCORE_IX_COUNT scores. */
void apo__score_series(const apo__rule *rule, const double *close, const double *const *outputs,
                       size_t n_out, size_t n, double cost, double periods_per_year,
                       double *scores);

/* apo__score_series for the scored kernel's view `view` (score_more.h's APO_SCORE_VIEW_*):
 * the eight with summed, compounded or log returns, or the eight more. */
void apo__score_series_view(const apo__rule *rule, int view, const double *close,
                            const double *const *outputs, size_t n_out, size_t n, double cost,
                            double periods_per_year, double *scores);

/* What apo__score_series_trace writes per bar, each n doubles or NULL (not written). */
typedef struct apo__score_trace {
    double *position; /* the fold's position after the bar: -1, 0 or +1 */
    double *ret;      /* the bar's return, NaN at a bar that is not scored */
    /* The view's running total after the bar (0 before the first scored bar): the sum of
     * the returns (the plain view), the compounded equity less 1 (/compound and /more), its
     * logarithm (/log); at the last scored bar it is the view's `total` bit for bit. */
    double *equity;
} apo__score_trace;

/* One series' fold between bars, for a fold fed a few bars at a time (a live rule: the
 * streams of runtime/streaming/stream_rule.c): the running scores, the more statistics, and
 * the close of the bar before (NaN before the first bar). apo__score_series_trace folds
 * every bar through apo__score_live_bar, so a live fold gives its bits at every bar. */
typedef struct apo__score_live {
    apo__score_fold f;
    apo__score_more m;
    double prev_close;
} apo__score_live;

void apo__score_live_init(apo__score_live *l);

/* Folds one bar with `rule` under view `view` (score_more.h's APO_SCORE_VIEW_*): its close
 * and the indicator's n_out outputs at the bar. Writes, where not NULL, the position after
 * the bar, its return (NaN at a bar that is not scored) and the view's running total after
 * it (apo__score_trace's three). */
void apo__score_live_bar(apo__score_live *l, const apo__rule *rule, int view, double close,
                         const double *out, size_t n_out, double cost, double *position,
                         double *ret, double *total);

/* apo__score_live_bar with the bar's position `pos` given (a user's rule, asked by the caller
 * at a finite close; at another the caller passes the fold's own position l->f.pos): the fold
 * is the same, so a rule that gives a built-in rule's positions gives its bits. */
void apo__score_live_step(apo__score_live *l, int pos, int view, double close, const double *out,
                          size_t n_out, double cost, double *position, double *ret, double *total);

/* The eight scores of view `view` of the bars folded so far: those of apo__score_series_view
 * over the same bars, bit for bit. */
void apo__score_live_scores(const apo__score_live *l, int view, double periods_per_year,
                            double *scores);

/* apo__score_series_view, writing the fold's own positions, returns and running total bar
 * by bar into *trace (NULL: none, the same scores). One loop for both, so the positions are
 * those the scores were folded from. */
void apo__score_series_trace(const apo__rule *rule, int view, const double *close,
                             const double *const *outputs, size_t n_out, size_t n, double cost,
                             double periods_per_year, double *scores,
                             const apo__score_trace *trace);

#endif
