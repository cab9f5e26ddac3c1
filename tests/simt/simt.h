/*
 * simt.h: the SIMT layer, which runs CUDA device code on the host (docs/cuda.md, "Device code
 * on the host"). A .cu file goes through tests/simt/simt_cu.py (which lowers the launch
 * syntax and the dynamic shared memory declaration) and is then compiled by the host C++
 * compiler with this header first, unchanged otherwise.
 *
 * What: every CUDA thread of a block is a host thread of its own (tests/simt/simt.cc), with
 * threadIdx, blockIdx, blockDim and gridDim thread-local. __syncthreads and __syncwarp are
 * real barriers among the host threads of the block or the warp; the warp intrinsics
 * (__shfl_sync, __ballot_sync, __any_sync, __all_sync) exchange values through such
 * barriers. Shared memory (__shared__ statics and the launch's dynamic shared memory) is
 * poisoned with a signalling-NaN pattern before each block. The launch limits of an sm_90
 * device are enforced, and the async copies of cuda_pipeline_primitives.h land at random
 * either when they are issued or when they are waited for.
 *
 * The device code is compiled with __CUDACC__ and __CUDA_ARCH__ (900) defined, so the code
 * paths the GPU takes are the ones that run here, not the host emulation's.
 */
#ifndef APO_SIMT_H
#define APO_SIMT_H

#ifndef __cplusplus
#error "simt.h is for the host C++ compiler"
#endif

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include "cuda_runtime_api.h"
#include "simt_api.h"

/* The staged kernels count their passes of each path here (kernels/cuda/stage.h; a no-op
 * on the GPU), which simt_stats reports. */
#define APO_STAGE_NOTE_PASS(fast) simt_note_staged_pass((fast) ? 1 : 0)

#define __CUDACC__ 1
#define __CUDA_ARCH__ 900
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
/* One static per declaration: a block's threads share it, and blocks run one after another.
 * The section lets the layer find and poison every one of them before each block. */
#define __shared__ static __attribute__((section("simt_shared"), aligned(16)))

/* ---- the CUDA runtime types the kernels' host code uses ------------------------------ */

struct uint3 {
    unsigned x, y, z;
};

struct dim3 {
    unsigned x, y, z;
    constexpr dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1) : x(vx), y(vy), z(vz) {}
};

/* The stream and event handles, the error values and the C calls are the simulated
 * runtime's header, shared with the backend's C sources so that both name the same types. */
cudaError_t simt_func_set_attribute(const void *func, cudaFuncAttribute attr, int value);
template <class F> cudaError_t cudaFuncSetAttribute(F *func, cudaFuncAttribute attr, int value) {
    return simt_func_set_attribute(reinterpret_cast<const void *>(func), attr, value);
}

/* ---- what a thread sees --------------------------------------------------------------- */

extern thread_local uint3 threadIdx;
extern thread_local uint3 blockIdx;
extern thread_local dim3 blockDim;
extern thread_local dim3 gridDim;
static constexpr int warpSize = 32;

void __syncthreads(void);
void __syncwarp(unsigned mask = 0xffffffffu);
unsigned __ballot_sync(unsigned mask, int predicate);
int __any_sync(unsigned mask, int predicate);
int __all_sync(unsigned mask, int predicate);

namespace simt {

/* The value of each lane of the warp, after a barrier among them: out[lane] = *value of that
 * lane (8 bytes at most), then a second barrier so that the slots can be reused. */
void warp_exchange(unsigned mask, const void *value, size_t size, int src_lane, void *out);

/* The running block's dynamic shared memory (simt_cu.py names it with a #define). */
void *dynamic_shared(void);

/* Registered by the code simt_cu.py appends: `bytes` of static shared memory in `kernel`. */
struct static_shared {
    static_shared(const void *kernel, size_t bytes);
};

} // namespace simt

template <class T> T __shfl_sync(unsigned mask, T var, int src_lane, int width = warpSize) {
    static_assert(sizeof(T) <= 8 && std::is_trivially_copyable<T>::value,
                  "__shfl_sync of a value of up to 8 bytes");
    const int base = (int)(threadIdx.x % 32u) / width * width;
    T out;
    simt::warp_exchange(mask, &var, sizeof var, base + src_lane % width, &out);
    return out;
}

