/*
 * apo_distribute_workload(): validate and plan the split (plan.c), run every device's share
 * concurrently, redo a failed or late device's unfinished tiles on the survivors, reduce
 * tile partials in a fixed tree, and report. Results depend only on the tile grid (the tile
 * length is a function of the kernel and its parameters), never on the plan. The fault
 * policy (deadlines, quarantine) is decided in faults.c and applied here.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "balance/largest_remainder.h"
#include "base/clock.h"
#include "base/log.h"
#include "catalog/call_span.h"
#include "catalog/grid.h"
#include "catalog/params.h"
#include "catalog/scored_kernels.h"
#include "catalog/volume_inputs.h"
#include "core/distribute_range.h"
#include "core/merge_tree.h"
#include "core/nonfinite_count.h"
#include "core/plan.h"
#include "core/ragged.h"
#include "core/runtime.h"
#include "core/sweep.h"
#include "devices/replay.h"
#ifdef APO_HAVE_CUDA
#include "devices/cuda/cuda_device.h"
#include "devices/cuda/cuda_discovery.h"
#include "devices/cuda/cuda_gpu.h"
#endif

/* Tile partials are at most this many doubles (the moments use 5). */
#define APO_PARTIAL_MAX 8

const char *apo_split_name(apo_split split) {
    switch (split) {
    case APO_SPLIT_AUTO:
        return "auto";
    case APO_SPLIT_ROWS:
        return "rows";
    case APO_SPLIT_TIME:
        return "time";
    }
    return "unknown";
}

const char *apo_gather_name(apo_gather gather) {
    switch (gather) {
    case APO_GATHER_NONE:
        return "none";
    case APO_GATHER_PEER:
        return "peer";
    case APO_GATHER_NCCL:
        return "nccl";
    }
    return "unknown";
}

const char *apo_ratio_source_name(apo_ratio_source source) {
    switch (source) {
    case APO_RATIOS_EQUAL:
        return "equal";
    case APO_RATIOS_EXPLICIT:
        return "explicit";
    case APO_RATIOS_PROFILE:
        return "profile";
    case APO_RATIOS_ONLINE:
        return "online";
    }
    return "unknown";
}

/* ---- execution ------------------------------------------------------------------------ */

typedef struct device_tally {
    uint64_t assigned, elements, tiles, moved_in, tasks; /* assigned: planned + taken over */
    uint64_t chunks;
    double h2d_s, kernel_s, d2h_s, wall_s;
    double host_copy_s, busy_s; /* devices that time their phases as intervals (GPUs) */
    double touch_s;             /* host devices' first touch of the output pages */
    int threads_offered;        /* the cpu device: the most its tasks were offered to */
    int failed;
    int timed_out;     /* it missed a deadline (failed is also set) */
    double deadline_s; /* the longest deadline it was given */
} device_tally;

typedef struct run_state {
    apo_runtime *rt;
    const apo__call *call;
    const char *tag; /* for the deadlines' predictions; NULL: no valid tag */
    int serial_rows; /* a GPU runs each row of the call as one serial chain */
    device_tally tally[APO_MAX_DEVICES];
    double virtual_makespan_s; /* sum over phases of the slowest device's busy time */
    apo_gather gather;         /* how GPU outputs reached out_gpu */
    double gather_s;           /* the gather after the phases */
} run_state;

/* A run's state with no device's tally yet. Only the runtime's devices' tallies are zeroed:
 * the whole array (APO_MAX_DEVICES of them, 8.7 KB) was a twelfth of a small call's CPU
 * time, and nothing reads past rt->n_devices. */
static void run_state_init(run_state *s, apo_runtime *rt, const apo__call *call, const char *tag) {
    s->rt = rt;
    s->call = call;
    s->tag = tag;
    s->serial_rows = apo__call_serial_rows(call);
    memset(s->tally, 0, rt->n_devices * sizeof s->tally[0]);
    s->virtual_makespan_s = 0;
    s->gather = APO_GATHER_NONE;
    s->gather_s = 0;
}

/* A tile range that still has to be computed. */
typedef struct pending_range {
    uint64_t first, end;
} pending_range;

/* Seconds after hand-over by which device i must have finished `job` (faults.h). */
static double job_deadline_s(const run_state *s, size_t i, const apo__device_job *job) {
    apo_runtime *rt = s->rt;
    const apo__device *dev = &rt->devices[i];
    double predicted = NAN;
    /* A sim device on the virtual clock computes at host speed whatever its model says:
     * its modelled time predicts nothing about real time, so the floor alone applies. */
    if (dev->info.kind == APO_DEVICE_SIM && dev->virtual_clock)
        return apo__fault_deadline_s(&rt->faults.settings, predicted);
    const double elements = (double)apo__tiles_elements(s->call, job->first, job->end);
    if (s->tag != NULL)
        predicted = apo__balance_predict(&rt->balance, s->tag, i, elements);
    /* A GPU given a serial-row kernel (alone, or by explicit ratios) takes seconds a million
     * samples: its deadline grows with the call (docs/cuda.md, "One serial chain per row"). */
    const double serial = APO_GPU_SERIAL_SAMPLE_S * elements;
    if (s->serial_rows && apo__device_is_gpu_like(dev) && !(predicted >= serial))
        predicted = serial;
    return apo__fault_deadline_s(&rt->faults.settings, predicted);
}

