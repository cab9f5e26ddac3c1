/*
 * The CUDA backend's stand-in for builds without it (-Dcuda=disabled, or no nvcc at build
 * time): discovery finds no GPU and says why, so the runtime carries on with the CPU (docs/cuda.md
 * "Devices"), and the interop calls of apportion_cuda.h exist and fail cleanly.
 */
#include <stdio.h>

#include "apportion_cuda.h"
#include "base/error.h"
#include "devices/cuda/cuda_discovery.h"
#include "devices/device.h"

size_t apo__cuda_discover(apo__device *devs, size_t max, const apo__cuda_options *opts,
                          apo__warnings *w, apo__no_gpu_cause *cause, char *reason,
                          size_t reason_size) {
    (void)devs, (void)max, (void)opts, (void)w;
    *cause = APO_NO_GPU_NO_BACKEND;
    snprintf(reason, reason_size,
             "this build of apportion has no CUDA backend (built without CUDA support), so "
             "no GPU can be used");
    return 0;
}

/* No GPU exists in such a build, so every device can run every kernel. */
int apo__device_can_run(const apo__device *dev, const apo__kernel *kernel) {
    (void)dev, (void)kernel;
    return 1;
}

static apo_status no_backend(const char *what) {
    return apo__fail(APO_ERR_NO_DEVICE, "%s: this build of apportion has no CUDA backend", what);
}

apo_status apo_distribute_workload_cuda(apo_runtime *rt, const apo_workload *w,
                                        const apo_cuda_placement *where, apo_report *report) {
    (void)rt, (void)w, (void)where, (void)report;
    return no_backend("apo_distribute_workload_cuda");
}

apo_status apo_cuda_malloc(apo_runtime *rt, size_t device, size_t bytes, void **ptr) {
    (void)rt, (void)device, (void)bytes;
    if (ptr != NULL)
        *ptr = NULL;
    return no_backend("apo_cuda_malloc");
}

apo_status apo_cuda_free(apo_runtime *rt, size_t device, void *ptr) {
    (void)rt, (void)device;
    if (ptr == NULL)
        return APO_OK;
    return no_backend("apo_cuda_free");
}

apo_status apo_cuda_memcpy(apo_runtime *rt, size_t device, void *dst, const void *src, size_t bytes,
                           apo_copy_kind kind) {
    (void)rt, (void)device, (void)dst, (void)src, (void)bytes, (void)kind;
    return no_backend("apo_cuda_memcpy");
}

apo_status apo_cuda_pointer_device(apo_runtime *rt, const void *ptr, size_t *device) {
    (void)rt, (void)ptr, (void)device;
    return no_backend("apo_cuda_pointer_device");
}

apo_status apo_cuda_device_ordinal(apo_runtime *rt, size_t device, int *ordinal) {
    (void)rt, (void)device;
    if (ordinal != NULL)
        *ordinal = -1;
    return no_backend("apo_cuda_device_ordinal");
}

apo_status apo_cuda_bandwidth_measure(apo_runtime *rt, size_t device, size_t bytes,
                                      apo_cuda_bandwidth *out) {
    (void)rt, (void)device, (void)bytes, (void)out;
    return no_backend("apo_cuda_bandwidth_measure");
}

apo_status apo_cuda_host_register(apo_runtime *rt, void *ptr, size_t bytes) {
    (void)rt, (void)ptr, (void)bytes;
    return no_backend("apo_cuda_host_register");
}

apo_status apo_cuda_host_unregister(apo_runtime *rt, void *ptr) {
    (void)rt, (void)ptr;
    return no_backend("apo_cuda_host_unregister");
}

apo_status apo_cuda_host_acquire(apo_runtime *rt, size_t bytes, void **ptr, int *pinned) {
    (void)rt, (void)bytes;
    if (ptr != NULL)
        *ptr = NULL;
    if (pinned != NULL)
        *pinned = 0;
    return no_backend("apo_cuda_host_acquire");
}

/* No block was ever acquired in such a build: only NULL is a pointer to release. */
apo_status apo_cuda_host_release(void *ptr) {
    if (ptr == NULL)
        return APO_OK;
    return no_backend("apo_cuda_host_release");
}

apo_status apo_cuda_host_pool_query(apo_runtime *rt, apo_cuda_host_pool_info *out) {
    (void)rt, (void)out;
    return no_backend("apo_cuda_host_pool_query");
}

apo_status apo_cuda_host_pool_limit(apo_runtime *rt, size_t bytes) {
    (void)rt, (void)bytes;
    return no_backend("apo_cuda_host_pool_limit");
}
