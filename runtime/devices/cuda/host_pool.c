/*
 * The runtime's pool of pinned host blocks (docs/host-pool.md; the public calls over it are in
 * core/host_pool_calls.c). Outputs written by a GPU into pageable memory come back through the
 * staging slots and a host copy (docs/cuda.md, "Host-resident calls"); into pinned memory
 * they are copied straight. Pinning costs about as much as copying the bytes once, so a block
 * is kept after its release and serves the next request that fits it: a caller that
 * allocates its outputs every call (the Python binding) pays the pinning once.
 *
 * Each block carries a header of 64 bytes before the caller's bytes, so that release needs
 * only the pointer (no runtime: the block may outlive it) and the bytes stay 64-byte aligned.
 * The pool counts every pinned byte, header included, against its bound.
 */
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "apportion_cuda.h"
#include "devices/cuda/cuda_gpu.h"
#include "devices/cuda/host_pool.h"
#include "devices/host_memory.h"

#define BLOCK_MAGIC 0x61706f5f686f7374ULL /* "apo_host": a pointer of this pool, likely */
#define BLOCK_HEADER ((size_t)64)
/* Capacities are rounded up to 64 KiB: requests that differ by a few values (a sweep of
 * another length, a series a bar longer) still find the block of the last call. */
#define BLOCK_ROUND ((size_t)1 << 16)

typedef struct host_block {
    uint64_t magic;
    struct apo__host_pool *pool; /* NULL: plain memory, freed at its release */
    size_t capacity;             /* bytes after the header */
    int in_use;                  /* changed under the pool's mutex (pinned blocks) */
    struct host_block *next;     /* the idle list, most recently released first */
} host_block;

_Static_assert(sizeof(host_block) <= BLOCK_HEADER, "the header must fit before the bytes");

struct apo__host_pool {
    pthread_mutex_t mutex;
    int open;    /* 0 once the runtime is destroyed: releases then free their block */
    int ordinal; /* the GPU current while pinning and freeing */
    size_t limit;
    size_t pinned_bytes; /* in use, idle, and being pinned now (reserved before cudaHostAlloc) */
    size_t idle_bytes;
    size_t in_use, n_idle;
    uint64_t reused, pinned_new, plain;
    host_block *idle;
};

static size_t block_bytes(const host_block *b) { return BLOCK_HEADER + b->capacity; }

size_t apo__host_pool_default_limit(void) {
    uint64_t total = 0, free_bytes = 0;
    apo__host_memory(&total, &free_bytes);
    if (total == 0)
        return (size_t)1 << 30;
    return (size_t)(total / 4);
}

struct apo__host_pool *apo__host_pool_open(int ordinal, size_t limit_bytes) {
    struct apo__host_pool *pool = calloc(1, sizeof *pool);
    if (pool == NULL)
        return NULL;
    pthread_mutex_init(&pool->mutex, NULL);
    pool->open = 1;
    pool->ordinal = ordinal;
    pool->limit = limit_bytes;
    return pool;
}

/* cudaHostAlloc of `bytes` with the pool's GPU current, portable so that every GPU of the
 * runtime copies straight from it; NULL when CUDA refuses (its error is cleared: the caller
 * falls back to plain memory without one). */
static host_block *pin_block(int ordinal, size_t bytes) {
    int e;
    const int previous = apo__cuda_enter_device(ordinal, &e);
    void *p = NULL;
    if (e == cudaSuccess)
        e = (int)cudaHostAlloc(&p, bytes, cudaHostAllocPortable);
    apo__cuda_leave_device(previous);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return NULL;
    }
    return p;
}

static void free_pinned(int ordinal, host_block *b) {
    b->magic = 0;
    int e;
    const int previous = apo__cuda_enter_device(ordinal, &e);
    (void)e; /* freed whichever device is current: the allocation is portable */
    (void)cudaFreeHost(b);
    (void)cudaGetLastError();
    apo__cuda_leave_device(previous);
}

static void free_list(int ordinal, host_block *list) {
    while (list != NULL) {
        host_block *next = list->next;
        free_pinned(ordinal, list);
        list = next;
    }
}

static void pool_free(struct apo__host_pool *pool) {
    pthread_mutex_destroy(&pool->mutex);
    free(pool);
}

/* Takes the smallest idle block of at least `capacity` bytes and at most twice that (a larger
 * one would hold pinned memory the request does not use); NULL when none fits. Under the
 * mutex. */
static host_block *take_idle(struct apo__host_pool *pool, size_t capacity) {
    host_block **best = NULL;
    for (host_block **at = &pool->idle; *at != NULL; at = &(*at)->next) {
        const size_t c = (*at)->capacity;
        if (c >= capacity && c / 2 <= capacity && (best == NULL || c < (*best)->capacity))
            best = at;
    }
    if (best == NULL)
        return NULL;
    host_block *b = *best;
    *best = b->next;
    b->next = NULL;
    pool->n_idle--;
    pool->idle_bytes -= block_bytes(b);
    return b;
}

/* Unlinks idle blocks, the least recently released first, until `room` more pinned bytes fit
 * the bound; returns them for freeing outside the mutex. Under the mutex. */
static host_block *evict_for(struct apo__host_pool *pool, size_t room) {
    host_block *evicted = NULL;
    while (pool->idle != NULL &&
           (pool->pinned_bytes > pool->limit || pool->limit - pool->pinned_bytes < room)) {
        host_block **last = &pool->idle;
        while ((*last)->next != NULL)
            last = &(*last)->next;
        host_block *b = *last;
        *last = NULL;
        pool->n_idle--;
        pool->idle_bytes -= block_bytes(b);
        pool->pinned_bytes -= block_bytes(b);
        b->next = evicted;
        evicted = b;
    }
    return evicted;
}

