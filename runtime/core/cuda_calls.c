/*
 * The calls of apportion_cuda.h: workloads on device-resident arrays (with their ordering
 * after the caller's work), device memory and copies for callers without a CUDA runtime of
 * their own, host memory pinned for the GPUs, and bandwidth measurements (the ceilings that
 * apo-bench-kernels and selftest quote).
 */
#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <string.h>

#include "apportion_cuda.h"
#include "balance/model.h"
#include "base/clock.h"
#include "base/error.h"
#include "catalog/reentry_guard.h"
#include "core/runtime.h"
#include "devices/cuda/cuda_device.h"
#include "devices/cuda/cuda_gpu.h"

/* The CUDA ordinal of runtime device `device`, which must be a GPU. */
static apo_status gpu_ordinal(const apo_runtime *rt, size_t device, const char *what, int *out) {
    if (device >= rt->n_devices || rt->devices[device].info.kind != APO_DEVICE_CUDA)
        return apo__fail(APO_ERR_INVALID_ARGUMENT, "%s: device %zu is not a GPU of this runtime",
                         what, device);
    *out = apo__cuda_ordinal(&rt->devices[device]);
    return APO_OK;
}

/* Makes runtime device `device`, which must be a GPU, the thread's current device for one
 * interop call; *previous is what apo__cuda_leave_device() restores. */
static apo_status enter_gpu(const apo_runtime *rt, size_t device, const char *what, int *previous) {
    int ordinal = -1;
    apo_status st = gpu_ordinal(rt, device, what, &ordinal);
    if (st != APO_OK)
        return st;
    int e;
    *previous = apo__cuda_enter_device(ordinal, &e);
    if (e == cudaSuccess)
        return APO_OK;
    apo__cuda_leave_device(*previous);
    return apo__cuda_fail(e, what);
}

/* ---- ordering a device-resident call after the caller's work -------------------------------- */

/* The events a device-resident call's GPU work waits for (apo__call_ctx.wait_events,
 * catalog/call_context.h); those the call created itself are destroyed after it. */
typedef struct call_order {
    void *events[3];
    int owned[3];
    size_t n;
} call_order;

/* Records a new event on `stream` of GPU `ordinal` and adds it to the call's. */
static apo_status record_on(call_order *o, int ordinal, cudaStream_t stream, const char *what) {
    int e;
    const int previous = apo__cuda_enter_device(ordinal, &e);
    cudaEvent_t ev = NULL;
    if (e == cudaSuccess)
        e = (int)cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
    if (e == cudaSuccess)
        e = (int)cudaEventRecord(ev, stream);
    if (e != cudaSuccess && ev != NULL)
        (void)cudaEventDestroy(ev);
    apo__cuda_leave_device(previous);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return apo__cuda_fail(e, what);
    }
    o->events[o->n] = ev;
    o->owned[o->n] = 1;
    o->n++;
    return APO_OK;
}

/* What the call comes after: the caller's stream and event when given; otherwise the legacy
 * default stream of each GPU that holds the call's arrays, which every blocking stream of
 * that GPU synchronises with (the order a cudaMemcpy would have). */
static apo_status order_after(const apo_cuda_placement *where, int in_gpu, int out_gpu,
                              call_order *o) {
    const int home = in_gpu >= 0 ? in_gpu : out_gpu;
    if (where->stream != NULL) {
        cudaStream_t stream = (cudaStream_t)where->stream;
        int ordinal = home;
#if CUDART_VERSION >= 12080
        /* The stream may belong to any GPU: its event is recorded there. The special
         * handles name the current device's streams: the home GPU's. */
        if (stream != cudaStreamLegacy && stream != cudaStreamPerThread) {
            cudaError_t e = cudaStreamGetDevice(stream, &ordinal);
            if (e != cudaSuccess) {
                (void)cudaGetLastError();
                return apo__cuda_fail(e, "apo_cuda_placement.stream: finding its GPU");
            }
        }
#endif
        APO_CHECK(record_on(o, ordinal, stream, "recording an event on apo_cuda_placement.stream"));
    }
    if (where->wait_event != NULL) {
        o->events[o->n] = where->wait_event;
        o->owned[o->n] = 0;
        o->n++;
    }
    if (where->stream != NULL || where->wait_event != NULL)
        return APO_OK;
    if (in_gpu >= 0)
        APO_CHECK(record_on(o, in_gpu, cudaStreamLegacy,
                            "recording an event on the default stream of the inputs' GPU"));
    if (out_gpu >= 0 && out_gpu != in_gpu)
        APO_CHECK(record_on(o, out_gpu, cudaStreamLegacy,
                            "recording an event on the default stream of the outputs' GPU"));
    return APO_OK;
}

