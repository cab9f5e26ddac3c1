/*
 * What the CUDA device (cuda_device.c) shares with core/ (the calls of apportion_cuda.h and
 * distribute.c): early staging, synchronous copies and uploads. A GPU's ordinal, errors,
 * current device and resident output segments are cuda_gpu.h. Only built with the backend.
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

#endif
