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
    apo__score_series_trace(rule, view, close, outputs, n_out, n, cost, periods_per_year, scores,
                            NULL);
}

/* The view's running total of the fold so far, as apo__score_more_finish takes its `total`
 * (before the first scored bar: 0, the total of no return in every view). */
static double running_total(const apo__score_fold *f, const apo__score_more *m, int view) {
    if (f->bars == 0)
        return 0.0;
    if (view == APO_SCORE_VIEW_SUM)
        return f->total;
    if (view == APO_SCORE_VIEW_LOG)
        return m->equity > 0 ? log(m->equity) : -INFINITY;
    return m->equity - 1.0;
}

void apo__score_series_trace(const apo__rule *rule, int view, const double *close,
                             const double *const *outputs, size_t n_out, size_t n, double cost,
                             double periods_per_year, double *scores,
                             const apo__score_trace *trace) {
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
        if (view == APO_SCORE_VIEW_SUM && trace == NULL) { /* the eight alone: nothing more */
            apo__score_bar_move(&f, rule, cost, close[t], finite, move, out, n_out);
            continue;
        }
        const int prev = f.pos;
        const int scored = f.started && finite; /* as apo__score_bar_pos decides it */
        const int pos = isfinite(close[t]) ? apo__rule_position(rule, prev, close[t], out) : prev;
        apo__score_bar_more(&f, &m, pos, cost, finite, move, out, n_out);
        if (trace == NULL)
            continue;
        /* The return the fold just added: the same function of the same values. */
        if (trace->position != NULL)
            trace->position[t] = (double)pos;
        if (trace->ret != NULL)
            trace->ret[t] = scored ? apo__score_return(prev, pos, cost, move) : NAN;
        if (trace->equity != NULL)
            trace->equity[t] = running_total(&f, &m, view);
    }
    if (view == APO_SCORE_VIEW_SUM)
        apo__score_finish(&f, sqrt(periods_per_year), scores);
    else
        apo__score_more_finish(&f, &m, view, periods_per_year, scores);
}
