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
    const char *kernels; /* APPORTION_CUDA_KERNELS: "staged" (NULL too), "simple" or "split" */
    int blocks_per_sm;   /* APPORTION_CUDA_BLOCKS_PER_SM (1 to 64) */
} apo__cuda_options;

/* Why discovery found no usable GPU. The runtime judges by the cause, never by the words:
 * a machine that has nothing to offer (the first two) is no fault, while a driver that is
 * there and yields no GPU is one (runtime/core/runtime.c, open_devices). */
typedef enum apo__no_gpu_cause {
    APO_NO_GPU_NO_BACKEND = 0, /* this build has no CUDA backend */
    APO_NO_GPU_NO_DRIVER,      /* no NVIDIA driver is installed or loadable */
    APO_NO_GPU_UNUSABLE        /* a driver is there, but too old, seeing no GPU, or every GPU
                                * failed its first calls */
} apo__no_gpu_cause;

/* Writes up to `max` opened GPU devices and returns how many; when there are none, writes
 * the cause into *cause and why, in words, into `reason` (no driver, no device, built
 * without CUDA, ...). A GPU that is found but fails its first calls is left out with a
 * warning in `w`. */
size_t apo__cuda_discover(apo__device *devs, size_t max, const apo__cuda_options *opts,
                          apo__warnings *w, apo__no_gpu_cause *cause, char *reason,
                          size_t reason_size);

/* Can `dev` run `kernel`? A GPU needs the kernel's CUDA implementation; other devices run
 * every kernel. */
int apo__device_can_run(const apo__device *dev, const apo__kernel *kernel);

#endif
