/*
 * apo_score_outputs(): scoring outputs already in memory with the fold the scored kernels
 * use (kernels/scores/score.h; docs/kernels.md, "Scores").
 */
#include <math.h>
#include <string.h>

#include "base/error.h"
#include "catalog/scored_kernels.h"
#include "score.h"

apo_status apo_score_outputs(const char *kernel, const char *rule, const double *close,
                             const double *const *outputs, size_t n_outputs, size_t n, double cost,
                             double periods_per_year, double *scores) {
    if (kernel == NULL || rule == NULL || close == NULL || outputs == NULL || scores == NULL)
        return apo__fail(APO_ERR_NULL, "apo_score_outputs: NULL argument");
    const apo__kernel *k = NULL;
    apo_status st = apo__scored_kernel_of(kernel, rule, &k);
    if (st != APO_OK)
        return st;
    const apo__kernel *ind = k->scoring->indicator;
    if (n_outputs != ind->n_outputs)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "apo_score_outputs: %s has %zu outputs, %zu were given", kernel,
                         ind->n_outputs, n_outputs);
    for (size_t i = 0; i < n_outputs; i++)
        if (outputs[i] == NULL)
            return apo__fail(APO_ERR_NULL, "apo_score_outputs: output %zu (%s) is NULL", i,
                             ind->output_names[i]);
    if (!(cost >= 0 && cost <= 1))
        return apo__fail(APO_ERR_BAD_PARAM, "apo_score_outputs: cost must be from 0 to 1, got %g",
                         cost);
    if (!(periods_per_year > 0) || !isfinite(periods_per_year))
        return apo__fail(APO_ERR_BAD_PARAM,
                         "apo_score_outputs: periods_per_year must be a finite number > 0, got %g",
                         periods_per_year);
    apo__score_series(k->scoring->rule, close, outputs, n_outputs, n, cost, periods_per_year,
                      scores);
    return APO_OK;
}
