/*
 * What the CUDA pipeline (cuda_device.c) decides without CUDA, so that it is built in every
 * build and unit-tested on machines without a GPU (tests/runtime/devices/test_cuda_plan.c):
 *
 * - how many tiles a chunk holds: whole waves of tiles over the GPU's SMs, and enough
 *   chunks to keep APO_CUDA_SLOTS - 1 of them in flight while the host finishes one;
 * - the fewest tiles worth giving a GPU at all (the balancer's floor for its share);
 * - the slot schedule itself (apo__pipeline_drive), written against callbacks that the CUDA
 *   backend fills with stream work and the tests with a recorder;
 * - host copies spread over threads (the staging copies between the caller's arrays and
 *   pinned memory);
 * - the overlap of timed intervals: the phases of a task as intervals on one clock, their
 *   sum against the length of their union;
 * - how many host threads each GPU's driver takes, and what is left to the cpu device.
 *
 * docs/cuda.md ("The pipeline", "Host threads", "Timing") says why each is what it is.
 */
#ifndef APO_RUNTIME_DEVICES_CUDA_PIPELINE_PLAN_H
#define APO_RUNTIME_DEVICES_CUDA_PIPELINE_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "devices/staging_policy.h"

/* A large task is cut into at least this many chunks (two rounds of the slots), so that the
 * pipeline fills before it drains, as long as each chunk still holds a wave of tiles. */
#define APO_CUDA_MIN_CHUNKS (2 * APO_CUDA_SLOTS)

/* Tiles per SM in one wave: the work a kernel needs to give every SM at least one warp. A
 * staged warp owns 32 consecutive tiles, and a simple kernel's thread is one tile, so 32
 * tiles per SM is one warp on each (docs/cuda.md, "Staged kernels"). */
#define APO_CUDA_TILES_PER_SM 32

/* ---- chunks and the slot schedule ----------------------------------------------------- */

/* Tiles in one wave over a GPU of `sms` multiprocessors (at least 1): sms *
 * APO_CUDA_TILES_PER_SM. Fewer tiles than this leave SMs without a warp, however the work
 * is cut: the balancer gives a GPU no share smaller than one wave (core/plan.c). */
uint64_t apo__gpu_wave_tiles(int sms);

/* The most tiles one chunk holds, for a task of `task_tiles` tiles on a GPU of `sms`
 * multiprocessors. With `staged` 0 (nothing of the task goes through a slot but partials:
 * its arrays are read and written in place) the whole task, one launch: there is no copy
 * to overlap. Otherwise task_tiles / APO_CUDA_MIN_CHUNKS (rounded up) rounded down to
 * whole waves, at least one wave, at most the task: chunks of whole waves give every SM
 * work in each chunk's kernel, and a task of APO_CUDA_MIN_CHUNKS waves or more still makes
 * that many chunks (at most twice as many) to keep the slots busy. The slot's bytes cap a
 * chunk on top of this (apo__pipeline_drive). */
uint64_t apo__chunk_tiles(uint64_t task_tiles, int sms, int staged);

/* What the slot schedule asks of its backend. `ctx` is the backend's. Each returns 1 when
 * it succeeded, 0 when the task failed (the schedule then stops issuing and returns
 * APO_PIPE_FAILED; draining what is in flight is the backend's job). */
typedef struct apo__pipeline_ops {
    /* The end of the longest chunk of tiles from `first` (at most `end`) that occupies at
     * most `cap` doubles of a slot; 0 when even the tile `first` alone does not fit. */
    uint64_t (*chunk_end)(void *ctx, uint64_t first, uint64_t end, size_t cap);
    /* Stages tiles [first, end) into slot `slot` and enqueues their work. */
    int (*issue)(void *ctx, unsigned slot, uint64_t first, uint64_t end);
    /* Waits for the chunk in slot `slot` and takes its results. */
    int (*finish)(void *ctx, unsigned slot);
    /* Nonzero when the task must stop issuing (abandoned at its deadline). */
    int (*stop)(void *ctx);
} apo__pipeline_ops;

