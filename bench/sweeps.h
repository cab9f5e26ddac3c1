/*
 * sweeps.h: the sweep section of apo-bench-kernels (sweeps.c; figures in docs/PERF.md).
 */
#ifndef APO_BENCH_SWEEPS_H
#define APO_BENCH_SWEEPS_H

#include <jansson.h>

#include "apportion.h"

/* Runs the sweep scenarios on `rt` (the runtime under test, labelled `rt_label`) and on
 * `rt_sim` (three simulated devices): each sweep is first checked bitwise against one call
 * per set, then timed against those calls, interleaved round by round, `reps` rounds (0:
 * 5). Scenarios whose one set has more than `max_size` samples are skipped; `kernels` is
 * the --kernels selection (NULL: all). Returns the section's JSON array; adds mismatched
 * values to *wrong and sets *failed when an API call failed. */
json_t *bench_sweeps(apo_runtime *rt, const char *rt_label, apo_runtime *rt_sim, int reps,
                     double max_size, const char *kernels, long *wrong, int *failed);

#endif /* APO_BENCH_SWEEPS_H */
