/*
 * cut.h: the cut launch of the catalog's recurrences with a warm-up (cut.cu; docs/cuda.md, "Lone
 * tiles cut into pieces"), which the runtime tries before the family's launcher
 * (runtime/catalog/catalog_kernels.c). Plain C, no CUDA header (as kernels_cuda.h).
 */
#ifndef APO_KERNELS_CUDA_CUT_H
#define APO_KERNELS_CUDA_CUT_H

#include <stddef.h>

#include "catalog.h"
#include "kernels_cuda.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What apo__cuda_catalog_cut answers where it launches nothing. */
#define APO_CUDA_NOT_CUT (-2)

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

#ifdef __cplusplus
}
#endif

#endif /* APO_KERNELS_CUDA_CUT_H */
