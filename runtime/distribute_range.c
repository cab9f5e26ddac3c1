/*
 * A run of tiles on this runtime's devices; see distribute_range.h. It is the planner and
 * failover of distribute.c cut down to what a serving rank needs: no validation (rank 0 did
 * it), no axis choice (any split of whole tiles gives the same bits, docs/determinism.md), no
 * reduction (rank 0 merges every tile's partial in its fixed tree), no report.
 */
#include <math.h>
#include <string.h>

#include "distribute_range.h"
#include "partition.h"
#include "runtime.h"

/* Runs jobs[i] on device i where has_job[i]; a single job runs on the calling thread. */
static void run_jobs(apo_runtime *rt, apo__device_job *jobs, const int *has_job) {
    apo__device_job *ptrs[APO_MAX_DEVICES] = {0};
    size_t count = 0, only = 0;
    for (size_t i = 0; i < rt->n_devices; i++) {
        if (has_job[i]) {
            ptrs[i] = &jobs[i];
            count++;
            only = i;
        }
    }
    if (count == 1)
        apo__device_job_run(&rt->devices[only], &jobs[only]);
    else if (count > 1)
        apo__pool_run(&rt->pool, ptrs);
}

/* Splits [first, end) by `weights` over the devices and runs the pieces. */
static void run_split(apo_runtime *rt, const apo__call *call, const double *weights, uint64_t first,
                      uint64_t end, apo__device_job *jobs, int *has_job, const uint64_t *tasks) {
    uint64_t counts[APO_MAX_DEVICES];
    apo__largest_remainder(weights, rt->n_devices, end - first, counts);
    uint64_t next = first;
    for (size_t i = 0; i < rt->n_devices; i++) {
        memset(&jobs[i], 0, sizeof jobs[i]);
        jobs[i].call = call;
        jobs[i].first = next;
        next += counts[i];
        jobs[i].end = next;
        jobs[i].task_base = tasks[i];
        has_job[i] = counts[i] > 0;
    }
    run_jobs(rt, jobs, has_job);
}

static apo_status range_locked(apo_runtime *rt, const apo__call *call, const char *tag,
                               uint64_t first, uint64_t end, apo__range_result *result) {
    size_t n = rt->n_devices;
    double weights[APO_MAX_DEVICES];
    apo_ratio_source source;
    double predicted;
    apo__balance_shares(&rt->balance, tag, (double)apo__tiles_elements(call, first, end), weights,
                        &source, &predicted);
    double sum = 0;
    size_t capable = 0;
    int usable[APO_MAX_DEVICES];
    for (size_t i = 0; i < n; i++) {
        usable[i] = apo__device_can_run(&rt->devices[i], call->kernel);
        weights[i] = usable[i] && isfinite(weights[i]) && weights[i] > 0 ? weights[i] : 0.0;
        sum += weights[i];
        capable += usable[i];
    }
    if (capable == 0)
        return APO_ERR_ALL_DEVICES_FAILED;

    uint64_t elements[APO_MAX_DEVICES] = {0}, tasks[APO_MAX_DEVICES] = {0};
    double busy[APO_MAX_DEVICES] = {0};
    int failed[APO_MAX_DEVICES] = {0};
    apo__device_job jobs[APO_MAX_DEVICES];
    int has_job[APO_MAX_DEVICES];
    /* Pending ranges: the whole run first, then what failed devices left. Each device fails
     * at most once here, so there are at most n + 1. */
    uint64_t pending_first[APO_MAX_DEVICES + 1], pending_end[APO_MAX_DEVICES + 1];
    size_t n_pending = 1;
    pending_first[0] = first;
    pending_end[0] = end;
    apo_status fatal = APO_OK;
    int modelled = 0;
    double t0 = apo__now(), virtual_s = 0;

    while (n_pending > 0 && fatal == APO_OK) {
        n_pending--;
        uint64_t a = pending_first[n_pending], b = pending_end[n_pending];
        double w[APO_MAX_DEVICES];
        double wsum = 0;
        for (size_t i = 0; i < n; i++) {
            w[i] = usable[i] && !failed[i] ? (sum > 0 ? weights[i] : 1.0) : 0.0;
            wsum += w[i];
        }
        if (!(wsum > 0)) /* the weighted devices failed: the survivors share equally */
            for (size_t i = 0; i < n; i++)
                wsum += w[i] = usable[i] && !failed[i] ? 1.0 : 0.0;
        if (!(wsum > 0))
            return APO_ERR_ALL_DEVICES_FAILED;
        run_split(rt, call, w, a, b, jobs, has_job, tasks);
        double slowest = 0;
        for (size_t i = 0; i < n; i++) {
            if (!has_job[i])
                continue;
            apo__device_job *job = &jobs[i];
            elements[i] += apo__tiles_elements(call, job->first, job->done_end);
            busy[i] += job->time.wall_s;
            tasks[i] += job->tasks;
            slowest = job->time.wall_s > slowest ? job->time.wall_s : slowest;
            modelled |= rt->devices[i].virtual_clock;
            if (job->status == APO_ERR_DEVICE_LOST) {
                failed[i] = 1;
                result->failovers++;
                pending_first[n_pending] = job->done_end;
                pending_end[n_pending++] = job->end;
            } else if (job->status != APO_OK && fatal == APO_OK) {
                fatal = job->status;
            }
        }
        virtual_s += slowest;
    }
    if (fatal != APO_OK)
        return fatal;
    apo__balance_observe(&rt->balance, tag, (double)apo__tiles_elements(call, first, end), elements,
                         busy, failed);
    result->modelled = modelled;
    result->makespan_s = modelled ? virtual_s : apo__now() - t0;
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
