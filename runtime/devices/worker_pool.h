/*
 * The persistent worker pool: one host thread per device, started with the runtime and
 * woken for each call, so no thread is created per call. A device's thread runs that
 * device's tasks one after the other; the devices run concurrently. The caller waits for
 * every job up to its deadline; a job still running then is abandoned (device.h's task
 * guard), and its worker is never given another job.
 */
#ifndef APO_RUNTIME_DEVICES_WORKER_POOL_H
#define APO_RUNTIME_DEVICES_WORKER_POOL_H

#include <pthread.h>

#include "devices/device.h"

/* How long apo__pool_stop() waits for a worker still inside an abandoned task before it
 * detaches it. Sim devices wake at once; this is for a driver call that never returns. */
#define APO_POOL_STOP_GRACE_S 2.0

/* One device's part of one phase of a call, and what came of it. */
typedef struct apo__device_job {
    const apo__call *call;
    uint64_t first, end; /* tiles to compute */
    uint64_t task_base;  /* tasks this device already ran in this call */
    /* results */
    apo_status status;   /* APO_OK, APO_ERR_DEVICE_LOST, or the failure to report */
    uint64_t done_end;   /* tiles [first, done_end) were computed */
    uint64_t tasks;      /* tasks run */
    apo__task_time time; /* summed over the tasks */
    int timed_out;       /* it missed its deadline: abandoned, or stopped by itself */
} apo__device_job;

/* Runs a job's tasks on the calling thread, stopping before a task once the device's
 * current task is abandoned or late. The caller arms the device's guard first, and passes
 * `now`, apo__task_clock() of the guard or a reading of apo__now() taken just before: the
 * job's first checks of the guard use it instead of reading the clock again. */
void apo__device_job_run(apo__device *dev, apo__device_job *job, double now);

typedef struct apo__worker {
    struct apo__pool *pool;
    apo__device *dev;
    size_t index;
    pthread_t thread;
    int started;
    /* The rest is guarded by the pool's mutex. The job is the worker's own copy, in the
     * runtime's memory, so that a worker the call gave up on never writes into the
     * caller's stack. */
    apo__device_job job;
    int busy;      /* it has a job it has not finished */
    int abandoned; /* the call gave up on its job at the deadline */
    int exited;    /* its thread has left the loop */
    int stuck;     /* apo__pool_stop() detached it inside an abandoned task */
} apo__worker;

typedef struct apo__pool {
    pthread_mutex_t mutex;
    pthread_cond_t work;
    pthread_cond_t done; /* a job finished or a thread exited (monotonic clock) */
    uint64_t generation; /* bumped for each dispatch */
    size_t pending;      /* jobs of the current dispatch neither finished nor abandoned */
    int stopping;
    size_t n;         /* threads started */
    size_t n_devices; /* devices whose task guards are initialised */
    apo__device *devices;
    apo__worker workers[APO_MAX_DEVICES];
} apo__pool;

/* Starts one thread per device and sets up the devices' task guards. On failure no thread
 * is left running. */
apo_status apo__pool_start(apo__pool *pool, apo__device *devs, size_t n);

/* Runs jobs[i] on device i for every non-NULL entry, concurrently. deadlines[i] is the
 * apo__now() time by which job i must be over (0: none; `deadlines` may be NULL). Returns
 * when every job has finished or been abandoned at its deadline: an abandoned job comes
 * back with APO_ERR_DEVICE_LOST, timed_out set, no tiles done and its time until the
 * deadline. No job may go to a device whose worker was abandoned. */
void apo__pool_run(apo__pool *pool, apo__device_job *const *jobs, const double *deadlines);

/* Stops the threads: wakes abandoned tasks, waits up to APO_POOL_STOP_GRACE_S for threads
 * still inside one, joins the others and detaches those (worker.stuck). Returns how many
 * were detached: the pool, and their devices, must then stay allocated, since those
 * threads may still use them. Safe on a pool whose start failed. */
size_t apo__pool_stop(apo__pool *pool);

#endif
