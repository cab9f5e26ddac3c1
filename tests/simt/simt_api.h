/*
 * simt_api.h: how a test (C or C++) drives the SIMT layer (tests/simt/simt.h, docs/simt.md):
 * the schedule of the simulated threads, where async copies land, a barrier to leave out, and
 * what the launches did.
 */
#ifndef APO_SIMT_API_H
#define APO_SIMT_API_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum simt_schedule {
    /* Every thread of a block runs at once on its own host thread; barriers block. What
     * ThreadSanitizer watches. */
    SIMT_FREE = 0,
    /* The threads of a block still have host threads of their own, but one runs at a time,
     * from one barrier to the next, in an order drawn at random (from the seed) each time a
     * thread stops: every interleaving of the phases between barriers can come up. */
    SIMT_SERIAL_RANDOM = 1,
    /* As SIMT_SERIAL_RANDOM, always the highest-numbered runnable thread first: lane 31 runs
     * its phase before lane 0 runs the previous one, whenever a barrier lets it. */
    SIMT_SERIAL_DESCENDING = 2,
    /* The lowest-numbered runnable thread first: lane 0 runs ahead of the others. */
    SIMT_SERIAL_ASCENDING = 3,
} simt_schedule;

typedef enum simt_copies {
    SIMT_COPIES_RANDOM = 0, /* each async copy lands early or late at random */
    SIMT_COPIES_EARLY = 1,  /* when it is issued */
    SIMT_COPIES_LATE = 2,   /* when its batch is waited for */
} simt_copies;

typedef struct simt_options {
    simt_schedule schedule;
    simt_copies copies;
    uint64_t seed;
    /* 0: every barrier holds. n > 0: every thread skips its n-th call of __syncwarp or
     * __syncthreads in each block (the planted fault of the missing barrier). */
    unsigned long skip_barrier;
    /* 0: every block runs its threads at once, as the schedule says. 1: a kernel whose first
     * block made no barrier, warp exchange or async copy runs its later blocks' threads in
     * turn on the launching thread (the simulated runtime's choice: its grid-stride kernels
     * of thousands of blocks would otherwise start a host thread per CUDA thread); a barrier
     * in such a block then fails the launch. */
    int inline_barrier_free;
    /* 0: a host thread per CUDA thread. 1, with a serial schedule: the block's threads are
     * fibers (ucontext) on the launching thread, switched at the same points in the same
     * order, at a fraction of the cost (the simulated runtime's choice). ThreadSanitizer
     * does not follow fibers: the free schedule stays on host threads. */
    int fibers;
} simt_options;

/* For the launches that follow (the default: SIMT_FREE, SIMT_COPIES_RANDOM, seed 1, no
 * barrier skipped). */
void simt_set_options(const simt_options *o);

typedef struct simt_stats {
    unsigned long launches, failed_launches;
    unsigned long blocks, threads;
    unsigned long barriers, skipped_barriers;
    unsigned long copies_early, copies_late;
    size_t most_dynamic_shared, most_static_shared;
    unsigned most_block_threads;
    /* The staged kernels' passes (kernels/cuda/stage.h, APO_STAGE_PASS) of the general path
     * and of the fast path, counted once per thread: so a test knows which path its shapes
     * ran. */
    unsigned long staged_general, staged_fast;
} simt_stats;

void simt_get_stats(simt_stats *s);
/* Counts a staged pass of the calling thread (simt.h points stage.h's APO_STAGE_NOTE_PASS
 * here): fast 1 for the fast path, 0 for the general one. */
void simt_note_staged_pass(int fast);
void simt_reset_stats(void);

/* Why the last failed launch failed ("" when none has): a limit, or a fault the layer saw
 * while the kernel ran (a lane that left its warp waiting at a barrier, threads that could
 * never meet at one, a bad async copy). */
const char *simt_last_failure(void);

#ifdef __cplusplus
}
#endif

#endif /* APO_SIMT_API_H */
