/*
 * A stream's large updates as batch calls on the runtime's devices; see stream_devices.c.
 */
#ifndef APO_RUNTIME_CORE_STREAM_DEVICES_H
#define APO_RUNTIME_CORE_STREAM_DEVICES_H

#include "streaming/stream.h"

/* The fewest new bars, over the series that bring a whole tile or more, that an update hands
 * to the devices when apo_stream_desc.device_bars is 0 and the runtime has a device besides
 * the cpu. */
#define APO_STREAM_DEVICE_BARS_DEFAULT ((size_t)1 << 20)

/* Whether rt has a device other than the cpu (a GPU, a simulated device, a rank): where a
 * stream's large updates go by default. */
int apo__stream_runtime_has_others(const apo_runtime *rt);

/* The stream's batch hook (apo__stream_batch_fn): feeds the series with a whole tile or more
 * of new bars through apo_distribute_workload() when they bring s->device_bars or more
 * together, marking them in done[]; does nothing for a user kernel or a smaller update. */
apo_status apo__stream_on_devices(apo_stream *s, const size_t *n_new, const double *const *inputs,
                                  double *const *outputs, unsigned char *done);

#endif
