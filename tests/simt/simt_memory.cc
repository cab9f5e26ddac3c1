/*
 * simt_memory.cc: the stream-ordered allocations of the SIMT layer alone (docs/simt.md), where
 * a launch runs to its end before it returns: the memory is the host's, and a free in stream
 * order is a free at once (and a copy, or a host function, runs at once). The simulated CUDA
 * runtime has its own, ordered on its streams (tests/simt/gpus/sim_runtime.cc).
 */
#include <cstdlib>
#include <cstring>

#include "cuda_runtime_api.h"

cudaError_t cudaMallocAsync(void **ptr, size_t size, cudaStream_t stream) {
    (void)stream;
    if (ptr == nullptr) {
        return cudaErrorInvalidValue;
    }
    *ptr = std::malloc(size > 0 ? size : 1);
    return *ptr != nullptr ? cudaSuccess : cudaErrorMemoryAllocation;
}

cudaError_t cudaFreeAsync(void *ptr, cudaStream_t stream) {
    (void)stream;
    std::free(ptr);
    return cudaSuccess;
}

/* A copy into memory from cudaMallocAsync (the host's here), at once: nothing runs later. */
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                            cudaStream_t stream) {
    (void)kind, (void)stream;
    if (count > 0 && (dst == nullptr || src == nullptr)) {
        return cudaErrorInvalidValue;
    }
    std::memcpy(dst, src, count);
    return cudaSuccess;
}

/* Everything before it on the stream has run: the function runs at once. */
cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *user_data) {
    (void)stream;
    if (fn == nullptr) {
        return cudaErrorInvalidValue;
    }
    fn(user_data);
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
    (void)stream;
    return cudaSuccess;
}
