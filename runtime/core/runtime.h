/* The runtime object shared by runtime.c (life cycle, queries) and distribute.c. */
#ifndef APO_RUNTIME_CORE_RUNTIME_H
#define APO_RUNTIME_CORE_RUNTIME_H

#include <pthread.h>

#include "balance/balance_state.h"
#include "base/warnings.h"
#include "catalog/reentry_guard.h"
#include "catalog/registry.h"
#include "core/faults.h"
#include "devices/cuda/gather.h"
#include "devices/cuda/pin_table.h"
#include "devices/device.h"
#include "devices/worker_pool.h"

struct apo_runtime {
    apo__device devices[APO_MAX_DEVICES];
    size_t n_devices;
    size_t n_gpus;
    /* The host devices' vector path (APPORTION_CPU_ISA resolved, catalog/kernel.h) and whether
     * the variable named it: a stream's updates, computed on the calling thread, take it too. */
    int host_isa, host_isa_named;
    apo__warnings warnings;
    apo__pool pool;

    /* Serialises apo_distribute_workload() calls (the thread-safety contract). */
    pthread_mutex_t call_mutex;

    /* Built-in and user kernels. */
    apo__registry registry;

    /* Models, ratios and profile files; has its own mutex. */
    apo__balance balance;

    /* Multi-GPU gathers onto one GPU (apportion_cuda.h, outputs_device). */
    apo__gather_site gather;

    /* Host ranges pinned by apo_cuda_host_register; changed only under call_mutex. */
    apo__pin_table pins;
    /* Pinned host blocks for callers' outputs (apo_cuda_host_acquire, devices/cuda/host_pool.h):
     * NULL without a GPU; its own mutex; closed, not freed, at the runtime's end, since its
     * blocks may outlive the runtime. */
    struct apo__host_pool *host_pool;

    /* The MPI job this runtime joined, or NULL (cluster.h). */
    struct apo__cluster *cluster;
    /* Deadlines and quarantine; changed only under call_mutex. */
    apo__faults faults;

    /* Per-call scratch reused across calls (grows only): tile partials. */
    double *partials;
    size_t partials_cap;
};

/* apo_distribute_workload(), with online refinement on or off for this call (profiling
 * runs must not teach the models what one device alone does). */
apo_status apo__distribute(apo_runtime *rt, const apo_workload *w, apo_report *report, int learn);

/* Unpins every host range apo_cuda_host_register() pinned (cuda_calls.c, CUDA builds). */
void apo__cuda_release_pins(apo_runtime *rt);

/* Where a call's arrays live, and what its GPU work must come after (apportion_cuda.h). */
typedef struct apo__placement {
    int in_gpu, out_gpu;      /* CUDA ordinals of the GPUs holding the inputs and the
                                 outputs, -1 for host memory */
    void *const *wait_events; /* cudaEvent_t every GPU task waits for first (apo__call) */
    size_t n_wait_events;
    int hold_host_beside; /* a cpu keeps its threads beside GPUs even alone (profiling) */
} apo__placement;

/* apo__distribute() with arrays in GPU memory as `where` says. */
apo_status apo__distribute_placed(apo_runtime *rt, const apo_workload *w,
                                  const apo__placement *where, apo_report *report, int learn);

#endif