/* A pinned block of `capacity` bytes from the pool: an idle one, else a new one if the bound
 * allows it once idle blocks are freed; NULL when neither (the caller falls back). */
static host_block *pooled_block(struct apo__host_pool *pool, size_t capacity) {
    const size_t bytes = BLOCK_HEADER + capacity;
    pthread_mutex_lock(&pool->mutex);
    host_block *b = take_idle(pool, capacity);
    host_block *evicted = NULL;
    int reserved = 0;
    if (b != NULL) {
        pool->reused++;
        pool->in_use++;
    } else if (bytes <= pool->limit &&
               pool->pinned_bytes - pool->idle_bytes <= pool->limit - bytes) {
        /* It fits once idle blocks go; reserve its bytes so that concurrent requests keep to
         * the bound while it is pinned outside the mutex. */
        evicted = evict_for(pool, bytes);
        pool->pinned_bytes += bytes;
        reserved = 1;
    }
    pthread_mutex_unlock(&pool->mutex);
    free_list(pool->ordinal, evicted);
    if (b != NULL || !reserved)
        return b;
    b = pin_block(pool->ordinal, bytes);
    pthread_mutex_lock(&pool->mutex);
    if (b != NULL) {
        pool->pinned_new++;
        pool->in_use++;
    } else {
        pool->pinned_bytes -= bytes;
    }
    pthread_mutex_unlock(&pool->mutex);
    if (b != NULL) {
        b->pool = pool;
        b->capacity = capacity;
    }
    return b;
}

void *apo__host_pool_acquire(struct apo__host_pool *pool, size_t bytes, int *pinned) {
    *pinned = 0;
    if (bytes > SIZE_MAX - BLOCK_ROUND - BLOCK_HEADER)
        return NULL;
    const size_t capacity = (bytes + BLOCK_ROUND - 1) / BLOCK_ROUND * BLOCK_ROUND;
    host_block *b = pool != NULL ? pooled_block(pool, capacity) : NULL;
    if (b == NULL) {
        if (pool != NULL) {
            pthread_mutex_lock(&pool->mutex);
            pool->plain++;
            pthread_mutex_unlock(&pool->mutex);
        }
        /* Plain memory: the same bytes for the caller, copied through the staging slots. */
        b = aligned_alloc(BLOCK_HEADER, BLOCK_HEADER + capacity);
        if (b == NULL)
            return NULL;
        b->pool = NULL;
        b->capacity = capacity;
    }
    b->magic = BLOCK_MAGIC;
    b->in_use = 1;
    b->next = NULL;
    *pinned = b->pool != NULL;
    return (char *)b + BLOCK_HEADER;
}

apo__host_release apo__host_pool_release(void *ptr) {
    host_block *b = (host_block *)(void *)((char *)ptr - BLOCK_HEADER);
    if (b->magic != BLOCK_MAGIC)
        return APO_HOST_RELEASE_FOREIGN;
    struct apo__host_pool *pool = b->pool;
    if (pool == NULL) {
        b->magic = 0;
        free(b);
        return APO_HOST_RELEASED;
    }
    pthread_mutex_lock(&pool->mutex);
    if (!b->in_use) {
        pthread_mutex_unlock(&pool->mutex);
        return APO_HOST_RELEASE_TWICE;
    }
    b->in_use = 0;
    pool->in_use--;
    const int keep = pool->open && pool->pinned_bytes <= pool->limit;
    if (keep) {
        b->next = pool->idle;
        pool->idle = b;
        pool->n_idle++;
        pool->idle_bytes += block_bytes(b);
    } else {
        pool->pinned_bytes -= block_bytes(b);
    }
    /* The pool goes with the last block released after its runtime's end (close left it). */
    const int last = !pool->open && pool->in_use == 0;
    const int ordinal = pool->ordinal;
    pthread_mutex_unlock(&pool->mutex);
    if (!keep)
        free_pinned(ordinal, b);
    if (last)
        pool_free(pool);
    return APO_HOST_RELEASED;
}

void apo__host_pool_close(struct apo__host_pool *pool) {
    if (pool == NULL)
        return;
    pthread_mutex_lock(&pool->mutex);
    pool->open = 0;
    host_block *idle = pool->idle;
    pool->idle = NULL;
    pool->pinned_bytes -= pool->idle_bytes;
    pool->idle_bytes = 0;
    pool->n_idle = 0;
    const int last = pool->in_use == 0;
    pthread_mutex_unlock(&pool->mutex);
    free_list(pool->ordinal, idle);
    if (last)
        pool_free(pool);
}

void apo__host_pool_figures(struct apo__host_pool *pool, apo_cuda_host_pool_info *out) {
    pthread_mutex_lock(&pool->mutex);
    out->limit_bytes = pool->limit;
    out->pinned_bytes = pool->pinned_bytes;
    out->idle_bytes = pool->idle_bytes;
    out->blocks_in_use = pool->in_use;
    out->blocks_idle = pool->n_idle;
    out->reused = pool->reused;
    out->pinned_new = pool->pinned_new;
    out->plain = pool->plain;
    pthread_mutex_unlock(&pool->mutex);
}

void apo__host_pool_set_limit(struct apo__host_pool *pool, size_t bytes) {
    pthread_mutex_lock(&pool->mutex);
    pool->limit = bytes;
    host_block *evicted = evict_for(pool, 0);
    pthread_mutex_unlock(&pool->mutex);
    free_list(pool->ordinal, evicted);
}
