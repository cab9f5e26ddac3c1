/*
 * The CUDA device's staging pipeline: one task, a contiguous run of tiles of a call on one
 * GPU, cut into chunks that go through APO_CUDA_SLOTS slots (docs/cuda.md, "The pipeline").
 *
 * Streams: each GPU has one non-blocking stream per copy direction and one per slot for
 * kernels, so that the two copy engines each work through a queue of their own and the
 * kernels of the chunks in flight run beside each other rather than one after another. A
 * chunk's host-to-device copies go on the h2d stream, its kernel on its slot's compute
 * stream after an event wait for those copies, its device-to-host copies on the d2h stream
 * after an event wait for the kernel. Chunks are independent (disjoint tiles, disjoint
 * buffers), so the order their kernels run in changes no bit.
 *
 * Slots: each slot is a device buffer and a pinned host buffer of the same layout, and six
 * timing events. The buffers are allocated by the GPU's stager (cuda_staging.c), the pinned
 * ones small first and one slot at a time, grown when a task asks, and kept for the
 * runtime's life (pinning is slow: never per call). A task takes the slots its bytes need
 * (apo__cuda_take_staging), or, small and finding none pinned yet, copies from pageable
 * memory. The slot schedule (pipeline_plan.c) finishes the oldest chunk before its slot
 * takes a new one, so that, on four slots, three chunks stay queued on the GPU while the
 * host copies the outputs of one and the inputs of the next.
 *
 * Host copies: host arrays that are pinned (by the caller, or by apo_cuda_host_register)
 * are copied straight to and from GPU memory. Others are staged through the slot's pinned
 * buffer, the copies spread over the GPU's host threads (dev->info.threads: its worker and
 * helpers of an OpenMP team of its own).
 *
 * Waits sleep: the host waits for a chunk on a blocking event, so a GPU's driver thread
 * takes no core while its GPU works.
 *
 * Timing: every phase is an interval on the host clock. Host copies are timed by the host
 * clock around them; each GPU phase by its pair of events on its own stream, placed on the
 * host clock through a reference event the task waits for when it starts. The report's
 * h2d, kernel, d2h and host_copy figures are the sums of these intervals, and their overlap
 * is that sum over the length of their union (docs/cuda.md, "Timing").
 *
 * Device-resident arrays (apportion_cuda.h): inputs already on this GPU are read in place
 * and outputs wanted on it are written in place; inputs on another GPU arrive by peer copy.
 * Outputs for another GPU are either kept resident here, in one buffer per task (a
 * "segment"), for the grouped NCCL gather after the phase (gather.c), or, without NCCL or
 * when that buffer cannot be had, leave by peer copy chunk by chunk. Before its first work
 * the task makes all its streams wait for the call's ordering events (the caller's stream
 * or event, or the legacy default stream: core/cuda_calls.c).
 *
 * Deadlines (device.h, the task guard): every read of the call and every host copy into the
 * caller's arrays is an access under the guard; waiting for the GPU is not, so a GPU that
 * stops answering can be abandoned at its deadline and its late results are then dropped.
 * When the GPU itself reads or writes the caller's memory (device-resident arrays, pinned
 * host arrays copied straight), a queued copy cannot be recalled: such a task holds its
 * access throughout, so abandoning it waits for the GPU (docs/design.md, "Faults").
 *
 * Shared pieces (apo__call.shared: a sweep's consecutive sets, whatever their passes on a
 * GPU, worker_pool.c and APO_RUNS_SHARED_SETS) are one task: each chunk's inputs go over once
 * for all the sets, the launcher computes every set's outputs from them, and the slot holds
 * each set's outputs one after another (the chunk's set_stride), copied back into each set's
 * own arrays. Outputs written on a GPU in place or kept there for the gather have no slot
 * columns for the sets: such a group runs set by set, as the pieces alone would.
 *
 * Determinism: the pipeline only moves bytes; what is computed is the kernel's tile bodies,
 * whose bits do not depend on the chunking (kernels/<room>/<name>.cu).
 */
#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "catalog/call_span.h"
#include "catalog/grid.h"
#include "devices/cuda/cuda_discovery.h"
#include "devices/cuda/cuda_gpu.h"
#include "devices/cuda/cuda_state.h"
#include "devices/cuda/pipeline_plan.h"
#include "devices/device.h"

