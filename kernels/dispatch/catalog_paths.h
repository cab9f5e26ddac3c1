/*
 * catalog_paths.h: the catalog tile call of each vector path (catalog_entry.h), for
 * catalog.c's dispatch (apo__cpu_catalog_tile_on). The avx2 and avx512 ones exist where the
 * build has those paths (APO_HAVE_LANES_AVX2, APO_HAVE_LANES_AVX512, kernels/meson.build)
 * and may be called only when the CPU supports them (cpu_isa.h).
 */
#ifndef APO_KERNELS_CATALOG_PATHS_H
#define APO_KERNELS_CATALOG_PATHS_H

#include <stddef.h>

#include "catalog.h"
#include "tile_span.h"

void apo__catalog_tile_sse2(apo__cat_id id, const apo__cat_io *io, size_t begin, size_t end);
void apo__catalog_tile_avx2(apo__cat_id id, const apo__cat_io *io, size_t begin, size_t end);
void apo__catalog_tile_avx512(apo__cat_id id, const apo__cat_io *io, size_t begin, size_t end);

/* Consecutive tiles of one row, each with the bits of the call above (catalog_entry.h). */
void apo__catalog_tiles_sse2(apo__cat_id id, const apo__cat_io *io, const apo__tile_span *tiles,
                             size_t count);
void apo__catalog_tiles_avx2(apo__cat_id id, const apo__cat_io *io, const apo__tile_span *tiles,
                             size_t count);
void apo__catalog_tiles_avx512(apo__cat_id id, const apo__cat_io *io, const apo__tile_span *tiles,
                               size_t count);

#endif /* APO_KERNELS_CATALOG_PATHS_H */