/* What the devices of a phase need to know of each other before it starts: a cpu (or a
 * replayed host) computes with every core when no GPU has work in the phase, and with what
 * the GPUs' staging threads leave when one has (docs/scheduling.md, "Configurations");
 * replayed devices model their time from everything the phase runs on their machine
 * (devices/replay.h). */
static void plan_phase_devices(apo_runtime *rt, const apo__call *call, const apo__device_job *jobs,
                               const int *has_job) {
    int gpu_busy = 0, replayed = 0;
    uint64_t first[APO_MAX_DEVICES], end[APO_MAX_DEVICES];
    for (size_t i = 0; i < rt->n_devices; i++) {
        gpu_busy |= has_job[i] && apo__device_is_gpu_like(&rt->devices[i]);
        replayed |= has_job[i] && rt->devices[i].replay != NULL;
        first[i] = jobs[i].first;
        end[i] = jobs[i].end;
    }
    for (size_t i = 0; i < rt->n_devices; i++) {
        apo__device *dev = &rt->devices[i];
        if (apo__device_is_host_like(dev))
            dev->call_threads =
                gpu_busy || call->ctx->hold_host_beside ? dev->info.threads : dev->threads_alone;
    }
    if (replayed)
        apo__replay_phase(rt->devices, rt->n_devices, call, first, end, has_job);
}

/* Runs one phase: jobs[i] on device i, each within its deadline. Failed and late devices
 * append their unfinished tiles to `leftover`. Returns the first status that is neither OK
 * nor a device loss. */
static apo_status run_phase(run_state *s, apo__device_job *jobs, int *has_job,
                            pending_range *leftover, size_t *n_leftover, int is_failover) {
    apo_runtime *rt = s->rt;
    /* Only the runtime's devices' entries are read (apo__pool_run() too): clearing the
     * three arrays whole, three `rep stos` of 512 bytes, was a tenth of a small call's CPU
     * time (docs/scheduling.md, "The first touch of a small call"). */
    apo__device_job *ptrs[APO_MAX_DEVICES];
    double deadline_s[APO_MAX_DEVICES], deadlines[APO_MAX_DEVICES];
    size_t count = 0, only = 0;
    for (size_t i = 0; i < rt->n_devices; i++) {
        ptrs[i] = NULL;
        deadline_s[i] = deadlines[i] = 0;
        if (!has_job[i])
            continue;
        jobs[i].call = s->call;
        jobs[i].task_base = s->tally[i].tasks;
        ptrs[i] = &jobs[i];
        deadline_s[i] = job_deadline_s(s, i, &jobs[i]);
        if (deadline_s[i] > s->tally[i].deadline_s)
            s->tally[i].deadline_s = deadline_s[i];
        count++;
        only = i;
    }
    plan_phase_devices(rt, s->call, jobs, has_job);
    double handed_over = apo__now();
    for (size_t i = 0; i < rt->n_devices; i++)
        if (has_job[i])
            deadlines[i] = handed_over + deadline_s[i];
    /* The cpu alone needs no hand-off: it runs on the calling thread and keeps its
     * deadline by itself, tile by tile. Any other device goes to its worker even alone,
     * so that the caller can give up on it if it stops answering. */
    if (count == 1 && rt->devices[only].info.kind == APO_DEVICE_CPU) {
        apo__task_arm(&rt->devices[only].guard, deadlines[only]);
        /* The hand-over's reading, microseconds old, is the job's first guard check's. */
        apo__device_job_run(&rt->devices[only], &jobs[only], handed_over);
    } else if (count > 0) {
        apo__pool_run(&rt->pool, ptrs, deadlines);
    }

    apo_status fatal = APO_OK;
    double slowest = 0;
    for (size_t i = 0; i < rt->n_devices; i++) {
        if (!has_job[i])
            continue;
        apo__device_job *job = &jobs[i];
        device_tally *t = &s->tally[i];
        const uint64_t assigned = apo__tiles_elements(s->call, job->first, job->end);
        /* A job that finished did all it was assigned: counted once. */
        const uint64_t done = job->done_end == job->end
                                  ? assigned
                                  : apo__tiles_elements(s->call, job->first, job->done_end);
        t->assigned += assigned;
        t->elements += done;
        t->tiles += job->done_end - job->first;
        if (is_failover)
            t->moved_in += done;
        t->tasks += job->tasks;
        t->h2d_s += job->time.h2d_s;
        t->kernel_s += job->time.kernel_s;
        t->d2h_s += job->time.d2h_s;
        t->wall_s += job->time.wall_s;
        t->chunks += job->time.chunks;
        t->host_copy_s += job->time.host_copy_s;
        t->busy_s += job->time.busy_s;
        t->touch_s += job->time.touch_s;
        if (job->time.threads_offered > t->threads_offered)
            t->threads_offered = job->time.threads_offered;
        double busy = job->time.wall_s;
        slowest = busy > slowest ? busy : slowest;
        if (job->status == APO_ERR_DEVICE_LOST) {
            t->failed = 1;
            t->timed_out |= job->timed_out;
            leftover[(*n_leftover)++] = (pending_range){job->done_end, job->end};
            apo__log(APO_LOG_WARN, APO_SUBSYS_RUN,
                     "%s %s; tiles [%llu, %llu) go to the other devices", rt->devices[i].info.id,
                     job->timed_out ? "missed its deadline and was abandoned" : "failed",
                     (unsigned long long)job->done_end, (unsigned long long)job->end);
        } else if (job->status != APO_OK && fatal == APO_OK) {
            fatal = job->status;
        }
    }
    s->virtual_makespan_s += slowest;
    return fatal;
}

