/*
 * Devices and the backend interface. A backend runs a contiguous run of whole tiles of a
 * call on one device and says how long each phase took; everything else (splitting,
 * threads, failover, merging, reports) is the runtime's and the same for every backend.
 * The CUDA backend of a later issue implements the same three operations.
 */
#ifndef APO_RUNTIME_DEVICE_H
#define APO_RUNTIME_DEVICE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "apportion.h"
#include "base/clock.h"
#include "base/warnings.h"
#include "catalog/kernel.h"

typedef struct apo__device apo__device;

/* Phase durations of one task, in seconds. Sim devices report modelled times here. A
 * backend whose phases overlap (CUDA) also sets wall_s, the task's time on the host clock;
 * 0 means the phases ran one after the other (wall = their sum). `chunks` counts the pieces
 * the task was staged in (0: one). */
typedef struct apo__task_time {
    double h2d_s, kernel_s, d2h_s;
    double wall_s;
    uint64_t chunks;
} apo__task_time;

typedef struct apo__backend_ops {
    /* Computes tiles [first, end) of `call`. Returns APO_OK; APO_ERR_DEVICE_LOST when the
     * device failed (its tiles are then redone elsewhere: it must not have written
     * partial garbage anywhere that a retry does not overwrite); any other status fails
     * the call (for example a user kernel's failure). `task_index` counts the tasks of
     * this call on this device from 0. Every access to the call (the apo__call itself,
     * its inputs, outputs and partials) must lie between apo__task_enter_call() and
     * apo__task_leave_call(), below: the runtime may abandon the task at its deadline. */
    apo_status (*run)(apo__device *dev, const apo__call *call, uint64_t first, uint64_t end,
                      uint64_t task_index, apo__task_time *time);
    /* Number of tasks a run of `tiles` tiles is cut into (at least 1): more tasks let a
     * failing device lose less work, fewer cost less overhead. */
    uint64_t (*task_count)(const apo__device *dev, uint64_t tiles);
    /* Releases the backend's state. */
    void (*close)(apo__device *dev);
} apo__backend_ops;

/*
 * Abandoning a task (runtime/task_guard.c). When a task misses its deadline, the call
 * gives up on it and redoes its tiles elsewhere; from then on the task must not touch the
 * call, whose arrays the caller may already have reused or freed. A flag alone cannot
 * promise that (the task could check it, be abandoned, then write), so every access is
 * bracketed: the task announces it (`inside`), then checks the flag; the runtime sets the
 * flag, then waits until no access is in progress. With both in sequentially consistent
 * order, either the task sees the flag and stays out, or the runtime sees the access and
 * waits for it to end, so no access ever begins after the runtime stopped waiting.
 */
typedef struct apo__task_guard {
    atomic_int abandoned; /* the call gave up on the current task */
    atomic_int inside;    /* accesses to the call in progress */
    double deadline;      /* apo__now() past which the task is late; 0: none. Set before the
                             task is handed over, read by the task's thread only. */
    /* `wake` wakes a blocked task when it is abandoned, and the runtime when the last
     * access of an abandoned task ends. */
    pthread_mutex_t mutex;
    pthread_cond_t wake;
    int ready; /* mutex and cond are initialised */
} apo__task_guard;

struct apo__device {
    apo_device_info info;
    const apo__backend_ops *ops;
    int virtual_clock;  /* sim with APPORTION_SIM_CLOCK=virtual: times are modelled */
    uint64_t tasks_run; /* tasks started over the runtime's life (sim fail_after) */
    uint64_t calls_run; /* calls in which it had work, over the runtime's life (slow_after) */
    int simulated;      /* a rank whose devices include sim ones: its reports say so */
    void *state;        /* backend-private */
    apo__task_guard guard;
};

/* ---- for backends: the task guard ---------------------------------------------------- */

/* Begins an access to the call. Returns 1 when the task may go on: apo__task_leave_call()
 * must follow once the access is over (keep accesses short: tile by tile, and never hold
 * one while blocking on something that may not return). Returns 0 when the task has been
 * abandoned or its deadline has passed: the backend must then return APO_ERR_DEVICE_LOST
 * at once without touching the call again, not even the apo__call struct. */
int apo__task_enter_call(apo__device *dev);
void apo__task_leave_call(apo__device *dev);

/* Whether the current task has been abandoned or is past its deadline. Cheap, for polling
 * in loops; it does not make an access safe on its own (use enter/leave for that). */
int apo__task_abandoned(const apo__device *dev);

/* Blocks until the current task is abandoned (a sim device that never answers). */
void apo__task_wait_until_abandoned(apo__device *dev);

/* Sleeps until apo__now() reaches `until`, or until the task is abandoned; returns 1 when
 * it was abandoned. */
int apo__task_sleep_until(apo__device *dev, double until);

/* ---- for the runtime: handing tasks over and giving up on them ---------------------- */

/* Sets up and tears down a device's guard (with the worker pool). */
void apo__task_guard_init(apo__device *dev);
void apo__task_guard_destroy(apo__device *dev);

/* Clears the flag and sets the deadline (0: none) before a job is handed to the device.
 * Only for a device whose previous task has ended. */
void apo__task_arm(apo__device *dev, double deadline);

/* Gives up on the current task: sets the flag and wakes the task if it is blocked in
 * apo__task_wait_until_abandoned() or apo__task_sleep_until(). Returns at once. */
void apo__task_cancel(apo__device *dev);

/* apo__task_cancel(), then returns once no access to the call is in progress. Bounded by
 * the time of one access (one tile on the host); an access that never ends (a user tile
 * that never returns) blocks here, because returning would let it write into arrays the
 * caller owns again. */
void apo__task_abandon(apo__device *dev);

/* Opens the cpu device with `threads` OpenMP threads (0: OpenMP's default). */
apo_status apo__cpu_device_open(apo__device *dev, int threads);

/* Opens a sim device; see SPEC "Devices". */
typedef struct apo__device_spec apo__device_spec;
apo_status apo__sim_device_open(apo__device *dev, const apo__device_spec *spec, int virtual_clock);

/* CUDA discovery. Writes up to `max` opened GPU devices and returns how many; when there
 * are none, writes why into `reason` (no driver, no device, built without CUDA, ...). A
 * GPU that is found but fails its first calls is left out with a warning in `w`.
 */
typedef struct apo__cuda_options {
    size_t memory_mb; /* staging budget per GPU in MiB (0: the default, docs/cuda.md) */
    int pci_order;    /* number GPUs by PCI bus id (CUDA_DEVICE_ORDER unset) */
} apo__cuda_options;

size_t apo__cuda_discover(apo__device *devs, size_t max, const apo__cuda_options *opts,
                          apo__warnings *w, char *reason, size_t reason_size);

/* Can `dev` run `kernel` (a GPU needs the kernel's CUDA implementation)? */
int apo__device_can_run(const apo__device *dev, const apo__kernel *kernel);

/* Runs tiles [first, end) of a call on the host with `threads` OpenMP threads (1: on the
 * calling thread alone), for device `dev`, each tile inside the device's task guard.
 * Returns APO_ERR_DEVICE_LOST, having started no further tile, once the task is abandoned
 * or late. Shared by the cpu and sim backends. */
apo_status apo__run_tiles_on_host(apo__device *dev, const apo__call *call, uint64_t first,
                                  uint64_t end, int threads);

/* Host memory, for the cpu and sim devices' info. */
void apo__host_memory(uint64_t *total_bytes, uint64_t *free_bytes);

#endif
