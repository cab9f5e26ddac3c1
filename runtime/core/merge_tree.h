/*
 * The merge tree: tile partials reduced in a fixed pairwise tree, so a reduction's bits
 * depend only on the tile grid, never on which device computed which tile or in what
 * order they finished (docs/determinism.md). A pure function of its arguments, so it is
 * tested alone.
 */
#ifndef APO_RUNTIME_CORE_MERGE_TREE_H
#define APO_RUNTIME_CORE_MERGE_TREE_H

#include <stdint.h>

#include "catalog/kernel.h"

/* Reduces the partials of tiles [first, first + count) into `out` with the kernel's merge,
 * in a fixed tree: split at count/2, reduce each half, merge left with right. `scratch`
 * needs partial_len * (depth + 1) doubles with depth = ceil(log2(count)) + 1. */
void apo__reduce_pairwise(const apo__kernel *k, const double *partials, uint64_t first,
                          uint64_t count, double *out, double *scratch);

#endif
