/*
 * Cost models: t(n) = latency + n * cost, for n elements of work on one device.
 *
 * Profiling fits one from runs at several sizes (outlying runs dropped, the median of each
 * size, least squares over sizes). Online refinement keeps a window of the last
 * APO_MODEL_WINDOW observations and takes robust statistics over it (medians, not means), so
 * that one cold call (page faults, a busy moment) moves the model by nothing while a lasting
 * change is followed within APO_MODEL_CHANGE_RUN calls:
 * - sizes that do not spread: the latency is kept and the cost is the median of the
 *   observations' costs (t - latency) / n;
 * - sizes that spread (two or more observations, some APO_MODEL_MIN_SPREAD apart): the
 *   median of the pairwise slopes is the cost and the median of t - cost * n the latency;
 * - a model that was valid before its first observation (stored or profiled) is the prior:
 *   it votes as two pseudo-observations in the cost median until the window restarts, and
 *   not in the line;
 * - when the last APO_MODEL_CHANGE_RUN observations are all more than APO_MODEL_CHANGE_REL
 *   off the prediction in the same direction, the window restarts from them (the device
 *   changed: the older ones and the prior no longer describe it); so does a shorter run of
 *   APO_MODEL_GROSS_RUN observations all more than APO_MODEL_GROSS_FACTOR times off, one way
 *   (a device cut to a third of its speed need not be believed a third time);
 * - a restart of either kind also forgets the latency the old window had settled on: it was
 *   the old device's, and often a line through sizes a few percent apart. Until the new
 *   window's sizes spread, the model is proportional (latency 0), which a device whose speed
 *   changed fits better than the old intercept with a new slope;
 * - an observation after a gap (the device had no work for a while: the caller says so)
 *   that is that far off restarts the window from itself alone, so that one probe of a
 *   device left without work corrects its model.
 * See docs/design.md and docs/scheduling.md.
 */
#ifndef APO_RUNTIME_BALANCE_MODEL_H
#define APO_RUNTIME_BALANCE_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "apportion.h"

/* Observations an online model keeps. */
#define APO_MODEL_WINDOW 8
/* Consecutive observations further than APO_MODEL_CHANGE_REL from the prediction, all in the
 * same direction, that restart the window (a real change rather than a cold call). */
#define APO_MODEL_CHANGE_RUN 3
#define APO_MODEL_CHANGE_REL 0.25
/* Consecutive observations this many times off the prediction (slower, or faster by the same
 * factor), all one way, that restart the window sooner: one such call can be a cold one, two
 * in a row are the device (docs/scheduling.md, "Change rule"). */
#define APO_MODEL_GROSS_RUN 2
#define APO_MODEL_GROSS_FACTOR 2.0
/* Two observations' sizes must differ by this fraction of the larger for their slope to
 * count towards the line; without such a pair the latency is kept and only the cost moves. */
#define APO_MODEL_MIN_SPREAD 0.05
/* Pseudo-observations the prior counts as in the cost median. */
#define APO_MODEL_PRIOR_VOTES 2

typedef struct apo__model {
    int valid;
    double latency_s; /* >= 0 */
    double cost_s;    /* seconds per element, > 0 */
    uint64_t samples; /* observations behind the model */
    /* Online refinement (model.c): the last observations in a ring, the oldest first from
     * win_next - win_count; the prior; the latency used while sizes do not spread; and the
     * signed count of consecutive observations off the prediction (+ slower, - faster), and
     * of those grossly off (not stored with a profile: a restored model starts it at 0). */
    double win_n[APO_MODEL_WINDOW], win_t[APO_MODEL_WINDOW];
    unsigned win_count, win_next;
    int has_prior;
    double prior_latency_s, prior_cost_s;
    double known_latency_s;
    int off_run;
    int gross_run;
    /* Another device's model, lent to a device that has none of its own yet
     * (balance_state.c, complete_models()): good enough to give it a share and learn its
     * own, never to run it alone (configurations.c). */
    int borrowed;
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
 * nothing known yet is a zeroed struct; a stored one comes from apo__model_from_stored(),
 * a profiled one from apo__model_fit(): either is the prior of the observations. An
 * observation with n <= 0, t < 0 or either not finite is ignored; t == 0 gives a tiny
 * positive cost. */
void apo__model_observe(apo__model *m, double n, double t);

/* apo__model_observe() for an observation after a gap: the device had no work for a while,
 * so what it measures now is fresh evidence; one that is off the prediction restarts the
 * window from itself. */
void apo__model_observe_after_gap(apo__model *m, double n, double t);

/* Median of v[0..n) (n > 0): the mean of the middle two for even n. Sorts v. */
double apo__median(double *v, size_t n);

/* Predicted seconds for n elements (n > 0). */
double apo__model_predict(const apo__model *m, double n);

/* The window, oldest first, into n[] and t[] (seconds; room for APO_MODEL_WINDOW each);
 * returns how many observations it holds. */
unsigned apo__model_window(const apo__model *m, double *n, double *t);

/* Puts back the online state stored with a model (after apo__model_from_stored(), which
 * set latency and cost): the window oldest first (the newest APO_MODEL_WINDOW of `count`),
 * the prior when prior_cost_s > 0 (else none votes), the latency kept while sizes do not
 * spread (NaN: the model's) and the run of disagreeing observations, cut to less than
 * APO_MODEL_CHANGE_RUN. Observations that are not valid ones are left out. The model itself
 * is not refitted: it is what the window gave when it was stored. */
void apo__model_restore(apo__model *m, const double *n, const double *t, unsigned count,
                        double prior_latency_s, double prior_cost_s, double known_latency_s,
                        int off_run);

/* The model from stored figures (milliseconds, milliseconds per million elements). */
void apo__model_from_stored(apo__model *m, double latency_ms, double ms_per_melem,
                            uint64_t samples);

#endif
