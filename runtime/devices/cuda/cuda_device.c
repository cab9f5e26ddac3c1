/*
 * The CUDA backend: discovery of the machine's NVIDIA GPUs, and per GPU a staging pipeline
 * that runs a contiguous run of tiles in chunks over two non-blocking streams.
 *
 * Pipeline: each GPU owns two slots, each a CUDA stream, four timing events, a device
 * buffer and a pinned host buffer of the same size. The buffers are allocated at the
 * GPU's first task and kept for the runtime's life (pinning is slow: never per call); an
 * allocation that fails is retried at half the size. A task is cut into chunks that fit a
 * slot; chunk i goes to slot i % 2: the host copies its inputs into the slot's pinned
 * buffer, then enqueues host-to-device, the kernel and device-to-host on the slot's stream,
 * and while that runs it finishes chunk i - 1 on the other slot (waits for its stream and
 * copies its outputs from pinned memory to the caller's arrays). So the copies of one chunk
 * overlap the kernel of the other, and the host's staging copies overlap both. Phase times
 * come from the events; the task's wall time from the host clock, so the report shows how
 * much overlapped.
 *
 * Device-resident arrays (apportion_cuda.h): inputs already on this GPU are read in place
 * and outputs wanted on it are written in place; inputs on another GPU arrive by peer copy.
 * Outputs for another GPU are either kept resident here, in one buffer per task (a
 * "segment"), for the grouped NCCL gather after the phase (cuda_gather.c), or, without
 * NCCL or when that buffer cannot be had, leave by peer copy chunk by chunk.
 *
 * Deadlines (device.h, the task guard): every read of the call and every copy into the
 * caller's host arrays is an access under the guard; waiting for the GPU is not, so a GPU
 * that stops answering can be abandoned at its deadline and its late results are then
 * dropped. With device-resident arrays the GPU itself writes or reads the caller's memory,
 * and a queued copy cannot be recalled: such a task holds its access throughout, so
 * abandoning it waits for the GPU (docs/design.md, "Faults").
 *
 * Determinism: the backend only moves bytes; what is computed is the kernel's tile bodies,
 * whose bits do not depend on the chunking (kernels/<name>.cu).
 */
#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "devices/cuda/cuda_device.h"
#include "devices/cuda/cuda_discovery.h"
#include "devices/device.h"

#define APO_CUDA_SLOTS 2
/* A slot's buffers: at most this much each, never less than the minimum (below it a
 * failed allocation is a failed device). */
#define APO_CUDA_SLOT_MAX_BYTES ((size_t)256 << 20)
#define APO_CUDA_SLOT_MIN_BYTES ((size_t)1 << 20)
/* Default budget: half the free memory at discovery, at most this much. */
#define APO_CUDA_DEFAULT_BUDGET_MAX_MB 4096
/* A task is cut into at least this many chunks when it is large, so that transfers and
 * kernels overlap; a chunk is never cut below this many doubles for it. */
#define APO_CUDA_MIN_CHUNKS 8
#define APO_CUDA_MIN_CHUNK_DOUBLES ((size_t)1 << 18)

/* What a chunk moves: tiles [first, end), and in every staged array the element ranges. */
typedef struct chunk_plan {
    uint64_t first, end;
    size_t in_lo, in_hi;   /* of each input array */
    size_t out_lo, out_hi; /* of each GPU-written output array */
} chunk_plan;

typedef struct cuda_slot {
    cudaStream_t stream;
    cudaEvent_t ev[4]; /* start, inputs in, kernel done, outputs out */
    double *dev;       /* device staging */
    double *host;      /* pinned staging */
    int busy;          /* a chunk is in flight */
    chunk_plan plan;
} cuda_slot;

typedef struct cuda_state {
    int ordinal;
    size_t budget_bytes; /* staging budget: both slots' device buffers together */
    size_t slot_bytes;   /* size of each slot buffer, once allocated */
    int staged;          /* slot buffers allocated */
    cuda_slot slots[APO_CUDA_SLOTS];
    /* The running task holds an access to the call (apo__task_enter_call), and keeps it
     * across waits for the GPU (device-resident arrays). */
    int inside, hold_across_waits;
    /* The running task writes its outputs in place at task_out (a segment being filled)
     * rather than staging them; NULL otherwise. */
    double *task_out[APO_MAX_IO];
    /* Segments of the current call, kept for the gather (cuda_gather.c). */
    apo__gpu_segment *segments;
    size_t n_segments, segments_cap;
} cuda_state;

