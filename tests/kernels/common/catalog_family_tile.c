/*
 * catalog_family_tile.c: family_tile (catalog_family_tile.h), every family's tile bodies
 * compiled once for the catalog's piece-by-piece tests.
 */
/* Criterion first, as in the tests: the header's helpers assert with it. */
#include <criterion/criterion.h>

#include "catalog_family_tile.h"

#include "averages_tiles.h"
#include "candles_tiles.h"
#include "cycles_tiles.h"
#include "oscillators_tiles.h"
#include "statistics_tiles.h"
#include "transforms_tiles.h"
#include "trend_tiles.h"
#include "volume_tiles.h"

void family_tile(apo__cat_id id, const apo__cat_io *io, size_t begin, size_t end) {
    switch (apo__catalog_family(id)) {
#define APO__FAMILY_TILE(room, ID)                                                                 \
    case APO_CAT_##ID:                                                                             \
        apo__##room##_tile((int)id, io, begin, end);                                               \
        break;
        APO_CATALOG_ROOMS(APO__FAMILY_TILE)
#undef APO__FAMILY_TILE
    }
}
