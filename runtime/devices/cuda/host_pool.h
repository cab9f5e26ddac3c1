/*
 * The runtime's pool of pinned host blocks (docs/host-pool.md): the blocks, their reuse, the
 * bound and the plain fallback. It lives apart from the runtime, behind a pointer, because
 * its blocks may outlive the runtime: apo_runtime_destroy() closes it, and the last block
 * released after that frees it. CUDA builds only (host_pool.c); the public calls and their
 * errors are core/host_pool_calls.c's, their stand-ins without CUDA no_cuda.c's.
 */
#ifndef APO_RUNTIME_DEVICES_CUDA_HOST_POOL_H
#define APO_RUNTIME_DEVICES_CUDA_HOST_POOL_H

#include <stddef.h>

#include "apportion_cuda.h"

struct apo__host_pool;

/* A pool whose blocks are pinned and freed with CUDA device `ordinal` current (the runtime's
 * first GPU, so that no other GPU's context is created for them), holding at most
 * `limit_bytes`. NULL when out of memory: the public calls then give plain memory. */
struct apo__host_pool *apo__host_pool_open(int ordinal, size_t limit_bytes);

/* The runtime's end: frees the idle blocks; blocks still in use are freed at their release,
 * and the pool with the last of them. Call before the GPUs close. */
void apo__host_pool_close(struct apo__host_pool *pool);

/* `bytes` (> 0) 64-byte aligned: a block of the pool, else plain memory (pool NULL, the bound
 * reached, or pinning failed); *pinned says which. NULL only when not even plain memory is
 * left. Thread-safe. */
void *apo__host_pool_acquire(struct apo__host_pool *pool, size_t bytes, int *pinned);

typedef enum apo__host_release {
    APO_HOST_RELEASED = 0,        /* pooled or freed */
    APO_HOST_RELEASE_FOREIGN = 1, /* no block of apo__host_pool_acquire (its header says) */
    APO_HOST_RELEASE_TWICE = 2    /* a pooled block released already */
} apo__host_release;

/* Gives a block back (ptr not NULL): to its pool while the pool is open and within its bound,
 * else freed; frees a closed pool with its last block. Thread-safe; needs no runtime. */
apo__host_release apo__host_pool_release(void *ptr);

/* The pool's figures (every field of *out but size). */
void apo__host_pool_figures(struct apo__host_pool *pool, apo_cuda_host_pool_info *out);

/* A new bound; idle blocks beyond it are freed now. */
void apo__host_pool_set_limit(struct apo__host_pool *pool, size_t bytes);

/* The bound a runtime's pool starts with: a quarter of the host's memory (1 GiB when the
 * host does not say). */
size_t apo__host_pool_default_limit(void);

#endif
