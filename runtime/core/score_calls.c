/*
 * apo_score_outputs(), apo_score_outputs_with() and apo_score_positions(): scoring outputs already
 * in memory with the fold the scored kernels use (kernels/scores/score.h; docs/scores.md,
 * "Scores").
 */
#include <math.h>
#include <string.h>

#include "base/error.h"
#include "catalog/params.h"
#include "catalog/scored_kernels.h"
#include "score.h"

/* The scored kernel of kernel and rule, with the outputs given checked against it. */
static apo_status outputs_kernel(const char *kernel, const char *rule, const double *close,
                                 const double *const *outputs, size_t n_outputs,
                                 const double *scores, const char *fn, const apo__kernel **out) {
    if (kernel == NULL || rule == NULL || close == NULL || outputs == NULL || scores == NULL)
        return apo__fail(APO_ERR_NULL, "%s: NULL argument", fn);
    const apo__kernel *k = NULL;
    apo_status st = apo__scored_kernel_of(kernel, rule, &k);
    if (st != APO_OK)
        return st;
    const apo__kernel *ind = k->scoring->indicator;
    if (n_outputs != ind->n_outputs)
        return apo__fail(APO_ERR_INVALID_ARGUMENT, "%s: %s has %zu outputs, %zu were given", fn,
                         kernel, ind->n_outputs, n_outputs);
    for (size_t i = 0; i < n_outputs; i++)
        if (outputs[i] == NULL)
            return apo__fail(APO_ERR_NULL, "%s: output %zu (%s) is NULL", fn, i,
                             ind->output_names[i]);
    *out = k;
    return APO_OK;
}

apo_status apo_score_outputs(const char *kernel, const char *rule, const double *close,
                             const double *const *outputs, size_t n_outputs, size_t n, double cost,
                             double periods_per_year, double *scores) {
    const apo__kernel *k = NULL;
    apo_status st =
        outputs_kernel(kernel, rule, close, outputs, n_outputs, scores, "apo_score_outputs", &k);
    if (st != APO_OK)
        return st;
    if (!(cost >= 0 && cost <= 1))
        return apo__fail(APO_ERR_BAD_PARAM, "apo_score_outputs: cost must be from 0 to 1, got %g",
                         cost);
    if (!(periods_per_year > 0) || !isfinite(periods_per_year))
        return apo__fail(APO_ERR_BAD_PARAM,
                         "apo_score_outputs: periods_per_year must be a finite number > 0, got %g",
                         periods_per_year);
    /* No thresholds are given here: a rule that takes them uses its defaults (the scored
     * kernel's), as a scored call that names none does. */
    const apo__scoring *sc = k->scoring;
    apo__score_series_view(&sc->rule, sc->view, close, outputs, n_outputs, n, cost,
                           periods_per_year, scores);
    return APO_OK;
}

/* A call's fold: its scored kernel, the rule, cost and periods_per_year. */
typedef struct scored_fold {
    const apo__kernel *k;
    apo__rule rule;
    double cost, periods_per_year;
} scored_fold;

/* The fold of a call with `params`: the scored kernel of kernel and rule with the outputs
 * checked (outputs_kernel), then the parameters resolved and checked as a scored call's are:
 * the indicator's are accepted and change nothing (its outputs are given). */
static apo_status fold_params(const char *kernel, const char *rule, const double *close,
                              const double *const *outputs, size_t n_outputs, size_t n,
                              const apo_param *params, size_t n_params, const double *scores,
                              const char *fn, scored_fold *f) {
    apo_status st = outputs_kernel(kernel, rule, close, outputs, n_outputs, scores, fn, &f->k);
    if (st != APO_OK)
        return st;
    const apo__kernel *k = f->k;
    double values[APO_MAX_PARAMS];
    if ((st = apo__resolve_params(k, params, n_params, values)) != APO_OK)
        return st;
    if (k->validate != NULL) {
        char err[256];
        st = k->validate(k, values, 1, n, err, sizeof err);
        if (st != APO_OK)
            return apo__fail(st, "%s", err);
    }
    const apo__scoring *sc = k->scoring;
    const size_t fold = sc->indicator->n_params + sc->n_rule_params;
    f->rule = apo__scoring_rule(sc, values);
    f->cost = values[fold];
    f->periods_per_year = values[fold + 1];
    return APO_OK;
}

apo_status apo_score_outputs_with(const char *kernel, const char *rule, const double *close,
                                  const double *const *outputs, size_t n_outputs, size_t n,
                                  const apo_param *params, size_t n_params, double *scores) {
    scored_fold f;
    apo_status st = fold_params(kernel, rule, close, outputs, n_outputs, n, params, n_params,
                                scores, "apo_score_outputs_with", &f);
    if (st != APO_OK)
        return st;
    apo__score_series_view(&f.rule, f.k->scoring->view, close, outputs, n_outputs, n, f.cost,
                           f.periods_per_year, scores);
    return APO_OK;
}

apo_status apo_score_positions(const char *kernel, const char *rule, const double *close,
                               const double *const *outputs, size_t n_outputs, size_t n,
                               const apo_param *params, size_t n_params, double *position,
                               double *returns, double *equity, double *scores) {
    double own[APO_N_SCORES];
    scored_fold f;
    apo_status st = fold_params(kernel, rule, close, outputs, n_outputs, n, params, n_params,
                                scores != NULL ? scores : own, "apo_score_positions", &f);
    if (st != APO_OK)
        return st;
    /* The fold of apo_score_outputs_with(), writing what it folds bar by bar: the positions
     * come from the rule's own code, not from a reading of it. */
    const apo__score_trace trace = {.position = position, .ret = returns, .equity = equity};
    apo__score_series_trace(&f.rule, f.k->scoring->view, close, outputs, n_outputs, n, f.cost,
                            f.periods_per_year, scores != NULL ? scores : own, &trace);
    return APO_OK;
}
