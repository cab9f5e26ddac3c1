/*
 * What the CUDA backend (backend_cuda.c) shares with the interop calls (cuda_interop.c)
 * and with distribute.c: a GPU's CUDA ordinal, errors, synchronous uploads. Only built
 * with the backend.
 */
#ifndef APO_RUNTIME_CUDA_BACKEND_H
#define APO_RUNTIME_CUDA_BACKEND_H

#include <stddef.h>

#include "device.h"

/* The CUDA ordinal of a GPU device (cudaSetDevice's number), or -1 for another kind. */
int apo__cuda_ordinal(const apo__device *dev);

/* Records CUDA's error for `what` as this thread's last error and returns
 * APO_ERR_DEVICE_LOST (APO_ERR_OUT_OF_MEMORY for an allocation failure). `err` is a
 * cudaError_t. */
apo_status apo__cuda_fail(int err, const char *what);

/* Synchronous copy of `bytes` from host memory to `dst` on the GPU of CUDA ordinal
 * `ordinal`. Returns APO_OK or the apo__cuda_fail() status. */
apo_status apo__cuda_upload(int ordinal, void *dst, const void *src, size_t bytes);

#endif