/* ---- errors ----------------------------------------------------------------------------- */

apo_status apo__cuda_fail(int err, const char *what) {
    cudaError_t e = (cudaError_t)err;
    apo_status st = e == cudaErrorMemoryAllocation ? APO_ERR_OUT_OF_MEMORY : APO_ERR_DEVICE_LOST;
    return apo__fail(st, "%s: CUDA error %s (%s)", what, cudaGetErrorName(e),
                     cudaGetErrorString(e));
}

/* Logs a failed CUDA call of a task; the task then fails and its tiles move. */
static int check(cudaError_t e, const apo__device *dev, const char *what) {
    if (e == cudaSuccess)
        return 1;
    apo__log(APO_LOG_WARN, APO_SUBSYS_DEVICE, "%s: %s failed: %s (%s)", dev->info.id, what,
             cudaGetErrorName(e), cudaGetErrorString(e));
    return 0;
}

int apo__cuda_ordinal(const apo__device *dev) {
    if (dev->info.kind != APO_DEVICE_CUDA)
        return -1;
    return ((const cuda_state *)dev->state)->ordinal;
}

int apo__device_can_run(const apo__device *dev, const apo__kernel *kernel) {
    if (dev->info.kind != APO_DEVICE_CUDA)
        return 1;
    return kernel->cuda != NULL && kernel->cuda->launch != NULL;
}

/* ---- staging buffers ---------------------------------------------------------------------- */

static void free_staging(cuda_state *st) {
    for (int i = 0; i < APO_CUDA_SLOTS; i++) {
        cuda_slot *s = &st->slots[i];
        if (s->dev != NULL)
            cudaFree(s->dev);
        if (s->host != NULL)
            cudaFreeHost(s->host);
        s->dev = NULL;
        s->host = NULL;
    }
    st->staged = 0;
}

/* Allocates both slots' buffers at the budget's size, halving after each failure. */
static int ensure_staging(apo__device *dev, cuda_state *st) {
    if (st->staged)
        return 1;
    size_t bytes = st->budget_bytes / APO_CUDA_SLOTS;
    if (bytes > APO_CUDA_SLOT_MAX_BYTES)
        bytes = APO_CUDA_SLOT_MAX_BYTES;
    for (; bytes >= APO_CUDA_SLOT_MIN_BYTES; bytes /= 2) {
        int ok = 1;
        for (int i = 0; i < APO_CUDA_SLOTS && ok; i++) {
            cuda_slot *s = &st->slots[i];
            ok = cudaMalloc((void **)&s->dev, bytes) == cudaSuccess &&
                 cudaMallocHost((void **)&s->host, bytes) == cudaSuccess;
        }
        if (ok) {
            st->slot_bytes = bytes;
            st->staged = 1;
            apo__log(APO_LOG_INFO, APO_SUBSYS_DEVICE, "%s: staging 2 x %zu MiB", dev->info.id,
                     bytes >> 20);
            return 1;
        }
        /* An allocation failure is not sticky: clear it and try smaller. */
        (void)cudaGetLastError();
        free_staging(st);
        apo__log(APO_LOG_INFO, APO_SUBSYS_DEVICE,
                 "%s: cannot allocate 2 x %zu MiB of staging; halving", dev->info.id, bytes >> 20);
    }
    apo__log(APO_LOG_WARN, APO_SUBSYS_DEVICE,
             "%s: cannot allocate even 2 x %zu MiB of staging memory", dev->info.id,
             APO_CUDA_SLOT_MIN_BYTES >> 20);
    return 0;
}

/* A pointer that indexes like `base` shifted back by `lo` elements (see apo__cuda_chunk);
 * computed on integers because it may point before the allocation. */
static double *biased(double *base, size_t lo) {
    return (double *)((uintptr_t)base - lo * sizeof(double));
}

/* ---- segments ------------------------------------------------------------------------------ */

