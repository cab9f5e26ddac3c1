/*
 * Ranks of an MPI job as devices (docs/cluster.md). apo_runtime_create() joins the job
 * when asked to; on rank 0 every other rank that answers becomes a device of kind
 * APO_DEVICE_RANK, whose tasks are messages (devices/rank/); the other ranks serve them
 * (serve.c). Built without MPI, no_mpi.c stands in. The cluster works on what it is handed:
 * the runtime's device array, where warnings go, and, to serve, the registry and a function
 * that computes a run of tiles; it never sees the runtime itself (docs/design.md, "Rooms").
 */
#ifndef APO_RUNTIME_CLUSTER_CLUSTER_H
#define APO_RUNTIME_CLUSTER_CLUSTER_H

#include <stdint.h>

#include "apportion.h"
#include "base/warnings.h"
#include "catalog/kernel.h"
#include "catalog/registry.h"
#include "devices/device.h"

typedef struct apo__cluster_settings {
    apo_switch mpi;   /* config, else environment (UNSET: join when launched) */
    int launched;     /* an MPI launcher started this process */
    double timeout_s; /* how long a rank may take to answer */
} apo__cluster_settings;

/* What a runtime knows of the job it joined; a runtime that joined none has NULL. */
typedef struct apo__cluster {
    apo_cluster_role role;
    int rank, ranks;
    size_t joined;    /* coordinator: rank devices */
    double timeout_s; /* how long a rank may take to answer */
    int said_goodbye; /* coordinator: the servers were released */
} apo__cluster;

/* The runtime's devices as joining sees them: rank 0 appends its rank devices. */
typedef struct apo__device_set {
    apo__device *devices; /* APO_MAX_DEVICES entries */
    size_t n_devices;
    apo__warnings *warnings;
} apo__device_set;

/* Joins the MPI job when the settings ask for it, after the runtime's own devices are open
 * and before its models are set up, and returns the job's state (NULL when it joined none).
 * On rank 0, appends one rank device per server that says hello within the timeout; on a
 * server, says hello to rank 0 with `open_status`, the outcome of opening this runtime's
 * devices. Problems (built without MPI, MPI failing, a rank that does not answer) are
 * warnings in `set->warnings`: the runtime then works without them. */
apo__cluster *apo__cluster_join(const apo__cluster_settings *s, apo__device_set *set,
                                apo_status open_status);

/* Releases the servers (coordinator: goodbye to each rank; waits a bounded time for late
 * replies, draining the rank devices among `devices`) and frees `c` (NULL: nothing).
 * Called first by apo_runtime_destroy() and when a coordinator's creation fails after
 * joining. */
void apo__cluster_leave(apo__cluster *c, apo__device *devices, size_t n_devices);

/* apo_cluster_info of a runtime whose job is `c` (NULL: none); `info` is checked already. */
void apo__cluster_info_fill(const apo__cluster *c, apo_cluster_info *info);

/* What a serving rank does with a task: computes tiles [first, end) of `call` on the
 * runtime's devices, leaving the partials unreduced. Returns APO_OK,
 * APO_ERR_ALL_DEVICES_FAILED, or the status of a failing kernel. */
typedef struct apo__range_result {
    double makespan_s; /* wall time, or modelled time when every device that ran is virtual */
    int modelled;
    uint64_t failovers; /* local devices that failed */
} apo__range_result;
typedef apo_status (*apo__range_runner)(void *ctx, const apo__call *call, const char *tag,
                                        uint64_t first, uint64_t end, apo__range_result *result);

/* Serves rank 0's tasks until it says goodbye: each task's kernel is looked up in `reg` and
 * its tiles computed by `run(ctx, ...)`. `c` is a server's job (checked by the caller). */
apo_status apo__cluster_serve(const apo__cluster *c, apo__registry *reg, apo__range_runner run,
                              void *ctx);

/* Test hook: a serving rank calls `before_reply` with the number of each task (counted
 * from 1 over the process) after computing it and before answering, so tests can make a
 * rank stop answering (sleep) or die (raise SIGKILL) at a chosen point. NULL: none. */
void apo__cluster_test_hook(void (*before_reply)(uint64_t task_no));

#endif
