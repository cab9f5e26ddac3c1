/*
 * What the CUDA backend (backend_cuda.c) shares with the interop calls (cuda_interop.c),
 * the multi-GPU gather (cuda_gather.c) and distribute.c: a GPU's CUDA ordinal, errors,
 * synchronous uploads, resident output segments. Only built with the backend.
 */
#ifndef APO_RUNTIME_CUDA_BACKEND_H
#define APO_RUNTIME_CUDA_BACKEND_H

#include <stddef.h>

#include "devices/device.h"

/* The CUDA ordinal of a GPU device (cudaSetDevice's number), or -1 for another kind. */
int apo__cuda_ordinal(const apo__device *dev);

/* Records CUDA's error for `what` as this thread's last error and returns
 * APO_ERR_DEVICE_LOST (APO_ERR_OUT_OF_MEMORY for an allocation failure). `err` is a
 * cudaError_t. */
apo_status apo__cuda_fail(int err, const char *what);

/* Synchronous copy of `bytes` from host memory to `dst` on the GPU of CUDA ordinal
 * `ordinal`. Returns APO_OK or the apo__cuda_fail() status. */
apo_status apo__cuda_upload(int ordinal, void *dst, const void *src, size_t bytes);

/* ---- multi-GPU gather (cuda_gather.c) ----------------------------------------------- */

/* Outputs a GPU computed for another GPU and keeps resident until the gather: tiles whose
 * outputs are the element range [lo, hi) of every GPU-written output array; output o is at
 * buf + o * (hi - lo) on the GPU that computed them. */
typedef struct apo__gpu_segment {
    double *buf;
    size_t lo, hi;
} apo__gpu_segment;

/* The segments `dev` holds for the current call (none for a device that is not a GPU). */
size_t apo__cuda_segments(const apo__device *dev, const apo__gpu_segment **segments);

/* Frees them. */
void apo__cuda_release_segments(apo__device *dev);

/* Whether the call's GPUs other than out_gpu keep their outputs resident for one grouped
 * NCCL gather after the phase (call->gather_resident): outputs on a GPU, NCCL wanted and
 * loadable, two GPUs or more, and NCCL not turned off by an earlier failure. */
int apo__gather_resident(apo_runtime *rt, int out_gpu);

/* Moves every GPU's segments to the call's out_gpu (NCCL, else peer copies), frees them,
 * and says which path ran (APO_GATHER_NONE when there was nothing to move). */
apo_status apo__gather_finish(apo_runtime *rt, const apo__call *call, apo_gather *path);

/* Frees every GPU's segments without moving them (a call that failed). */
void apo__gather_discard(apo_runtime *rt);

/* Releases the communicators and streams at the runtime's end. */
void apo__gather_close(apo_runtime *rt);

#endif
