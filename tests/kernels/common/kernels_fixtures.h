/*
 * What the kernels' tests share (kernels_fixtures.c): arrays, the tile grid of a series,
 * the pairwise merge of tile partials, and relative errors against the references.
 */
#ifndef APO_TEST_KERNELS_FIXTURES_H
#define APO_TEST_KERNELS_FIXTURES_H

#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"
#include "reference.h"

double *alloc_doubles(size_t n);

/* The tile grid: tile i covers [i * len, min(n, (i + 1) * len)). Order 0 runs the tiles
 * forward, 1 backward, 2 odd tiles first then even ones. */
size_t tile_count(size_t n, size_t len);

size_t tile_at(size_t i, size_t count, int order);

/* A fixed pairwise tree over partials [lo, hi), the shape the runtime uses on the host. */
apo__moments merge_tree(const apo__moments *parts, size_t lo, size_t hi);

double rel_err(double got, double want);

#endif