/* Spreads `range` over the devices that have not failed, by their planned weights (equal
 * among them when those are all zero), and runs it. */
static apo_status run_failover(run_state *s, const apo__plan *p, pending_range range,
                               pending_range *leftover, size_t *n_leftover) {
    apo_runtime *rt = s->rt;
    double weights[APO_MAX_DEVICES];
    double sum = 0;
    size_t survivors = 0;
    int usable[APO_MAX_DEVICES];
    for (size_t i = 0; i < rt->n_devices; i++) {
        usable[i] = !s->tally[i].failed && apo__device_takes_part(rt, s->call, i);
        weights[i] = usable[i] ? p->weights[i] : 0.0;
        sum += weights[i];
        survivors += usable[i];
    }
    if (survivors == 0)
        return APO_ERR_ALL_DEVICES_FAILED;
    if (!(sum > 0))
        for (size_t i = 0; i < rt->n_devices; i++)
            weights[i] = usable[i] ? 1.0 : 0.0;

    uint64_t counts[APO_MAX_DEVICES];
    apo__largest_remainder(weights, rt->n_devices, range.end - range.first, counts);
    apo__device_job jobs[APO_MAX_DEVICES];
    int has_job[APO_MAX_DEVICES]; /* the runtime's devices' entries, all set below */
    uint64_t next = range.first;
    for (size_t i = 0; i < rt->n_devices; i++) {
        jobs[i].first = next;
        next += counts[i];
        jobs[i].end = next;
        has_job[i] = counts[i] > 0;
    }
    return run_phase(s, jobs, has_job, leftover, n_leftover, 1);
}

static apo_status ensure_partials(apo_runtime *rt, apo__call *call) {
    size_t plen = call->kernel->partial_len;
    if (plen == 0)
        return APO_OK;
    if (call->tiles > SIZE_MAX / sizeof(double) / plen)
        return apo__fail(APO_ERR_OVERFLOW, "%s: %llu tile partials overflow size_t",
                         call->kernel->name, (unsigned long long)call->tiles);
    size_t need = (size_t)call->tiles * plen;
    if (need > rt->partials_cap) {
        double *grown = realloc(rt->partials, need * sizeof(double));
        if (grown == NULL)
            return apo__fail(APO_ERR_OUT_OF_MEMORY, "%s: cannot allocate %zu tile partials",
                             call->kernel->name, (size_t)call->tiles);
        rt->partials = grown;
        rt->partials_cap = need;
    }
    call->partials = rt->partials;
    return APO_OK;
}

/* Merges each row's tile partials in tile order through the fixed pairwise tree; a
 * sweep's piece by piece, each in its own call, as that set (that row) alone would. */
static void reduce_rows(const apo__call *call) {
    const apo__kernel *k = call->kernel;
    double root[APO_PARTIAL_MAX];
    double scratch[APO_PARTIAL_MAX * 72]; /* depth <= 66 for 64-bit tile counts */
    for (size_t p = 0; p < apo__grid_pieces(call); p++) {
        const apo__call *piece = apo__grid_piece(call, p);
        for (size_t row = 0; row < piece->rows; row++) {
            apo__reduce_pairwise(k, piece->partials, (uint64_t)row * piece->tiles_per_row,
                                 piece->tiles_per_row, root, scratch);
            k->finalize(piece, row, root);
        }
    }
}

/* Reductions of a call whose outputs live on a GPU: the partials are merged on the host in
 * the same fixed tree, the finalized values (one per row for every output the GPU does not
 * write) go to host scratch, and from there to the GPU. */
static apo_status reduce_rows_to_gpu(const apo__call *call) {
#ifdef APO_HAVE_CUDA
    const apo__kernel *k = call->kernel;
    size_t first_host = k->cuda->n_outputs;
    double *scratch = calloc(call->rows * (k->n_outputs - first_host), sizeof(double));
    if (scratch == NULL)
        return apo__fail(APO_ERR_OUT_OF_MEMORY, "%s: no memory for %zu finalized rows", k->name,
                         call->rows);
    double *host_outputs[APO_MAX_IO];
    for (size_t o = 0; o < k->n_outputs; o++)
        host_outputs[o] = o < first_host ? NULL : scratch + (o - first_host) * call->rows;
    apo__call on_host = *call;
    on_host.outputs = host_outputs;
    reduce_rows(&on_host);
    apo_status st = APO_OK;
    for (size_t o = first_host; o < k->n_outputs && st == APO_OK; o++)
        st = apo__cuda_upload(call->ctx->out_gpu, call->outputs[o], host_outputs[o],
                              call->rows * sizeof(double));
    free(scratch);
    return st;
#else
    return apo__fail(APO_ERR_NO_DEVICE, "%s: GPU outputs without the CUDA backend",
                     call->kernel->name);
#endif
}

/* After the phases of a call whose outputs live on a GPU: the outputs other GPUs kept
 * resident move to it (or are freed when the call failed, `phases` not OK). Says how
 * outputs computed on other GPUs got there: the gather's path, or peer copies made chunk
 * by chunk during the phase. */
static apo_status gather_outputs(run_state *s, apo_status phases) {
    const apo__call *call = s->call;
    if (call->ctx->out_gpu < 0)
        return phases;
#ifdef APO_HAVE_CUDA
    if (call->ctx->gather_resident) {
        if (phases != APO_OK) {
            apo__gather_discard(&s->rt->gather);
            return phases;
        }
        double t0 = apo__now();
        apo_status st = apo__gather_finish(&s->rt->gather, call, &s->gather);
        s->gather_s = apo__now() - t0;
        if (st != APO_OK || s->gather != APO_GATHER_NONE)
            return st;
    }
    for (size_t i = 0; i < s->rt->n_devices; i++)
        if (s->tally[i].elements > 0 && apo__cuda_ordinal(&s->rt->devices[i]) != call->ctx->out_gpu)
            s->gather = APO_GATHER_PEER;
#endif
    return phases;
}

