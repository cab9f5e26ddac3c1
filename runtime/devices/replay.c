/*
 * The replayed devices' time model (replay.h). Every figure it uses is a row of
 * replay_figures.c; what is modelled and why is in docs/scheduling.md, "A replayed H100".
 */
#include <math.h>
#include <string.h>

#include "catalog/call_context.h"
#include "catalog/call_span.h"
#include "catalog/grid.h"
#include "catalog/scored_kernels.h"
#include "devices/device.h"
#include "devices/replay.h"

/* Bytes a second through pageable memory when the driver stages a small task itself
 * (devices/staging_policy.h, APO_CUDA_PAGEABLE_MAX_BYTES): not measured on the H100 machine;
 * CUDA's own figures for pageable copies are 5 to 15 GB/s. */
#define REPLAY_PAGEABLE_BYTES_S 10e9
#define MIB (1024.0 * 1024.0)

int apo__device_is_gpu_like(const apo__device *dev) {
    return dev->info.kind == APO_DEVICE_CUDA ||
           (dev->replay != NULL && dev->replay->role == APO_REPLAY_GPU);
}

int apo__device_is_host_like(const apo__device *dev) {
    return dev->info.kind == APO_DEVICE_CPU ||
           (dev->replay != NULL && dev->replay->role == APO_REPLAY_HOST);
}

void apo__replay_job_of(const apo__call *call, uint64_t first, uint64_t end, apo__replay_job *job) {
    memset(job, 0, sizeof *job);
    job->resident = call->ctx != NULL && (call->ctx->in_gpu >= 0 || call->ctx->out_gpu >= 0);
    apo__grid_iter it;
    apo__grid_run run;
    apo__grid_iter_init(&it, call, first, end);
    double scored_in = 0;
    while (apo__grid_iter_next(&it, &run)) {
        const apo__call *pc = run.call;
        const apo__kernel *k = pc->kernel;
        const double tiles = (double)(run.end - run.first);
        apo__call_span span;
        apo__call_span_of(pc, run.first, run.end, &span);
        const double in = (double)(span.in_hi - span.in_lo) * (double)k->n_inputs * 8.0;
        const double out = (double)(span.out_hi - span.out_lo) * (double)span.n_written * 8.0;
        job->chains += tiles;
        job->out_bytes += out;
        if (k->scoring != NULL) {
            /* A tile is one series of one set: its bars are the chain. The sets of a sweep
             * read the same series, which a device reads (or ships) once for all of them. */
            job->scored = 1;
            job->positions += tiles * (double)pc->cols;
            job->steps = fmax(job->steps, (double)pc->cols);
            job->scored_scratch = fmax(job->scored_scratch, (double)apo__scored_scratch_of(pc));
            scored_in = fmax(scored_in, in);
        } else {
            job->positions += (double)apo__tiles_elements(pc, run.first, run.end) /
                              (double)(pc->unit_work > 0 ? pc->unit_work : 1);
            job->steps =
                fmax(job->steps, (double)pc->tile + (double)apo__kernel_halo(k, pc->params));
            job->in_bytes += in;
        }
    }
    job->in_bytes += scored_in;
    if (call->ctx != NULL && call->ctx->in_gpu >= 0)
        job->in_bytes = 0;
    if (call->ctx != NULL && call->ctx->out_gpu >= 0)
        job->out_bytes = 0;
}

/* The row's speed for `kernel` (a scored job: "scored"), else its default "*". */
static const apo__replay_speed *speed_of(const apo__replay_row *row, const char *kernel,
                                         int scored) {
    const char *want = scored ? "scored" : kernel;
    const apo__replay_speed *fallback = NULL;
    for (const apo__replay_speed *s = row->speeds; s->name != NULL; s++) {
        if (strcmp(s->name, want) == 0)
            return s;
        if (strcmp(s->name, "*") == 0)
            fallback = s;
    }
    return fallback;
}

/* Starts the stager at the first task: it pins the slots of the first size one after
 * another (devices/cuda/cuda_staging.c). */
static void staging_start(const apo__replay_row *row, apo__replay_staging *st) {
    st->started = 1;
    st->slot_bytes = APO_CUDA_SLOT_FIRST_BYTES;
    double t = st->now;
    for (int k = 0; k < APO_CUDA_SLOTS; k++) {
        t += st->slot_bytes / MIB * row->pin_s_per_mib;
        st->ready[k] = t;
    }
}

/* Slots of the current size ready at time t. */
static unsigned published_at(const apo__replay_staging *st, double t) {
    unsigned p = 0;
    while (p < APO_CUDA_SLOTS && st->ready[p] <= t)
        p++;
    return p;
}

/* A staged task of `bytes` at the device's time: swaps a grown set in when it is ready, waits
 * for the slots it needs (or copies from pageable memory while none is ready), and asks for a
 * larger set when its chunks are cut by the slots. Returns the wait, and the slot size and
 * slot count it runs on (pageable: 0 slots). */
