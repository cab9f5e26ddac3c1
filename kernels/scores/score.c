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

void apo__score_live_init(apo__score_live *l) {
    apo__score_fold_init(&l->f);
    apo__score_more_init(&l->m);
    l->prev_close = NAN;
}

void apo__score_live_bar(apo__score_live *l, const apo__rule *rule, int view, double close,
                         const double *out, size_t n_out, double cost, double *position,
                         double *ret, double *total) {
    const int prev = l->f.pos;
    const int pos = isfinite(close) ? apo__rule_position(rule, prev, close, out) : prev;
    apo__score_live_step(l, pos, view, close, out, n_out, cost, position, ret, total);
}

void apo__score_live_step(apo__score_live *l, int pos, int view, double close, const double *out,
                          size_t n_out, double cost, double *position, double *ret, double *total) {
    double move;
    const int finite = apo__score_move(l->prev_close, close, &move);
    l->prev_close = close;
    const int prev = l->f.pos;
    const int scored = l->f.started && finite; /* as apo__score_bar_pos decides it */
    apo__score_bar_more(&l->f, &l->m, pos, cost, finite, move, out, n_out);
    /* The return the fold just added: the same function of the same values. */
    if (position != NULL)
        *position = (double)pos;
    if (ret != NULL)
        *ret = scored ? apo__score_return(prev, pos, cost, move) : NAN;
    if (total != NULL)
        *total = running_total(&l->f, &l->m, view);
}

void apo__score_live_scores(const apo__score_live *l, int view, double periods_per_year,
                            double *scores) {
    if (view == APO_SCORE_VIEW_SUM)
        apo__score_finish(&l->f, sqrt(periods_per_year), scores);
    else
        apo__score_more_finish(&l->f, &l->m, view, periods_per_year, scores);
}

void apo__score_series_trace(const apo__rule *rule, int view, const double *close,
                             const double *const *outputs, size_t n_out, size_t n, double cost,
                             double periods_per_year, double *scores,
                             const apo__score_trace *trace) {
    apo__score_live l;
    apo__score_live_init(&l);
    double out[8];
    for (size_t t = 0; t < n; t++) {
        for (size_t k = 0; k < n_out && k < 8; k++)
            out[k] = outputs[k][t];
        if (view == APO_SCORE_VIEW_SUM && trace == NULL) { /* the eight alone: nothing more */
            double move;
            const int finite = apo__score_move(l.prev_close, close[t], &move);
            l.prev_close = close[t];
            apo__score_bar_move(&l.f, rule, cost, close[t], finite, move, out, n_out);
            continue;
        }
        /* The one step a live fold takes too (apo__score_live_bar). */
        apo__score_live_bar(&l, rule, view, close[t], out, n_out, cost,
                            trace != NULL && trace->position != NULL ? &trace->position[t] : NULL,
                            trace != NULL && trace->ret != NULL ? &trace->ret[t] : NULL,
                            trace != NULL && trace->equity != NULL ? &trace->equity[t] : NULL);
    }
    apo__score_live_scores(&l, view, periods_per_year, scores);
}
