/*
 * Ranks of an MPI job as devices (docs/cluster.md). apo_runtime_create() joins the job
 * when asked to; on rank 0 every other rank that answers becomes a device of kind
 * APO_DEVICE_RANK, whose tasks are messages (backend_rank.c); the other ranks serve them
 * (cluster_serve.c). Built without MPI, cluster_stub.c stands in.
 */
#ifndef APO_RUNTIME_CLUSTER_H
#define APO_RUNTIME_CLUSTER_H

#include <stdint.h>

#include "apportion.h"
#include "base/warnings.h"

typedef struct apo_runtime apo_runtime;

typedef struct apo__cluster_settings {
    apo_switch mpi;   /* config, else environment (UNSET: join when launched) */
    int launched;     /* an MPI launcher started this process */
    double timeout_s; /* how long a rank may take to answer */
} apo__cluster_settings;

/* What a runtime knows of the job it joined; NULL in rt->cluster when it joined none. */
typedef struct apo__cluster {
    apo_cluster_role role;
    int rank, ranks;
    size_t joined;    /* coordinator: rank devices */
    double timeout_s; /* how long a rank may take to answer */
    int said_goodbye; /* coordinator: the servers were released */
} apo__cluster;

/* Joins the MPI job when the settings ask for it, after the runtime's own devices are open
 * and before its models are set up. On rank 0, appends one rank device per server that says
 * hello within the timeout; on a server, says hello to rank 0 with `open_status`, the
 * outcome of opening this runtime's devices. Problems (built without MPI, MPI failing, a
 * rank that does not answer) are warnings in `w`: the runtime then works without them. */
void apo__cluster_join(apo_runtime *rt, const apo__cluster_settings *s, apo_status open_status);

/* Releases the servers (coordinator: goodbye to each rank; waits a bounded time for late
 * replies) and frees the cluster state. Called first by apo_runtime_destroy() and when a
 * coordinator's creation fails after joining. */
void apo__cluster_leave(apo_runtime *rt);

/* Test hook: a serving rank calls `before_reply` with the number of each task (counted
 * from 1 over the process) after computing it and before answering, so tests can make a
 * rank stop answering (sleep) or die (raise SIGKILL) at a chosen point. NULL: none. */
void apo__cluster_test_hook(void (*before_reply)(uint64_t task_no));

#endif
