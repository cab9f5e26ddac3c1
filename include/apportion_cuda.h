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

/* Where a workload's arrays live: host memory (-1) or the memory of one GPU; and what the
 * call must come after. */
typedef struct apo_cuda_placement {
    size_t size;        /* sizeof(apo_cuda_placement); set by APO_CUDA_PLACEMENT_INIT */
    int inputs_device;  /* -1: the inputs are host arrays; else the device index of the GPU
                           whose memory holds every input array */
    int outputs_device; /* -1: host outputs; else the GPU that holds every output array */
    void *stream;       /* a cudaStream_t of the caller (NULL: none). The call comes after
                           everything enqueued on it before the call: it records an event on
                           it and every GPU of the call waits for that event before it reads
                           the inputs or writes the outputs. It may be a stream of any GPU
                           (built with a CUDA older than 12.8: of the GPU of inputs_device, or
                           of outputs_device when the inputs are host arrays), or
                           cudaStreamLegacy / cudaStreamPerThread of the calling thread. */
    void *wait_event;   /* a cudaEvent_t of the caller (NULL: none), recorded by the caller
                           on any GPU: the call's GPUs also wait for it first */
} apo_cuda_placement;

#define APO_CUDA_PLACEMENT_INIT                                                                    \
    {                                                                                              \
        .size = sizeof(apo_cuda_placement), .inputs_device = -1, .outputs_device = -1,             \
        .stream = NULL, .wait_event = NULL                                                         \
    }

/*
 * apo_distribute_workload() with device-resident arrays: w->inputs and w->outputs are
 * device pointers on the GPUs that `where` names, so chained GPU work skips the host. Only
 * the runtime's GPUs take part in such a call (the cpu and sim devices get no share); a GPU
 * other than the one holding the data receives its input slices and returns its outputs by
 * peer copies (cudaMemcpyPeerAsync), chunk by chunk. Reductions merge their tile partials
 * on the host in the fixed tree and write the finalized values to the destination. The bits
 * are those of apo_distribute_workload() on host arrays. Such a call does not refine the
 * balancing models.
 *
 * Ordering: the call's GPU work comes after `where->stream` and `where->wait_event` when
 * given; when neither is, after the work of the legacy default stream (and so of every
 * blocking stream) of the GPUs holding the arrays, as a cudaMemcpy would. The call returns
 * once all its work is complete on every GPU: whatever the caller enqueues afterwards, on
 * any stream, sees the outputs. It enqueues nothing on `stream` beyond the event it records.
 *
 * `where` NULL, or both device fields -1 (the ordering fields are then unused), is
 * apo_distribute_workload().
 * Returns the errors of apo_distribute_workload(), and APO_ERR_INVALID_ARGUMENT for a device
 * index that is not a GPU of this runtime, APO_ERR_DEVICE_LOST when the event cannot be
 * recorded or waited for (apo_last_error() has CUDA's message), APO_ERR_NO_DEVICE without
 * the CUDA backend. */
APO_EXPORT apo_status apo_distribute_workload_cuda(apo_runtime *rt, const apo_workload *w,
                                                   const apo_cuda_placement *where,
                                                   apo_report *report);

/* Device memory on GPU `device`, for callers that have no CUDA runtime of their own (tests,
 * benches, other languages). apo_cuda_free accepts NULL.
 * Returns APO_ERR_NULL, APO_ERR_INVALID_ARGUMENT (not a GPU), APO_ERR_OUT_OF_MEMORY,
 * APO_ERR_DEVICE_LOST (the CUDA call failed; apo_last_error() has CUDA's message). */
APO_EXPORT apo_status apo_cuda_malloc(apo_runtime *rt, size_t device, size_t bytes, void **ptr);
APO_EXPORT apo_status apo_cuda_free(apo_runtime *rt, size_t device, void *ptr);

/* Which GPU of the runtime holds device memory `ptr` (from cudaMalloc, cudaMallocAsync or a
 * memory pool, or managed memory: the GPU it was allocated on), as cudaPointerGetAttributes()
 * says: *device is its index in the runtime's device order, what apo_cuda_placement takes.
 * For arrays handed over by another library (CuPy, PyTorch, numba: the Python binding's
 * device arrays, docs/python.md) whose GPU is not otherwise known.
 * Returns APO_ERR_NULL, APO_ERR_NO_DEVICE (the runtime has no GPU, or no CUDA backend),
 * APO_ERR_NOT_FOUND (host memory, an address CUDA does not know, or memory of a GPU the
 * runtime does not use), APO_ERR_DEVICE_LOST (the CUDA call failed; apo_last_error() says
 * why). */
APO_EXPORT apo_status apo_cuda_pointer_device(apo_runtime *rt, const void *ptr, size_t *device);

/* The CUDA device ordinal (what cudaSetDevice() and DLPack's device_id take) of runtime
 * device `device`, which must be a GPU.
 * Returns APO_ERR_NULL, APO_ERR_INVALID_ARGUMENT (not a GPU of this runtime),
 * APO_ERR_NO_DEVICE without the CUDA backend. */
APO_EXPORT apo_status apo_cuda_device_ordinal(apo_runtime *rt, size_t device, int *ordinal);

typedef enum apo_copy_kind {
    APO_COPY_HOST_TO_DEVICE = 0,
    APO_COPY_DEVICE_TO_HOST = 1,
    APO_COPY_DEVICE_TO_DEVICE = 2
} apo_copy_kind;

/* Copy of `bytes` bytes on GPU `device`, ordered after the work of its legacy default
 * stream (as cudaMemcpy is); it returns once the bytes have landed, whatever the kind and
 * whether host memory is pinned or pageable. Same errors as apo_cuda_malloc. */