size_t apo__cuda_segments(const apo__device *dev, const apo__gpu_segment **segments) {
    if (dev->info.kind != APO_DEVICE_CUDA || dev->state == NULL) {
        *segments = NULL;
        return 0;
    }
    const cuda_state *st = dev->state;
    *segments = st->segments;
    return st->n_segments;
}

void apo__cuda_release_segments(apo__device *dev) {
    if (dev->info.kind != APO_DEVICE_CUDA || dev->state == NULL)
        return;
    cuda_state *st = dev->state;
    if (st->n_segments > 0 && cudaSetDevice(st->ordinal) == cudaSuccess)
        for (size_t i = 0; i < st->n_segments; i++)
            cudaFree(st->segments[i].buf);
    (void)cudaGetLastError();
    st->n_segments = 0;
}

/* For a task whose outputs belong to another GPU and are gathered after the phase:
 * allocates the task's segment (outputs [lo, hi) of each GPU-written output) and points
 * task_out at it. 0 when it cannot be had; the task then peer-copies chunk by chunk,
 * which gives the same bits. */
static int open_segment(apo__device *dev, cuda_state *st, const apo__call *call, size_t lo,
                        size_t hi) {
    const size_t n_out = call->kernel->cuda->n_outputs, len = hi - lo;
    if (st->n_segments == st->segments_cap) {
        size_t cap = st->segments_cap == 0 ? 4 : 2 * st->segments_cap;
        apo__gpu_segment *grown = realloc(st->segments, cap * sizeof *grown);
        if (grown == NULL)
            return 0;
        st->segments = grown;
        st->segments_cap = cap;
    }
    double *buf = NULL;
    if (n_out == 0 || len == 0 || len > SIZE_MAX / sizeof(double) / n_out ||
        cudaMalloc((void **)&buf, n_out * len * sizeof(double)) != cudaSuccess) {
        (void)cudaGetLastError();
        apo__log(APO_LOG_INFO, APO_SUBSYS_DEVICE,
                 "%s: no room to keep %zu outputs for the gather; peer copies instead",
                 dev->info.id, n_out * len);
        return 0;
    }
    st->segments[st->n_segments] = (apo__gpu_segment){buf, lo, hi};
    for (size_t o = 0; o < n_out; o++)
        st->task_out[o] = biased(buf + o * len, lo);
    return 1;
}

/* Ends the task's segment: kept for the gather when the task succeeded, freed otherwise. */
static void close_segment(cuda_state *st, int ok) {
    if (st->task_out[0] == NULL)
        return;
    if (ok)
        st->n_segments++;
    else
        cudaFree(st->segments[st->n_segments].buf);
    memset(st->task_out, 0, sizeof st->task_out);
}

/* ---- chunk planning ------------------------------------------------------------------------ */

/* Inputs staged through the slot (not read in place on this GPU). */
static size_t staged_inputs(const apo__call *call, const cuda_state *st) {
    return call->in_gpu == st->ordinal ? 0 : call->kernel->n_inputs;
}

/* GPU-written outputs staged through the slot (not written in place on this GPU, neither
 * into the caller's array nor into a segment). */
static size_t staged_outputs(const apo__call *call, const cuda_state *st) {
    return call->out_gpu == st->ordinal || st->task_out[0] != NULL ? 0
                                                                   : call->kernel->cuda->n_outputs;
}

static chunk_plan plan_chunk(const apo__call *call, size_t halo, uint64_t first, uint64_t end) {
    const apo__kernel *k = call->kernel;
    size_t ra, ba, ea, rb, bb, eb;
    apo__tile_range(call, first, &ra, &ba, &ea);
    apo__tile_range(call, end - 1, &rb, &bb, &eb);
    chunk_plan p = {first, end, 0, 0, 0, 0};
    if (k->cuda->whole_row_input) {
        p.in_lo = ra * call->cols;
        p.in_hi = (rb + 1) * call->cols;
    } else {
        size_t lo = ra * call->cols + ba;
        p.in_lo = lo > halo ? lo - halo : 0;
        p.in_hi = rb * call->cols + eb;
    }
    size_t oc = k->output_cols(k, call->params, call->cols, 0);
    p.out_lo = ra * oc + ba;
    p.out_hi = rb * oc + eb;
    return p;
}