/* The device with the plan's largest share (the first of equals). */
static size_t largest_share(const apo_runtime *rt, const apo__plan *p) {
    size_t most = 0;
    for (size_t i = 1; i < rt->n_devices; i++)
        if (p->weights[i] > p->weights[most])
            most = i;
    return most;
}

/* Why the plan left device i out (the report's no_share_reason): a GPU kept off a kernel it
 * runs as one serial chain per row, or the models' choice; "" where neither chose the
 * shares. */
static void no_share_reason(const apo_runtime *rt, const apo__plan *p, size_t i, char *buf,
                            size_t size) {
    buf[0] = '\0';
    if (p->gpus_out && apo__device_is_gpu_like(&rt->devices[i])) {
        snprintf(buf, size, "one serial chain per row on a GPU: %.48s runs it faster",
                 rt->devices[largest_share(rt, p)].info.id);
        return;
    }
    const apo__config_choice *c = &p->choice;
    if (isnan(c->predicted_s) || p->weights[i] > 0)
        return;
    if (c->config_probe)
        snprintf(buf, size, "configuration probe: %.48s alone, %.3g ms predicted (split %.3g ms)",
                 rt->devices[c->alone].info.id, c->alone_s[c->alone] * 1e3, c->split_s * 1e3);
    else if (c->alone >= 0 && c->alone_s[c->alone] >= c->split_s)
        snprintf(buf, size,
                 "%s alone: %.3g ms, and the split's %.3g ms gains less than %.0f%%, not worth a "
                 "second device",
                 rt->devices[c->alone].info.id, c->alone_s[c->alone] * 1e3, c->split_s * 1e3,
                 APO_SPLIT_MIN_GAIN * 100);
    else if (c->alone >= 0)
        snprintf(buf, size, "%s alone is faster: %.3g ms against %.3g ms for the split%s",
                 rt->devices[c->alone].info.id, c->alone_s[c->alone] * 1e3, c->split_s * 1e3,
                 c->bus_bound ? " (host memory bound)" : "");
    else
        snprintf(buf, size,
                 "the split is faster without it (%.3g ms): its share would not pay for its "
                 "fixed cost or fill one wave",
                 c->split_s * 1e3);
}

/* fill_report clears the report up to its device array: no field may follow the array. */
_Static_assert(offsetof(apo_report, devices) + sizeof(((apo_report *)0)->devices) ==
                   sizeof(apo_report),
               "apo_report.devices must be the last field");

static void fill_report(const run_state *s, const apo__plan *p, const apo_workload *w,
                        double makespan_s, int modelled, uint64_t nonfinite, apo_report *r) {
    const apo_runtime *rt = s->rt;
    const apo__call *call = s->call;
    /* Every field before the device array, which comes last: its entries are written one
     * by one below, and those past n_devices are not touched (docs/api.md). */
    size_t size = r->size;
    memset(r, 0, offsetof(apo_report, devices));
    r->size = size;
    snprintf(r->kernel, sizeof r->kernel, "%s", call->kernel->name);
    r->rows = call->rows;
    r->cols = call->cols;
    r->seed = w->seed;
    r->split_axis = p->axis;
    r->ratio_source = p->source;
    r->tile = call->tile;
    r->tiles = call->tiles;
    r->elements = apo__tiles_elements(call, 0, call->tiles);
    r->sets = apo__grid_sets_run(call);
    r->first_set = apo__grid_first_set(call);
    r->sweep_sets = apo__grid_sweep_sets(call);
    r->makespan_ms = makespan_s * 1e3;
    r->n_devices = rt->n_devices;
    r->gather = s->gather;
    r->gather_ms = s->gather_s * 1e3;
    r->nonfinite_outputs = nonfinite;

    double rate_sum = 0;
    for (size_t i = 0; i < rt->n_devices; i++) {
        const apo__device *dev = &rt->devices[i];
        const device_tally *t = &s->tally[i];
        apo_device_report *d = &r->devices[i];
        memset(d, 0, sizeof *d);
        snprintf(d->id, sizeof d->id, "%s", dev->info.id);
        snprintf(d->label, sizeof d->label, "%s", dev->info.label);
        d->kind = dev->info.kind;
        d->share = p->weights[i];
        d->elements = t->elements;
        d->tiles = t->tiles;
        d->h2d_ms = t->h2d_s * 1e3;
        d->kernel_ms = t->kernel_s * 1e3;
        d->d2h_ms = t->d2h_s * 1e3;
        d->host_copy_ms = t->host_copy_s * 1e3;
        d->first_touch_ms = t->touch_s * 1e3;
        /* Summed over tasks, the phases against the time any of them ran (docs/cuda.md). */
        d->overlap =
            t->busy_s > 0 ? (t->host_copy_s + t->h2d_s + t->kernel_s + t->d2h_s) / t->busy_s : 0.0;
        double busy = t->wall_s;
        d->wall_ms = busy * 1e3;
        d->chunks = t->chunks;
        d->threads_offered = t->threads_offered;
        d->wait_ms = makespan_s > busy ? (makespan_s - busy) * 1e3 : 0.0;
        d->throughput = busy > 0 ? (double)t->elements / busy : 0.0;
        d->failed = t->failed;
        if (t->timed_out)
            snprintf(d->failure, sizeof d->failure,
                     "deadline missed: no answer within %.1f ms, abandoned; its unfinished tiles "
                     "moved",
                     t->deadline_s * 1e3);
        else if (t->failed)
            snprintf(d->failure, sizeof d->failure,
                     "device lost: task %llu of this call failed, its unfinished tiles moved",
                     (unsigned long long)t->tasks);
        r->failovers += (size_t)t->failed;
        d->deadline_missed = t->timed_out;
        r->deadlines_missed += (size_t)t->timed_out;
        d->deadline_ms = t->deadline_s * 1e3;
        d->quarantined = apo__fault_quarantined(&rt->faults, i);
        if (d->quarantined)
            snprintf(d->quarantine_reason, sizeof d->quarantine_reason, "%s",
                     rt->faults.health[i].reason);
        r->quarantined += (size_t)d->quarantined;
        if (t->assigned == 0 && !d->quarantined)
            no_share_reason(rt, p, i, d->no_share_reason, sizeof d->no_share_reason);
        d->elements_moved_out = t->assigned - t->elements;
        d->elements_moved_in = t->moved_in;
        d->simulated = dev->info.kind == APO_DEVICE_SIM || dev->simulated;
        r->simulated |= d->simulated;
        if (t->elements > 0 && busy > 0)
            rate_sum += (double)t->elements / busy;
    }
    r->virtual_clock = modelled;
    /* The ideal makespan: all elements at the measured rates of the devices that worked,
     * had they all finished together. */
    double ideal = rate_sum > 0 ? (double)r->elements / rate_sum : 0.0;
    r->balance_efficiency = makespan_s > 0 && ideal > 0 ? fmin(1.0, ideal / makespan_s) : 1.0;
}

