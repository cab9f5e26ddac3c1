/*
 * score_reference.h: the scores of one series from its positions, read naively from
 * docs/scores.md ("Returns and scores") in long double: the returns of the bars after the
 * first bar whose indicator outputs are all finite, skipping bars whose close or previous
 * close is not finite, then their sum, mean, population sd, Sharpe ratio, drawdown of the
 * running sum from its peak (starting at 0), trades, exposure and count. Nothing is shared
 * with kernels/scores: the positions come from each test's own reading of its rule.
 */
#ifndef APO_TEST_SCORE_REFERENCE_H
#define APO_TEST_SCORE_REFERENCE_H

#include <stddef.h>

/* close[0 .. n) and pos[0 .. n) (each in {-1, 0, +1}); first_finite is the first bar whose
 * outputs are all finite (n: none). Writes APO_N_SCORES values in apportion.h's order
 * (APO_SCORE_TOTAL ...); with no bar scored, every score but trades and bars is NaN. */
void apo__ref_scores_of_positions(const double *close, const int *pos, size_t n,
                                  size_t first_finite, double cost, double periods_per_year,
                                  long double *scores);

/* The views of a scored kernel (docs/scores.md, "More statistics and compounding"), read
 * as naively from the same positions: view 1 (`/compound`) and 2 (`/log`) write the eight
 * with the compounded equity's or the log returns' total and drawdown; view 3 (`/more`)
 * writes sortino, calmar, cagr, win_rate, profit_factor, avg_trade, turnover, round_trips,
 * the trades cut from the positions bar by bar and kept in an array. */
void apo__ref_view_of_positions(const double *close, const int *pos, size_t n, size_t first_finite,
                                double cost, double periods_per_year, int view,
                                long double *scores);

#endif /* APO_TEST_SCORE_REFERENCE_H */