/* Doubles a chunk occupies in a slot: staged inputs, staged outputs, tile partials. */
static size_t chunk_doubles(const apo__call *call, const cuda_state *st, const chunk_plan *p) {
    return staged_inputs(call, st) * (p->in_hi - p->in_lo) +
           staged_outputs(call, st) * (p->out_hi - p->out_lo) +
           (size_t)(p->end - p->first) * call->kernel->partial_len;
}

/* The longest chunk from `first` (at most `end`) within `cap` doubles; 0 when even one
 * tile does not fit. */
static uint64_t chunk_end(const apo__call *call, const cuda_state *st, size_t halo, uint64_t first,
                          uint64_t end, size_t cap) {
    chunk_plan one = plan_chunk(call, halo, first, first + 1);
    if (chunk_doubles(call, st, &one) > cap)
        return 0;
    uint64_t lo = first + 1, hi = end; /* lo fits; find the largest that fits */
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo + 1) / 2;
        chunk_plan p = plan_chunk(call, halo, first, mid);
        if (chunk_doubles(call, st, &p) <= cap)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* ---- the pipeline ----------------------------------------------------------------------- */

typedef struct task_tally {
    double h2d_ms, kernel_ms, d2h_ms;
    uint64_t chunks;
} task_tally;

/* Copies the chunk's inputs in, launches the kernel and copies its outputs out, all on the
 * slot's stream. */
static int issue_chunk(apo__device *dev, cuda_state *st, cuda_slot *s, const apo__call *call,
                       const chunk_plan *p) {
    const apo__kernel *k = call->kernel;
    const size_t n_in = staged_inputs(call, st), n_out = staged_outputs(call, st);
    const size_t in_len = p->in_hi - p->in_lo, out_len = p->out_hi - p->out_lo;
    const size_t part_off = n_in * in_len + n_out * out_len;
    const size_t plen = k->partial_len;
    apo__cuda_chunk c;
    memset(&c, 0, sizeof c);
    c.first = p->first;
    c.end = p->end;

    if (!check(cudaEventRecord(s->ev[0], s->stream), dev, "cudaEventRecord"))
        return 0;
    for (size_t i = 0; i < k->n_inputs; i++) {
        if (n_in == 0) {
            c.in[i] = call->inputs[i];
            continue;
        }
        double *d = s->dev + i * in_len;
        const double *src = call->inputs[i] + p->in_lo;
        size_t bytes = in_len * sizeof(double);
        if (call->in_gpu < 0) {
            memcpy(s->host + i * in_len, src, bytes);
            if (!check(cudaMemcpyAsync(d, s->host + i * in_len, bytes, cudaMemcpyHostToDevice,
                                       s->stream),
                       dev, "host-to-device copy"))
                return 0;
        } else if (!check(cudaMemcpyPeerAsync(d, st->ordinal, src, call->in_gpu, bytes, s->stream),
                          dev, "peer copy of inputs")) {
            return 0;
        }
        c.in[i] = biased(d, p->in_lo);
    }
    if (!check(cudaEventRecord(s->ev[1], s->stream), dev, "cudaEventRecord"))
        return 0;
    for (size_t o = 0; o < k->cuda->n_outputs; o++)
        c.out[o] = n_out != 0        ? biased(s->dev + n_in * in_len + o * out_len, p->out_lo)
                   : st->task_out[0] ? st->task_out[o]
                                     : call->outputs[o];
    if (plen != 0)
        c.partials = s->dev + part_off;
    int rc = k->cuda->launch(call, &c, s->stream);
    if (rc != 0) {
        if (!k->builtin)
            apo__log(APO_LOG_WARN, APO_SUBSYS_RUN, "%s: the CUDA launcher of %s returned %d",
                     dev->info.id, k->name, rc);
        else
            check((cudaError_t)rc, dev, "kernel launch");
        return 0;
    }
    if (!check(cudaEventRecord(s->ev[2], s->stream), dev, "cudaEventRecord"))
        return 0;
    for (size_t o = 0; o < n_out; o++) {
        double *d = s->dev + n_in * in_len + o * out_len;
        size_t bytes = out_len * sizeof(double);
        cudaError_t e = call->out_gpu < 0
                            ? cudaMemcpyAsync(s->host + n_in * in_len + o * out_len, d, bytes,
                                              cudaMemcpyDeviceToHost, s->stream)
                            : cudaMemcpyPeerAsync(call->outputs[o] + p->out_lo, call->out_gpu, d,
                                                  st->ordinal, bytes, s->stream);
        if (!check(e, dev, "copy of outputs"))
            return 0;
    }
    if (plen != 0 && !check(cudaMemcpyAsync(s->host + part_off, s->dev + part_off,
                                            (size_t)(p->end - p->first) * plen * sizeof(double),
                                            cudaMemcpyDeviceToHost, s->stream),
                            dev, "device-to-host copy of partials"))
        return 0;
    if (!check(cudaEventRecord(s->ev[3], s->stream), dev, "cudaEventRecord"))
        return 0;
    s->plan = *p;
    s->busy = 1;
    return 1;
}

