/*
 * A call's report (call_report.h): the names of the split axis, the gather and the ratios'
 * source, which apportion.h declares, and the report filled from a call's run, each device's
 * share, times and failures, and why a device got no share.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "catalog/call_span.h"
#include "catalog/grid.h"
#include "core/call_report.h"
#include "devices/replay.h"

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

/* apo__fill_report clears the report up to its device array: no field may follow the array. */
_Static_assert(offsetof(apo_report, devices) + sizeof(((apo_report *)0)->devices) ==
                   sizeof(apo_report),
               "apo_report.devices must be the last field");

void apo__fill_report(const apo__run_state *s, const apo__plan *p, const apo_workload *w,
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
        const apo__device_tally *t = &s->tally[i];
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