/* Destroys the events the call created (a pending event is released once it completes). */
static void release_order(call_order *o) {
    for (size_t i = 0; i < o->n; i++)
        if (o->owned[i])
            (void)cudaEventDestroy((cudaEvent_t)o->events[i]);
    (void)cudaGetLastError();
    o->n = 0;
}

apo_status apo_distribute_workload_cuda(apo_runtime *rt, const apo_workload *w,
                                        const apo_cuda_placement *where, apo_report *report) {
    if (rt == NULL || w == NULL)
        return apo__fail(APO_ERR_NULL, "apo_distribute_workload_cuda: %s is NULL",
                         rt == NULL ? "rt" : "w");
    if (where == NULL)
        return apo__distribute(rt, w, report, 1);
    APO_CHECK_STRUCT_SIZE(where, apo_cuda_placement, APO_CUDA_PLACEMENT_INIT);
    int in_gpu = -1, out_gpu = -1;
    const int sides[2] = {where->inputs_device, where->outputs_device};
    int *ordinals[2] = {&in_gpu, &out_gpu};
    for (int i = 0; i < 2; i++) {
        if (sides[i] == -1)
            continue;
        if (sides[i] < 0)
            return apo__fail(APO_ERR_INVALID_ARGUMENT,
                             "apo_cuda_placement: %s_device is %d: -1 (host) or a device index",
                             i == 0 ? "inputs" : "outputs", sides[i]);
        apo_status st =
            gpu_ordinal(rt, (size_t)sides[i], "apo_distribute_workload_cuda", ordinals[i]);
        if (st != APO_OK)
            return st;
    }
    /* A device-resident call runs on the GPUs alone; what it would teach the models is not
     * what host-resident calls of the same tag cost, so it does not refine them. */
    int learn = in_gpu < 0 && out_gpu < 0;
    if (learn)
        return apo__distribute(rt, w, report, 1);
    call_order order = {{NULL, NULL, NULL}, {0, 0, 0}, 0};
    apo_status st = order_after(where, in_gpu, out_gpu, &order);
    if (st == APO_OK) {
        const apo__placement placed = {in_gpu, out_gpu, order.events, order.n, 0};
        st = apo__distribute_placed(rt, w, &placed, report, 0);
    }
    release_order(&order);
    return st;
}

apo_status apo_cuda_malloc(apo_runtime *rt, size_t device, size_t bytes, void **ptr) {
    if (rt == NULL || ptr == NULL)
        return apo__fail(APO_ERR_NULL, "apo_cuda_malloc: NULL argument");
    *ptr = NULL;
    int previous;
    apo_status st = enter_gpu(rt, device, "apo_cuda_malloc", &previous);
    if (st != APO_OK)
        return st;
    cudaError_t e = cudaMalloc(ptr, bytes);
    apo__cuda_leave_device(previous);
    if (e != cudaSuccess) {
        *ptr = NULL;
        (void)cudaGetLastError();
        return apo__cuda_fail(e, "apo_cuda_malloc");
    }
    return APO_OK;
}

apo_status apo_cuda_free(apo_runtime *rt, size_t device, void *ptr) {
    if (ptr == NULL)
        return APO_OK;
    if (rt == NULL)
        return apo__fail(APO_ERR_NULL, "apo_cuda_free: rt is NULL");
    int previous;
    apo_status st = enter_gpu(rt, device, "apo_cuda_free", &previous);
    if (st != APO_OK)
        return st;
    cudaError_t e = cudaFree(ptr);
    apo__cuda_leave_device(previous);
    return e == cudaSuccess ? APO_OK : apo__cuda_fail(e, "apo_cuda_free");
}

