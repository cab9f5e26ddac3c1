/*
 * What the CUDA backend's files (cuda_device.c, cuda_pipeline.c, gather.c) and core/ (the
 * calls of apportion_cuda.h and distribute.c) call on one GPU without CUDA's headers: its
 * ordinal, CUDA errors, the calling thread's current device, and the output segments it
 * keeps for the gather (cuda_gpu.c; its calls on CUDA's types are in cuda_state.h). Only
 * built with the backend.
 */
#ifndef APO_RUNTIME_DEVICES_CUDA_CUDA_GPU_H
#define APO_RUNTIME_DEVICES_CUDA_CUDA_GPU_H

#include <stddef.h>

#include "devices/device.h"

/* The CUDA ordinal of a GPU device (cudaSetDevice's number), or -1 for another kind. */
int apo__cuda_ordinal(const apo__device *dev);

/* Records CUDA's error for `what` as this thread's last error and returns
 * APO_ERR_DEVICE_LOST (APO_ERR_OUT_OF_MEMORY for an allocation failure). `err` is a
 * cudaError_t. */
apo_status apo__cuda_fail(int err, const char *what);

/* Makes GPU `ordinal` the calling thread's current device and returns the device to put
 * back with apo__cuda_leave_device() (-1: none was current). `*err` receives the
 * cudaError_t of the switch. */
int apo__cuda_enter_device(int ordinal, int *err);
void apo__cuda_leave_device(int previous);

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

#endif
