/*
 * A user's rule as a scored kernel (apo_rule_fn, docs/scores.md): built with the built-in
 * rules' hooks (apo__scored_fill), so a user rule that takes a built-in one's positions gives
 * its bits; and the first failure of a call (a return outside {-1, 0, 1}), kept for the caller.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "catalog/scored_build.h"
#include "catalog/scored_kernels.h"
#include "score_more.h"

apo_status apo__scored_kernel_user(apo__kernel *k, apo__scoring *sc, const apo__kernel *indicator,
                                   const char *rule_name, apo_rule_fn fn, void *user,
                                   apo__rule_failure *failure, char *err, size_t err_size) {
    if (!apo__scored_scorable(indicator, 2, err, err_size))
        return APO_ERR_INVALID_ARGUMENT;
    if (strlen(indicator->name) + 1 + strlen(rule_name) >= APO_NAME_MAX) {
        snprintf(err, err_size, "%s:%s is longer than %d characters", indicator->name, rule_name,
                 APO_NAME_MAX - 1);
        return APO_ERR_INVALID_ARGUMENT;
    }
    apo__scored_fill(k, sc, indicator, rule_name, NULL, APO_SCORE_VIEW_SUM);
    sc->user_fn = fn;
    sc->user = user;
    sc->failure = failure;
    return APO_OK;
}

void apo__scored_failure_clear(const apo__kernel *k) {
    if (k->scoring == NULL || k->scoring->failure == NULL)
        return;
    apo__rule_failure *fail = k->scoring->failure;
    pthread_mutex_lock(&fail->mutex);
    fail->failed = 0;
    pthread_mutex_unlock(&fail->mutex);
}

int apo__scored_failure_take(const apo__kernel *k, char *msg, size_t msg_size) {
    if (k->scoring == NULL || k->scoring->failure == NULL)
        return 0;
    apo__rule_failure *fail = k->scoring->failure;
    pthread_mutex_lock(&fail->mutex);
    const int failed = fail->failed;
    if (failed)
        snprintf(msg, msg_size, "%s", fail->message);
    pthread_mutex_unlock(&fail->mutex);
    return failed;
}
