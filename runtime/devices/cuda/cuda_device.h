/*
 * What the CUDA device (cuda_device.c) shares with the multi-GPU gather (gather.c) and with
 * core/ (the calls of apportion_cuda.h and distribute.c): a GPU's CUDA ordinal, errors,
 * synchronous uploads, resident output segments. Only built with the backend.
 */
#ifndef APO_RUNTIME_DEVICES_CUDA_CUDA_DEVICE_H
#define APO_RUNTIME_DEVICES_CUDA_CUDA_DEVICE_H

#include <stddef.h>

#include "devices/device.h"

/* Starts pinning the GPU's staging slots now, on a thread of their own, rather than at its
 * first task (docs/cuda.md, "Staging slots sized to the need"): for a process that will use the GPU
 * and has work of its own to overlap the pinning with (the CLI reads its input meanwhile). Does
 * nothing for another kind of device, or when the staging has started already. */
void apo__cuda_stage_early(apo__device *dev);

/* Holds the GPU's staging back (`hold` non-zero) or lets it go on, around a call that gives
 * it nothing (apo__cuda_hold_staging; docs/cuda.md, "Staging slots sized to the need"). Does
 * nothing for another kind of device. */
void apo__cuda_hold_idle_staging(apo__device *dev, int hold);

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

typedef enum apo__copy_direction {
    APO_COPY_TO_DEVICE = 0,
    APO_COPY_TO_HOST = 1,
    APO_COPY_ON_DEVICE = 2
} apo__copy_direction;

/* Copies `bytes` on the GPU of CUDA ordinal `ordinal`, ordered after the work of its legacy
 * default stream (as cudaMemcpy is), and returns once they have landed. Returns APO_OK or
 * the apo__cuda_fail() status, naming `what`. */
apo_status apo__cuda_copy(int ordinal, void *dst, const void *src, size_t bytes,
                          apo__copy_direction direction, const char *what);

/* apo__cuda_copy() of `bytes` from host memory to `dst` on the GPU `ordinal` (finalized
 * values of a reduction). */
apo_status apo__cuda_upload(int ordinal, void *dst, const void *src, size_t bytes);

/* ---- what the multi-GPU gather (gather.h) moves ------------------------------------- */

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