static double staging_for(const apo__replay_row *row, apo__replay_staging *st, double bytes,
                          double *slot_bytes, unsigned *slots) {
    if (!st->started)
        staging_start(row, st);
    if (st->grow_bytes > 0 && st->grow_ready <= st->now) {
        st->slot_bytes = st->grow_bytes;
        for (int k = 0; k < APO_CUDA_SLOTS; k++)
            st->ready[k] = st->grow_ready;
        st->grow_bytes = 0;
    }
    *slot_bytes = st->slot_bytes;
    const unsigned ready = published_at(st, st->now);
    if (apo__stage_from_pageable((size_t)bytes, ready)) {
        *slots = 0;
        return 0;
    }
    const unsigned need = apo__slots_needed((size_t)bytes, (size_t)st->slot_bytes);
    const double wait = st->ready[need - 1] > st->now ? st->ready[need - 1] - st->now : 0;
    *slots = published_at(st, st->now + wait);
    const size_t grown =
        apo__slot_grown_bytes((size_t)bytes, (size_t)st->slot_bytes, APO_CUDA_SLOT_MAX_BYTES);
    if (apo__stage_waits_for_growth((size_t)bytes, (size_t)st->slot_bytes,
                                    APO_CUDA_SLOT_MAX_BYTES)) {
        /* Far more chunks than the pipeline needs: it waits for the larger slots, pinned
         * once the present ones are, and runs on them. */
        const double ready =
            (st->grow_bytes > 0 ? st->grow_ready
                                : fmax(st->now + wait, st->ready[APO_CUDA_SLOTS - 1]) +
                                      APO_CUDA_SLOTS * (double)grown / MIB * row->pin_s_per_mib);
        const double size = st->grow_bytes > 0 ? st->grow_bytes : (double)grown;
        const double extra = ready > st->now + wait ? ready - (st->now + wait) : 0;
        st->slot_bytes = size;
        for (int k = 0; k < APO_CUDA_SLOTS; k++)
            st->ready[k] = ready;
        st->grow_bytes = 0;
        *slot_bytes = size;
        *slots = APO_CUDA_SLOTS;
        return wait + extra;
    }
    if ((double)grown > st->slot_bytes && st->grow_bytes == 0) {
        /* Pinned beside the current set once it is all pinned, then swapped in between
         * tasks. */
        st->grow_bytes = (double)grown;
        st->grow_ready = fmax(st->now, st->ready[APO_CUDA_SLOTS - 1]) +
                         APO_CUDA_SLOTS * (double)grown / MIB * row->pin_s_per_mib;
    }
    return wait;
}

static void gpu_demand(const apo__replay_row *row, const apo__replay_speed *speed,
                       const apo__replay_job *job, apo__replay_staging *st, double *free_s,
                       double *bus_bytes) {
    const double staged = job->in_bytes + job->out_bytes;
    double copy_s = 0, pcie_s = 0, wait_s = 0, chunks = 1, slot_bytes = 0;
    unsigned slots = APO_CUDA_SLOTS;
    if (staged > 0) {
        wait_s = staging_for(row, st, staged, &slot_bytes, &slots);
        if (slots == 0) {
            /* The driver stages a small task through its own buffers: one pass, no slot. */
            copy_s = staged / REPLAY_PAGEABLE_BYTES_S;
            *bus_bytes = 2.0 * staged;
        } else {
            /* Chunks of at most a slot; a staged byte is read (or written) by a staging
             * thread, written (or read) in the pinned slot, and moved by the copy engine:
             * three bytes of host memory traffic. */
            chunks = ceil(staged / slot_bytes);
            copy_s = staged / (row->staging_threads * row->copy_bytes_s_thread);
            *bus_bytes = 3.0 * staged;
        }
        pcie_s = fmax(fmax(job->in_bytes / row->h2d_bytes_s, job->out_bytes / row->d2h_bytes_s),
                      staged / row->both_bytes_s);
    } else {
        *bus_bytes = 0;
    }
    if (chunks > job->chains)
        chunks = job->chains > 0 ? job->chains : 1;
    /* The chunks in the slots run their kernels at once (a stream per slot): the rounds of
     * up to `slots` chunks each take the waves their chains fill. */
    const double together = slots > 1 ? fmin((double)slots, chunks) : 1.0;
    const double rounds = ceil(chunks / together);
    const double chains_per_round = job->chains / rounds;
    /* A scored launch runs the series its scratch allows at once (apo__scored_gpu_chains), as
     * the planner assumes; a row's `chains` may cap that further. */
    double at_once = speed->chains;
    if (job->scored) {
        const double launch = (double)apo__scored_gpu_chains((size_t)job->scored_scratch, row->sms);
        at_once = at_once > 0 ? fmin(at_once, launch) : launch;
    }
    const double kernel_s = rounds * ceil(chains_per_round / at_once) * job->steps * speed->step_s;
    *free_s =
        row->latency_s + wait_s + chunks * row->launch_s + fmax(kernel_s, fmax(copy_s, pcie_s));
}

