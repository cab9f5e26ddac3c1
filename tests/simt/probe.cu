/*
 * probe.cu: small kernels of the SIMT layer's own tests (tests/simt/test_cuda_simt.c), which check
 * the layer itself: that every thread of every block runs once with its indices, the launch
 * limits, the warp intrinsics, the block barrier and the async copies, and the faults the
 * layer reports. Compiled like the project's kernels, through simt_cu.py.
 */
#include <cuda_pipeline_primitives.h>
#include <cuda_runtime.h>

#include <stdint.h>

extern __shared__ double probe_dynamic[];

/* out[global thread] += its linear index within the block + 1000 * its block's. */
static __global__ void probe_indices_kernel(unsigned *out) {
    const unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    const unsigned b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    const unsigned per_block = blockDim.x * blockDim.y * blockDim.z;
    atomicAdd(&out[b * per_block + t], t + 1000u * b);
}

/* Touches the last byte of its dynamic shared memory. */
static __global__ void probe_dynamic_kernel(size_t bytes, unsigned char *out) {
    unsigned char *s = reinterpret_cast<unsigned char *>(probe_dynamic);
    if (threadIdx.x == 0 && bytes > 0) {
        s[bytes - 1] = 7;
        *out = s[bytes - 1];
    }
}

/* 40000 bytes of static shared memory, plus what the launch gives. */
static __global__ void probe_static_kernel(double *out) {
    __shared__ double big[5000];
    big[threadIdx.x] = 1.0;
    __syncthreads();
    out[threadIdx.x] = big[threadIdx.x];
}

/* Lane l: the value of lane (l + 1) % 32 (rotate), the ballot of lanes divisible by 3, any
 * lane above 30, and all lanes below 32. */
static __global__ void probe_warp_kernel(int *out) {
    const unsigned t = threadIdx.x;
    const unsigned lane = t % 32u;
    const double mine = 0.5 * (double)t;
    const double next = __shfl_sync(0xffffffffu, mine, (int)((lane + 1) % 32u));
    const unsigned ballot = __ballot_sync(0xffffffffu, lane % 3u == 0);
    out[4 * t] = (int)(2.0 * next);
    out[4 * t + 1] = (int)ballot;
    out[4 * t + 2] = __any_sync(0xffffffffu, lane > 30u);
    out[4 * t + 3] = __all_sync(0xffffffffu, lane < 32u);
}

/* Thread t writes slot t of a static shared array, the block syncs, and t reads slot
 * (t + 1) % n: the first __syncthreads of the block is what makes the read see the write. */
static __global__ void probe_barrier_kernel(double *out) {
    __shared__ double slot[1024];
    const unsigned n = blockDim.x;
    slot[threadIdx.x] = (double)threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = slot[(threadIdx.x + 1) % n];
}

/* Each thread copies src[t] into the dynamic shared memory asynchronously, waits, the warp
 * syncs, and t reads the copy of lane (t + 1) % 32 of its warp. */
static __global__ void probe_copy_kernel(const double *src, double *out) {
    const unsigned t = threadIdx.x;
    __pipeline_memcpy_async(&probe_dynamic[t], &src[t], sizeof(double));
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncwarp();
    out[t] = probe_dynamic[t / 32u * 32u + (t + 1) % 32u];
}

/* Lane 5 leaves; the others wait for it at a warp barrier (a fault on the GPU too). */
static __global__ void probe_exit_kernel(int *out) {
    if (threadIdx.x % 32u == 5) {
        return;
    }
    __syncwarp();
    out[threadIdx.x] = 1;
}

/* An async copy from a misaligned source. */
static __global__ void probe_bad_copy_kernel(const double *src) {
    __pipeline_memcpy_async(&probe_dynamic[threadIdx.x], reinterpret_cast<const char *>(src) + 4,
                            sizeof(double));
    __pipeline_commit();
    __pipeline_wait_prior(0);
}

extern "C" int probe_indices(unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                             unsigned bz, unsigned *out) {
    probe_indices_kernel<<<dim3(gx, gy, gz), dim3(bx, by, bz)>>>(out);
    return (int)cudaGetLastError();
}

extern "C" int probe_dynamic_shared(size_t bytes, int opt_in, unsigned char *out) {
    if (opt_in >= 0) {
        const cudaError_t rc = cudaFuncSetAttribute(
            probe_dynamic_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, opt_in);
        if (rc != cudaSuccess) {
            return (int)rc;
        }
    }
    probe_dynamic_kernel<<<1, 32, bytes>>>(bytes, out);
    return (int)cudaGetLastError();
}

extern "C" int probe_static_shared(size_t dynamic_bytes, double *out) {
    probe_static_kernel<<<1, 64, dynamic_bytes>>>(out);
    return (int)cudaGetLastError();
}

extern "C" int probe_warp(unsigned threads, int *out) {
    probe_warp_kernel<<<1, threads>>>(out);
    return (int)cudaGetLastError();
}

extern "C" int probe_barrier(unsigned threads, double *out) {
    probe_barrier_kernel<<<2, threads>>>(out);
    return (int)cudaGetLastError();
}

extern "C" int probe_copy(unsigned threads, const double *src, double *out) {
    probe_copy_kernel<<<1, threads, threads * sizeof(double)>>>(src, out);
    return (int)cudaGetLastError();
}

extern "C" int probe_exit(int *out) {
    probe_exit_kernel<<<1, 64>>>(out);
    return (int)cudaGetLastError();
}

extern "C" int probe_bad_copy(const double *src) {
    probe_bad_copy_kernel<<<1, 32, 32 * sizeof(double)>>>(src);
    return (int)cudaGetLastError();
}
