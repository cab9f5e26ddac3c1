/* Running tiles on the host, for the cpu and sim devices (host_tiles.c). */
#ifndef APO_RUNTIME_DEVICES_HOST_TILES_H
#define APO_RUNTIME_DEVICES_HOST_TILES_H

#include "devices/device.h"

/* Runs tiles [first, end) of a call on the host with up to `threads` threads, the calling
 * thread one of them (1: on the calling thread alone), for device `dev`, each tile inside
 * the device's task guard; returns once every tile is done, not once every thread has
 * woken (host_team.h). Before each unit of tiles, it writes once into each page of the
 * output elements those tiles own, keeping their values, so that the caller's fresh pages
 * fault in there; *touch_s (when not NULL) gets the part of the run's wall time spent on
 * that, which the backend keeps out of its kernel time. *threads_offered (when not NULL)
 * gets the threads the tiles were offered to: 1 when the calling thread computed them alone
 * (a small task, or one while the team keeps its helpers out, host_team.h). Returns
 * APO_ERR_DEVICE_LOST, having started no further tile, once the task is abandoned or late.
 * `now` is a reading of apo__now() the caller has just taken (or apo__task_clock() of the
 * device's guard): the run's first guard check uses it instead of reading the clock again. */
apo_status apo__run_tiles_on_host(apo__device *dev, const apo__call *call, uint64_t first,
                                  uint64_t end, int threads, double now, double *touch_s,
                                  int *threads_offered);

/* Frees what apo__run_tiles_on_host() kept for `dev` (its scratch); for the cpu and sim
 * devices' close. */
void apo__host_tiles_release(apo__device *dev);

#endif
