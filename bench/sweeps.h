/*
 * sweeps.h: the sweep section of apo-bench-kernels (sweeps.c; figures in docs/PERF.md).
 */
#ifndef APO_BENCH_SWEEPS_H
#define APO_BENCH_SWEEPS_H

#include <jansson.h>

#include "apportion.h"

/* A sweep for the tile-order experiment (sweep_order.c): bollinger sets (period, nbdev_up,
 * nbdev_dn) or macd sets (fast, slow, signal) over rows x cols. */
typedef struct bench_order_sweep {
    int is_macd;
    size_t rows, cols, sets;
    const double *params; /* sets x 3 values */
} bench_order_sweep;

typedef struct bench_order_result {
    double set_major_ms, position_major_ms; /* medians over the rounds */
    size_t lanes;                           /* tiles per group call */
    long wrong; /* values where the two orders' outputs are not bitwise equal */
} bench_order_result;

/* Times the sweep's tiles on one thread in the order devices use (set by set) and with all
 * sets' tiles over the same input span back to back, `rounds` rounds of both, alternating
 * which goes first. Returns 0, or -1 when memory runs out (nothing is measured then). */
int bench_sweep_order(const bench_order_sweep *sw, const double *x, int rounds,
                      bench_order_result *res);

/* Runs the sweep scenarios on `rt` (the runtime under test, labelled `rt_label`) and on
 * `rt_sim` (three simulated devices): each sweep is first checked bitwise against one call
 * per set, then timed against those calls, interleaved round by round, `reps` rounds (0:
 * 5). Scenarios whose one set has more than `max_size` samples are skipped; `kernels` is
 * the --kernels selection (NULL: all). Then the tile-order experiment (bench_sweep_order,
 * 2 * reps + 1 rounds) on the same sweeps. Returns the section's JSON object ("sweeps",
 * "tile_order"); adds mismatched values to *wrong and sets *failed when an API call
 * failed. */
json_t *bench_sweeps(apo_runtime *rt, const char *rt_label, apo_runtime *rt_sim, int reps,
                     double max_size, const char *kernels, long *wrong, int *failed);

#endif /* APO_BENCH_SWEEPS_H */
