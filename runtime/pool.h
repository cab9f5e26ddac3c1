/*
 * The persistent worker pool: one host thread per device, started with the runtime and
 * woken for each call, so no thread is created per call. A device's thread runs that
 * device's tasks one after the other; the devices run concurrently.
 */
#ifndef APO_RUNTIME_POOL_H
#define APO_RUNTIME_POOL_H

#include <pthread.h>

#include "device.h"

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
} apo__device_job;

/* Runs a job's tasks on the calling thread. */
void apo__device_job_run(apo__device *dev, apo__device_job *job);

typedef struct apo__worker {
    struct apo__pool *pool;
    apo__device *dev;
    size_t index;
    pthread_t thread;
    int started;
} apo__worker;

typedef struct apo__pool {
    pthread_mutex_t mutex;
    pthread_cond_t work;
    pthread_cond_t done;
    uint64_t generation; /* bumped for each dispatch */
    size_t pending;      /* jobs of the current dispatch not yet finished */
    int stopping;
    size_t n;
    apo__device_job *jobs[APO_MAX_DEVICES]; /* per device; NULL: nothing this time */
    apo__worker workers[APO_MAX_DEVICES];
} apo__pool;

/* Starts one thread per device. On failure no thread is left running. */
apo_status apo__pool_start(apo__pool *pool, apo__device *devs, size_t n);

/* Runs jobs[i] on device i for every non-NULL entry, concurrently, and returns when all
 * have finished. */
void apo__pool_run(apo__pool *pool, apo__device_job *const *jobs);

/* Stops and joins the threads. Safe on a pool whose start failed. */
void apo__pool_stop(apo__pool *pool);

#endif
