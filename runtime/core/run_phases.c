/*
 * A call's plan run on the devices (run_phases.h): every device's share at once, each within
 * its deadline (faults.c decides the policy), then what a failed or late device left spread
 * over the survivors, phase after phase, and each device's outcome applied to the quarantine
 * rule. The tiles a device computes are the plan's; their bits are not (docs/determinism.md).
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "balance/largest_remainder.h"
#include "base/clock.h"
#include "base/log.h"
#include "catalog/call_span.h"
#include "catalog/grid.h"
#include "core/run_phases.h"
#include "devices/replay.h"

/* A run's state with no device's tally yet. Only the runtime's devices' tallies are zeroed:
 * the whole array (APO_MAX_DEVICES of them, 8.7 KB) was a twelfth of a small call's CPU
 * time, and nothing reads past rt->n_devices. */
void apo__run_state_init(apo__run_state *s, apo_runtime *rt, const apo__call *call,
                         const char *tag) {
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
static double job_deadline_s(const apo__run_state *s, size_t i, const apo__device_job *job) {
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
static apo_status run_phase(apo__run_state *s, apo__device_job *jobs, int *has_job,
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
        apo__device_tally *t = &s->tally[i];
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
static apo_status run_failover(apo__run_state *s, const apo__plan *p, pending_range range,
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

/* Applies the call's outcome for every device to the quarantine rule; a device
 * quarantined now is logged once, here. */
static void record_outcomes(apo_runtime *rt, const apo__run_state *s) {
    for (size_t i = 0; i < rt->n_devices; i++) {
        const apo__device_tally *t = &s->tally[i];
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
apo_status apo__run_plan(apo__run_state *s, const apo__plan *p, uint64_t *lost_tiles) {
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