/* Online refinement: each device's measured busy time for the elements it computed, in a
 * run of `total` elements of `tag`, less the time it spent faulting in the caller's fresh
 * output pages: that depends on the caller's buffers, not on the device, and a model that
 * learnt it would predict every later call on warm buffers too slow (docs/scheduling.md,
 * "What a device's time includes"). */
static void observe_run(apo_runtime *rt, const char *tag, double total, const run_state *s,
                        const apo__plan *p, double makespan_s) {
    uint64_t elements[APO_MAX_DEVICES];
    double busy[APO_MAX_DEVICES];
    int failed[APO_MAX_DEVICES], alone[APO_MAX_DEVICES], cold[APO_MAX_DEVICES];
    size_t worked = 0, last = 0, failures = 0;
    for (size_t i = 0; i < rt->n_devices; i++) {
        const device_tally *t = &s->tally[i];
        const apo__device *dev = &rt->devices[i];
        /* A GPU whose model is per full wave counts a share of fewer tiles than a wave as the
         * wave it costs (balance/configurations.h). */
        const double wave = apo__wave_tiles(rt, s->call, i);
        elements[i] = t->elements;
        if (wave > 0 && t->tiles > 0 && (double)t->tiles < wave)
            elements[i] = (uint64_t)((double)t->elements * wave / (double)t->tiles);
        busy[i] = t->wall_s > t->touch_s ? t->wall_s - t->touch_s : 0.0;
        failed[i] = t->failed;
        alone[i] = apo__device_is_host_like(dev) && dev->threads_alone != dev->info.threads &&
                   dev->call_threads == dev->threads_alone;
        failures += (size_t)t->failed;
        cold[i] = t->elements > 0 && !atomic_load_explicit(&dev->warm, memory_order_relaxed);
        if (t->elements > 0) {
            worked++;
            last = i;
        }
    }
    /* The configuration that ran, where the models chose it and it ran as planned: one device
     * with all the work is that device alone. */
    int config = -1;
    const int from_models = p != NULL && !p->probed && !isnan(p->choice.predicted_s);
    if (from_models && failures == 0 && worked > 0)
        config = worked == 1 ? 1 + (int)last : 0;
    const apo__call_outcome_times o = {
        .total_elements = total,
        .elements = elements,
        .busy_s = busy,
        .failed = failed,
        .alone = alone,
        .cold = cold,
        .config = config,
        .makespan_s = makespan_s,
    };
    apo__balance_observe(&rt->balance, tag, &o);
    for (size_t i = 0; i < rt->n_devices; i++)
        if (s->tally[i].elements > 0)
            atomic_store_explicit(&rt->devices[i].warm, 1, memory_order_relaxed);
}

/* The run's tag was checked when the call began (apo__distribute_placed). */
static void learn_from_call(apo_runtime *rt, const run_state *s, const apo__plan *p,
                            double makespan_s) {
    if (s->tag != NULL)
        observe_run(rt, s->tag, (double)apo__tiles_elements(s->call, 0, s->call->tiles), s, p,
                    makespan_s);
}

/* Applies the call's outcome for every device to the quarantine rule; a device
 * quarantined now is logged once, here. */
static void record_outcomes(apo_runtime *rt, const run_state *s) {
    for (size_t i = 0; i < rt->n_devices; i++) {
        const device_tally *t = &s->tally[i];
        apo__call_outcome outcome = t->timed_out      ? APO_OUTCOME_MISSED_DEADLINE
                                    : t->failed       ? APO_OUTCOME_FAILED
                                    : t->assigned > 0 ? APO_OUTCOME_OK
                                                      : APO_OUTCOME_NO_WORK;
        if (apo__fault_record(&rt->faults, i, outcome, t->deadline_s))
            apo__log(APO_LOG_WARN, APO_SUBSYS_RUN,
                     "%s is quarantined for the runtime's life (it %s): it gets no more work",
                     rt->devices[i].info.id, rt->faults.health[i].reason);
    }
}

