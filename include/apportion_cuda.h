/*
 * apportion_cuda.h: CUDA interop for apportion (optional; see docs/cuda.md).
 *
 * Plain C11 like apportion.h, and it includes no CUDA header either: device pointers are
 * void * (or double * for workload arrays) and no CUDA type appears, so a program can use
 * it without compiling against the CUDA toolkit. In a build without the CUDA backend every
 * function exists and returns APO_ERR_NO_DEVICE.
 *
 * Devices are named by their index in the runtime's device order (apo_device_get()); the
 * index must be a device of kind APO_DEVICE_CUDA. No call changes the calling thread's
 * current CUDA device (apportion sets it on its own threads and restores it on yours).
 */
#ifndef APPORTION_CUDA_H
#define APPORTION_CUDA_H

#include "apportion.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where a workload's arrays live: host memory (-1) or the memory of one GPU. */
typedef struct apo_cuda_placement {
    size_t size;        /* sizeof(apo_cuda_placement); set by APO_CUDA_PLACEMENT_INIT */
    int inputs_device;  /* -1: the inputs are host arrays; else the device index of the GPU
                           whose memory holds every input array */
    int outputs_device; /* -1: host outputs; else the GPU that holds every output array */
} apo_cuda_placement;

#define APO_CUDA_PLACEMENT_INIT                                                                    \
    { .size = sizeof(apo_cuda_placement), .inputs_device = -1, .outputs_device = -1 }

/*
 * apo_distribute_workload() with device-resident arrays: w->inputs and w->outputs are
 * device pointers on the GPUs that `where` names, so chained GPU work skips the host. Only
 * the runtime's GPUs take part in such a call (the cpu and sim devices get no share); a GPU
 * other than the one holding the data receives its input slices and returns its outputs by
 * peer copies (cudaMemcpyPeerAsync), chunk by chunk. Reductions merge their tile partials
 * on the host in the fixed tree and write the finalized values to the destination. The bits
 * are those of apo_distribute_workload() on host arrays. Such a call does not refine the
 * balancing models.
 * `where` NULL, or both fields -1, is apo_distribute_workload().
 * Returns the errors of apo_distribute_workload(), and APO_ERR_INVALID_ARGUMENT for a device
 * index that is not a GPU of this runtime, APO_ERR_NO_DEVICE without the CUDA backend. */
APO_EXPORT apo_status apo_distribute_workload_cuda(apo_runtime *rt, const apo_workload *w,
                                                   const apo_cuda_placement *where,
                                                   apo_report *report);

/* Device memory on GPU `device`, for callers that have no CUDA runtime of their own (tests,
 * benches, other languages). apo_cuda_free accepts NULL.
 * Returns APO_ERR_NULL, APO_ERR_INVALID_ARGUMENT (not a GPU), APO_ERR_OUT_OF_MEMORY,
 * APO_ERR_DEVICE_LOST (the CUDA call failed; apo_last_error() has CUDA's message). */
APO_EXPORT apo_status apo_cuda_malloc(apo_runtime *rt, size_t device, size_t bytes, void **ptr);
APO_EXPORT apo_status apo_cuda_free(apo_runtime *rt, size_t device, void *ptr);

typedef enum apo_copy_kind {
    APO_COPY_HOST_TO_DEVICE = 0,
    APO_COPY_DEVICE_TO_HOST = 1,
    APO_COPY_DEVICE_TO_DEVICE = 2
} apo_copy_kind;

/* Synchronous copy of `bytes` bytes on GPU `device`. Same errors as apo_cuda_malloc. */
APO_EXPORT apo_status apo_cuda_memcpy(apo_runtime *rt, size_t device, void *dst, const void *src,
                                      size_t bytes, apo_copy_kind kind);

/* Transfer and copy bandwidths of one GPU, measured when called (median of several runs). */
typedef struct apo_cuda_bandwidth {
    size_t size;        /* sizeof(apo_cuda_bandwidth); set by APO_CUDA_BANDWIDTH_INIT */
    size_t bytes;       /* buffer size used */
    double d2d_gbps;    /* device-to-device copy, bytes read plus bytes written, per second */
    double h2d_gbps;    /* pinned host to device */
    double d2h_gbps;    /* device to pinned host */
    double duplex_gbps; /* both directions at once, total bytes moved per second */
} apo_cuda_bandwidth;

#define APO_CUDA_BANDWIDTH_INIT                                                                    \
    { .size = sizeof(apo_cuda_bandwidth) }

/* Measures GPU `device` with buffers of `bytes` bytes (0: 256 MiB, capped by free memory).
 * Same errors as apo_cuda_malloc. */
APO_EXPORT apo_status apo_cuda_bandwidth_measure(apo_runtime *rt, size_t device, size_t bytes,
                                                 apo_cuda_bandwidth *out);

#ifdef __cplusplus
}
#endif

#endif /* APPORTION_CUDA_H */