apo_status apo_cuda_memcpy(apo_runtime *rt, size_t device, void *dst, const void *src, size_t bytes,
                           apo_copy_kind kind) {
    if (rt == NULL || ((dst == NULL || src == NULL) && bytes > 0))
        return apo__fail(APO_ERR_NULL, "apo_cuda_memcpy: NULL argument");
    if ((int)kind < 0 || (int)kind > 2)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "apo_cuda_memcpy: kind %d is not an apo_copy_kind", (int)kind);
    int ordinal = -1;
    apo_status st = gpu_ordinal(rt, device, "apo_cuda_memcpy", &ordinal);
    if (st != APO_OK || bytes == 0) /* nothing to copy, but the device must still be a GPU */
        return st;
    static const apo__copy_direction directions[] = {APO_COPY_TO_DEVICE, APO_COPY_TO_HOST,
                                                     APO_COPY_ON_DEVICE};
    return apo__cuda_copy(ordinal, dst, src, bytes, directions[kind], "apo_cuda_memcpy");
}

apo_status apo_cuda_pointer_device(apo_runtime *rt, const void *ptr, size_t *device) {
    if (rt == NULL || ptr == NULL || device == NULL)
        return apo__fail(APO_ERR_NULL, "apo_cuda_pointer_device: NULL argument");
    if (rt->n_gpus == 0)
        return apo__fail(APO_ERR_NO_DEVICE, "apo_cuda_pointer_device: the runtime has no GPU");
    struct cudaPointerAttributes a;
    cudaError_t e = cudaPointerGetAttributes(&a, ptr);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return apo__cuda_fail(e, "apo_cuda_pointer_device");
    }
    if (a.type != cudaMemoryTypeDevice && a.type != cudaMemoryTypeManaged)
        return apo__fail(APO_ERR_NOT_FOUND,
                         "apo_cuda_pointer_device: %p is not device memory (CUDA memory type %d)",
                         ptr, (int)a.type);
    for (size_t i = 0; i < rt->n_devices; i++)
        if (rt->devices[i].info.kind == APO_DEVICE_CUDA &&
            apo__cuda_ordinal(&rt->devices[i]) == a.device) {
            *device = i;
            return APO_OK;
        }
    return apo__fail(APO_ERR_NOT_FOUND,
                     "apo_cuda_pointer_device: %p is memory of CUDA device %d, which this runtime "
                     "does not use",
                     ptr, a.device);
}

apo_status apo_cuda_device_ordinal(apo_runtime *rt, size_t device, int *ordinal) {
    if (rt == NULL || ordinal == NULL)
        return apo__fail(APO_ERR_NULL, "apo_cuda_device_ordinal: NULL argument");
    return gpu_ordinal(rt, device, "apo_cuda_device_ordinal", ordinal);
}

/* ---- host memory pinned for the GPUs ------------------------------------------------------ */

/* Runs a host-memory pin or unpin with the first GPU current (any context will do: the
 * ranges are registered portable, for every GPU). */
static cudaError_t on_first_gpu(const apo_runtime *rt, void *ptr, size_t bytes, int pin) {
    for (size_t i = 0; i < rt->n_devices; i++) {
        if (rt->devices[i].info.kind != APO_DEVICE_CUDA)
            continue;
        int e;
        const int previous = apo__cuda_enter_device(apo__cuda_ordinal(&rt->devices[i]), &e);
        if (e == cudaSuccess)
            e = (int)(pin ? cudaHostRegister(ptr, bytes, cudaHostRegisterPortable)
                          : cudaHostUnregister(ptr));
        apo__cuda_leave_device(previous);
        return (cudaError_t)e;
    }
    return cudaErrorNoDevice;
}

apo_status apo_cuda_host_register(apo_runtime *rt, void *ptr, size_t bytes) {
    if (rt == NULL || ptr == NULL)
        return apo__fail(APO_ERR_NULL, "apo_cuda_host_register: %s is NULL",
                         rt == NULL ? "rt" : "ptr");
    if (bytes == 0)
        return apo__fail(APO_ERR_INVALID_ARGUMENT, "apo_cuda_host_register: bytes is 0");
    if (rt->n_gpus == 0)
        return apo__fail(APO_ERR_NO_DEVICE, "apo_cuda_host_register: the runtime has no GPU");
    if (apo__inside_kernel_of(rt))
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "apo_cuda_host_register: called from inside a kernel of this runtime");
    /* Under the call lock: no call is reading the table, or copying, meanwhile. */
    pthread_mutex_lock(&rt->call_mutex);
    apo_status st = APO_OK;
    const apo__pin_lookup found = apo__pin_find(&rt->pins, ptr, bytes);
    if (found == APO_PIN_OVERLAPS) {
        st = apo__fail(APO_ERR_INVALID_ARGUMENT,
                       "apo_cuda_host_register: [%p, +%zu) overlaps a range registered before", ptr,
                       bytes);
    } else if (found == APO_PIN_ABSENT) {
        cudaError_t e = on_first_gpu(rt, ptr, bytes, 1);
        if (e == cudaErrorHostMemoryAlreadyRegistered) {
            (void)cudaGetLastError();
            st = apo__fail(APO_ERR_INVALID_ARGUMENT,
                           "apo_cuda_host_register: [%p, +%zu) is already pinned (by the "
                           "caller?): it needs no registration",
                           ptr, bytes);
        } else if (e != cudaSuccess) {
            (void)cudaGetLastError();
            st = apo__cuda_fail(e, "apo_cuda_host_register");
        } else if (!apo__pin_add(&rt->pins, ptr, bytes)) {
            (void)on_first_gpu(rt, ptr, bytes, 0);
            st =
                apo__fail(APO_ERR_OUT_OF_MEMORY, "apo_cuda_host_register: no memory for the table");
        }
    }
    pthread_mutex_unlock(&rt->call_mutex);
    return st;
}

