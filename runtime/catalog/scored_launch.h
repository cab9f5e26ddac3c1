/* The scored kernels' CUDA launch (scored_launch.c), for scored_kernels.c's apo__cuda_impl. */
#ifndef APO_RUNTIME_CATALOG_SCORED_LAUNCH_H
#define APO_RUNTIME_CATALOG_SCORED_LAUNCH_H

#include "catalog/kernel.h"

/* What the launch returns for a call it cannot take (cudaErrorInvalidValue's number: this
 * file includes no CUDA header). */
#define APO_SCORED_CUDA_INVALID 1

/* Enqueues the scores of the chunk's series on `stream` (a cudaStream_t): a call of one set of
 * a built-in rule. Returns the CUDA error of the launch (0: launched). */
int apo__scored_cuda_launch(const apo__call *call, const apo__cuda_chunk *chunk, void *stream);

#endif
