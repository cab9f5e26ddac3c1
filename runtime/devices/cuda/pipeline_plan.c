/*
 * The CUDA pipeline's decisions that need no CUDA (pipeline_plan.h): chunk caps, the slot
 * schedule, host copies over threads, the overlap of intervals, host threads. Built in every
 * build, with or without the CUDA backend.
 */
#include "devices/cuda/pipeline_plan.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* ---- chunks and the slot schedule ----------------------------------------------------- */

uint64_t apo__gpu_wave_tiles(int sms) {
    return (uint64_t)(sms > 0 ? sms : 1) * APO_CUDA_TILES_PER_SM;
}

uint64_t apo__chunk_tiles(uint64_t task_tiles, int sms, int staged) {
    if (!staged || task_tiles == 0)
        return task_tiles > 0 ? task_tiles : 1;
    const uint64_t wave = apo__gpu_wave_tiles(sms);
    /* Enough chunks for the pipeline, each a whole number of waves: a part wave in every
     * chunk would leave SMs idle at each chunk's tail rather than once at the task's.
     * Rounding down keeps at least APO_CUDA_MIN_CHUNKS chunks wherever the task has that
     * many waves (at most twice as many); below that, one wave per chunk. */
    uint64_t per = task_tiles / APO_CUDA_MIN_CHUNKS + (task_tiles % APO_CUDA_MIN_CHUNKS != 0);
    per = per / wave * wave;
    if (per < wave)
        per = wave;
    return per < task_tiles ? per : task_tiles;
}

apo__pipe_result apo__pipeline_drive(const apo__pipeline_ops *ops, void *ctx, uint64_t first,
                                     uint64_t end, uint64_t chunk_tiles, size_t slot_doubles,
                                     unsigned slots, uint64_t *stuck_tile) {
    if (chunk_tiles == 0)
        chunk_tiles = 1;
    if (slots == 0 || slots > APO_CUDA_SLOTS)
        slots = APO_CUDA_SLOTS;
    int busy[APO_CUDA_SLOTS] = {0};
    uint64_t next = first;
    unsigned chunk = 0;
    while (next < end) {
        if (ops->stop(ctx))
            return APO_PIPE_STOPPED;
        const unsigned slot = chunk % slots;
        /* The slot holds the oldest chunk in flight: finishing it leaves the others queued. */
        if (busy[slot]) {
            busy[slot] = 0;
            if (!ops->finish(ctx, slot))
                return APO_PIPE_FAILED;
        }
        const uint64_t limit = end - next > chunk_tiles ? next + chunk_tiles : end;
        const uint64_t stop = ops->chunk_end(ctx, next, limit, slot_doubles);
        if (stop == 0) {
            *stuck_tile = next;
            return APO_PIPE_TOO_BIG;
        }
        if (!ops->issue(ctx, slot, next, stop))
            return APO_PIPE_FAILED;
        busy[slot] = 1;
        next = stop;
        chunk++;
    }
    /* Everything is issued: finish the rest in the order it was issued. */
    for (unsigned i = 0; i < slots; i++) {
        const unsigned slot = (chunk + i) % slots;
        if (!busy[slot])
            continue;
        if (ops->stop(ctx))
            return APO_PIPE_STOPPED;
        busy[slot] = 0;
        if (!ops->finish(ctx, slot))
            return APO_PIPE_FAILED;
    }
    return APO_PIPE_DONE;
}

/* ---- pinned staging, sized to the need ---------------------------------------------------- */

/* ---- host copies over threads ---------------------------------------------------------- */

/* Parts split the concatenated range at whole pages of it, so that two threads rarely write
 * the same cache line. */
#define APO_COPY_GRAIN ((size_t)4096)

static size_t copy_total(const apo__copy *list, size_t n) {
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += list[i].bytes;
    return total;
}

void apo__copy_part(const apo__copy *list, size_t n, unsigned part, unsigned parts) {
    const size_t total = copy_total(list, n);
    const size_t grains = (total + APO_COPY_GRAIN - 1) / APO_COPY_GRAIN;
    const size_t base = grains / parts, extra = grains % parts;
    const size_t first = (size_t)part * base + (part < extra ? part : extra);
    const size_t count = base + (part < extra ? 1 : 0);
    size_t lo = first * APO_COPY_GRAIN, hi = (first + count) * APO_COPY_GRAIN;
    if (hi > total)
        hi = total;
    size_t at = 0; /* offset of list[i] in the concatenation */
    for (size_t i = 0; i < n && at < hi; i++) {
        const size_t a = at, b = at + list[i].bytes;
        at = b;
        const size_t from = a > lo ? a : lo, to = b < hi ? b : hi;
        if (from < to)
            memcpy((char *)list[i].dst + (from - a), (const char *)list[i].src + (from - a),
                   to - from);
    }
}

unsigned apo__copy_threads_for(size_t bytes, unsigned threads) {
    const size_t useful = bytes / APO_COPY_MIN_BYTES_PER_THREAD;
    if (useful < 1 || threads < 1)
        return 1;
    return useful < threads ? (unsigned)useful : threads;
}

void apo__copy_all(const apo__copy *list, size_t n, unsigned threads) {
    const unsigned t = apo__copy_threads_for(copy_total(list, n), threads);
    if (t <= 1) {
        for (size_t i = 0; i < n; i++)
            if (list[i].bytes > 0)
                memcpy(list[i].dst, list[i].src, list[i].bytes);
        return;
    }
    /* The team may be smaller than asked (nested parallelism off, a thread limit): the parts
     * follow the team that is there. */
#pragma omp parallel num_threads(t)
    apo__copy_part(list, n, (unsigned)omp_get_thread_num(), (unsigned)omp_get_num_threads());
}

/* ---- the overlap of timed intervals ------------------------------------------------------ */

double apo__interval_sum(const apo__interval *iv, size_t n) {
    double sum = 0.0;
    for (size_t i = 0; i < n; i++)
        if (iv[i].end > iv[i].start)
            sum += iv[i].end - iv[i].start;
    return sum;
}

static int by_start(const void *a, const void *b) {
    const double x = ((const apo__interval *)a)->start, y = ((const apo__interval *)b)->start;
    return x < y ? -1 : x > y;
}

double apo__interval_union(apo__interval *iv, size_t n) {
    qsort(iv, n, sizeof *iv, by_start);
    double total = 0.0, run_start = 0.0, run_end = 0.0;
    int open = 0; /* a run of overlapping intervals is being measured */
    for (size_t i = 0; i < n; i++) {
        if (!(iv[i].end > iv[i].start))
            continue;
        if (open && iv[i].start <= run_end) {
            if (iv[i].end > run_end)
                run_end = iv[i].end;
            continue;
        }
        if (open)
            total += run_end - run_start;
        run_start = iv[i].start;
        run_end = iv[i].end;
        open = 1;
    }
    if (open)
        total += run_end - run_start;
    return total;
}

/* ---- host threads -------------------------------------------------------------------------- */

int apo__host_cores(void) { return omp_get_max_threads(); }

int apo__gpu_host_threads(int cores, size_t n_gpus) {
    if (n_gpus == 0)
        return 0;
    const long per = (long)cores / (2 * (long)n_gpus);
    if (per < 1)
        return 1;
    return per > APO_GPU_MAX_HOST_THREADS ? APO_GPU_MAX_HOST_THREADS : (int)per;
}

int apo__cpu_threads_beside_gpus(int cores, int gpu_threads) {
    const int left = cores - gpu_threads;
    return left >= 1 ? left : 1;
}
