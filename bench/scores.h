/*
 * scores.h: the scored-sweep section of apo-bench-kernels (scores.c; figures in
 * docs/perf-log/2026-11-23-scored-sweeps.md, "Scored sweeps").
 */
#ifndef APO_BENCH_SCORES_H
#define APO_BENCH_SCORES_H

#include <jansson.h>

/* Times scored calls (apo_workload.score) on one cpu thread: a lone set of bollinger's
 * bands_zone and bands_revert and of macd's macd_cross, and bands_revert over 5 band widths
 * that share one pass, each over `rows` random walks of `cols` bars, their rules on side `side`
 * (-1, 0, 1) and in view `view` (compound, log, more; NULL: the plain scores), and
 * bands_revert over the three sides (one pass), `reps` interleaved rounds (0: 7). Each sweep is
 * first checked bitwise against its sets called alone. Prints a table of CPU nanoseconds per
 * set-bar and returns the section's JSON array; adds mismatched scores to *wrong and sets *failed
 * when an API call failed. */
json_t *bench_scores(size_t rows, size_t cols, int side, const char *view, int reps, long *wrong,
                     int *failed);

/* Times a 1,000-set scored grid (bollinger bands_revert) over one random walk of `cols` bars,
 * whole and over 10 walk-forward windows, fixed and anchored (apo_walk_forward), `reps`
 * interleaved rounds (0: 7) on one cpu thread (bench/scores_walk_forward.c). Sets 0 and 999
 * are first checked bitwise on every range against the range scored alone. Prints CPU
 * seconds per call and each case's median over the whole pass's; returns the JSON array. */
json_t *bench_walk_forward(size_t cols, int reps, long *wrong, int *failed);

#endif /* APO_BENCH_SCORES_H */
