/* The cpu device: the host's cores through OpenMP (cpu_device.c). */
#ifndef APO_RUNTIME_DEVICES_CPU_DEVICE_H
#define APO_RUNTIME_DEVICES_CPU_DEVICE_H

#include "devices/device.h"

/* Opens the cpu device with `threads` OpenMP threads (0: OpenMP's default). */
apo_status apo__cpu_device_open(apo__device *dev, int threads);

#endif