typedef enum apo__pipe_result {
    APO_PIPE_DONE = 0,    /* every tile issued and finished */
    APO_PIPE_FAILED = 1,  /* a callback failed */
    APO_PIPE_STOPPED = 2, /* stop() said so */
    APO_PIPE_TOO_BIG = 3  /* one tile needs more than a whole slot (*stuck_tile says which) */
} apo__pipe_result;

/* Runs tiles [first, end) through the first `slots` slots (1 to APO_CUDA_SLOTS; others are
 * read as APO_CUDA_SLOTS): chunk k goes to slot k % slots, after the chunk that slot held has
 * been finished; chunks are at most `chunk_tiles` tiles (apo__chunk_tiles) and at most
 * `slot_doubles` doubles. After the last chunk is issued the rest are finished oldest first.
 * Finishing the oldest chunk while the others stay in flight is what keeps slots - 1 chunks
 * queued on the GPU while the host copies. A task runs on fewer slots than
 * APO_CUDA_SLOTS while the others are still being pinned (docs/cuda.md, "Staging slots sized to the
 * need"). On anything but APO_PIPE_DONE, chunks may still be in flight (in slots that were issued
 * and not finished). */
apo__pipe_result apo__pipeline_drive(const apo__pipeline_ops *ops, void *ctx, uint64_t first,
                                     uint64_t end, uint64_t chunk_tiles, size_t slot_doubles,
                                     unsigned slots, uint64_t *stuck_tile);

/* ---- host copies over threads ---------------------------------------------------------- */

typedef struct apo__copy {
    void *dst;
    const void *src;
    size_t bytes;
} apo__copy;

/* Below this many bytes per thread a copy is left to fewer threads: starting a thread costs
 * more than it saves. */
#define APO_COPY_MIN_BYTES_PER_THREAD ((size_t)1 << 20)

/* Copies the bytes [part * total / parts, (part + 1) * total / parts) of the list, where
 * total is the sum of its sizes and the list is read as one concatenated range: every byte
 * of every copy is copied by exactly one part. */
void apo__copy_part(const apo__copy *list, size_t n, unsigned part, unsigned parts);

/* How many of `threads` threads a copy of `bytes` bytes is spread over (at least 1). */
unsigned apo__copy_threads_for(size_t bytes, unsigned threads);

/* Performs every copy of the list, spread over up to `threads` host threads (an OpenMP
 * team of the calling thread). */
void apo__copy_all(const apo__copy *list, size_t n, unsigned threads);

/* ---- the overlap of timed intervals ------------------------------------------------------ */

/* A phase that ran from `start` to `end`, in seconds on one clock. */
typedef struct apo__interval {
    double start, end;
} apo__interval;

/* The summed lengths of the intervals (empty and reversed ones count 0). */
double apo__interval_sum(const apo__interval *iv, size_t n);

/* The length of their union: the time at least one of them was running. Sorts `iv` by
 * start. */
double apo__interval_union(apo__interval *iv, size_t n);

/* ---- host threads -------------------------------------------------------------------------- */

/* The cpu device's default thread count: OpenMP's (the cores this process may use). */
int apo__host_cores(void);

/* Host threads each of `n_gpus` GPUs takes: its driver (the device's worker thread) and the
 * helpers that share its staging copies. GPUs take at most half of `cores` together and
 * each at most APO_GPU_MAX_HOST_THREADS, at least 1; 0 without GPUs. */
#define APO_GPU_MAX_HOST_THREADS 8
int apo__gpu_host_threads(int cores, size_t n_gpus);

/* The cpu device's thread count beside GPUs that take `gpu_threads` host threads in all:
 * `cores - gpu_threads`, at least 1. */
int apo__cpu_threads_beside_gpus(int cores, int gpu_threads);

#endif