void apo__replay_demand(const apo__replay_row *row, const char *kernel, const apo__replay_job *job,
                        int threads, apo__replay_staging *staging, double *free_s,
                        double *bus_bytes) {
    const apo__replay_speed *speed = speed_of(row, kernel, job->scored);
    if (row->role == APO_REPLAY_GPU) {
        gpu_demand(row, speed, job, staging, free_s, bus_bytes);
        return;
    }
    const double t = threads > 0 ? (double)threads : 1.0;
    *free_s = row->latency_s + job->positions / (t * speed->per_thread);
    *bus_bytes = job->in_bytes + job->out_bytes;
}

void apo__replay_share_bus(double bus_bytes_s, size_t n, const double *free_s,
                           const double *bus_bytes, double *finish_s) {
    double left[APO_MAX_DEVICES], cap[APO_MAX_DEVICES];
    int moving[APO_MAX_DEVICES];
    size_t active = 0;
    for (size_t i = 0; i < n; i++) {
        finish_s[i] = free_s[i];
        left[i] = bus_bytes[i];
        moving[i] = bus_bytes[i] > 0 && free_s[i] > 0;
        cap[i] = moving[i] ? bus_bytes[i] / free_s[i] : 0;
        active += (size_t)moving[i];
    }
    double now = 0;
    while (active > 0) {
        /* Max-min fair rates: the jobs that want less than an equal part of what is left
         * get what they want, in order of what they want; the others share the rest. */
        double rate[APO_MAX_DEVICES] = {0};
        int given[APO_MAX_DEVICES] = {0};
        double avail = bus_bytes_s;
        size_t waiting = active;
        while (waiting > 0) {
            size_t least = n;
            for (size_t i = 0; i < n; i++)
                if (moving[i] && !given[i] && (least == n || cap[i] < cap[least]))
                    least = i;
            const double fair = avail / (double)waiting;
            if (cap[least] <= fair) {
                rate[least] = cap[least];
                avail -= cap[least];
                given[least] = 1;
                waiting--;
                continue;
            }
            for (size_t i = 0; i < n; i++)
                if (moving[i] && !given[i]) {
                    rate[i] = fair;
                    given[i] = 1;
                }
            waiting = 0;
        }
        /* Until the next job is done moving its bytes. */
        double step = INFINITY;
        for (size_t i = 0; i < n; i++)
            if (moving[i] && left[i] / rate[i] < step)
                step = left[i] / rate[i];
        now += step;
        for (size_t i = 0; i < n; i++) {
            if (!moving[i])
                continue;
            left[i] -= rate[i] * step;
            if (left[i] <= bus_bytes[i] * 1e-12) {
                moving[i] = 0;
                active--;
                finish_s[i] = fmax(now, free_s[i]);
            }
        }
    }
}

double apo__replay_host_bytes(const apo__device *dev, const apo__call *call, uint64_t first,
                              uint64_t end, double *bus) {
    if (dev->replay == NULL || first >= end)
        return 0;
    apo__replay_job job;
    apo__replay_job_of(call, first, end, &job);
    *bus = dev->replay->bus_bytes_s;
    const double moved = job.in_bytes + job.out_bytes;
    /* Staged through pinned slots: three host bytes a byte (gpu_demand). */
    return dev->replay->role == APO_REPLAY_GPU ? 3.0 * moved : moved;
}

void apo__replay_phase(apo__device *devices, size_t n, const apo__call *call, const uint64_t *first,
                       const uint64_t *end, const int *has_job) {
    double free_s[APO_MAX_DEVICES], bytes[APO_MAX_DEVICES], finish[APO_MAX_DEVICES];
    int done[APO_MAX_DEVICES];
    for (size_t i = 0; i < n; i++) {
        apo__device *dev = &devices[i];
        done[i] = 1;
        if (dev->replay == NULL || !has_job[i])
            continue;
        apo__replay_job job;
        apo__replay_job_of(call, first[i], end[i], &job);
        const int threads = dev->call_threads > 0 ? dev->call_threads : dev->info.threads;
        apo__replay_demand(dev->replay, call->kernel->name, &job, threads, dev->replay_staging,
                           &free_s[i], &bytes[i]);
        dev->replay_phase_elements = apo__tiles_elements(call, first[i], end[i]);
        done[i] = 0;
    }
    /* The devices of each machine share its bus. */
    for (size_t i = 0; i < n; i++) {
        if (done[i])
            continue;
        const char *machine = devices[i].replay->machine;
        size_t members[APO_MAX_DEVICES], m = 0;
        double f[APO_MAX_DEVICES], b[APO_MAX_DEVICES];
        for (size_t j = i; j < n; j++)
            if (!done[j] && strcmp(devices[j].replay->machine, machine) == 0) {
                members[m] = j;
                f[m] = free_s[j];
                b[m] = bytes[j];
                m++;
            }
        apo__replay_share_bus(devices[i].replay->bus_bytes_s, m, f, b, finish);
        for (size_t k = 0; k < m; k++) {
            apo__device *dev = &devices[members[k]];
            dev->replay_phase_s = finish[k];
            if (dev->replay_staging != NULL)
                dev->replay_staging->now += finish[k];
            done[members[k]] = 1;
        }
    }
}
