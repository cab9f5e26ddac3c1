/*
 * test_gpu_host_pool.c: the runtime's pool of pinned host blocks (apo_cuda_host_acquire,
 * docs/host-pool.md) on simulated GPUs, whose runtime counts the pinned bytes, fails pinning on
 * cue and counts the bytes a GPU copied into pageable memory (tests/simt/gpus/sim_faults.h).
 * Built only with -Dsimulated_gpus=true: a real GPU cannot refuse to pin on cue.
 *
 * What each case shows: a block is pinned, kept at its release and served again to a request
 * it fits; the pool keeps to its bound in bytes and gives plain memory beyond it; a block
 * outlives its runtime (the idle ones are freed at the runtime's end, one in use at its
 * release); threads acquiring at once get blocks of their own within the bound; pinning that
 * fails gives plain memory without an error; and a call whose arrays are the pool's copies
 * straight between them and the GPU (no staging copy, no pageable copy) with the cpu's bits.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_fixtures.h"
#include "helpers.h"
#include "sim_faults.h"

#define KIB ((size_t)1024)
#define MIB (KIB * KIB)
/* What the pool counts for a block of 1 MiB: its 64 bytes of header beside the bytes. */
#define BLOCK_1M (MIB + 64)

/* The first GPU alone, which has run no task: nothing of its staging is pinned, so the pinned
 * counts are the pool's. */
static apo_runtime *one_gpu(void) {
    apo_runtime_destroy(gpu_runtime_or_skip());
    return runtime_on("cuda:0", 0);
}

static apo_cuda_host_pool_info pool_info(apo_runtime *rt) {
    apo_cuda_host_pool_info info = APO_CUDA_HOST_POOL_INFO_INIT;
    cr_assert_eq(apo_cuda_host_pool_query(rt, &info), APO_OK, "%s", apo_last_error());
    return info;
}

static void *acquire(apo_runtime *rt, size_t bytes, int want_pinned) {
    void *p = NULL;
    int pinned = -1;
    cr_assert_eq(apo_cuda_host_acquire(rt, bytes, &p, &pinned), APO_OK, "%s", apo_last_error());
    cr_assert_not_null(p);
    cr_assert_eq((uintptr_t)p % 64, 0, "64-byte aligned");
    cr_assert_eq(pinned, want_pinned, "%zu bytes: pinned %d, expected %d", bytes, pinned,
                 want_pinned);
    memset(p, 0x5a, bytes); /* every byte is the caller's */
    return p;
}

/* The gpu executables link no helpers.c: the refusal check of its test_assert_refused. */
static void assert_refused(apo_status got, apo_status want, const char *fragment) {
    cr_assert_eq(got, want, "%s, expected %s: %s", apo_status_name(got), apo_status_name(want),
                 apo_last_error());
    cr_assert(strstr(apo_last_error(), fragment) != NULL, "\"%s\" not in \"%s\"", fragment,
              apo_last_error());
}

static void release(void *p) {
    cr_assert_eq(apo_cuda_host_release(p), APO_OK, "%s", apo_last_error());
}

