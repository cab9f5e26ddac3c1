/*
 * catalog_family_tile.h: what the catalog's piece-by-piece tests (test_catalog_pointwise.c,
 * test_catalog_anchored.c) share: each row's inputs, outputs and parameters (catalog_shapes.h,
 * which the SIMT tests share too), and the body a GPU thread calls, the family's switch
 * (kernels/<room>/<room>_tiles.h), so that a test runs on the CPU exactly what a GPU launch
 * runs on its piece. Static definitions: one copy in each test executable that includes it.
 */
#ifndef APO_TESTS_CATALOG_FAMILY_TILE_H
#define APO_TESTS_CATALOG_FAMILY_TILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "averages_tiles.h"
#include "candles_tiles.h"
#include "catalog_dispatch.h"
#include "catalog_shapes.h"
#include "cycles_tiles.h"
#include "oscillators_tiles.h"
#include "statistics_tiles.h"
#include "transforms_tiles.h"
#include "trend_tiles.h"
#include "volume_tiles.h"

/* The body the GPU's thread calls: the family's switch (kernels/<room>/<room>_tiles.h). */
static inline void family_tile(apo__cat_id id, const apo__cat_io *io, size_t begin, size_t end) {
    switch (apo__catalog_family(id)) {
#define APO__FAMILY_TILE(room, ID)                                                                 \
    case APO_CAT_##ID:                                                                             \
        apo__##room##_tile((int)id, io, begin, end);                                               \
        break;
        APO_CATALOG_ROOMS(APO__FAMILY_TILE)
#undef APO__FAMILY_TILE
    }
}

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
