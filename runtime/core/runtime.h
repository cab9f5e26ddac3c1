/* The runtime object shared by runtime.c (life cycle, queries) and distribute.c. */
#ifndef APO_RUNTIME_RUNTIME_H
#define APO_RUNTIME_RUNTIME_H

#include <pthread.h>

#include "balance/balance_state.h"
#include "base/warnings.h"
#include "catalog/reentry_guard.h"
#include "core/faults.h"
#include "devices/device.h"
#include "devices/worker_pool.h"

#define APO_USER_KERNELS_MAX 64

struct apo_runtime {
    apo__device devices[APO_MAX_DEVICES];
    size_t n_devices;
    size_t n_gpus;
    apo__warnings warnings;
    apo__pool pool;

    /* Serialises apo_distribute_workload() calls (the thread-safety contract). */
    pthread_mutex_t call_mutex;

    /* Registered user kernels; guarded by kernel_mutex. Entries are never removed, so a
     * pointer found under the lock stays valid for the runtime's life. */
    pthread_mutex_t kernel_mutex;
    apo__kernel *user_kernels[APO_USER_KERNELS_MAX];
    size_t n_user_kernels;

    /* Models, ratios and profile files; has its own mutex. */
    apo__balance balance;

    /* Multi-GPU gathers: NCCL wanted (apo_config.nccl, APPORTION_NCCL), and the NCCL
     * state, created at the first gather that uses it (cuda_gather.c). */
    int nccl_wanted;
    struct apo__gather *gather;

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

/* apo__distribute() with arrays in GPU memory: in_gpu and out_gpu are the CUDA ordinals of
 * the GPUs holding the inputs and the outputs, -1 for host memory (apportion_cuda.h). */
apo_status apo__distribute_placed(apo_runtime *rt, const apo_workload *w, int in_gpu, int out_gpu,
                                  apo_report *report, int learn);

/* A kernel's parameter values in its own order: defaults, overridden by `params`, each
 * checked against its bounds. Returns APO_ERR_NULL or APO_ERR_BAD_PARAM. */
apo_status apo__resolve_params(const apo__kernel *k, const apo_param *params, size_t n_params,
                               double *values);

/* Finds a kernel by name (built-ins, then user kernels), or NULL. */
const apo__kernel *apo__find_kernel(apo_runtime *rt, const char *name);

#endif