/* Runs the plan's jobs, then redoes what failed devices left, until nothing is left or no
 * device is; then applies the outcomes to the quarantine rule. When it returns
 * APO_ERR_ALL_DEVICES_FAILED, *lost_tiles says how many tiles were not computed. */
static apo_status run_plan(run_state *s, const apo__plan *p, uint64_t *lost_tiles) {
    apo__device_job jobs[APO_MAX_DEVICES];
    int has_job[APO_MAX_DEVICES]; /* the runtime's devices' entries, all set below */
    for (size_t i = 0; i < s->rt->n_devices; i++) {
        jobs[i].first = p->first[i];
        jobs[i].end = p->end[i];
        has_job[i] = p->end[i] > p->first[i];
    }
    pending_range leftover[APO_MAX_DEVICES * 2];
    size_t n_leftover = 0;
    apo_status st = run_phase(s, jobs, has_job, leftover, &n_leftover, 0);
    /* Each failover phase redoes one failed range; a device that fails there adds its own
     * unfinished part, and each device fails at most once per call, so this ends. */
    *lost_tiles = 0;
    while (st == APO_OK && n_leftover > 0) {
        pending_range range = leftover[--n_leftover];
        st = run_failover(s, p, range, leftover, &n_leftover);
        if (st == APO_ERR_ALL_DEVICES_FAILED) {
            *lost_tiles = range.end - range.first;
            for (size_t i = 0; i < n_leftover; i++)
                *lost_tiles += leftover[i].end - leftover[i].first;
        }
    }
    record_outcomes(s->rt, s);
    return st;
}

/* Holds back the staging of every GPU the plan gives nothing (`hold` non-zero), or lets it go
 * on: a GPU that stages early (the CLI) would otherwise pin beside a call that the cpu runs
 * alone (docs/cuda.md, "Staging slots sized to the need"). */
static void hold_idle_staging(apo_runtime *rt, const apo__plan *p, int hold) {
#ifdef APO_HAVE_CUDA
    for (size_t i = 0; i < rt->n_devices; i++)
        if (p->end[i] <= p->first[i])
            apo__cuda_hold_idle_staging(&rt->devices[i], hold);
#else
    (void)rt, (void)p, (void)hold;
#endif
}

/* A GPU that runs the call as one serial chain per row and missed its deadline (-1: none). */
static int serial_gpu_late(const run_state *s) {
    for (size_t i = 0; s->serial_rows && i < s->rt->n_devices; i++)
        if (s->tally[i].timed_out && apo__device_is_gpu_like(&s->rt->devices[i]))
            return (int)i;
    return -1;
}

/* The error of a call whose every device failed; where a GPU was late on a kernel it runs as
 * one serial chain per row, it says so and what to do instead. */
static apo_status all_failed(const run_state *s, uint64_t lost_tiles) {
    const apo__call *call = s->call;
    const int late = serial_gpu_late(s);
    if (late < 0)
        return apo__fail(APO_ERR_ALL_DEVICES_FAILED,
                         "%s: every device failed; %llu of %llu tile(s) were not computed",
                         call->kernel->name, (unsigned long long)lost_tiles,
                         (unsigned long long)call->tiles);
    return apo__fail(APO_ERR_ALL_DEVICES_FAILED,
                     "%s: every device failed; %llu of %llu tile(s) were not computed: %s runs "
                     "%s as one serial chain per row (about %.0f us a sample) and missed its "
                     "deadline of %.1f s; a cpu runs it in milliseconds a million samples "
                     "(--devices cpu, APPORTION_DEVICES=cpu), or a longer deadline "
                     "(APPORTION_DEADLINE_FLOOR) lets the GPU finish",
                     call->kernel->name, (unsigned long long)lost_tiles,
                     (unsigned long long)call->tiles, s->rt->devices[late].info.id,
                     call->kernel->name, APO_GPU_SERIAL_SAMPLE_S * 1e6, s->tally[late].deadline_s);
}

/* Says, where the log is on, that a GPU got a share of a kernel it runs as one serial chain
 * per row: the user asked for it (GPUs alone, or explicit ratios), and it will take long. */
static void warn_serial_gpus(const apo_runtime *rt, const apo__call *call, const apo__plan *p) {
    for (size_t i = 0; i < rt->n_devices; i++)
        if (p->end[i] > p->first[i] && apo__device_is_gpu_like(&rt->devices[i]))
            apo__log(APO_LOG_WARN, APO_SUBSYS_SPLIT,
                     "%s: %s runs it as one serial chain per row, about %.0f us a sample (a cpu "
                     "takes milliseconds a million samples: --devices cpu); its deadline grows "
                     "with the call",
                     call->kernel->name, rt->devices[i].info.id, APO_GPU_SERIAL_SAMPLE_S * 1e6);
}

