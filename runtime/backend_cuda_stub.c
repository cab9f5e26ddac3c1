/*
 * The CUDA backend's stand-in for builds without it: discovery finds no GPU and says
 * why, so the runtime carries on with the CPU (SPEC "Devices"). The real backend, with
 * the same entry point, comes with the CUDA issue.
 */
#include <stdio.h>

#include "device.h"

size_t apo__cuda_discover(apo__device *devs, size_t max, char *reason, size_t reason_size) {
    (void)devs, (void)max;
    snprintf(reason, reason_size,
             "this build of apportion has no CUDA backend (built without CUDA support), so "
             "no GPU can be used");
    return 0;
}
