/*
 * What the CUDA backend's files call on one GPU: CUDA errors, its ordinal, the calling
 * thread's current device, its streams and their drain after a failure, and the output
 * segments it keeps for the multi-GPU gather. The device (cuda_device.c), the pipeline
 * (cuda_pipeline.c) and the gather (gather.c) call it, and it calls none of them.
 *
 * Every function that switches the calling thread's current GPU puts it back before it
 * returns (apo__cuda_enter_device, apo__cuda_leave_device): apportion_cuda.h promises that
 * no call changes the caller's current device.
 */
#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "devices/cuda/cuda_gpu.h"
#include "devices/cuda/cuda_state.h"
#include "devices/device.h"

/* ---- errors ----------------------------------------------------------------------------- */

apo_status apo__cuda_fail(int err, const char *what) {
    cudaError_t e = (cudaError_t)err;
    apo_status st = e == cudaErrorMemoryAllocation ? APO_ERR_OUT_OF_MEMORY : APO_ERR_DEVICE_LOST;
    return apo__fail(st, "%s: CUDA error %s (%s)", what, cudaGetErrorName(e),
                     cudaGetErrorString(e));
}

int apo__cuda_check(cudaError_t e, const apo__device *dev, const char *what) {
    if (e == cudaSuccess)
        return 1;
    apo__log(APO_LOG_WARN, APO_SUBSYS_DEVICE, "%s: %s failed: %s (%s)", dev->info.id, what,
             cudaGetErrorName(e), cudaGetErrorString(e));
    return 0;
}

int apo__cuda_ordinal(const apo__device *dev) {
    if (dev->info.kind != APO_DEVICE_CUDA)
        return -1;
    return ((const apo__cuda_state *)dev->state)->ordinal;
}

double *apo__cuda_biased(double *base, size_t lo) {
    return (double *)((uintptr_t)base - lo * sizeof(double));
}

/* ---- the current device ------------------------------------------------------------------ */

int apo__cuda_enter_device(int ordinal, int *err) {
    int previous = -1;
    (void)cudaGetDevice(&previous);
    *err = (int)cudaSetDevice(ordinal);
    return previous;
}

void apo__cuda_leave_device(int previous) {
    if (previous >= 0)
        (void)cudaSetDevice(previous);
}

/* ---- waiting ------------------------------------------------------------------------------ */

cudaError_t apo__cuda_wait_stream(cudaStream_t stream, cudaEvent_t blocking_event) {
    cudaError_t e = cudaEventRecord(blocking_event, stream);
    return e == cudaSuccess ? cudaEventSynchronize(blocking_event) : e;
}

void apo__cuda_streams(const apo__cuda_state *st, cudaStream_t out[APO_CUDA_STREAMS]) {
    out[0] = st->h2d;
    out[1] = st->d2h;
    for (int i = 0; i < APO_CUDA_SLOTS; i++)
        out[2 + i] = st->slots[i].compute;
}

void apo__cuda_drain(apo__cuda_state *st) {
    cudaStream_t streams[APO_CUDA_STREAMS];
    apo__cuda_streams(st, streams);
    for (int i = 0; i < APO_CUDA_STREAMS; i++)
        if (streams[i] != NULL && st->drain[i] != NULL)
            (void)apo__cuda_wait_stream(streams[i], st->drain[i]);
    (void)cudaGetLastError();
}

/* ---- segments ------------------------------------------------------------------------------ */

size_t apo__cuda_segments(const apo__device *dev, const apo__gpu_segment **segments) {
    if (dev->info.kind != APO_DEVICE_CUDA || dev->state == NULL) {
        *segments = NULL;
        return 0;
    }
    const apo__cuda_state *st = dev->state;
    *segments = st->segments;
    return st->n_segments;
}

void apo__cuda_release_segments(apo__device *dev) {
    if (dev->info.kind != APO_DEVICE_CUDA || dev->state == NULL)
        return;
    apo__cuda_state *st = dev->state;
    if (st->n_segments > 0) {
        int e;
        const int previous = apo__cuda_enter_device(st->ordinal, &e);
        if (e == cudaSuccess)
            for (size_t i = 0; i < st->n_segments; i++)
                cudaFree(st->segments[i].buf);
        apo__cuda_leave_device(previous);
    }
    (void)cudaGetLastError();
    st->n_segments = 0;
}

int apo__cuda_open_segment(apo__device *dev, apo__cuda_state *st, const apo__call *call, size_t lo,
                           size_t hi) {
    const size_t n_out = call->kernel->cuda->n_outputs, len = hi - lo;
    if (st->n_segments == st->segments_cap) {
        size_t cap = st->segments_cap == 0 ? 4 : 2 * st->segments_cap;
        apo__gpu_segment *grown = realloc(st->segments, cap * sizeof *grown);
        if (grown == NULL)
            return 0;
        st->segments = grown;
        st->segments_cap = cap;
    }
    double *buf = NULL;
    if (n_out == 0 || len == 0 || len > SIZE_MAX / sizeof(double) / n_out ||
        cudaMalloc((void **)&buf, n_out * len * sizeof(double)) != cudaSuccess) {
        (void)cudaGetLastError();
        apo__log(APO_LOG_INFO, APO_SUBSYS_DEVICE,
                 "%s: no room to keep %zu outputs for the gather; peer copies instead",
                 dev->info.id, n_out * len);
        return 0;
    }
    st->segments[st->n_segments] = (apo__gpu_segment){buf, lo, hi};
    for (size_t o = 0; o < n_out; o++)
        st->task_out[o] = apo__cuda_biased(buf + o * len, lo);
    return 1;
}

void apo__cuda_close_segment(apo__cuda_state *st, int ok) {
    if (st->task_out[0] == NULL)
        return;
    if (ok)
        st->n_segments++;
    else
        cudaFree(st->segments[st->n_segments].buf);
    memset(st->task_out, 0, sizeof st->task_out);
}
