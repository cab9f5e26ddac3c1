/*
 * Cutting a GPU chunk (a contiguous run of tiles, which may start and end inside rows) into
 * at most three row-uniform views for the built-in launchers: the rest of the first row,
 * the whole rows in between, the start of the last row. Pure C, so it is built and tested
 * without CUDA.
 */
#ifndef APO_RUNTIME_CATALOG_CUDA_VIEWS_H
#define APO_RUNTIME_CATALOG_CUDA_VIEWS_H

#include "catalog/kernel.h"
#include "kernels_cuda.h"

/* Writes the views of `chunk` into views[0..2] and returns how many (1 to 3). Every tile of
 * [chunk->first, chunk->end) is in exactly one view, in tile order. */
size_t apo__cuda_views(const apo__call *call, const apo__cuda_chunk *chunk,
                       apo__cuda_view views[3]);

#endif
