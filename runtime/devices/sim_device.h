/* The sim device: a device of a given speed, computed on the host (sim_device.c). */
#ifndef APO_RUNTIME_DEVICES_SIM_DEVICE_H
#define APO_RUNTIME_DEVICES_SIM_DEVICE_H

#include "devices/device.h"
#include "devices/device_list.h"

/* Opens a sim device as `spec` describes it (docs/env.md, "Device lists"); on the virtual
 * clock its times are modelled instead of waited out. */
apo_status apo__sim_device_open(apo__device *dev, const apo__device_spec *spec, int virtual_clock);

#endif
