/*
 * simt_memory.cc: the stream-ordered allocations of the SIMT layer alone (docs/cuda.md,
 * "Device code on the host"), where a launch runs to its end before it returns: the memory is
 * the host's, and a free in stream order is a free at once. The simulated CUDA runtime has its
 * own, ordered on its streams (tests/simt/gpus/sim_runtime.cc).
 */
#include <cstdlib>

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