/* ---- atomics (the device's, on host memory) -------------------------------------------- */

template <class T> T atomicAdd(T *p, T v) {
    if constexpr (std::is_floating_point<T>::value) {
        T old = __atomic_load_n(p, __ATOMIC_RELAXED);
        while (!__atomic_compare_exchange_n(p, &old, old + v, true, __ATOMIC_RELAXED,
                                            __ATOMIC_RELAXED)) {
        }
        return old;
    } else {
        return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
    }
}
template <class T> T atomicExch(T *p, T v) { return __atomic_exchange_n(p, v, __ATOMIC_RELAXED); }
template <class T> T atomicCAS(T *p, T expected, T desired) {
    __atomic_compare_exchange_n(p, &expected, desired, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    return expected;
}
template <class T> T atomicMax(T *p, T v) {
    T old = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (old < v &&
           !__atomic_compare_exchange_n(p, &old, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
    return old;
}
template <class T> T atomicMin(T *p, T v) {
    T old = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (v < old &&
           !__atomic_compare_exchange_n(p, &old, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
    return old;
}

/* ---- launches ---------------------------------------------------------------------------- */

namespace simt {

struct launch_shape {
    const void *kernel;
    dim3 grid, block;
    size_t dynamic_shared;
    cudaStream_t stream;
};

/* Checks the shape against an sm_90 device's limits; on success runs body(ctx) on every
 * thread of every block (blocks one after another, the threads of a block at once) and
 * returns cudaSuccess. The result also becomes the calling thread's last error. */
cudaError_t run(const launch_shape &shape, void (*body)(void *), void *ctx);

/* The shape check of run() alone: cudaSuccess, or the error (also the calling thread's last
 * error) that the launch returns at once. */
cudaError_t check(const launch_shape &shape);

/* Where a launch goes: by default run() at once on the calling thread; the simulated
 * runtime (tests/simt/gpus/sim_runtime.cc) installs a submitter that checks the shape, then
 * queues the run on the launch's stream. Either calls destroy(ctx) once it is done with it. */
typedef cudaError_t (*submitter)(const launch_shape &shape, void (*body)(void *), void *ctx,
                                 void (*destroy)(void *));
void set_submitter(submitter s);
cudaError_t submit(const launch_shape &shape, void (*body)(void *), void *ctx,
                   void (*destroy)(void *));

/* The calling thread's last error (what cudaGetLastError returns next), for the runtime's
 * calls that fail. */
void set_last_error(cudaError_t e);

/* `kernel<<<grid, block, shared, stream>>>(args)` as simt_cu.py writes it:
 * simt::launch(kernel, grid, block, shared, stream)(args). The arguments are converted to
 * the kernel's parameter types once, as the launch copies them (into a context of the
 * launch's own, since a queued launch runs after the caller's frame is gone), and every
 * thread calls the kernel with its own copy. */
template <class... P> class launcher {
  public:
    launcher(void (*kernel)(P...), const launch_shape &shape) : kernel_(kernel), shape_(shape) {}
    template <class... A> void operator()(A &&...args) const {
        static_assert(sizeof...(A) == sizeof...(P), "a launch passes every kernel parameter");
        struct context {
            void (*kernel)(P...);
            std::tuple<typename std::decay<P>::type...> params;
        };
        context *ctx = new context{
            kernel_, std::tuple<typename std::decay<P>::type...>(std::forward<A>(args)...)};
        submit(
            shape_,
            [](void *c) {
                const context *x = static_cast<const context *>(c);
                std::tuple<typename std::decay<P>::type...> mine = x->params;
                std::apply(x->kernel, mine);
            },
            ctx, [](void *c) { delete static_cast<context *>(c); });
    }

  private:
    void (*kernel_)(P...);
    launch_shape shape_;
};

template <class... P>
launcher<P...> launch(void (*kernel)(P...), dim3 grid, dim3 block, size_t dynamic_shared = 0,
                      cudaStream_t stream = nullptr) {
    return launcher<P...>(kernel, launch_shape{reinterpret_cast<const void *>(kernel), grid, block,
                                               dynamic_shared, stream});
}

} // namespace simt

#endif /* APO_SIMT_H */
