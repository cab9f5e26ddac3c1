/*
 * random_walk.h: the one seeded random walk of apportion, the default input of
 * `apportion run` (docs/cli/run.md, "The generated input"), the input that
 * apo_profile_auto_balance() times the devices on, and the data of the benchmarks.
 *
 * Depends on libc only, like the rest of kernels/, so the library, the CLI, the benchmarks
 * and the tests all link it without seeing each other's headers.
 */
#ifndef APO_RANDOM_WALK_H
#define APO_RANDOM_WALK_H

#include <stddef.h>
#include <stdint.h>

/* Fills dst[rows*cols] (row-major) with one random walk per row that starts at 100:
 * x[r][0] = 100 + s(r*cols), x[r][c] = x[r][c-1] + s(r*cols + c), where the step s(g) is
 * uniform in (-1, 1), drawn from apo__splitmix64(seed, g) alone. So one row of a walk is a
 * row of any walk with the same seed, cols and more rows, and a shorter single row is a
 * prefix of a longer one. Every operation is exact or one correctly rounded addition, so
 * the bits are the same on every machine. The caller checks that rows*cols fits. */
void apo__random_walk(double *dst, size_t rows, size_t cols, uint64_t seed);

#endif /* APO_RANDOM_WALK_H */
