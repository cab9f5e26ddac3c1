/*
 * catalog_paths.h: the catalog tile call of each vector path (catalog_entry.h), for
 * catalog_dispatch.c's dispatch (apo__cpu_catalog_tile_on). The avx2 and avx512 ones exist where
 * the build has those paths (APO_HAVE_LANES_AVX2, APO_HAVE_LANES_AVX512, kernels/meson.build) and
 * may be called only when the CPU supports them (cpu_isa.h).
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

/* A stream's one-bar pieces of kernel id for n series of one stream side by side
 * (apo__cpu_catalog_resume_lanes; stoch_stream_lanes.h, rsi_stream_lanes.h,
 * cci_stream_lanes.h, mfi_stream_lanes.h, atr_stream_lanes.h, dmi_stream_lanes.h,
 * ema_stream_lanes.h), with the bits of each series' own run. */
void apo__catalog_resume_lanes_sse2(apo__cat_id id, const apo__cat_io *io, const size_t *begins,
                                    const size_t *ends, apo__cat_run *const *runs, size_t n);
void apo__catalog_resume_lanes_avx2(apo__cat_id id, const apo__cat_io *io, const size_t *begins,
                                    const size_t *ends, apo__cat_run *const *runs, size_t n);
void apo__catalog_resume_lanes_avx512(apo__cat_id id, const apo__cat_io *io, const size_t *begins,
                                      const size_t *ends, apo__cat_run *const *runs, size_t n);

/* Whether kernel id's tiles of a row run as rounds of lanes (catalog_lanes.h) and a lone tile
 * is cut into pieces (catalog_split.h): the WILDER trait's kernels, and dx, plus_dm, minus_dm,
 * rma, zlema, efi and the EMA chains dema, tema, trix, t3 and tsi, which take dmi_lanes.h's,
 * dm_lanes.h's and their own tile headers' rounds without the trait.
 * The trait would also give them tiles of five warm-ups (apo__catalog_tile_len) where they
 * have sixteen halos, and a tile after a row's first has bits of its own grid, so that would
 * move bits. */
static inline int apo__catalog_laned(apo__cat_id id) {
    return apo__catalog_wilder(id) || id == APO_CAT_DX || id == APO_CAT_PLUS_DM ||
           id == APO_CAT_MINUS_DM || id == APO_CAT_RMA || id == APO_CAT_ZLEMA ||
           id == APO_CAT_EFI || id == APO_CAT_DEMA || id == APO_CAT_TEMA || id == APO_CAT_TRIX ||
           id == APO_CAT_T3 || id == APO_CAT_TSI;
}

/* Whether kernel id's tiles of a row run as rounds of lanes: the laned kernels' edge rounds, and
 * adxr's, cvi's, massi's and adosc's rounds of their own. A kernel that gains a round of its
 * own takes a branch in catalog_entry.h's apo__catalog_tiles and a name here, which the rule of
 * rows of few tiles (Intel, Zen 4) reads (apo__catalog_round_path_on, catalog_dispatch.c). */
static inline int apo__catalog_rounds(apo__cat_id id) {
    return apo__catalog_laned(id) || id == APO_CAT_ADXR || id == APO_CAT_CVI ||
           id == APO_CAT_MASSI || id == APO_CAT_ADOSC;
}

/* A lone tile of a kernel apo__catalog_cuts() takes, cut into pieces in the path's lanes where that
 * pays (catalog_split.h), with the bits of the call above: the pieces computed again serially, or
 * (size_t)-1 when the tile was not cut. */
size_t apo__catalog_cut_sse2(apo__cat_id id, const apo__cat_io *io, size_t begin, size_t end);
size_t apo__catalog_cut_avx2(apo__cat_id id, const apo__cat_io *io, size_t begin, size_t end);
size_t apo__catalog_cut_avx512(apo__cat_id id, const apo__cat_io *io, size_t begin, size_t end);

#endif /* APO_KERNELS_CATALOG_PATHS_H */