Test(gpu_host_pool, a_released_block_is_kept_and_served_again, .timeout = 300) {
    apo_runtime *rt = one_gpu();
    const size_t base = apo_simgpu_pinned_bytes(NULL);
    void *a = acquire(rt, MIB, 1);
    cr_assert_eq(apo_simgpu_pinned_bytes(NULL) - base, BLOCK_1M, "one block pinned");
    release(a);
    apo_cuda_host_pool_info info = pool_info(rt);
    cr_assert_eq(info.blocks_idle, 1);
    cr_assert_eq(info.blocks_in_use, 0);
    cr_assert_eq(info.idle_bytes, BLOCK_1M);
    cr_assert_eq(apo_simgpu_pinned_bytes(NULL) - base, BLOCK_1M, "kept pinned, not freed");
    /* The same size, and a smaller one down to half the block, take it again. */
    void *b = acquire(rt, MIB, 1);
    cr_assert_eq(b, a, "the idle block served the request");
    release(b);
    void *c = acquire(rt, 600 * KIB, 1);
    cr_assert_eq(c, a, "600 KiB fits the 1 MiB block");
    /* One much smaller would hold a block it uses a tenth of: a new one is pinned. */
    release(c);
    void *d = acquire(rt, 100 * KIB, 1);
    cr_assert_neq(d, a);
    info = pool_info(rt);
    cr_assert_eq(info.reused, 2);
    cr_assert_eq(info.pinned_new, 2);
    cr_assert_eq(info.plain, 0);
    release(d);
    /* Misuse the block's header shows is refused, not acted on. */
    assert_refused(apo_cuda_host_release(d), APO_ERR_INVALID_ARGUMENT, "released already");
    char *plain = calloc(1, 256);
    assert_refused(apo_cuda_host_release(plain + 128), APO_ERR_INVALID_ARGUMENT,
                   "no block of apo_cuda_host_acquire");
    free(plain);
    cr_assert_eq(apo_cuda_host_release(NULL), APO_OK);
    void *p = NULL;
    assert_refused(apo_cuda_host_acquire(rt, 0, &p, NULL), APO_ERR_INVALID_ARGUMENT, "bytes is 0");
    apo_runtime_destroy(rt);
    cr_assert_eq(apo_simgpu_pinned_bytes(NULL), base, "the runtime's end freed the idle blocks");
}

Test(gpu_host_pool, a_runtime_without_a_gpu_has_no_pool, .timeout = 300) {
    apo_runtime_destroy(gpu_runtime_or_skip());
    apo_runtime *cpu = runtime_on("cpu", 0);
    void *p = (void *)1;
    assert_refused(apo_cuda_host_acquire(cpu, MIB, &p, NULL), APO_ERR_NO_DEVICE, "no GPU");
    cr_assert_null(p);
    apo_cuda_host_pool_info info = APO_CUDA_HOST_POOL_INFO_INIT;
    assert_refused(apo_cuda_host_pool_query(cpu, &info), APO_ERR_NO_DEVICE, "no GPU");
    apo_runtime_destroy(cpu);
}

Test(gpu_host_pool, the_pool_keeps_to_its_bound_and_gives_plain_memory_beyond, .timeout = 300) {
    apo_runtime *rt = one_gpu();
    const size_t base = apo_simgpu_pinned_bytes(NULL);
    cr_assert_eq(apo_cuda_host_pool_limit(rt, 3 * BLOCK_1M), APO_OK);
    void *p[4];
    for (int i = 0; i < 3; i++)
        p[i] = acquire(rt, MIB, 1);
    p[3] = acquire(rt, MIB, 0); /* a fourth would pass the bound */
    apo_cuda_host_pool_info info = pool_info(rt);
    cr_assert_eq(info.limit_bytes, 3 * BLOCK_1M);
    cr_assert_eq(info.pinned_bytes, 3 * BLOCK_1M);
    cr_assert_eq(info.plain, 1);
    cr_assert_eq(apo_simgpu_pinned_bytes(NULL) - base, 3 * BLOCK_1M);
    for (int i = 0; i < 4; i++)
        release(p[i]);
    info = pool_info(rt);
    cr_assert_eq(info.blocks_idle, 3, "the pinned ones are kept, the plain one freed");
    /* An idle block of another size is freed to make room for a request the bound allows. */
    void *big = acquire(rt, 2 * MIB, 1);
    info = pool_info(rt);
    cr_assert_leq(info.pinned_bytes, info.limit_bytes);
    cr_assert_eq(info.blocks_idle, 1, "two idle blocks went for the 2 MiB one");
    release(big);
    /* A lower bound frees idle blocks now. */
    cr_assert_eq(apo_cuda_host_pool_limit(rt, BLOCK_1M), APO_OK);
    info = pool_info(rt);
    cr_assert_leq(info.pinned_bytes, BLOCK_1M);
    cr_assert_eq(apo_simgpu_pinned_bytes(NULL) - base, info.pinned_bytes);
    /* Bound 0: nothing more is pinned. */
    cr_assert_eq(apo_cuda_host_pool_limit(rt, 0), APO_OK);
    void *q = acquire(rt, MIB, 0);
    release(q);
    cr_assert_eq(pool_info(rt).pinned_bytes, 0);
    apo_runtime_destroy(rt);
    cr_assert_eq(apo_simgpu_pinned_bytes(NULL), base);
}