/* ---- one task ------------------------------------------------------------------------------ */

typedef struct task_tally {
    double h2d_s, kernel_s, d2h_s, host_copy_s;
    uint64_t chunks;
} task_tally;

/* A task in progress: what the slot schedule's callbacks share. */
typedef struct cuda_task {
    apo__device *dev;
    apo__cuda_state *st;
    const apo__call *call;
    size_t halo;
    int in_place_in;  /* the inputs are on this GPU: read in place */
    int direct_in;    /* host inputs that are pinned: copied straight, not staged */
    int direct_out;   /* host outputs that are pinned: copied straight, not staged */
    int direct_parts; /* the tile partials copied straight into the call's (pageable task) */
    unsigned threads; /* host threads for the staging copies */
    double ref_host;  /* the host clock when the GPU passed st->ref */
    int timing_ok;    /* every event time could be read */
    task_tally tally;
} cuda_task;

/* Inputs that occupy the slot (not read in place on this GPU). */
static size_t slot_inputs(const cuda_task *t) {
    return t->in_place_in ? 0 : t->call->kernel->n_inputs;
}

/* The sets the task's call computes (its shared pieces, or the call alone). */
static size_t call_sets(const apo__call *call) {
    size_t n;
    (void)apo__grid_shared_pieces(call, &n);
    return n;
}

/* GPU-written outputs that occupy the slot (not written in place on this GPU, neither into
 * the caller's array nor into a segment): the kernel's outputs for every set. */
static size_t slot_outputs(const cuda_task *t) {
    return t->call->ctx->out_gpu == t->st->ordinal || t->st->task_out[0] != NULL
               ? 0
               : t->call->kernel->cuda->n_outputs * call_sets(t->call);
}

/* Where output column c of the slot goes: output c % n_outputs of set c / n_outputs. */
static double *set_output(const apo__call *call, size_t c) {
    size_t n_sets;
    const apo__call *sets = apo__grid_shared_pieces(call, &n_sets);
    const size_t per_set = call->kernel->cuda->n_outputs;
    return sets[c / per_set].outputs[c % per_set];
}

