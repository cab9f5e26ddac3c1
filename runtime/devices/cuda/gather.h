/*
 * Gathering the outputs several GPUs computed onto the GPU that wants them (gather.c has
 * the design). The gather works on the devices it is handed and on state of its own; it
 * is created empty with the runtime and fills itself in at the first gather that needs it.
 */
#ifndef APO_RUNTIME_DEVICES_CUDA_GATHER_H
#define APO_RUNTIME_DEVICES_CUDA_GATHER_H

#include <stddef.h>

#include "devices/device.h"

typedef struct apo__gather_site {
    apo__device *devices; /* the runtime's devices, in device order */
    size_t n_devices;
    size_t n_gpus;
    int nccl_wanted;           /* apo_config.nccl, APPORTION_NCCL */
    struct apo__gather *state; /* NCCL state, created at the first grouped gather */
} apo__gather_site;

/* Whether the call's GPUs other than out_gpu keep their outputs resident for one grouped
 * NCCL gather after the phase (call->gather_resident): outputs on a GPU, NCCL wanted and
 * loadable, two GPUs or more, and NCCL not turned off by an earlier failure. */
int apo__gather_resident(apo__gather_site *site, int out_gpu);

/* Moves every GPU's segments to the call's out_gpu (NCCL, else peer copies), frees them,
 * and says which path ran (APO_GATHER_NONE when there was nothing to move). */
apo_status apo__gather_finish(apo__gather_site *site, const apo__call *call, apo_gather *path);

/* Frees every GPU's segments without moving them (a call that failed). */
void apo__gather_discard(apo__gather_site *site);

/* Enables peer access between every two GPUs of the runtime where the topology allows it
 * (cudaDeviceEnablePeerAccess), once for the runtime's life: peer copies then go straight
 * over NVLink or PCIe instead of through the host. Called before the first call with
 * device-resident arrays on a runtime of two GPUs or more. Access the caller had already
 * enabled is left alone. */
void apo__gather_enable_peers(apo__gather_site *site);

/* Releases the communicators and streams at the runtime's end, and disables the peer access
 * the runtime enabled. */
void apo__gather_close(apo__gather_site *site);

#endif
