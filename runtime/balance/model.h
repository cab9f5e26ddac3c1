/*
 * Cost models: t(n) = latency + n * cost, for n elements of work on one device.
 *
 * Profiling fits one from runs at several sizes (outlying runs dropped, the median of each
 * size, least squares over sizes). Online refinement folds each call's measured time into
 * exponentially decayed sums, so that recent calls weigh most and a device that becomes
 * slower is followed within a few calls.
 */
#ifndef APO_RUNTIME_BALANCE_MODEL_H
#define APO_RUNTIME_BALANCE_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "apportion.h"

typedef struct apo__model {
    int valid;
    double latency_s; /* >= 0 */
    double cost_s;    /* seconds per element, > 0 */
    uint64_t samples; /* observations behind the model */
    /* Online refinement: decayed sums of weight, n, t, n*n and n*t of the observations. */
    double sw, sn, st, snn, snt;
} apo__model;

/* A run is an outlier when it is further from its size's median than this many times
 * the median absolute deviation, and also more than APO_OUTLIER_MIN_REL of the median
 * (so that runs that agree to the nanosecond do not make everything else an outlier). */
#define APO_OUTLIER_MADS 3.0
#define APO_OUTLIER_MIN_REL 0.05

/* Fits a model from `count` runs (elements n[i], seconds t[i]) taken at two or more
 * distinct sizes. Writes the number of runs dropped as outliers. Returns
 * APO_ERR_INVALID_ARGUMENT (err says why) for fewer than two distinct sizes, a
 * non-finite or negative time, or a fit whose cost is not positive. */
apo_status apo__model_fit(const double *n, const double *t, size_t count, apo__model *out,
                          uint64_t *dropped, char *err, size_t err_size);

/* Folds one call's observation (n elements took t seconds) into the model. A model with
 * nothing known yet is a zeroed struct; a stored one comes from apo__model_from_stored(). */
void apo__model_observe(apo__model *m, double n, double t);

/* Median of v[0..n) (n > 0): the mean of the middle two for even n. Sorts v. */
double apo__median(double *v, size_t n);

/* Predicted seconds for n elements (n > 0). */
double apo__model_predict(const apo__model *m, double n);

/* The model from stored figures (milliseconds, milliseconds per million elements). */
void apo__model_from_stored(apo__model *m, double latency_ms, double ms_per_melem,
                            uint64_t samples);

#endif
