/*
 * The CUDA device: discovery of the machine's NVIDIA GPUs, opening and closing them, and
 * the copies behind the interop calls. The staging pipeline that runs a task is
 * cuda_pipeline.c; the state both use is cuda_state.h, and what both call on a GPU (errors,
 * the current device, streams, the segments kept for the gather) is cuda_gpu.c, so the calls
 * go one way: this file to the pipeline, both to cuda_gpu.c. docs/cuda.md describes the
 * whole backend.
 *
 * Every function that switches the calling thread's current GPU puts it back before it
 * returns (apo__cuda_enter_device, apo__cuda_leave_device): apportion_cuda.h promises that
 * no call changes the caller's current device, and discovery, closing and the gather run on
 * the caller's thread.
 */
#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/env.h"
#include "base/log.h"
#include "devices/cuda/cuda_device.h"
#include "devices/cuda/cuda_discovery.h"
#include "devices/cuda/cuda_gpu.h"
#include "devices/cuda/cuda_state.h"
#include "devices/device.h"
#include "kernels_cuda.h"

/* ---- what a device can run ---------------------------------------------------------------- */

int apo__device_can_run(const apo__device *dev, const apo__kernel *kernel) {
    if (dev->info.kind != APO_DEVICE_CUDA)
        return 1;
    return kernel->cuda != NULL && kernel->cuda->launch != NULL;
}

/* ---- closing -------------------------------------------------------------------------------- */

/* One task per share: the pipeline inside it keeps the GPU busy, and a GPU that fails
 * mid-task has its whole share redone elsewhere. */
static uint64_t cuda_task_count(const apo__device *dev, uint64_t tiles) {
    (void)dev, (void)tiles;
    return 1;
}

static void cuda_close(apo__device *dev) {
    apo__cuda_state *st = dev->state;
    if (st == NULL)
        return;
    apo__cuda_stop_staging(st);
    int e;
    const int previous = apo__cuda_enter_device(st->ordinal, &e);
    if (e == cudaSuccess) {
        apo__cuda_drain(st);
        apo__cuda_free_staging(st);
        apo__cuda_release_segments(dev);
        for (int i = 0; i < APO_CUDA_SLOTS; i++)
            for (int k = 0; k < APO_EV_COUNT; k++)
                if (st->slots[i].ev[k] != NULL)
                    cudaEventDestroy(st->slots[i].ev[k]);
        for (int i = 0; i < APO_CUDA_STREAMS; i++)
            if (st->drain[i] != NULL)
                cudaEventDestroy(st->drain[i]);
        if (st->ref != NULL)
            cudaEventDestroy(st->ref);
        cudaStream_t streams[APO_CUDA_STREAMS];
        apo__cuda_streams(st, streams);
        for (int i = 0; i < APO_CUDA_STREAMS; i++)
            if (streams[i] != NULL)
                cudaStreamDestroy(streams[i]);
    }
    apo__cuda_leave_device(previous);
    (void)cudaGetLastError();
    free(st->segments);
    free(st->intervals);
    free(st);
    dev->state = NULL;
}

void apo__cuda_stage_early(apo__device *dev) {
    if (dev->info.kind == APO_DEVICE_CUDA && dev->state != NULL)
        apo__cuda_start_staging(dev->state, dev->info.id);
}

void apo__cuda_hold_idle_staging(apo__device *dev, int hold) {
    if (dev->info.kind == APO_DEVICE_CUDA && dev->state != NULL)
        apo__cuda_hold_staging(dev->state, hold ? 1 : -1);
}

/* A GPU takes a sweep's consecutive sets as one task whatever their passes: their inputs go
 * over once, and a scored kernel scores them in one launch (cuda_pipeline.c, scored.cu). */
static const apo__backend_ops cuda_ops = {apo__cuda_run, cuda_task_count, cuda_close,
                                          APO_RUNS_SHARED_SETS};

/* ---- discovery ---------------------------------------------------------------------------- */

/* Why cudaGetDeviceCount failed, in words a user can act on; the cause is whether a driver
 * answered at all. */