/* Before a wait for the GPU: gives up the access to the call unless the task must hold it. */
static void release_for_wait(apo__device *dev, cuda_state *st) {
    if (st->inside && !st->hold_across_waits) {
        apo__task_leave_call(&dev->guard);
        st->inside = 0;
    }
}

/* After it: takes the access back. 0 when the task was abandoned meanwhile: then it must
 * not touch the call again. */
static int reenter(apo__device *dev, cuda_state *st) {
    if (!st->inside)
        st->inside = apo__task_enter_call(&dev->guard);
    return st->inside;
}

/* Waits for the slot's chunk, moves its host-bound outputs and partials from pinned memory
 * to the caller's arrays, and adds its phase times. */
static int finish_chunk(apo__device *dev, cuda_state *st, cuda_slot *s, const apo__call *call,
                        task_tally *tally) {
    s->busy = 0;
    release_for_wait(dev, st);
    cudaError_t synced = cudaStreamSynchronize(s->stream);
    if (!reenter(dev, st) || !check(synced, dev, "cudaStreamSynchronize"))
        return 0;
    const apo__kernel *k = call->kernel;
    const chunk_plan *p = &s->plan;
    const size_t n_in = staged_inputs(call, st), n_out = staged_outputs(call, st);
    const size_t in_len = p->in_hi - p->in_lo, out_len = p->out_hi - p->out_lo;
    if (call->out_gpu < 0)
        for (size_t o = 0; o < n_out; o++)
            memcpy(call->outputs[o] + p->out_lo, s->host + n_in * in_len + o * out_len,
                   out_len * sizeof(double));
    if (k->partial_len != 0)
        memcpy(call->partials + p->first * k->partial_len,
               s->host + n_in * in_len + n_out * out_len,
               (size_t)(p->end - p->first) * k->partial_len * sizeof(double));
    float ms[3] = {0, 0, 0};
    for (int i = 0; i < 3; i++)
        if (!check(cudaEventElapsedTime(&ms[i], s->ev[i], s->ev[i + 1]), dev,
                   "cudaEventElapsedTime"))
            return 0;
    tally->h2d_ms += ms[0];
    tally->kernel_ms += ms[1];
    tally->d2h_ms += ms[2];
    tally->chunks++;
    return 1;
}

/* Waits for whatever is still in flight after a failure, so that no copy into a pinned
 * buffer outlives the task. */
static void drain(cuda_state *st) {
    for (int i = 0; i < APO_CUDA_SLOTS; i++) {
        cudaStreamSynchronize(st->slots[i].stream);
        st->slots[i].busy = 0;
    }
    (void)cudaGetLastError();
}

static apo_status pipeline_in_guard(apo__device *dev, const apo__call *call, uint64_t first,
                                    uint64_t end, apo__task_time *time);

static apo_status run_pipeline(apo__device *dev, const apo__call *call, uint64_t first,
                               uint64_t end, apo__task_time *time) {
    cuda_state *st = dev->state;
    st->inside = apo__task_enter_call(&dev->guard);
    if (!st->inside)
        return APO_ERR_DEVICE_LOST;
    st->hold_across_waits = call->in_gpu >= 0 || call->out_gpu >= 0;
    apo_status status = pipeline_in_guard(dev, call, first, end, time);
    if (st->inside)
        apo__task_leave_call(&dev->guard);
    st->inside = 0;
    return status;
}

