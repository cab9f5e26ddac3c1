/* Scoring outputs in memory; see score.h. */
#include "score.h"

#include <math.h>

void apo__score_series(const apo__rule *rule, const double *close, const double *const *outputs,
                       size_t n_out, size_t n, double cost, double periods_per_year,
                       double *scores) {
    apo__score_fold f;
    apo__score_fold_init(&f);
    double out[8];
    for (size_t t = 0; t < n; t++) {
        for (size_t k = 0; k < n_out && k < 8; k++)
            out[k] = outputs[k][t];
        apo__score_bar(&f, rule, cost, t > 0 ? close[t - 1] : NAN, close[t], out, n_out);
    }
    apo__score_finish(&f, sqrt(periods_per_year), scores);
}