static apo__no_gpu_cause describe_no_gpu(cudaError_t e, char *reason, size_t size) {
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    (void)cudaGetLastError();
    if (driver == 0) {
        snprintf(reason, size,
                 "no NVIDIA driver is installed or loadable (libcuda.so.1 not found; CUDA says "
                 "%s: %s)",
                 cudaGetErrorName(e), cudaGetErrorString(e));
        return APO_NO_GPU_NO_DRIVER;
    }
    if (e == cudaErrorInsufficientDriver)
        snprintf(reason, size,
                 "the NVIDIA driver supports CUDA %d.%d, but this build needs CUDA %d.%d: "
                 "update the driver",
                 driver / 1000, driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10);
    else if (e == cudaErrorNoDevice)
        snprintf(reason, size, "the NVIDIA driver sees no GPU%s",
                 apo__env_is_set("CUDA_VISIBLE_DEVICES") ? " (CUDA_VISIBLE_DEVICES "
                                                           "hides them all?)"
                                                         : "");
    else
        snprintf(reason, size, "CUDA cannot count the GPUs: %s (%s)", cudaGetErrorName(e),
                 cudaGetErrorString(e));
    return APO_NO_GPU_UNUSABLE;
}

typedef struct found_gpu {
    int ordinal;
    struct cudaDeviceProp prop;
    size_t free_bytes, total_bytes;
} found_gpu;

static int by_pci_id(const void *a, const void *b) {
    const struct cudaDeviceProp *x = &((const found_gpu *)a)->prop;
    const struct cudaDeviceProp *y = &((const found_gpu *)b)->prop;
    if (x->pciDomainID != y->pciDomainID)
        return x->pciDomainID < y->pciDomainID ? -1 : 1;
    if (x->pciBusID != y->pciBusID)
        return x->pciBusID < y->pciBusID ? -1 : 1;
    return x->pciDeviceID < y->pciDeviceID ? -1 : x->pciDeviceID > y->pciDeviceID;
}

/* The GPU's first calls: properties, a context, its memory. A GPU failing here is left out. */
static int probe_gpu(int ordinal, found_gpu *g, apo__warnings *w) {
    cudaError_t e = cudaGetDeviceProperties(&g->prop, ordinal);
    if (e == cudaSuccess)
        e = cudaSetDevice(ordinal);
    if (e == cudaSuccess)
        e = cudaFree(NULL); /* creates the context: the first call that can really fail */
    if (e == cudaSuccess)
        e = cudaMemGetInfo(&g->free_bytes, &g->total_bytes);
    if (e != cudaSuccess) {
        apo__warn(w, "GPU %d is not usable (left out): its first CUDA calls failed with %s (%s)",
                  ordinal, cudaGetErrorName(e), cudaGetErrorString(e));
        (void)cudaGetLastError();
        return 0;
    }
    g->ordinal = ordinal;
    return 1;
}

/* The streams and events a GPU needs for its tasks, on the current device. */
static cudaError_t create_streams(apo__cuda_state *st) {
    cudaStream_t *streams[APO_CUDA_STREAMS] = {&st->h2d, &st->d2h};
    for (int i = 0; i < APO_CUDA_SLOTS; i++)
        streams[2 + i] = &st->slots[i].compute;
    cudaError_t e = cudaSuccess;
    for (int i = 0; i < APO_CUDA_STREAMS && e == cudaSuccess; i++)
        e = cudaStreamCreateWithFlags(streams[i], cudaStreamNonBlocking);
    for (int i = 0; i < APO_CUDA_STREAMS && e == cudaSuccess; i++)
        e = cudaEventCreateWithFlags(&st->drain[i], cudaEventBlockingSync | cudaEventDisableTiming);
    /* The origin of the intervals: timed, and waited for by spinning, briefly, so that the
     * host clock read after the wait is close to when the GPU passed it. */
    if (e == cudaSuccess)
        e = cudaEventCreate(&st->ref);
    for (int i = 0; i < APO_CUDA_SLOTS && e == cudaSuccess; i++)
        for (int k = 0; k < APO_EV_COUNT && e == cudaSuccess; k++)
            e = cudaEventCreateWithFlags(&st->slots[i].ev[k], k == APO_EV_D2H_END
                                                                  ? cudaEventBlockingSync
                                                                  : cudaEventDefault);
    return e;
}

