/*
 * catalog_entry.h: the CPU's catalog tile call, apo__catalog_tile_<path>, for the vector path
 * whose file includes it (catalog_sse2.c, catalog_avx2.c, catalog_avx512.c, each compiled
 * with its path's flags, kernels/meson.build). The function is the same source on every
 * path: the family's switch over the APO_HD tile bodies. Only the compiler's vectors differ,
 * so a loop that vectorizes (mom's, trange's) uses 2, 4 or 8 lanes; a lane performs the
 * scalar IEEE operations in the scalar order (-ffp-contract=off covers vector code too), so
 * every path gives the same bits (docs/kernels.md, "Vector paths").
 *
 * The including file defines APO_CATALOG_PATH_NAME(name), which appends its path's suffix.
 */
#include "averages_tiles.h"
#include "catalog_paths.h"
#include "oscillators_tiles.h"
#include "statistics_tiles.h"
#include "trend_tiles.h"
#include "volume_tiles.h"

void APO_CATALOG_PATH_NAME(apo__catalog_tile)(apo__cat_id id, const apo__cat_io *io, size_t begin,
                                              size_t end) {
    switch (apo__catalog_family(id)) {
    case APO_CAT_AVERAGES:
        apo__averages_tile((int)id, io, begin, end);
        break;
    case APO_CAT_OSCILLATORS:
        apo__oscillators_tile((int)id, io, begin, end);
        break;
    case APO_CAT_STATISTICS:
        apo__statistics_tile((int)id, io, begin, end);
        break;
    case APO_CAT_TREND:
        apo__trend_tile((int)id, io, begin, end);
        break;
    case APO_CAT_VOLUME:
        apo__volume_tile((int)id, io, begin, end);
        break;
    }
}