Test(gpu_host_pool, a_block_outlives_its_runtime_and_is_freed_at_its_release, .timeout = 300) {
    apo_runtime *rt = one_gpu();
    const size_t base = apo_simgpu_pinned_bytes(NULL);
    double *kept = acquire(rt, MIB, 1);
    void *idle = acquire(rt, 2 * MIB, 1);
    void *plain = NULL;
    cr_assert_eq(apo_cuda_host_pool_limit(rt, 3 * MIB + 2 * 64), APO_OK);
    plain = acquire(rt, MIB, 0);
    release(idle);
    apo_runtime_destroy(rt);
    /* The idle block went with the runtime; the one in use is still the caller's. */
    cr_assert_eq(apo_simgpu_pinned_bytes(NULL) - base, BLOCK_1M);
    for (size_t i = 0; i < MIB / sizeof(double); i++)
        kept[i] = (double)i;
    cr_assert_eq(kept[MIB / sizeof(double) - 1], (double)(MIB / sizeof(double) - 1));
    release(kept);
    release(plain);
    cr_assert_eq(apo_simgpu_pinned_bytes(NULL), base, "freed at its release, with the pool");
}

/* ---- threads acquiring at once ---------------------------------------------------------- */

#define N_THREADS 8
#define ROUNDS 40

typedef struct racer {
    apo_runtime *rt;
    unsigned seed;
    size_t limit;
    int failures; /* a wrong byte, a failed call or the bound passed */
} racer;

static void *race(void *arg) {
    racer *r = arg;
    for (int i = 0; i < ROUNDS; i++) {
        r->seed = r->seed * 1103515245u + 12345u;
        const size_t bytes = (size_t)64 * KIB + (r->seed >> 8) % (768 * KIB);
        unsigned char *p = NULL;
        if (apo_cuda_host_acquire(r->rt, bytes, (void **)&p, NULL) != APO_OK) {
            r->failures++;
            continue;
        }
        const unsigned char mark = (unsigned char)(r->seed >> 3);
        memset(p, mark, bytes);
        apo_cuda_host_pool_info info = APO_CUDA_HOST_POOL_INFO_INIT;
        if (apo_cuda_host_pool_query(r->rt, &info) != APO_OK || info.pinned_bytes > r->limit)
            r->failures++;
        /* No other thread wrote into it meanwhile. */
        if (p[0] != mark || p[bytes / 2] != mark || p[bytes - 1] != mark)
            r->failures++;
        if (apo_cuda_host_release(p) != APO_OK)
            r->failures++;
    }
    return NULL;
}

Test(gpu_host_pool, threads_acquiring_at_once_get_blocks_of_their_own_within_the_bound,
     .timeout = 300) {
    apo_runtime *rt = one_gpu();
    const size_t base = apo_simgpu_pinned_bytes(NULL);
    const size_t limit = 4 * MIB;
    cr_assert_eq(apo_cuda_host_pool_limit(rt, limit), APO_OK);
    pthread_t t[N_THREADS];
    racer r[N_THREADS];
    for (int i = 0; i < N_THREADS; i++) {
        r[i] = (racer){rt, 7u + 31u * (unsigned)i, limit, 0};
        cr_assert_eq(pthread_create(&t[i], NULL, race, &r[i]), 0);
    }
    for (int i = 0; i < N_THREADS; i++) {
        pthread_join(t[i], NULL);
        cr_assert_eq(r[i].failures, 0, "thread %d: %d failures", i, r[i].failures);
    }
    apo_cuda_host_pool_info info = pool_info(rt);
    cr_assert_eq(info.blocks_in_use, 0);
    cr_assert_leq(info.pinned_bytes, limit);
    cr_assert_eq(info.reused + info.pinned_new + info.plain, (uint64_t)N_THREADS * ROUNDS);
    cr_assert_gt(info.reused, 0, "blocks were served again");
    cr_assert_eq(apo_simgpu_pinned_bytes(NULL) - base, info.pinned_bytes);
    apo_runtime_destroy(rt);
    cr_assert_eq(apo_simgpu_pinned_bytes(NULL), base);
}

