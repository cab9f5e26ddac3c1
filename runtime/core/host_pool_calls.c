/*
 * The calls of apportion_cuda.h over the runtime's pool of pinned host blocks
 * (apo_cuda_host_acquire and its release, query and bound; docs/host-pool.md): the checks of
 * their arguments and their errors, over the pool of devices/cuda/host_pool.c. CUDA builds
 * only; no_cuda.c has their stand-ins.
 */
#include "apportion_cuda.h"
#include "base/error.h"
#include "core/runtime.h"
#include "devices/cuda/host_pool.h"

apo_status apo_cuda_host_acquire(apo_runtime *rt, size_t bytes, void **ptr, int *pinned) {
    if (rt == NULL || ptr == NULL)
        return apo__fail(APO_ERR_NULL, "apo_cuda_host_acquire: %s is NULL",
                         rt == NULL ? "rt" : "ptr");
    *ptr = NULL;
    if (pinned != NULL)
        *pinned = 0;
    if (bytes == 0)
        return apo__fail(APO_ERR_INVALID_ARGUMENT, "apo_cuda_host_acquire: bytes is 0");
    /* Without a GPU nothing would copy from pinned memory: the caller allocates as usual. */
    if (rt->n_gpus == 0)
        return apo__fail(APO_ERR_NO_DEVICE, "apo_cuda_host_acquire: the runtime has no GPU");
    int got_pinned = 0;
    /* A pool that could not be created (out of memory) gives plain memory, as a full one. */
    void *p = apo__host_pool_acquire(rt->host_pool, bytes, &got_pinned);
    if (p == NULL)
        return apo__fail(APO_ERR_OUT_OF_MEMORY, "apo_cuda_host_acquire: cannot allocate %zu bytes",
                         bytes);
    *ptr = p;
    if (pinned != NULL)
        *pinned = got_pinned;
    return APO_OK;
}

apo_status apo_cuda_host_release(void *ptr) {
    if (ptr == NULL)
        return APO_OK;
    switch (apo__host_pool_release(ptr)) {
    case APO_HOST_RELEASE_FOREIGN:
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "apo_cuda_host_release: %p is no block of apo_cuda_host_acquire", ptr);
    case APO_HOST_RELEASE_TWICE:
        return apo__fail(APO_ERR_INVALID_ARGUMENT, "apo_cuda_host_release: %p was released already",
                         ptr);
    default:
        return APO_OK;
    }
}

/* The runtime's pool for the query and limit calls, or the failure they return. */
static apo_status pool_of(apo_runtime *rt, const char *what, struct apo__host_pool **pool) {
    if (rt == NULL)
        return apo__fail(APO_ERR_NULL, "%s: rt is NULL", what);
    if (rt->n_gpus == 0)
        return apo__fail(APO_ERR_NO_DEVICE, "%s: the runtime has no GPU", what);
    if (rt->host_pool == NULL)
        return apo__fail(APO_ERR_OUT_OF_MEMORY,
                         "%s: the runtime has no pool (out of memory at its creation)", what);
    *pool = rt->host_pool;
    return APO_OK;
}

apo_status apo_cuda_host_pool_query(apo_runtime *rt, apo_cuda_host_pool_info *out) {
    if (out == NULL)
        return apo__fail(APO_ERR_NULL, "apo_cuda_host_pool_query: out is NULL");
    if (out->size != sizeof *out)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "apo_cuda_host_pool_query: out->size is %zu, not %zu (use "
                         "APO_CUDA_HOST_POOL_INFO_INIT)",
                         out->size, sizeof *out);
    struct apo__host_pool *pool = NULL;
    APO_CHECK(pool_of(rt, "apo_cuda_host_pool_query", &pool));
    apo__host_pool_figures(pool, out);
    return APO_OK;
}

apo_status apo_cuda_host_pool_limit(apo_runtime *rt, size_t bytes) {
    struct apo__host_pool *pool = NULL;
    APO_CHECK(pool_of(rt, "apo_cuda_host_pool_limit", &pool));
    apo__host_pool_set_limit(pool, bytes);
    return APO_OK;
}
