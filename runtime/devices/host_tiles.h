/* Running tiles on the host, for the cpu and sim devices (host_tiles.c). */
#ifndef APO_RUNTIME_DEVICES_HOST_TILES_H
#define APO_RUNTIME_DEVICES_HOST_TILES_H

#include "devices/device.h"

/* What a run of tiles on the host measured (apo__run_tiles_on_host). */
typedef struct apo__host_run_times {
    /* Whether the run was timed: 0 where nothing reads the call's times
     * (apo__call_ctx.times_unread); the fields below are then 0. */
    int timed;
    double touch_s; /* the part of the run's wall time spent in the first-touch pass */
    double ended;   /* the clock's reading (apo__now()) at the run's end */
    /* The threads the tiles were offered to: 1 when the calling thread computed them alone
     * (a small task, or one while the team keeps its helpers out, host_team.h). */
    int threads_offered;
} apo__host_run_times;

/* Runs tiles [first, end) of a call on the host with up to `threads` threads, the calling
 * thread one of them (1: on the calling thread alone), for device `dev`, each tile inside
 * the device's task guard; returns once every tile is done, not once every thread has
 * woken (host_team.h). Returns APO_ERR_DEVICE_LOST, having started no further tile, once
 * the task is abandoned or late.
 *
 * With `times` (not NULL) and a call whose times someone reads, the run is timed: before
 * each piece of tiles it writes once into each page of the output elements those tiles own,
 * keeping their values, so that the caller's fresh pages fault in there, and times->touch_s
 * gets the part of the run's wall time spent on that, which the backend keeps out of its
 * kernel time. `now` must then be a reading of apo__now() the caller has just taken: the
 * run's first guard check uses it, and on one thread the run's timing starts from it, so
 * that the run and the backend's task share their readings (docs/scheduling.md).
 *
 * Without `times`, or where nothing reads the call's times (apo__call_ctx.times_unread),
 * the run is untimed: no first-touch pass (the tiles fault fresh pages in themselves) and
 * no clock reading but the deadline's (apo__task_clock()). `now` may then also be
 * apo__task_clock() of the device's guard. */
apo_status apo__run_tiles_on_host(apo__device *dev, const apo__call *call, uint64_t first,
                                  uint64_t end, int threads, double now,
                                  apo__host_run_times *times);

/* Frees what apo__run_tiles_on_host() kept for `dev` (its scratch); for the cpu and sim
 * devices' close. */
void apo__host_tiles_release(apo__device *dev);

#endif
