/* Scoring outputs in memory; see score.h. */
#include "score.h"

#include <math.h>

#include "score_more.h"

void apo__score_series(const apo__rule *rule, const double *close, const double *const *outputs,
                       size_t n_out, size_t n, double cost, double periods_per_year,
                       double *scores) {
    apo__score_series_view(rule, APO_SCORE_VIEW_SUM, close, outputs, n_out, n, cost,
                           periods_per_year, scores);
}

void apo__score_series_view(const apo__rule *rule, int view, const double *close,
                            const double *const *outputs, size_t n_out, size_t n, double cost,
                            double periods_per_year, double *scores) {
    apo__score_fold f;
    apo__score_more m;
    apo__score_fold_init(&f);
    apo__score_more_init(&m);
    double out[8];
    for (size_t t = 0; t < n; t++) {
        for (size_t k = 0; k < n_out && k < 8; k++)
            out[k] = outputs[k][t];
        double move;
        const int finite = apo__score_move(t > 0 ? close[t - 1] : NAN, close[t], &move);
        if (view == APO_SCORE_VIEW_SUM) { /* the eight alone: nothing more to fold */
            apo__score_bar_move(&f, rule, cost, close[t], finite, move, out, n_out);
            continue;
        }
        const int pos = isfinite(close[t]) ? apo__rule_position(rule, f.pos, close[t], out) : f.pos;
        apo__score_bar_more(&f, &m, pos, cost, finite, move, out, n_out);
    }
    if (view == APO_SCORE_VIEW_SUM)
        apo__score_finish(&f, sqrt(periods_per_year), scores);
    else
        apo__score_more_finish(&f, &m, view, periods_per_year, scores);
}