apo_status apo_cuda_host_unregister(apo_runtime *rt, void *ptr) {
    if (rt == NULL || ptr == NULL)
        return apo__fail(APO_ERR_NULL, "apo_cuda_host_unregister: %s is NULL",
                         rt == NULL ? "rt" : "ptr");
    if (apo__inside_kernel_of(rt))
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "apo_cuda_host_unregister: called from inside a kernel of this runtime");
    pthread_mutex_lock(&rt->call_mutex);
    apo_status st = APO_OK;
    if (apo__pin_remove(&rt->pins, ptr) == 0) {
        st = apo__fail(APO_ERR_NOT_FOUND,
                       "apo_cuda_host_unregister: %p was not registered with this runtime", ptr);
    } else {
        cudaError_t e = on_first_gpu(rt, ptr, 0, 0);
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            st = apo__cuda_fail(e, "apo_cuda_host_unregister");
        }
    }
    pthread_mutex_unlock(&rt->call_mutex);
    return st;
}

void apo__cuda_release_pins(apo_runtime *rt) {
    for (size_t i = 0; i < rt->pins.n; i++)
        (void)on_first_gpu(rt, rt->pins.pins[i].ptr, 0, 0);
    (void)cudaGetLastError();
    apo__pin_table_free(&rt->pins);
}

/* ---- bandwidth --------------------------------------------------------------------------- */

#define APO_BANDWIDTH_RUNS 7

/* Median seconds of `runs` copies timed by events on `stream`. */
static cudaError_t time_copy(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind,
                             cudaStream_t stream, cudaEvent_t a, cudaEvent_t b, double *median_s) {
    double t[APO_BANDWIDTH_RUNS];
    cudaError_t e = cudaMemcpyAsync(dst, src, bytes, kind, stream); /* warm-up */
    for (int r = 0; r < APO_BANDWIDTH_RUNS && e == cudaSuccess; r++) {
        float ms = 0;
        e = cudaEventRecord(a, stream);
        if (e == cudaSuccess)
            e = cudaMemcpyAsync(dst, src, bytes, kind, stream);
        if (e == cudaSuccess)
            e = cudaEventRecord(b, stream);
        if (e == cudaSuccess)
            e = cudaEventSynchronize(b);
        if (e == cudaSuccess)
            e = cudaEventElapsedTime(&ms, a, b);
        t[r] = ms * 1e-3;
    }
    if (e == cudaSuccess)
        *median_s = apo__median(t, APO_BANDWIDTH_RUNS);
    return e;
}

/* Median seconds of `runs` host-to-device and device-to-host copies run at once. */
static cudaError_t time_duplex(void *d_in, const void *h_in, void *h_out, const void *d_out,
                               size_t bytes, cudaStream_t s1, cudaStream_t s2, double *median_s) {
    double t[APO_BANDWIDTH_RUNS];
    cudaError_t e = cudaSuccess;
    for (int r = 0; r < APO_BANDWIDTH_RUNS && e == cudaSuccess; r++) {
        double t0 = apo__now();
        e = cudaMemcpyAsync(d_in, h_in, bytes, cudaMemcpyHostToDevice, s1);
        if (e == cudaSuccess)
            e = cudaMemcpyAsync(h_out, d_out, bytes, cudaMemcpyDeviceToHost, s2);
        if (e == cudaSuccess)
            e = cudaStreamSynchronize(s1);
        if (e == cudaSuccess)
            e = cudaStreamSynchronize(s2);
        t[r] = apo__now() - t0;
    }
    if (e == cudaSuccess)
        *median_s = apo__median(t, APO_BANDWIDTH_RUNS);
    return e;
}

