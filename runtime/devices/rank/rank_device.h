/* The rank device of rank 0: another MPI rank's devices as one device (rank_device.c). */
#ifndef APO_RUNTIME_DEVICES_RANK_RANK_DEVICE_H
#define APO_RUNTIME_DEVICES_RANK_RANK_DEVICE_H

#include "devices/device.h"
#include "devices/rank/mpi_proto.h"

/* Opens the device of `rank`, described by its hello. */
apo_status apo__rank_device_open(apo__device *dev, int rank, const apo__hello *hello,
                                 double timeout_s);

/* The MPI rank a rank device stands for. */
int apo__rank_device_rank(const apo__device *dev);

/* Lets an exchange that was given up at its deadline finish by `deadline` (its late reply
 * is received into the device's buffers and dropped), else cancels its requests. Returns 1
 * when nothing is left in flight. Call before closing the device. */
int apo__rank_device_drain(apo__device *dev, double deadline);

#endif
