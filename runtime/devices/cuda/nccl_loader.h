/*
 * NCCL, opened at run time. libapportion does not link libnccl: a machine without it (or
 * with APPORTION_NCCL=0) gathers multi-GPU outputs with peer copies instead, and the same
 * library file serves both. Only builds with nccl.h (APO_HAVE_NCCL) can load it.
 */
#ifndef APO_RUNTIME_DEVICES_CUDA_NCCL_LOADER_H
#define APO_RUNTIME_DEVICES_CUDA_NCCL_LOADER_H

#include <stddef.h>

#ifdef APO_HAVE_NCCL
#include <nccl.h>

/* The NCCL calls the gather uses, resolved from libnccl.so.2. */
typedef struct apo__nccl_api {
    int version; /* ncclGetVersion's code, e.g. 22803 for 2.28.3 */
    ncclResult_t (*comm_init_all)(ncclComm_t *comms, int ndev, const int *devlist);
    ncclResult_t (*comm_destroy)(ncclComm_t comm);
    ncclResult_t (*group_start)(void);
    ncclResult_t (*group_end)(void);
    ncclResult_t (*send)(const void *buf, size_t count, ncclDataType_t type, int peer,
                         ncclComm_t comm, cudaStream_t stream);
    ncclResult_t (*recv)(void *buf, size_t count, ncclDataType_t type, int peer, ncclComm_t comm,
                         cudaStream_t stream);
    const char *(*error_string)(ncclResult_t result);
} apo__nccl_api;
#else
typedef struct apo__nccl_api apo__nccl_api;
#endif

/* NCCL's calls, loaded on first use and kept for the process's life (a library that
 * communicators may still reference is never closed). NULL when NCCL cannot be used; then
 * `why` says why (not built in, not found, too old, a symbol missing). Thread-safe. */
const apo__nccl_api *apo__nccl_load(char *why, size_t why_size);

#endif
