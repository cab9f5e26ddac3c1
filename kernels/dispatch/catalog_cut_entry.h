/*
 * catalog_cut_entry.h: apo__catalog_cut_<path>, a lone tile of a recurrence cut into pieces in the
 * lanes of the vector path whose file includes it (catalog_cut_sse2.c, catalog_cut_avx2.c,
 * catalog_cut_avx512.c, built with that path's flags: kernels/meson.build), or, where the cut
 * does not pay, the path's tile call (catalog_entry.h).
 *
 * Why a translation unit of its own: with the cut's copies of the rounds in catalog_entry.h's
 * unit, the ordinary rounds there compiled to a slower loop (plus_di's four 1e4-bar tiles at
 * period 14: 24.2-24.4 us against 23.2-23.7; docs/PERF.md).
 *
 * The including file defines APO_CATALOG_PATH_NAME(name), which appends its path's suffix.
 */
#include "catalog_paths.h"
#include "catalog_split.h"

size_t APO_CATALOG_PATH_NAME(apo__catalog_cut)(apo__cat_id id, const apo__cat_io *io, size_t begin,
                                               size_t end) {
    const size_t redone = apo__catalog_cut_tile(id, io, begin, end);
    if (redone == (size_t)-1)
        APO_CATALOG_PATH_NAME(apo__catalog_tile)(id, io, begin, end);
    return redone;
}
