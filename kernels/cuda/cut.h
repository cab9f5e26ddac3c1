/*
 * cut.h: the cut launch of the catalog's recurrences with a warm-up (cut.cu; docs/cuda.md, "Lone
 * tiles cut into pieces"), which the runtime tries before the family's launcher
 * (runtime/catalog/catalog_kernels.c); what it answers where it launches nothing,
 * APO_CUDA_NOT_CUT, is kernels_cuda.h's, beside the built-in macd's cut (staged.cu). Plain C, no
 * CUDA header (as kernels_cuda.h).
 */
#ifndef APO_KERNELS_CUDA_CUT_H
#define APO_KERNELS_CUDA_CUT_H

#include <stddef.h>

#include "catalog.h"
#include "kernels_cuda.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Kernel id (APO_CAT_T_CUT, a RUN stream) on the chunk view v, each tile cut into pieces on
 * threads of their own, with the bits of a thread a tile (the family's launch); `base` as the
 * family launchers take it (catalog_cuda.h). Returns APO_CUDA_NOT_CUT where the kernel has no
 * cut here, the view is empty, even its longest tile's cut does not pay, or the process runs
 * the simple kernels (APPORTION_CUDA_KERNELS=simple; the family's launcher then runs the
 * view), else the CUDA error of the launches (0: launched). `pieces`, where not NULL,
 * receives the pieces launched in [0] and those run again, their head unlike the run before
 * them, in [1]: a copy and a wait, for the tests (the runtime passes NULL). */
int apo__cuda_catalog_cut(int id, const apo__cuda_view *v, const apo__cat_io *base, void *stream,
                          size_t *pieces);

/* A cut launch's stream-ordered scratch on `stream`: *edges, `edge_bytes` for each of items x
 * most (tile, piece) items, and where `counted` *counts, its check's two counts a tile item (its
 * pieces, those run again). 0, or the CUDA error with nothing held (not sticky: the caller then
 * runs its uncut launch). */
int apo__cut_scratch(size_t items, size_t most, size_t edge_bytes, int counted, void *stream,
                     void **edges, size_t **counts);

/* Ends a cut launch whose launches gave `launched` (a CUDA error, 0 for none): where `pieces`
 * is not NULL and they launched, the counts summed into pieces[0] and [1] (a copy and a wait,
 * for the tests); the scratch freed on the stream. Returns the error. */
int apo__cut_finish(int launched, size_t items, void *stream, void *edges, size_t *counts,
                    size_t *pieces);

#ifdef __cplusplus
}
#endif

#endif /* APO_KERNELS_CUDA_CUT_H */
