/*
 * apo_distribute_workload(): validate and plan the split (plan.c), run every device's share
 * concurrently, redo a failed or late device's unfinished tiles on the survivors, reduce
 * tile partials in a fixed tree, and report. Results depend only on the tile grid (the tile
 * length is a function of the kernel and its parameters), never on the plan. The fault
 * policy (deadlines, quarantine) is decided in faults.c and applied by the phases
 * (run_phases.c); the report is filled in call_report.c and the models learn in
 * call_learning.c. Here: a call's checks and run context, its partials reduced and outputs
 * gathered, and the run of tiles a serving rank is given.
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
#include "core/call_learning.h"
#include "core/call_report.h"
#include "core/distribute_range.h"
#include "core/merge_tree.h"
#include "core/nonfinite_count.h"
#include "core/plan.h"
#include "core/ragged.h"
#include "core/run_phases.h"
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
static apo_status gather_outputs(apo__run_state *s, apo_status phases) {
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
static int serial_gpu_late(const apo__run_state *s) {
    for (size_t i = 0; s->serial_rows && i < s->rt->n_devices; i++)
        if (s->tally[i].timed_out && apo__device_is_gpu_like(&s->rt->devices[i]))
            return (int)i;
    return -1;
}

/* The error of a call whose every device failed; where a GPU was late on a kernel it runs as
 * one serial chain per row, it says so and what to do instead. */
static apo_status all_failed(const apo__run_state *s, uint64_t lost_tiles) {
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
    apo__run_state s;
    apo__run_state_init(&s, rt, call, call->ctx->tag);
    apo__sweep_bind(call);
    if (s.serial_rows)
        warn_serial_gpus(rt, call, &p);
    apo__log(APO_LOG_INFO, APO_SUBSYS_SPLIT, "%s: %zu x %zu x %zu set(s), %llu tiles, split by %s",
             call->kernel->name, apo__grid_sets_run(call), call->rows, call->cols,
             (unsigned long long)call->tiles, apo_split_name(p.axis));

    /* The call's wall time is the report's makespan and what a learning call's configuration
     * learns (balance/configurations.h: a makespan holds hand-overs and waits that no
     * device's busy time does): a call that neither reports nor learns does not read the
     * clock for it, two of a small call's three readings of some 25 to 40 ns each. A call
     * that may learn on a runtime that does not (APO_SWITCH_OFF) learns nothing
     * (apo__balance_observe()), so it does not read them either. */
    const int timed = report != NULL || (learn && rt->balance.learn);
    const double t0 = timed ? apo__now() : 0;
    uint64_t lost_tiles = 0;
    apo__scored_failure_clear(call->kernel);
    hold_idle_staging(rt, &p, 1);
    st = apo__run_plan(&s, &p, &lost_tiles);
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
    const double wall_s = timed ? apo__now() - t0 : 0;
    int modelled = 0;
    for (size_t i = 0; i < rt->n_devices; i++)
        modelled |= rt->devices[i].virtual_clock && s.tally[i].tasks > 0;
    const double makespan_s = modelled ? s.virtual_makespan_s : wall_s;
    if (learn)
        apo__learn_from_call(rt, &s, &p, makespan_s);

    if (report != NULL) {
        uint64_t nonfinite = apo__nonfinite_finish(call);
        apo__fill_report(&s, &p, w, makespan_s, modelled, nonfinite, report);
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
        return apo__refuse_reentry("apo_distribute_workload", "the call");
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
    apo__run_state s;
    apo__run_state_init(&s, rt, call, tag);
    double t0 = apo__now();
    uint64_t lost_tiles = 0;
    st = apo__run_plan(&s, &p, &lost_tiles);
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
        apo__observe_run(rt, tag, total, &s, &p, result->makespan_s);
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
