/*
 * Partitioning: shares rounded to whole units (rows or tiles) by largest remainder, ties
 * to the lower device index, and the pairwise reduction tree over tile partials. Both are
 * pure functions of their arguments, so they are tested alone.
 */
#ifndef APO_RUNTIME_PARTITION_H
#define APO_RUNTIME_PARTITION_H

#include <stddef.h>
#include <stdint.h>

#include "catalog/kernel.h"

/* Splits `units` among `n` non-negative weights whose sum is positive: counts[i] is
 * floor(units * w_i / sum) plus one for the devices with the largest remainders (ties to
 * the lower index) until the counts add up to `units`. A zero weight gets zero units. */
void apo__largest_remainder(const double *weights, size_t n, uint64_t units, uint64_t *counts);

/* Elements of work in linear tiles [first, end) of a call, in O(1). */
uint64_t apo__tiles_elements(const apo__call *call, uint64_t first, uint64_t end);

/* Reduces the partials of tiles [first, first + count) into `out` with the kernel's merge,
 * in a fixed tree: split at count/2, reduce each half, merge left with right. `scratch`
 * needs partial_len * (depth + 1) doubles with depth = ceil(log2(count)) + 1. */
void apo__reduce_pairwise(const apo__kernel *k, const double *partials, uint64_t first,
                          uint64_t count, double *out, double *scratch);

#endif