/* run_pipeline() once the task holds its access to the call. */
static apo_status pipeline_in_guard(apo__device *dev, const apo__call *call, uint64_t first,
                                    uint64_t end, apo__task_time *time) {
    cuda_state *st = dev->state;
    double t0 = apo__now();
    if (!apo__device_can_run(dev, call->kernel))
        return APO_ERR_DEVICE_LOST; /* the planner never gives it such tiles */
    if (!check(cudaSetDevice(st->ordinal), dev, "cudaSetDevice") || !ensure_staging(dev, st))
        return APO_ERR_DEVICE_LOST;

    const size_t halo = call->kernel->cuda->halo(call->kernel, call->params);
    const size_t slot_doubles = st->slot_bytes / sizeof(double);
    chunk_plan whole = plan_chunk(call, halo, first, end);
    if (call->gather_resident && call->out_gpu != st->ordinal)
        (void)open_segment(dev, st, call, whole.out_lo, whole.out_hi);
    size_t cap = chunk_doubles(call, st, &whole) / APO_CUDA_MIN_CHUNKS;
    if (cap < APO_CUDA_MIN_CHUNK_DOUBLES)
        cap = APO_CUDA_MIN_CHUNK_DOUBLES;
    if (cap > slot_doubles)
        cap = slot_doubles;

    task_tally tally = {0, 0, 0, 0};
    uint64_t next = first;
    int ok = 1;
    for (unsigned i = 0; ok && (next < end || st->slots[0].busy || st->slots[1].busy); i++) {
        if (apo__task_abandoned(&dev->guard)) {
            ok = 0; /* past its deadline: stop issuing; what is in flight is drained */
            break;
        }
        cuda_slot *s = &st->slots[i % APO_CUDA_SLOTS];
        if (s->busy)
            ok = finish_chunk(dev, st, s, call, &tally);
        if (!ok || next >= end)
            continue;
        uint64_t stop = chunk_end(call, st, halo, next, end, cap);
        if (stop == 0 && cap < slot_doubles)
            stop = chunk_end(call, st, halo, next, end, slot_doubles);
        if (stop == 0) {
            chunk_plan one = plan_chunk(call, halo, next, next + 1);
            apo__log(APO_LOG_WARN, APO_SUBSYS_RUN,
                     "%s: one tile of %s needs %zu MiB of staging, more than the %zu MiB slot "
                     "(APPORTION_GPU_MEMORY_MB)",
                     dev->info.id, call->kernel->name,
                     (chunk_doubles(call, st, &one) * sizeof(double)) >> 20, st->slot_bytes >> 20);
            ok = 0;
            break;
        }
        chunk_plan p = plan_chunk(call, halo, next, stop);
        ok = issue_chunk(dev, st, s, call, &p);
        next = stop;
    }
    if (!ok) {
        release_for_wait(dev, st);
        drain(st);
    }
    close_segment(st, ok);
    if (!ok)
        return APO_ERR_DEVICE_LOST;
    time->h2d_s = tally.h2d_ms * 1e-3;
    time->kernel_s = tally.kernel_ms * 1e-3;
    time->d2h_s = tally.d2h_ms * 1e-3;
    time->wall_s = apo__now() - t0;
    time->chunks = tally.chunks;
    return APO_OK;
}

static apo_status cuda_run(apo__device *dev, const apo__call *call, uint64_t first, uint64_t end,
                           uint64_t task_index, apo__task_time *time) {
    (void)task_index;
    /* Leave the thread's current GPU as it was (the interop calls promise it, and a worker
     * thread may be reused by another GPU's work). */
    int callers_device = -1;
    (void)cudaGetDevice(&callers_device);
    apo_status status = run_pipeline(dev, call, first, end, time);
    if (callers_device >= 0)
        (void)cudaSetDevice(callers_device);
    (void)cudaGetLastError();
    return status;
}

/* One task per share: the pipeline inside it keeps the GPU busy, and a GPU that fails
 * mid-task has its whole share redone elsewhere. */