APO_EXPORT apo_status apo_cuda_memcpy(apo_runtime *rt, size_t device, void *dst, const void *src,
                                      size_t bytes, apo_copy_kind kind);

/*
 * Pins host memory for the runtime's GPUs (cudaHostRegister, portable to every GPU), so that
 * apo_distribute_workload() copies the GPUs' slices straight between [ptr, ptr + bytes) and
 * GPU memory instead of through pinned staging buffers (docs/cuda.md, "Host-resident
 * calls"). Memory the caller pinned itself (cudaMallocHost, cudaHostAlloc, its own
 * cudaHostRegister) needs no call: it is recognised as pinned. Pinning costs about as much
 * as copying the bytes once, so it pays for arrays used in several calls.
 *
 * The runtime keeps a table of what it pinned: registering the same range again is a no-op.
 * apo_cuda_host_unregister() releases one range; apo_runtime_destroy() releases the rest.
 * Both wait for any call in progress (the call lock), and no copy into or out of the range
 * is still in flight after a call has returned, so releasing cannot cut a copy short. Memory
 * must stay allocated while it is registered: release it before freeing it. CUDA pins whole
 * pages, so a range sharing a page with one pinned already may be refused.
 * Returns APO_ERR_NULL, APO_ERR_INVALID_ARGUMENT (bytes 0, or a range overlapping one pinned
 * already), APO_ERR_NO_DEVICE (no GPU in the runtime, or no CUDA backend),
 * APO_ERR_OUT_OF_MEMORY or APO_ERR_DEVICE_LOST (CUDA refused; apo_last_error() says why).
 * apo_cuda_host_unregister returns APO_ERR_NOT_FOUND for a pointer it did not register.
 */
APO_EXPORT apo_status apo_cuda_host_register(apo_runtime *rt, void *ptr, size_t bytes);
APO_EXPORT apo_status apo_cuda_host_unregister(apo_runtime *rt, void *ptr);

/*
 * Host memory from the runtime's pool of pinned blocks (docs/host-pool.md): for output
 * arrays that the caller allocates only to hand to apo_distribute_workload(), which the GPUs
 * then write straight into instead of through staging copies. A block released goes back to
 * the pool and serves a later request of up to its size (down to half of it), so the cost of
 * pinning is paid once, not each call. The pool holds at most a bound of pinned bytes (in use
 * and idle; a quarter of the host's memory unless apo_cuda_host_pool_limit() says otherwise);
 * a request beyond it, or one CUDA cannot pin, gets plain memory, with no error: the caller's
 * bits are the same either way, *pinned (when not NULL) says which it got.
 *
 * *ptr is 64-byte aligned and holds `bytes` bytes, uninitialised. Release it with
 * apo_cuda_host_release() exactly once, never free(). Thread-safe: any thread may acquire or
 * release at any time, also while a call runs, but not while apo_runtime_destroy() runs. A
 * block may outlive its runtime: apo_runtime_destroy() frees the idle blocks, and one
 * released later is freed then (the runtime never resets a GPU, so pinned memory stays valid
 * after it).
 * Returns APO_ERR_NULL, APO_ERR_INVALID_ARGUMENT (bytes 0), APO_ERR_NO_DEVICE (no GPU in the
 * runtime, or no CUDA backend: then there is nothing to pin for), APO_ERR_OUT_OF_MEMORY (not
 * even plain memory). apo_cuda_host_release accepts NULL, and returns
 * APO_ERR_INVALID_ARGUMENT for a pointer that is no block of apo_cuda_host_acquire() or one
 * released already while its pool holds it (what a check of the block can see; freed plain
 * memory it cannot). */
APO_EXPORT apo_status apo_cuda_host_acquire(apo_runtime *rt, size_t bytes, void **ptr, int *pinned);
APO_EXPORT apo_status apo_cuda_host_release(void *ptr);

/* What the pool of pinned host blocks holds, and what it did since the runtime was created. */
typedef struct apo_cuda_host_pool_info {
    size_t size;          /* sizeof(apo_cuda_host_pool_info); set by APO_CUDA_HOST_POOL_INFO_INIT */
    size_t limit_bytes;   /* the bound on pinned bytes */
    size_t pinned_bytes;  /* pinned bytes held: blocks in use and idle (each with 64 bytes of its
                             own) */
    size_t idle_bytes;    /* of those, the idle blocks' */
    size_t blocks_in_use; /* pinned blocks acquired and not yet released */
    size_t blocks_idle;   /* pinned blocks kept for reuse */
    uint64_t reused;      /* requests served by an idle block */
    uint64_t pinned_new;  /* requests that pinned a new block */
    uint64_t plain;       /* requests given plain memory: over the bound, or pinning failed */
} apo_cuda_host_pool_info;

#define APO_CUDA_HOST_POOL_INFO_INIT                                                               \
    { .size = sizeof(apo_cuda_host_pool_info) }

/* Fills *out. Returns APO_ERR_NULL, APO_ERR_INVALID_ARGUMENT (out->size not this version's),
 * APO_ERR_OUT_OF_MEMORY (no pool: out of memory when the runtime was created), APO_ERR_NO_DEVICE
 * (no GPU in the runtime, or no CUDA backend). */
APO_EXPORT apo_status apo_cuda_host_pool_query(apo_runtime *rt, apo_cuda_host_pool_info *out);
/* Sets the bound on pinned bytes (0: pin nothing more, every request gets plain memory). Idle
 * blocks beyond the new bound are freed now; blocks in use stay, and are freed at their
 * release while the pool is above the bound. Errors as apo_cuda_host_pool_query. */
APO_EXPORT apo_status apo_cuda_host_pool_limit(apo_runtime *rt, size_t bytes);

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
