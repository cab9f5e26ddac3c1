/* Finding the machine's GPUs: cuda_device.c, or no_cuda.c in a build without CUDA, which finds none
 * and says why. */
#ifndef APO_RUNTIME_DEVICES_CUDA_CUDA_DISCOVERY_H
#define APO_RUNTIME_DEVICES_CUDA_CUDA_DISCOVERY_H

#include <stddef.h>

#include "base/warnings.h"
#include "devices/device.h"

typedef struct apo__cuda_options {
    size_t memory_mb;    /* staging budget per GPU in MiB (0: the default, docs/cuda.md) */
    int pci_order;       /* number GPUs by PCI bus id (CUDA_DEVICE_ORDER unset) */
    const char *kernels; /* APPORTION_CUDA_KERNELS: "staged" (NULL too) or "simple" */
} apo__cuda_options;

/* Writes up to `max` opened GPU devices and returns how many; when there are none, writes
 * why into `reason` (no driver, no device, built without CUDA, ...). A GPU that is found but
 * fails its first calls is left out with a warning in `w`. */
size_t apo__cuda_discover(apo__device *devs, size_t max, const apo__cuda_options *opts,
                          apo__warnings *w, char *reason, size_t reason_size);

/* Can `dev` run `kernel`? A GPU needs the kernel's CUDA implementation; other devices run
 * every kernel. */
int apo__device_can_run(const apo__device *dev, const apo__kernel *kernel);

#endif