static uint64_t cuda_task_count(const apo__device *dev, uint64_t tiles) {
    (void)dev, (void)tiles;
    return 1;
}

static void cuda_close(apo__device *dev) {
    cuda_state *st = dev->state;
    if (st == NULL)
        return;
    if (cudaSetDevice(st->ordinal) == cudaSuccess) {
        drain(st);
        free_staging(st);
        apo__cuda_release_segments(dev);
        for (int i = 0; i < APO_CUDA_SLOTS; i++) {
            cuda_slot *s = &st->slots[i];
            for (int e = 0; e < 4; e++)
                if (s->ev[e] != NULL)
                    cudaEventDestroy(s->ev[e]);
            if (s->stream != NULL)
                cudaStreamDestroy(s->stream);
        }
    }
    free(st->segments);
    free(st);
    dev->state = NULL;
}

static const apo__backend_ops cuda_ops = {cuda_run, cuda_task_count, cuda_close};

/* ---- discovery ---------------------------------------------------------------------------- */

/* Why cudaGetDeviceCount failed, in words a user can act on. */
static void describe_no_gpu(cudaError_t e, char *reason, size_t size) {
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    (void)cudaGetLastError();
    if (driver == 0)
        snprintf(reason, size,
                 "no NVIDIA driver is installed or loadable (libcuda.so.1 not found; CUDA says "
                 "%s: %s)",
                 cudaGetErrorName(e), cudaGetErrorString(e));
    else if (e == cudaErrorInsufficientDriver)
        snprintf(reason, size,
                 "the NVIDIA driver supports CUDA %d.%d, but this build needs CUDA %d.%d: "
                 "update the driver",
                 driver / 1000, driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10);
    else if (e == cudaErrorNoDevice)
        snprintf(reason, size, "the NVIDIA driver sees no GPU%s",
                 getenv("CUDA_VISIBLE_DEVICES") ? " (CUDA_VISIBLE_DEVICES "
                                                  "hides them all?)"
                                                : "");
    else
        snprintf(reason, size, "CUDA cannot count the GPUs: %s (%s)", cudaGetErrorName(e),
                 cudaGetErrorString(e));
}

typedef struct found_gpu {
    int ordinal;
    struct cudaDeviceProp prop;
    size_t free_bytes, total_bytes;
} found_gpu;

static int by_pci_id(const void *a, const void *b) {
    const struct cudaDeviceProp *x = &((const found_gpu *)a)->prop;
    const struct cudaDeviceProp *y = &((const found_gpu *)b)->prop;
    if (x->pciDomainID != y->pciDomainID)
        return x->pciDomainID < y->pciDomainID ? -1 : 1;
    if (x->pciBusID != y->pciBusID)
        return x->pciBusID < y->pciBusID ? -1 : 1;
    return x->pciDeviceID < y->pciDeviceID ? -1 : x->pciDeviceID > y->pciDeviceID;
}

/* The GPU's first calls: properties, a context, its memory. A GPU failing here is left out. */
static int probe_gpu(int ordinal, found_gpu *g, apo__warnings *w) {
    cudaError_t e = cudaGetDeviceProperties(&g->prop, ordinal);
    if (e == cudaSuccess)
        e = cudaSetDevice(ordinal);
    if (e == cudaSuccess)
        e = cudaFree(NULL); /* creates the context: the first call that can really fail */
    if (e == cudaSuccess)
        e = cudaMemGetInfo(&g->free_bytes, &g->total_bytes);
    if (e != cudaSuccess) {
        apo__warn(w, "GPU %d is not usable (left out): its first CUDA calls failed with %s (%s)",
                  ordinal, cudaGetErrorName(e), cudaGetErrorString(e));
        (void)cudaGetLastError();
        return 0;
    }
    g->ordinal = ordinal;
    return 1;
}