/* apo_cuda_bandwidth_measure() on the current GPU. */
static apo_status measure(size_t bytes, apo_cuda_bandwidth *out) {
    size_t free_b = 0, total_b = 0;
    cudaError_t e = cudaMemGetInfo(&free_b, &total_b);
    if (e != cudaSuccess)
        return apo__cuda_fail(e, "apo_cuda_bandwidth_measure");
    if (bytes == 0)
        bytes = (size_t)256 << 20;
    if (bytes > free_b / 4)
        bytes = free_b / 4;
    if (bytes < 4096)
        return apo__fail(APO_ERR_OUT_OF_MEMORY, "apo_cuda_bandwidth_measure: no free GPU memory");

    void *d1 = NULL, *d2 = NULL, *h1 = NULL, *h2 = NULL;
    cudaStream_t s1 = NULL, s2 = NULL;
    cudaEvent_t a = NULL, b = NULL;
    e = cudaMalloc(&d1, bytes);
    if (e == cudaSuccess)
        e = cudaMalloc(&d2, bytes);
    if (e == cudaSuccess)
        e = cudaMallocHost(&h1, bytes);
    if (e == cudaSuccess)
        e = cudaMallocHost(&h2, bytes);
    if (e == cudaSuccess)
        e = cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
    if (e == cudaSuccess)
        e = cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
    if (e == cudaSuccess)
        e = cudaEventCreate(&a);
    if (e == cudaSuccess)
        e = cudaEventCreate(&b);
    double d2d = 0, h2d = 0, d2h = 0, duplex = 0;
    if (e == cudaSuccess) {
        memset(h1, 1, bytes);
        memset(h2, 2, bytes);
        e = cudaMemset(d1, 0, bytes);
    }
    if (e == cudaSuccess)
        e = time_copy(d2, d1, bytes, cudaMemcpyDeviceToDevice, s1, a, b, &d2d);
    if (e == cudaSuccess)
        e = time_copy(d1, h1, bytes, cudaMemcpyHostToDevice, s1, a, b, &h2d);
    if (e == cudaSuccess)
        e = time_copy(h2, d2, bytes, cudaMemcpyDeviceToHost, s1, a, b, &d2h);
    if (e == cudaSuccess)
        e = time_duplex(d1, h1, h2, d2, bytes, s1, s2, &duplex);
    if (e == cudaSuccess) {
        out->bytes = bytes;
        out->d2d_gbps = 2.0 * (double)bytes / d2d * 1e-9; /* read plus written */
        out->h2d_gbps = (double)bytes / h2d * 1e-9;
        out->d2h_gbps = (double)bytes / d2h * 1e-9;
        out->duplex_gbps = 2.0 * (double)bytes / duplex * 1e-9;
    }
    cudaError_t first = e;
    (void)cudaGetLastError();
    if (a != NULL)
        cudaEventDestroy(a);
    if (b != NULL)
        cudaEventDestroy(b);
    if (s1 != NULL)
        cudaStreamDestroy(s1);
    if (s2 != NULL)
        cudaStreamDestroy(s2);
    cudaFree(d1);
    cudaFree(d2);
    cudaFreeHost(h1);
    cudaFreeHost(h2);
    return first == cudaSuccess ? APO_OK : apo__cuda_fail(first, "apo_cuda_bandwidth_measure");
}

apo_status apo_cuda_bandwidth_measure(apo_runtime *rt, size_t device, size_t bytes,
                                      apo_cuda_bandwidth *out) {
    if (rt == NULL || out == NULL)
        return apo__fail(APO_ERR_NULL, "apo_cuda_bandwidth_measure: NULL argument");
    APO_CHECK_STRUCT_SIZE(out, apo_cuda_bandwidth, APO_CUDA_BANDWIDTH_INIT);
    int previous;
    apo_status st = enter_gpu(rt, device, "apo_cuda_bandwidth_measure", &previous);
    if (st != APO_OK)
        return st;
    st = measure(bytes, out);
    apo__cuda_leave_device(previous);
    return st;
}