/* Creates the GPU's streams and events and fills its description. */
static int open_gpu(apo__device *dev, const found_gpu *g, size_t index,
                    const apo__cuda_options *opts, apo__warnings *w) {
    apo__cuda_state *st = calloc(1, sizeof *st);
    if (st == NULL)
        return 0;
    if (!apo__cuda_staging_init(st)) {
        free(st);
        apo__warn(w, "GPU %d is not usable (left out): cannot create its staging lock", g->ordinal);
        return 0;
    }
    st->ordinal = g->ordinal;
    size_t budget_mb = opts->memory_mb;
    if (budget_mb == 0) {
        budget_mb = g->free_bytes / 2 >> 20;
        if (budget_mb > APO_CUDA_DEFAULT_BUDGET_MAX_MB)
            budget_mb = APO_CUDA_DEFAULT_BUDGET_MAX_MB;
    }
    st->budget_bytes = budget_mb << 20;
    dev->state = st;
    dev->ops = &cuda_ops;
    cudaError_t e = cudaSetDevice(g->ordinal);
    if (e == cudaSuccess)
        e = create_streams(st);
    if (e != cudaSuccess) {
        apo__warn(w, "GPU %d is not usable (left out): cannot create its streams: %s", g->ordinal,
                  cudaGetErrorString(e));
        cuda_close(dev);
        return 0;
    }

    apo_device_info *info = &dev->info;
    const unsigned char *u = (const unsigned char *)g->prop.uuid.bytes;
    info->kind = APO_DEVICE_CUDA;
    /* The runtime sets the host threads once it knows how many GPUs it uses
     * (apo__gpu_host_threads); until then the driver works alone. */
    info->threads = 1;
    snprintf(info->id, sizeof info->id,
             "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
             u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14],
             u[15]);
    /* The name is cut to fit the label (CUDA allows 256 characters; real ones are short). */
    char name[APO_LABEL_MAX - 24];
    snprintf(name, sizeof name, "%s", g->prop.name);
    snprintf(info->label, sizeof info->label, "cuda:%zu %s", index % 10000, name);
    info->memory_total_bytes = g->total_bytes;
    info->memory_free_bytes = g->free_bytes;
    info->compute_capability_major = g->prop.major;
    info->compute_capability_minor = g->prop.minor;
    info->multiprocessors = g->prop.multiProcessorCount;
    info->copy_engines = g->prop.asyncEngineCount;
    snprintf(info->pci_bus_id, sizeof info->pci_bus_id, "%04x:%02x:%02x.0", g->prop.pciDomainID,
             g->prop.pciBusID, g->prop.pciDeviceID);
    /* The UUID names the GPU; the staging budget sets the chunks its copies move, and the
     * compute capability and multiprocessors come with the properties already read. */
    snprintf(info->config, sizeof info->config, "budget_mb=%zu,cc=%d.%d,sms=%d", budget_mb,
             g->prop.major, g->prop.minor, g->prop.multiProcessorCount);
#ifdef APO_SIMULATED_GPUS
    /* A GPU of the simulated CUDA runtime (docs/cuda.md): its times are the host's, not a
     * GPU's, so reports say so and the default profile keeps none of it. */
    dev->simulated = 1;
#endif
    /* The staging slots are allocated from the GPU's first task on, or from the runtime's
     * creation where it asks for them early (apo__cuda_stage_early). */
    return 1;
}

/* The kernel variant of the process (kernels_cuda.h; docs/cuda.md, "Staged kernels"): staged
 * unless APPORTION_CUDA_KERNELS says simple, or split (staged, with bollinger's chains and
 * roots in two warps). All give the same bits; the switch is there to compare them on a GPU. */
static void choose_kernels(const char *wanted, apo__warnings *w) {
    int variant = APO_CUDA_KERNELS_STAGED;
    int split = 0;
    if (wanted != NULL && strcmp(wanted, "simple") == 0) {
        variant = APO_CUDA_KERNELS_SIMPLE;
    } else if (wanted != NULL && strcmp(wanted, "split") == 0) {
        split = 1;
    } else if (wanted != NULL && strcmp(wanted, "staged") != 0) {
        apo__warn(w,
                  "APPORTION_CUDA_KERNELS=%s ignored: the CUDA kernels are staged, simple or "
                  "split; using staged",
                  wanted);
    }
    apo__cuda_kernels_set(variant);
    apo__cuda_bollinger_split_set(split);
}

