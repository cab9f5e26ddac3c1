/*
 * call_learning.h: what a call's run teaches the balance models (call_learning.c). Private
 * to core/.
 */
#ifndef APO_RUNTIME_CORE_CALL_LEARNING_H
#define APO_RUNTIME_CORE_CALL_LEARNING_H

#include "core/run_phases.h"

/* Hands the models each device's busy time for the elements it computed in run s of `total`
 * elements under `tag` (p NULL: a run no plan of the models chose, which teaches no
 * configuration), then marks the devices that worked warm. */
void apo__observe_run(apo_runtime *rt, const char *tag, double total, const apo__run_state *s,
                      const apo__plan *p, double makespan_s);

/* apo__observe_run for a whole call, where its tag is valid. */
void apo__learn_from_call(apo_runtime *rt, const apo__run_state *s, const apo__plan *p,
                          double makespan_s);

#endif /* APO_RUNTIME_CORE_CALL_LEARNING_H */