Test(gpu_host_pool, pinning_that_fails_gives_plain_memory_without_an_error, .timeout = 300) {
    apo_runtime *rt = one_gpu();
    const size_t base = apo_simgpu_pinned_bytes(NULL);
    apo_simgpu_fail_pinned_above(1);
    void *p = acquire(rt, MIB, 0);
    apo_simgpu_clear_faults();
    apo_cuda_host_pool_info info = pool_info(rt);
    cr_assert_eq(info.plain, 1);
    cr_assert_eq(info.pinned_bytes, 0, "the reservation was given back");
    cr_assert_eq(apo_simgpu_pinned_bytes(NULL), base);
    void *q = acquire(rt, MIB, 1); /* pinning works again */
    release(p);
    release(q);
    apo_runtime_destroy(rt);
}

/* ---- a call on the pool's blocks -------------------------------------------------------- */

#define CALL_COLS ((size_t)200000)

/* bollinger over x on rt into outs; the GPU's host_copy_ms into *host_copy_ms and the bytes it
 * copied into pageable memory into *pageable. */
static void bollinger_on(apo_runtime *rt, const double *x, double *outs[3], double *host_copy_ms,
                         size_t *pageable) {
    const double *ins[1] = {x};
    apo_workload w = test_workload("bollinger", 1, CALL_COLS, ins, 1, outs, 3);
    apo_report rep = APO_REPORT_INIT;
    const size_t before = apo_simgpu_pageable_d2h_bytes();
    cr_assert_eq(apo_distribute_workload(rt, &w, &rep), APO_OK, "%s", apo_last_error());
    *pageable = apo_simgpu_pageable_d2h_bytes() - before;
    *host_copy_ms = 0;
    for (size_t i = 0; i < rep.n_devices && i < APO_MAX_DEVICES; i++)
        if (rep.devices[i].kind == APO_DEVICE_CUDA)
            *host_copy_ms += rep.devices[i].host_copy_ms;
}

Test(gpu_host_pool, outputs_in_pool_blocks_are_written_straight_with_the_cpu_bits, .timeout = 600) {
    apo_runtime *rt = one_gpu();
    apo_runtime *cpu = runtime_on("cpu", 0);
    const size_t bytes = CALL_COLS * sizeof(double);
    double *x = acquire(rt, bytes, 1);
    double *src = walk(1, CALL_COLS, 5);
    memcpy(x, src, bytes);
    double *want[3], *pooled[3], *plain[3];
    for (int k = 0; k < 3; k++) {
        want[k] = malloc(bytes);
        plain[k] = malloc(bytes);
        pooled[k] = acquire(rt, bytes, 1);
    }
    double host_copy_ms;
    size_t pageable;
    bollinger_on(cpu, src, want, &host_copy_ms, &pageable);
    /* Pageable outputs come back through staging (a host copy) or, with no slot pinned yet,
     * straight into pageable memory: either way not straight into pinned memory. */
    bollinger_on(rt, x, plain, &host_copy_ms, &pageable);
    cr_assert(host_copy_ms > 0 || pageable > 0, "pageable outputs: host copy %g ms, %zu bytes",
              host_copy_ms, pageable);
    /* The pool's blocks, inputs and outputs: no host copy, nothing into pageable memory. */
    bollinger_on(rt, x, pooled, &host_copy_ms, &pageable);
    cr_assert_eq(host_copy_ms, 0.0, "no staging copy");
    cr_assert_eq(pageable, 0);
    for (int k = 0; k < 3; k++) {
        cr_assert_eq(memcmp(plain[k], want[k], bytes), 0, "output %d, pageable: the cpu's bits", k);
        cr_assert_eq(memcmp(pooled[k], want[k], bytes), 0, "output %d, pool: the cpu's bits", k);
        free(want[k]);
        free(plain[k]);
        release(pooled[k]);
    }
    release(x);
    free(src);
    apo_runtime_destroy(cpu);
    apo_runtime_destroy(rt);
}
