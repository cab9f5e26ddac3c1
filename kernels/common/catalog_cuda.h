/*
 * catalog_cuda.h: the CUDA launchers of the catalog's families (kernels/<room>/<room>.cu),
 * one per row of APO_CATALOG_ROOMS.
 *
 * Plain C, no CUDA header (as kernels_cuda.h). Each launcher runs kernel `id` of its family
 * on one chunk view (kernels_cuda.h): one GPU thread per (row, tile), each running the
 * tile body the CPU runs (catalog.h) on its tile's bounds, or per position or per block between
 * anchors for the kernels whose bits allow it (catalog_launch.h). `base` holds the chunk's input
 * and output pointers biased for absolute indexing at row 0 (apo__cuda_chunk), the
 * parameters and the host's halo; the thread adds its row's offset. Returns the CUDA error
 * of the launch (0: launched).
 */
#ifndef APO_KERNELS_CATALOG_CUDA_H
#define APO_KERNELS_CATALOG_CUDA_H

#include "catalog.h"
#include "kernels_cuda.h"

#ifdef __cplusplus
extern "C" {
#endif

/* apo__cuda_<room> for every room of APO_CATALOG_ROOMS (catalog_table.h). */
#define APO__CAT_LAUNCHER(room, ID)                                                                \
    int apo__cuda_##room(int id, const apo__cuda_view *v, const apo__cat_io *base, void *stream);
APO_CATALOG_ROOMS(APO__CAT_LAUNCHER)
#undef APO__CAT_LAUNCHER

#ifdef __cplusplus
}
#endif

#endif /* APO_KERNELS_CATALOG_CUDA_H */