static apo__chunk_plan plan_chunk(const apo__call *call, size_t halo, uint64_t first,
                                  uint64_t end) {
    const apo__kernel *k = call->kernel;
    size_t ra, ba, ea, rb, bb, eb;
    apo__tile_range(call, first, &ra, &ba, &ea);
    apo__tile_range(call, end - 1, &rb, &bb, &eb);
    apo__chunk_plan p = {first, end, 0, 0, 0, 0};
    if (apo__kernel_whole_row_input(k, call->params)) {
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

/* Doubles a chunk occupies in a slot: its inputs, its outputs, its tile partials. */
static size_t chunk_doubles(const cuda_task *t, const apo__chunk_plan *p) {
    return slot_inputs(t) * (p->in_hi - p->in_lo) + slot_outputs(t) * (p->out_hi - p->out_lo) +
           (size_t)(p->end - p->first) * t->call->kernel->partial_len;
}

static uint64_t chunk_end(void *ctx, uint64_t first, uint64_t end, size_t cap) {
    const cuda_task *t = ctx;
    apo__chunk_plan one = plan_chunk(t->call, t->halo, first, first + 1);
    if (chunk_doubles(t, &one) > cap)
        return 0;
    uint64_t lo = first + 1, hi = end; /* lo fits; find the largest that fits */
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo + 1) / 2;
        apo__chunk_plan p = plan_chunk(t->call, t->halo, first, mid);
        if (chunk_doubles(t, &p) <= cap)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* Appends an interval of the task (kept only while the storage grows). */
static void add_interval(apo__cuda_state *st, double start, double end) {
    if (st->n_intervals == st->intervals_cap) {
        const size_t cap = st->intervals_cap == 0 ? 64 : 2 * st->intervals_cap;
        apo__interval *grown = realloc(st->intervals, cap * sizeof *grown);
        if (grown == NULL)
            return; /* the overlap figure then leaves this interval out */
        st->intervals = grown;
        st->intervals_cap = cap;
    }
    st->intervals[st->n_intervals++] = (apo__interval){start, end};
}

/* Host copies of the task, timed as one interval. */
static void host_copies(cuda_task *t, const apo__copy *list, size_t n) {
    if (n == 0)
        return;
    const double a = apo__now();
    apo__copy_all(list, n, t->threads);
    const double b = apo__now();
    add_interval(t->st, a, b);
    t->tally.host_copy_s += b - a;
}

/* The interval between two of a chunk's events, on the host clock; adds its length to *sum. */
static void gpu_interval(cuda_task *t, cudaEvent_t from, cudaEvent_t to, double *sum) {
    float a = 0, b = 0;
    if (cudaEventElapsedTime(&a, t->st->ref, from) != cudaSuccess ||
        cudaEventElapsedTime(&b, t->st->ref, to) != cudaSuccess) {
        (void)cudaGetLastError();
        t->timing_ok = 0;
        return;
    }
    const double start = t->ref_host + a * 1e-3, end = t->ref_host + b * 1e-3;
    add_interval(t->st, start, end);
    *sum += end > start ? end - start : 0.0;
}

/* Copies the chunk's inputs in, launches the kernel and copies its outputs out, each on its
 * stream; host inputs that are not pinned are first staged into the slot's pinned buffer. */
static int issue_chunk(void *ctx, unsigned slot, uint64_t first, uint64_t end) {
    cuda_task *t = ctx;
    apo__cuda_state *st = t->st;
    apo__cuda_slot *s = &st->slots[slot];
    const apo__call *call = t->call;
    const apo__kernel *k = call->kernel;
    apo__device *dev = t->dev;
    const apo__chunk_plan p = plan_chunk(call, t->halo, first, end);
    const size_t n_in = slot_inputs(t), n_out = slot_outputs(t);
    const size_t in_len = p.in_hi - p.in_lo, out_len = p.out_hi - p.out_lo;
    const size_t out_off = n_in * in_len, part_off = out_off + n_out * out_len;
    const size_t plen = k->partial_len;
    const int staged_in = n_in > 0 && call->ctx->in_gpu < 0 && !t->direct_in;

    if (staged_in) {
        apo__copy list[APO_MAX_IO];
        for (size_t i = 0; i < n_in; i++)
            list[i] = (apo__copy){s->host + i * in_len, call->inputs[i] + p.in_lo,
                                  in_len * sizeof(double)};
        host_copies(t, list, n_in);
    }

    apo__cuda_chunk c;
    memset(&c, 0, sizeof c);
    c.first = p.first;
    c.end = p.end;
    if (!apo__cuda_check(cudaEventRecord(s->ev[APO_EV_H2D_START], st->h2d), dev, "cudaEventRecord"))
        return 0;
    for (size_t i = 0; i < k->n_inputs; i++) {
        if (n_in == 0) {
            c.in[i] = call->inputs[i];
            continue;
        }
        double *d = s->dev + i * in_len;
        const double *src = call->inputs[i] + p.in_lo;
        const size_t bytes = in_len * sizeof(double);
        cudaError_t e =
            call->ctx->in_gpu >= 0
                ? cudaMemcpyPeerAsync(d, st->ordinal, src, call->ctx->in_gpu, bytes, st->h2d)
                : cudaMemcpyAsync(d, staged_in ? s->host + i * in_len : src, bytes,
                                  cudaMemcpyHostToDevice, st->h2d);
        if (!apo__cuda_check(e, dev, "copy of inputs"))
            return 0;
        c.in[i] = apo__cuda_biased(d, p.in_lo);
    }
    if (!apo__cuda_check(cudaEventRecord(s->ev[APO_EV_H2D_END], st->h2d), dev, "cudaEventRecord"))
        return 0;

    for (size_t o = 0; o < k->cuda->n_outputs; o++)
        c.out[o] = n_out != 0        ? apo__cuda_biased(s->dev + out_off + o * out_len, p.out_lo)
                   : st->task_out[0] ? st->task_out[o]
                                     : call->outputs[o];
    /* The sets' outputs one after another in the slot (a group is never written in place). */
    c.set_stride = call_sets(call) > 1 ? k->cuda->n_outputs * out_len : 0;
    if (plen != 0)
        c.partials = s->dev + part_off;
    if (!apo__cuda_check(cudaStreamWaitEvent(s->compute, s->ev[APO_EV_H2D_END], 0), dev,
                         "cudaStreamWaitEvent") ||
        !apo__cuda_check(cudaEventRecord(s->ev[APO_EV_KERNEL_START], s->compute), dev,
                         "cudaEventRecord"))
        return 0;
    int rc = k->cuda->launch(call, &c, s->compute);
    if (rc != 0) {
        if (!k->builtin)
            apo__log(APO_LOG_WARN, APO_SUBSYS_RUN, "%s: the CUDA launcher of %s returned %d",
                     dev->info.id, k->name, rc);
        else
            apo__cuda_check((cudaError_t)rc, dev, "kernel launch");
        return 0;
    }
    if (!apo__cuda_check(cudaEventRecord(s->ev[APO_EV_KERNEL_END], s->compute), dev,
                         "cudaEventRecord") ||
        !apo__cuda_check(cudaStreamWaitEvent(st->d2h, s->ev[APO_EV_KERNEL_END], 0), dev,
                         "cudaStreamWaitEvent") ||
        !apo__cuda_check(cudaEventRecord(s->ev[APO_EV_D2H_START], st->d2h), dev, "cudaEventRecord"))
        return 0;
    for (size_t o = 0; o < n_out; o++) {
        const double *d = s->dev + out_off + o * out_len;
        const size_t bytes = out_len * sizeof(double);
        double *dst = call->ctx->out_gpu >= 0 || t->direct_out ? set_output(call, o) + p.out_lo
                                                               : s->host + out_off + o * out_len;
        cudaError_t e =
            call->ctx->out_gpu >= 0
                ? cudaMemcpyPeerAsync(dst, call->ctx->out_gpu, d, st->ordinal, bytes, st->d2h)
                : cudaMemcpyAsync(dst, d, bytes, cudaMemcpyDeviceToHost, st->d2h);
        if (!apo__cuda_check(e, dev, "copy of outputs"))
            return 0;
    }
    if (plen != 0 &&
        !apo__cuda_check(
            cudaMemcpyAsync(t->direct_parts ? call->partials + p.first * plen : s->host + part_off,
                            s->dev + part_off, (size_t)(p.end - p.first) * plen * sizeof(double),
                            cudaMemcpyDeviceToHost, st->d2h),
            dev, "device-to-host copy of partials"))
        return 0;
    if (!apo__cuda_check(cudaEventRecord(s->ev[APO_EV_D2H_END], st->d2h), dev, "cudaEventRecord"))
        return 0;
    s->plan = p;
    return 1;
}

/* Before a wait for the GPU: gives up the access to the call unless the task must hold it. */
static void release_for_wait(apo__device *dev, apo__cuda_state *st) {
    if (st->inside && !st->hold_across_waits) {
        apo__task_leave_call(&dev->guard);
        st->inside = 0;
    }
}

/* After it: takes the access back. 0 when the task was abandoned meanwhile: then it must
 * not touch the call again. */
static int reenter(apo__device *dev, apo__cuda_state *st) {
    if (!st->inside)
        st->inside = apo__task_enter_call(&dev->guard);
    return st->inside;
}

/* Waits for the slot's chunk, moves its staged outputs and its partials from pinned memory
 * to the caller's arrays, and records its phase intervals. */
static int finish_chunk(void *ctx, unsigned slot) {
    cuda_task *t = ctx;
    apo__cuda_state *st = t->st;
    apo__cuda_slot *s = &st->slots[slot];
    apo__device *dev = t->dev;
    release_for_wait(dev, st);
    cudaError_t synced = cudaEventSynchronize(s->ev[APO_EV_D2H_END]);
    if (!reenter(dev, st) || !apo__cuda_check(synced, dev, "waiting for a chunk"))
        return 0;
    const apo__call *call = t->call;
    const apo__chunk_plan *p = &s->plan;
    const size_t n_in = slot_inputs(t), n_out = slot_outputs(t);
    const size_t in_len = p->in_hi - p->in_lo, out_len = p->out_hi - p->out_lo;
    const size_t out_off = n_in * in_len, part_off = out_off + n_out * out_len;
    const size_t plen = call->kernel->partial_len;
    apo__copy list[APO_MAX_IO * APO_GRID_SHARE_MAX + 1];
    size_t n = 0;
    if (call->ctx->out_gpu < 0 && !t->direct_out)
        for (size_t o = 0; o < n_out; o++)
            list[n++] = (apo__copy){set_output(call, o) + p->out_lo,
                                    s->host + out_off + o * out_len, out_len * sizeof(double)};
    if (plen != 0 && !t->direct_parts)
        list[n++] = (apo__copy){call->partials + p->first * plen, s->host + part_off,
                                (size_t)(p->end - p->first) * plen * sizeof(double)};
    host_copies(t, list, n);
    gpu_interval(t, s->ev[APO_EV_H2D_START], s->ev[APO_EV_H2D_END], &t->tally.h2d_s);
    gpu_interval(t, s->ev[APO_EV_KERNEL_START], s->ev[APO_EV_KERNEL_END], &t->tally.kernel_s);
    gpu_interval(t, s->ev[APO_EV_D2H_START], s->ev[APO_EV_D2H_END], &t->tally.d2h_s);
    t->tally.chunks++;
    return 1;
}

static int task_stopped(void *ctx) {
    const cuda_task *t = ctx;
    return apo__task_abandoned(&t->dev->guard);
}

/* Whether [p, p + bytes) is pinned host memory the GPU can copy straight: its first and last
 * bytes lie in page-locked memory (cudaMallocHost, cudaHostAlloc, cudaHostRegister). */
static int host_pinned(const void *p, size_t bytes) {
    if (p == NULL || bytes == 0)
        return 0;
    for (int last = 0; last < 2; last++) {
        struct cudaPointerAttributes a;
        const void *q = last ? (const char *)p + bytes - 1 : p;
        if (cudaPointerGetAttributes(&a, q) != cudaSuccess) {
            (void)cudaGetLastError();
            return 0;
        }
        if (a.type != cudaMemoryTypeHost)
            return 0;
    }
    return 1;
}

/* Whether every array of one side of the call is pinned host memory (the outputs: every
 * set's). */
static int all_pinned(const apo__call *call, int outputs) {
    const apo__kernel *k = call->kernel;
    const size_t n = outputs ? k->cuda->n_outputs * call_sets(call) : k->n_inputs;
    for (size_t i = 0; i < n; i++) {
        const size_t o = i % k->cuda->n_outputs;
        const size_t len = outputs ? call->rows * k->output_cols(k, call->params, call->cols, o)
                                   : call->rows * call->cols;
        const void *p = outputs ? (const void *)set_output(call, i) : (const void *)call->inputs[i];
        if (!host_pinned(p, len * sizeof(double)))
            return 0;
    }
    return n > 0;
}

/* Sets the origin of the task's intervals, then orders its streams after the call's events. */
static int start_streams(cuda_task *t) {
    apo__cuda_state *st = t->st;
    if (!apo__cuda_check(cudaEventRecord(st->ref, st->h2d), t->dev, "cudaEventRecord") ||
        !apo__cuda_check(cudaEventSynchronize(st->ref), t->dev, "cudaEventSynchronize"))
        return 0;
    t->ref_host = apo__now();
    cudaStream_t streams[APO_CUDA_STREAMS];
    apo__cuda_streams(st, streams);
    for (size_t i = 0; i < t->call->ctx->n_wait_events; i++)
        for (int j = 0; j < APO_CUDA_STREAMS; j++)
            if (!apo__cuda_check(
                    cudaStreamWaitEvent(streams[j], (cudaEvent_t)t->call->ctx->wait_events[i], 0),
                    t->dev, "waiting for the caller's event"))
                return 0;
    return 1;
}

/* Makes the task copy its host arrays and its partials straight, from and to pageable
 * memory, rather than through the pinned slots. */
static void copy_from_pageable(cuda_task *t) {
    t->direct_in |= t->call->ctx->in_gpu < 0;
    t->direct_out |= t->call->ctx->out_gpu < 0;
    t->direct_parts = 1;
}

static apo_status pipeline_in_guard(apo__device *dev, const apo__call *call, uint64_t first,
                                    uint64_t end, apo__task_time *time);
static apo_status pipeline_of_call(apo__device *dev, const apo__call *call, uint64_t first,
                                   uint64_t end, apo__task_time *time);

static apo_status run_pipeline(apo__device *dev, const apo__call *call, uint64_t first,
                               uint64_t end, apo__task_time *time) {
    apo__cuda_state *st = dev->state;
    st->inside = apo__task_enter_call(&dev->guard);
    if (!st->inside)
        return APO_ERR_DEVICE_LOST;
    st->hold_across_waits = call->ctx->in_gpu >= 0 || call->ctx->out_gpu >= 0;
    apo_status status = pipeline_in_guard(dev, call, first, end, time);
    if (st->inside)
        apo__task_leave_call(&dev->guard);
    st->inside = 0;
    return status;
}

/* Adds the figures of one set's task to the group's. */
static void add_task_time(apo__task_time *sum, const apo__task_time *one) {
    sum->h2d_s += one->h2d_s;
    sum->kernel_s += one->kernel_s;
    sum->d2h_s += one->d2h_s;
    sum->host_copy_s += one->host_copy_s;
    sum->wall_s += one->wall_s;
    sum->busy_s += one->busy_s;
    sum->chunks += one->chunks;
}

/* run_pipeline() once the task holds its access to the call: a group of shared pieces whose
 * outputs stay on a GPU (in place, or in a segment for the gather) has no slot columns for its
 * sets, so it runs set by set; anything else is one pipeline. */
static apo_status pipeline_in_guard(apo__device *dev, const apo__call *call, uint64_t first,
                                    uint64_t end, apo__task_time *time) {
    size_t n_sets;
    const apo__call *sets = apo__grid_shared_pieces(call, &n_sets);
    if (n_sets == 1 || (call->ctx->out_gpu < 0 && !call->ctx->gather_resident))
        return pipeline_of_call(dev, call, first, end, time);
    apo__cuda_state *st = dev->state;
    apo__task_time sum;
    memset(&sum, 0, sizeof sum);
    for (size_t j = 0; j < n_sets; j++) {
        /* A wait may have given up the access: take it back before reading the next set. */
        if (!reenter(dev, st))
            return APO_ERR_DEVICE_LOST;
        apo__task_time one;
        memset(&one, 0, sizeof one);
        const apo_status status = pipeline_of_call(dev, &sets[j], first, end, &one);
        if (status != APO_OK)
            return status;
        add_task_time(&sum, &one);
    }
    *time = sum;
    return APO_OK;
}

/* One pipeline over tiles [first, end) of `call`. */
static apo_status pipeline_of_call(apo__device *dev, const apo__call *call, uint64_t first,
                                   uint64_t end, apo__task_time *time) {
    apo__cuda_state *st = dev->state;
    const double t0 = apo__now();
    if (!apo__device_can_run(dev, call->kernel))
        return APO_ERR_DEVICE_LOST; /* the planner never gives it such tiles */
    if (!apo__cuda_check(cudaSetDevice(st->ordinal), dev, "cudaSetDevice"))
        return APO_ERR_DEVICE_LOST;

    cuda_task t;
    memset(&t, 0, sizeof t);
    t.dev = dev;
    t.st = st;
    t.call = call;
    t.halo = call->kernel->cuda->halo(call->kernel, call->params);
    t.in_place_in = call->ctx->in_gpu == st->ordinal;
    t.direct_in = call->ctx->in_gpu < 0 && all_pinned(call, 0);
    t.direct_out = call->ctx->out_gpu < 0 && all_pinned(call, 1);
    t.threads = dev->info.threads > 0 ? (unsigned)dev->info.threads : 1u;
    t.timing_ok = 1;
    st->n_intervals = 0;

    const apo__chunk_plan whole = plan_chunk(call, t.halo, first, end);
    if (call->ctx->gather_resident && call->ctx->out_gpu != st->ordinal)
        (void)apo__cuda_open_segment(dev, st, call, whole.out_lo, whole.out_hi);
    /* What the task moves through the slots, and whether any of it goes through pinned
     * memory: staged inputs or outputs, or tile partials. */
    const size_t task_bytes = chunk_doubles(&t, &whole) * sizeof(double);
    const int pinned = (slot_inputs(&t) > 0 && call->ctx->in_gpu < 0 && !t.direct_in) ||
                       (slot_outputs(&t) > 0 && call->ctx->out_gpu < 0 && !t.direct_out) ||
                       call->kernel->partial_len != 0;
    apo__staging_grant grant;
    memset(&grant, 0, sizeof grant);
    if (!apo__cuda_take_staging(st, dev->info.id, task_bytes, pinned, &grant)) {
        apo__cuda_close_segment(st, 0);
        return APO_ERR_DEVICE_LOST;
    }
    if (grant.pageable)
        /* No pinned slot is ready and the task is small: its host arrays go straight to and
         * from the GPU, the driver staging them through pinned buffers of its own. */
        copy_from_pageable(&t);
    /* The GPU then reads or writes the caller's host arrays itself, and a queued copy cannot
     * be recalled: hold the access across waits, as for device-resident arrays. */
    st->hold_across_waits |= t.direct_in || t.direct_out || t.direct_parts;
    /* Chunks of whole waves over the SMs; a task whose arrays are all read and written in
     * place (only its partials, if any, use a slot) is one launch. */
    const int staged = slot_inputs(&t) + slot_outputs(&t) > 0;
    const uint64_t chunk_tiles = apo__chunk_tiles(end - first, dev->info.multiprocessors, staged);

    static const apo__pipeline_ops ops = {chunk_end, issue_chunk, finish_chunk, task_stopped};
    uint64_t stuck = first;
    apo__pipe_result r = start_streams(&t)
                             ? apo__pipeline_drive(&ops, &t, first, end, chunk_tiles,
                                                   grant.slot_doubles, grant.slots, &stuck)
                             : APO_PIPE_FAILED;
    if (r == APO_PIPE_TOO_BIG && !grant.pageable && grant.slot_doubles < grant.dev_doubles) {
        /* One tile needs more than a pinned slot holds, and the pinned slots are smaller than
         * the device buffers (they grow on demand): the task is done again from pageable
         * memory, whose chunks only the device buffers bound, and asks for pinned slots
         * that hold such a tile. The chunks finished so far are written again with the
         * same bits. */
        const apo__chunk_plan one = plan_chunk(call, t.halo, stuck, stuck + 1);
        apo__cuda_ask_staging_growth(st, chunk_doubles(&t, &one) * sizeof(double) * APO_CUDA_SLOTS);
        release_for_wait(dev, st);
        apo__cuda_drain(st);
        r = APO_PIPE_FAILED;
        if (reenter(dev, st)) {
            copy_from_pageable(&t);
            st->hold_across_waits = 1;
            memset(&t.tally, 0, sizeof t.tally);
            st->n_intervals = 0;
            r = start_streams(&t) ? apo__pipeline_drive(&ops, &t, first, end, chunk_tiles,
                                                        grant.dev_doubles, APO_CUDA_SLOTS, &stuck)
                                  : APO_PIPE_FAILED;
        }
    }
    if (r == APO_PIPE_TOO_BIG) {
        const apo__chunk_plan one = plan_chunk(call, t.halo, stuck, stuck + 1);
        apo__log(APO_LOG_WARN, APO_SUBSYS_RUN,
                 "%s: one tile of %s needs %zu MiB of staging, more than the %zu MiB slot "
                 "(APPORTION_GPU_MEMORY_MB)",
                 dev->info.id, call->kernel->name, (chunk_doubles(&t, &one) * sizeof(double)) >> 20,
                 (grant.slot_doubles * sizeof(double)) >> 20);
    }
    const int ok = r == APO_PIPE_DONE;
    if (!ok) {
        /* No copy into a pinned buffer or the caller's memory may outlive the task. */
        release_for_wait(dev, st);
        apo__cuda_drain(st);
    }
    /* Nothing is in flight in the slots any more: they may be swapped for larger ones. */
    apo__cuda_release_staging(st);
    apo__cuda_close_segment(st, ok);
    if (!ok)
        return APO_ERR_DEVICE_LOST;
    time->h2d_s = t.tally.h2d_s;
    time->kernel_s = t.tally.kernel_s;
    time->d2h_s = t.tally.d2h_s;
    time->host_copy_s = t.tally.host_copy_s;
    time->wall_s = apo__now() - t0;
    time->chunks = t.tally.chunks;
    /* Without every GPU interval the union would be short: no overlap figure then. */
    time->busy_s = t.timing_ok ? apo__interval_union(st->intervals, st->n_intervals) : 0.0;
    return APO_OK;
}

apo_status apo__cuda_run(apo__device *dev, const apo__call *call, uint64_t first, uint64_t end,
                         uint64_t task_index, apo__task_time *time) {
    (void)task_index;
    /* Leave the thread's current GPU as it was (a worker thread may be reused by another
     * GPU's work). */
    int callers_device = -1;
    (void)cudaGetDevice(&callers_device);
    apo_status status = run_pipeline(dev, call, first, end, time);
    apo__cuda_leave_device(callers_device);
    (void)cudaGetLastError();
    return status;
}
