#ifndef APO_RUNTIME_DEVICES_TASK_GUARD_H
#define APO_RUNTIME_DEVICES_TASK_GUARD_H

#include <pthread.h>
#include <stdatomic.h>

/*
 * Abandoning a task. Every device has a guard (apo__device.guard), which its backend
 * brackets each access to a call with. When a task misses its deadline, the call
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

/* ---- for backends: the task guard ---------------------------------------------------- */

/* Begins an access to the call. Returns 1 when the task may go on: apo__task_leave_call()
 * must follow once the access is over (keep accesses short: tile by tile, and never hold
 * one while blocking on something that may not return). Returns 0 when the task has been
 * abandoned or its deadline has passed: the backend must then return APO_ERR_DEVICE_LOST
 * at once without touching the call again, not even the apo__call struct. */
int apo__task_enter_call(apo__task_guard *g);
void apo__task_leave_call(apo__task_guard *g);

/* apo__task_enter_call() for a caller that has just read apo__now() (`now`) to time its
 * own steps: a small call's task enters the call several times within microseconds, and the
 * clock reads were a sixth of such a call's cost. */
int apo__task_enter_call_at(apo__task_guard *g, double now);

/* Whether the current task has been abandoned or is past its deadline. Cheap, for polling
 * in loops; it does not make an access safe on its own (use enter/leave for that). */
int apo__task_abandoned(const apo__task_guard *g);

/* apo__task_abandoned() against a reading `now` of apo__now() taken just before. */
int apo__task_abandoned_at(const apo__task_guard *g, double now);

/* apo__now() when the guard has a deadline to check against it, else 0 (no reading): the
 * `now` to hand to the _at forms above. */
double apo__task_clock(const apo__task_guard *g);

/* Blocks until the current task is abandoned (a sim device that never answers). */
void apo__task_wait_until_abandoned(apo__task_guard *g);

/* Sleeps until apo__now() reaches `until`, or until the task is abandoned; returns 1 when
 * it was abandoned. */
int apo__task_sleep_until(apo__task_guard *g, double until);

/* ---- for the runtime: handing tasks over and giving up on them ---------------------- */

/* Sets up and tears down a device's guard (with the worker pool). */
void apo__task_guard_init(apo__task_guard *g);
void apo__task_guard_destroy(apo__task_guard *g);

/* Clears the flag and sets the deadline (0: none) before a job is handed to the device.
 * Only for a device whose previous task has ended. */
void apo__task_arm(apo__task_guard *g, double deadline);

/* Gives up on the current task: sets the flag and wakes the task if it is blocked in
 * apo__task_wait_until_abandoned() or apo__task_sleep_until(). Returns at once. */
void apo__task_cancel(apo__task_guard *g);

/* apo__task_cancel(), then returns once no access to the call is in progress. Bounded by
 * the time of one access (one tile on the host); an access that never ends (a user tile
 * that never returns) blocks here, because returning would let it write into arrays the
 * caller owns again. */
void apo__task_abandon(apo__task_guard *g);

#endif
