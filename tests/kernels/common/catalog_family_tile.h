/*
 * catalog_family_tile.h: what the catalog's piece-by-piece tests (test_catalog_pointwise.c,
 * test_catalog_anchored.c) share: each row's inputs, outputs and parameters (catalog_shapes.h,
 * which the SIMT tests share too), and the body a GPU thread calls, the family's switch
 * (kernels/<room>/<room>_tiles.h), so that a test runs on the CPU exactly what a GPU launch
 * runs on its piece. family_tile is compiled once (catalog_family_tile.c, a library both tests
 * link): every family's bodies took gcc about 110 s in each test that included them; the
 * helpers below are static, one copy in each test executable.
 */
#ifndef APO_TESTS_CATALOG_FAMILY_TILE_H
#define APO_TESTS_CATALOG_FAMILY_TILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_dispatch.h"
#include "catalog_shapes.h"

/* The body the GPU's thread calls for kernel `id` over [begin, end): the family's switch
 * (kernels/<room>/<room>_tiles.h). */
void family_tile(apo__cat_id id, const apo__cat_io *io, size_t begin, size_t end);

/* A signalling NaN no kernel writes: a position left holding it was never written. */
static const uint64_t poison_bits = 0x7ff4dead5117b10cull;

static inline double poison(void) {
    double d;
    memcpy(&d, &poison_bits, sizeof d);
    return d;
}

static inline int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* n doubles of poison (the tests include Criterion before this header). */
static inline double *poisoned(size_t n) {
    double *p = malloc(n * sizeof *p);
    cr_assert_not_null(p);
    for (size_t t = 0; t < n; t++)
        p[t] = poison();
    return p;
}

#endif