static apo_status distribute_locked(apo_runtime *rt, const apo_workload *w, apo__call *call,
                                    apo_report *report) {
    const int learn = call->ctx->learn;
    rt->faults.calls++;
    apo__plan p;
    apo_status st = apo__plan_call(rt, w, call, &p, learn);
    if (st != APO_OK)
        return st;
    st = ensure_partials(rt, call);
    if (st != APO_OK)
        return st;
    /* Counted only for a report, which is where the count goes; released by the caller. */
    if (report != NULL && (st = apo__nonfinite_start(call)) != APO_OK)
        return st;
    run_state s;
    run_state_init(&s, rt, call, call->ctx->tag);
    apo__sweep_bind(call);
    if (s.serial_rows)
        warn_serial_gpus(rt, call, &p);
    apo__log(APO_LOG_INFO, APO_SUBSYS_SPLIT, "%s: %zu x %zu x %zu set(s), %llu tiles, split by %s",
             call->kernel->name, apo__grid_sets_run(call), call->rows, call->cols,
             (unsigned long long)call->tiles, apo_split_name(p.axis));

    /* The call's wall time is the report's makespan and what a learning call's configuration
     * learns (balance/configurations.h: a makespan holds hand-overs and waits that no
     * device's busy time does): a call that neither reports nor learns does not read the
     * clock for it, two of a small call's readings of some 25 ns each. */
    const double t0 = report != NULL || learn ? apo__now() : 0;
    uint64_t lost_tiles = 0;
    apo__scored_failure_clear(call->kernel);
    hold_idle_staging(rt, &p, 1);
    st = run_plan(&s, &p, &lost_tiles);
    st = gather_outputs(&s, st);
    hold_idle_staging(rt, &p, 0);
    if (st == APO_ERR_ALL_DEVICES_FAILED)
        return all_failed(&s, lost_tiles);
    char rule_failure[256];
    if (st == APO_ERR_KERNEL_FAILED &&
        apo__scored_failure_take(call->kernel, rule_failure, sizeof rule_failure))
        return apo__fail(APO_ERR_KERNEL_FAILED, "%s", rule_failure);
    if (st != APO_OK && !call->kernel->builtin)
        return apo__fail(APO_ERR_KERNEL_FAILED, "%s: the kernel's cpu function returned %s",
                         call->kernel->name, apo_status_name(st));
    if (st != APO_OK)
        return apo__fail(st, "%s: a device failed with %s", call->kernel->name,
                         apo_status_name(st));
    if (call->kernel->partial_len > 0 && call->ctx->out_gpu >= 0) {
        st = reduce_rows_to_gpu(call);
        if (st != APO_OK)
            return st;
    } else if (call->kernel->partial_len > 0) {
        reduce_rows(call);
    }
    apo__ragged_fill_tails(call);
    const double wall_s = report != NULL || learn ? apo__now() - t0 : 0;
    int modelled = 0;
    for (size_t i = 0; i < rt->n_devices; i++)
        modelled |= rt->devices[i].virtual_clock && s.tally[i].tasks > 0;
    const double makespan_s = modelled ? s.virtual_makespan_s : wall_s;
    if (learn)
        learn_from_call(rt, &s, &p, makespan_s);

    if (report != NULL) {
        uint64_t nonfinite = apo__nonfinite_finish(call);
        fill_report(&s, &p, w, makespan_s, modelled, nonfinite, report);
    }
    return APO_OK;
}

apo_status apo__distribute(apo_runtime *rt, const apo_workload *w, apo_report *report, int learn) {
    const apo__placement on_host = {-1, -1, NULL, 0, 0};
    return apo__distribute_placed(rt, w, &on_host, report, learn);
}

apo_status apo__distribute_placed(apo_runtime *rt, const apo_workload *w,
                                  const apo__placement *where, apo_report *report, int learn) {
    if (rt == NULL || w == NULL)
        return apo__fail(APO_ERR_NULL, "apo_distribute_workload: %s is NULL",
                         rt == NULL ? "rt" : "w");
    if (report != NULL)
        APO_CHECK_STRUCT_SIZE(report, apo_report, APO_REPORT_INIT);
    /* The call lock is held by the call running this thread's kernel: waiting for it here
     * would never end. */
    if (apo__inside_kernel_of(rt))
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "apo_distribute_workload: called from inside a user kernel that this "
                         "runtime is running; the call would wait for itself (a kernel must not "
                         "call back into its own runtime)");
    apo__call call;
    apo_status st = apo__resolve_call(rt, w, &call, 1);
    if (st != APO_OK)
        return st;
    /* Arrays in GPU memory would need each set's block (each ragged row) staged and
     * gathered on the GPUs, which no sweep or ragged call does yet (docs/api.md, "Sweeps",
     * "Ragged rows"). */
    if (call.grid != NULL && (where->in_gpu >= 0 || where->out_gpu >= 0)) {
        const int ragged = apo__grid_ragged(&call);
        apo__sweep_release(&call);
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         ragged ? "%s: ragged rows (row_lengths) cannot run on arrays in GPU "
                                  "memory (apo_distribute_workload_cuda); give host arrays"
                                : "%s: a sweep cannot run on arrays in GPU memory "
                                  "(apo_distribute_workload_cuda); give host arrays, or one set "
                                  "per call",
                         w->kernel);
    }
    /* A ranged scored call runs on the host's devices (catalog/score_ranges.h). */
    if (call.ranged != NULL && (where->in_gpu >= 0 || where->out_gpu >= 0)) {
        apo__sweep_release(&call);
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "%s: a scored call with ranges cannot run on arrays in GPU memory "
                         "(apo_distribute_workload_cuda); give host arrays",
                         w->kernel);
    }
    /* Host inputs are read here for the catalog's rule on volumes; arrays in GPU memory are
     * the caller's to check (docs/kernels.md, "Negative volume"). */
    if (where->in_gpu < 0) {
        st = apo__check_volumes(call.kernel, w->inputs, w->rows, w->cols, w->row_lengths, w->cols,
                                "apo_distribute_workload", "row");
        if (st != APO_OK) {
            apo__sweep_release(&call);
            return st;
        }
    }
    /* The tag is checked whatever the ratios: a call learns under it. */
    const char *tag;
    st = apo__workload_tag(w, &call, &tag);
    if (st != APO_OK) {
        apo__sweep_release(&call);
        return st;
    }
    /* Arrays in GPU memory are another shape of call than host arrays: no staging, a GPU's
     * time its kernels' waves. A kernel's own tag keeps the two apart (NAME@resident), so
     * that neither teaches the other's models (docs/scheduling.md, "Configurations and the
     * guard"); a caller's tag is the caller's. */
    char resident_tag[APO_TAG_MAX];
    if (w->tag == NULL && (where->in_gpu >= 0 || where->out_gpu >= 0) &&
        snprintf(resident_tag, sizeof resident_tag, "%s@resident", tag) < (int)sizeof resident_tag)
        tag = resident_tag;
    /* This run's context, resolved once and shared by every piece of the call's grid. The
     * workload may keep its call out of the models, probes included; it cannot make a
     * runtime that does not learn learn (apo__balance_observe() checks that). */
    apo__call_ctx ctx = {
        .in_gpu = where->in_gpu,
        .out_gpu = where->out_gpu,
        .wait_events = where->wait_events,
        .n_wait_events = where->n_wait_events,
        .rt = rt,
        .tag = tag,
        .learn = learn && w->learn != APO_SWITCH_OFF,
        .hold_host_beside = where->hold_host_beside,
    };
    /* A runtime that does not learn ignores the call's wish to (apo__balance_observe()). */
    ctx.times_unread = report == NULL && !(ctx.learn && rt->balance.learn);
    call.ctx = &ctx;
    pthread_mutex_lock(&rt->call_mutex);