/* The anchored catalog kernels' grid cap (kernels_cuda.h): APPORTION_CUDA_BLOCKS_PER_SM blocks
 * for each multiprocessor of the largest GPU, so that none runs more of them at once than asked
 * (a smaller GPU may run more). One block an SM by default: on an H200, sma's blocks kernel ran
 * 1.5 times faster so than with the 3 its registers allow, its lanes' lines and stacks no longer
 * evicting each other from L1 (docs/cuda.md, "The anchored kernels"). */
static void set_anchored_grid(const found_gpu *found, size_t n, int blocks_per_sm) {
    int sms = 0;
    for (size_t i = 0; i < n; i++)
        sms = found[i].prop.multiProcessorCount > sms ? found[i].prop.multiProcessorCount : sms;
    apo__cuda_anchored_grid_set(
        blocks_per_sm > 0 && sms > 0 ? (unsigned int)blocks_per_sm * (unsigned int)sms : 0u);
}

size_t apo__cuda_discover(apo__device *devs, size_t max, const apo__cuda_options *opts,
                          apo__warnings *w, apo__no_gpu_cause *cause, char *reason,
                          size_t reason_size) {
    choose_kernels(opts->kernels, w);
    /* Every way out below without a GPU has a driver that answered, save the first. */
    *cause = APO_NO_GPU_UNUSABLE;
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        *cause = describe_no_gpu(e, reason, reason_size);
        return 0;
    }
    if (count <= 0) {
        snprintf(reason, reason_size, "the NVIDIA driver reports no GPU");
        return 0;
    }
    found_gpu *found = calloc((size_t)count, sizeof *found);
    if (found == NULL) {
        snprintf(reason, reason_size, "out of memory while discovering %d GPUs", count);
        return 0;
    }
    /* Probing switches the thread's current GPU: the caller's is put back at the end. */
    int previous = -1;
    (void)cudaGetDevice(&previous);
    size_t n = 0;
    for (int i = 0; i < count; i++)
        n += (size_t)probe_gpu(i, &found[n], w);
    if (opts->pci_order)
        qsort(found, n, sizeof *found, by_pci_id);
    set_anchored_grid(found, n, opts->blocks_per_sm);
    size_t opened = 0;
    for (size_t i = 0; i < n && opened < max; i++)
        opened += (size_t)open_gpu(&devs[opened], &found[i], opened, opts, w);
    free(found);
    apo__cuda_leave_device(previous);
    (void)cudaGetLastError();
    if (opened == 0)
        snprintf(reason, reason_size,
                 "%d GPU%s found, but none passed its first CUDA calls (see the warnings)", count,
                 count == 1 ? "" : "s");
    return opened;
}

/* A copy on the current GPU's legacy default stream, ordered as cudaMemcpy is, that returns
 * only once the bytes have landed: cudaMemcpy itself may return before a copy from pageable
 * host memory, or between device buffers, is complete. The wait sleeps (a blocking event). */
static cudaError_t copy_and_wait(void *dst, const void *src, size_t bytes,
                                 enum cudaMemcpyKind kind) {
    cudaEvent_t done = NULL;
    cudaError_t e = cudaEventCreateWithFlags(&done, cudaEventBlockingSync | cudaEventDisableTiming);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(dst, src, bytes, kind, cudaStreamLegacy);
    if (e == cudaSuccess)
        e = cudaEventRecord(done, cudaStreamLegacy);
    if (e == cudaSuccess)
        e = cudaEventSynchronize(done);
    if (done != NULL)
        (void)cudaEventDestroy(done);
    return e;
}

apo_status apo__cuda_copy(int ordinal, void *dst, const void *src, size_t bytes,
                          apo__copy_direction direction, const char *what) {
    static const enum cudaMemcpyKind kinds[] = {cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost,
                                                cudaMemcpyDeviceToDevice};
    int e;
    int previous = apo__cuda_enter_device(ordinal, &e);
    if (e == cudaSuccess)
        e = (int)copy_and_wait(dst, src, bytes, kinds[direction]);
    apo__cuda_leave_device(previous);
    if (e == cudaSuccess)
        return APO_OK;
    (void)cudaGetLastError();
    return apo__cuda_fail(e, what);
}

apo_status apo__cuda_upload(int ordinal, void *dst, const void *src, size_t bytes) {
    return apo__cuda_copy(ordinal, dst, src, bytes, APO_COPY_TO_DEVICE,
                          "copy of finalized values to the GPU");
}
