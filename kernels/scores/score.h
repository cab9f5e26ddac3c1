/*
 * score.h: scoring a series whose indicator outputs are in memory (score_tile.h says how a
 * bar is folded). The runtime's scored kernels fold the same bars in the same order while
 * they compute the outputs tile by tile; this entry point is the materialised path that the
 * tests, and callers who have the outputs already, use (apo_score_outputs()).
 */
#ifndef APO_SCORE_H
#define APO_SCORE_H

#include <stddef.h>

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

#endif