#ifdef APO_HAVE_CUDA
    ctx.gather_resident = apo__gather_resident(&rt->gather, where->out_gpu);
    /* GPUs copying device arrays to and from each other go straight where they can. */
    if (where->in_gpu >= 0 || where->out_gpu >= 0)
        apo__gather_enable_peers(&rt->gather);
#endif
    st = distribute_locked(rt, w, &call, report);
    apo__nonfinite_discard(&call); /* a failed call's counts */
    pthread_mutex_unlock(&rt->call_mutex);
    apo__sweep_release(&call);
    return st;
}

/* ---- a run of tiles for a serving rank (distribute_range.h) ------------------------------- */

static apo_status range_locked(apo_runtime *rt, const apo__call *call, const char *tag,
                               uint64_t first, uint64_t end, apo__range_result *result) {
    rt->faults.calls++;
    const size_t n = rt->n_devices;
    const double total = (double)apo__tiles_elements(call, first, end);
    apo__plan p;
    memset(&p, 0, sizeof p);
    /* A serving rank's GPUs stay out of a serial-row kernel as a call's do (core/plan.h). */
    const int gpus_out = apo__gpus_stay_out(rt, call);
    int usable[APO_MAX_DEVICES];
    apo__usable_devices(rt, gpus_out, usable);
    /* Not explored: probes are placed by apo__plan_call(), which a range does not use. */
    double min[APO_MAX_DEVICES];
    apo__shape shape;
    apo__call_shape(rt, call, first, end, min, &shape);
    apo__balance_shares(&rt->balance, tag, usable, &shape, 0, p.weights, NULL, &p.source,
                        &p.predicted_s, &p.choice);
    apo__keep_gpus_out(rt, call, gpus_out, &p);
    apo_status st = apo__keep_capable_devices(rt, call, &p);
    if (st != APO_OK)
        return st;
    /* Any split of whole tiles gives the same bits (docs/determinism.md): no axis choice. */
    uint64_t counts[APO_MAX_DEVICES];
    apo__largest_remainder(p.weights, n, end - first, counts);
    uint64_t next = first;
    for (size_t i = 0; i < n; i++) {
        p.first[i] = next;
        next += counts[i];
        p.end[i] = next;
    }
    run_state s;
    run_state_init(&s, rt, call, tag);
    double t0 = apo__now();
    uint64_t lost_tiles = 0;
    st = run_plan(&s, &p, &lost_tiles);
    int modelled = 0;
    for (size_t i = 0; i < n; i++) {
        result->failovers += (uint64_t)s.tally[i].failed;
        modelled |= rt->devices[i].virtual_clock && s.tally[i].tasks > 0;
    }
    if (st != APO_OK)
        return st;
    result->modelled = modelled;
    result->makespan_s = modelled ? s.virtual_makespan_s : apo__now() - t0;
    if (call->ctx->learn)
        observe_run(rt, tag, total, &s, &p, result->makespan_s);
    return APO_OK;
}

apo_status apo__distribute_range(apo_runtime *rt, const apo__call *call, const char *tag,
                                 uint64_t first, uint64_t end, apo__range_result *result) {
    memset(result, 0, sizeof *result);
    if (first >= end)
        return APO_OK;
    pthread_mutex_lock(&rt->call_mutex);
    apo_status st = range_locked(rt, call, tag, first, end, result);
    pthread_mutex_unlock(&rt->call_mutex);
    return st;
}

apo_status apo_distribute_workload(apo_runtime *rt, const apo_workload *w, apo_report *report) {
    return apo__distribute(rt, w, report, 1);
}
