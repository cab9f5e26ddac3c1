/*
 * What the replayed-H100 tests share (replay_fixtures.c): runtimes on the replayed H100 and its
 * host (docs/scheduling.md, "A replayed H100"), calls whose virtual makespan they read, the
 * same call on one device alone, and the cases themselves at a size the caller picks, so that
 * the unit suite runs them small and the slow suite at the sizes.
 */
#ifndef APO_TEST_REPLAY_FIXTURES_H
#define APO_TEST_REPLAY_FIXTURES_H

#include <stddef.h>

#include "helpers.h"

/* The replayed H100 and its 16-core host, in that order. */
#define REPLAYED_PAIR "sim:h100:replay=h100,sim:cpu16:replay=h100-host"

/* Runs `job` on `rt`: with `only` >= 0 on that device alone (explicit ratios), without
 * learning; with `only` < 0 as the runtime plans it, learning when `learn`. Fails the test
 * on error; returns the report's (virtual) makespan in ms and fills *report. */
double replay_call(apo_runtime *rt, test_job *job, int only, int learn, apo_report *report);

/* The shares a planned call gives each device, and its predicted makespan (ms). */
double replay_plan(apo_runtime *rt, test_job *job, double *shares);

/* A scored rsi sweep (rsi_zone) over periods 2 to 1 + sets, on rows x cols. */
void replay_scored_job(test_job *job, apo_runtime *rt, size_t rows, size_t cols, size_t sets);

/* The cases (test_replayed_h100.c, test_replayed_h100_slow.c). */

/* bollinger over one series of `samples` in pageable memory on REPLAYED_PAIR, profiled at a
 * tenth of it: planned and measured makespan no slower than the cpu alone. */
void check_memory_bound_call_not_slower_than_cpu(size_t samples);

/* A scored rsi sweep learnt on one series, then run on rows x cols x sets: the GPU's share
 * at least 0.85 and the makespan within 1.15 x the GPU alone. */
void check_scored_sweep_goes_to_gpu(size_t rows, size_t cols, size_t sets);

/* Random shapes `first` .. first + cases - 1 (each its own seed: pageable series of 1e5 to
 * max_samples samples of bollinger or macd, or scored sweeps; one to three devices among the
 * replayed pair and a plain sim), each after `warm` learning calls: the chosen configuration
 * within 1.1 x the best single device's makespan. */
void check_random_shapes(unsigned first, unsigned cases, size_t max_samples, unsigned warm);

#endif
