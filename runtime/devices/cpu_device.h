/* The cpu device: the host's cores through OpenMP (cpu_device.c). */
#ifndef APO_RUNTIME_DEVICES_CPU_DEVICE_H
#define APO_RUNTIME_DEVICES_CPU_DEVICE_H

#include "devices/device.h"

/* Opens the cpu device with `threads` OpenMP threads (0: OpenMP's default) and the vector
 * path `isa` (an apo__cpu_isa the CPU supports, not AUTO; kernels/common/cpu_isa.h). */
apo_status apo__cpu_device_open(apo__device *dev, int threads, int isa);

#endif