/* Creates the GPU's streams and events and fills its description. */
static int open_gpu(apo__device *dev, const found_gpu *g, size_t index,
                    const apo__cuda_options *opts, apo__warnings *w) {
    cuda_state *st = calloc(1, sizeof *st);
    if (st == NULL)
        return 0;
    st->ordinal = g->ordinal;
    size_t budget_mb = opts->memory_mb;
    if (budget_mb == 0) {
        budget_mb = g->free_bytes / 2 >> 20;
        if (budget_mb > APO_CUDA_DEFAULT_BUDGET_MAX_MB)
            budget_mb = APO_CUDA_DEFAULT_BUDGET_MAX_MB;
    }
    st->budget_bytes = budget_mb << 20;
    dev->state = st;
    dev->ops = &cuda_ops;
    cudaError_t e = cudaSetDevice(g->ordinal);
    for (int i = 0; i < APO_CUDA_SLOTS && e == cudaSuccess; i++) {
        cuda_slot *s = &st->slots[i];
        e = cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking);
        for (int k = 0; k < 4 && e == cudaSuccess; k++)
            e = cudaEventCreate(&s->ev[k]);
    }
    if (e != cudaSuccess) {
        apo__warn(w, "GPU %d is not usable (left out): cannot create its streams: %s", g->ordinal,
                  cudaGetErrorString(e));
        cuda_close(dev);
        return 0;
    }

    apo_device_info *info = &dev->info;
    const unsigned char *u = (const unsigned char *)g->prop.uuid.bytes;
    info->kind = APO_DEVICE_CUDA;
    snprintf(info->id, sizeof info->id,
             "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
             u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14],
             u[15]);
    /* The name is cut to fit the label (CUDA allows 256 characters; real ones are short). */
    char name[APO_LABEL_MAX - 24];
    snprintf(name, sizeof name, "%s", g->prop.name);
    snprintf(info->label, sizeof info->label, "cuda:%zu %s", index % 10000, name);
    info->memory_total_bytes = g->total_bytes;
    info->memory_free_bytes = g->free_bytes;
    info->compute_capability_major = g->prop.major;
    info->compute_capability_minor = g->prop.minor;
    info->multiprocessors = g->prop.multiProcessorCount;
    info->copy_engines = g->prop.asyncEngineCount;
    snprintf(info->pci_bus_id, sizeof info->pci_bus_id, "%04x:%02x:%02x.0", g->prop.pciDomainID,
             g->prop.pciBusID, g->prop.pciDeviceID);
    return 1;
}

size_t apo__cuda_discover(apo__device *devs, size_t max, const apo__cuda_options *opts,
                          apo__warnings *w, char *reason, size_t reason_size) {
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        describe_no_gpu(e, reason, reason_size);
        return 0;
    }
    if (count <= 0) {
        snprintf(reason, reason_size, "the NVIDIA driver reports no GPU");
        return 0;
    }
    found_gpu *found = calloc((size_t)count, sizeof *found);
    if (found == NULL) {
        snprintf(reason, reason_size, "out of memory while discovering %d GPUs", count);
        return 0;
    }
    size_t n = 0;
    for (int i = 0; i < count; i++)
        n += (size_t)probe_gpu(i, &found[n], w);
    if (opts->pci_order)
        qsort(found, n, sizeof *found, by_pci_id);
    size_t opened = 0;
    for (size_t i = 0; i < n && opened < max; i++)
        opened += (size_t)open_gpu(&devs[opened], &found[i], opened, opts, w);
    free(found);
    if (opened == 0)
        snprintf(reason, reason_size,
                 "%d GPU%s found, but none passed its first CUDA calls (see the warnings)", count,
                 count == 1 ? "" : "s");
    return opened;
}

/* Every call that switches the calling thread's current GPU puts it back: the caller may be
 * running CUDA code of its own on this thread. */
int apo__cuda_enter_device(int ordinal, int *err) {
    int previous = -1;
    (void)cudaGetDevice(&previous);
    *err = (int)cudaSetDevice(ordinal);
    return previous;
}

void apo__cuda_leave_device(int previous) {
    if (previous >= 0)
        (void)cudaSetDevice(previous);
}

apo_status apo__cuda_upload(int ordinal, void *dst, const void *src, size_t bytes) {
    int e;
    int previous = apo__cuda_enter_device(ordinal, &e);
    if (e == cudaSuccess)
        e = (int)cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice);
    apo__cuda_leave_device(previous);
    return e == cudaSuccess ? APO_OK : apo__cuda_fail(e, "copy of finalized values to the GPU");
}
