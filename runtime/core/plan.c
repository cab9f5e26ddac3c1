/*
 * Planning a call: the workload checked and resolved into a call (kernel, parameters, tile
 * grid, arrays), then the split: shares from explicit ratios or the balancing models, the
 * devices that can take part, the axis, and each device's tiles (plan.h).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "balance/largest_remainder.h"
#include "base/error.h"
#include "catalog/call_span.h"
#include "catalog/grid.h"
#include "catalog/params.h"
#include "catalog/score_ranges.h"
#include "catalog/scored_kernels.h"
#include "core/plan.h"
#include "core/runtime.h"
#include "core/sweep.h"
#include "devices/cuda/cuda_discovery.h"
#include "devices/cuda/pipeline_plan.h"
#include "devices/replay.h"

/* With at least this many rows per device, the auto axis splits by rows. */
#define APO_ROWS_PER_DEVICE_FOR_ROW_SPLIT 32

/* ---- validation ---------------------------------------------------------------------- */

/* Whether the byte ranges [a, a + a_bytes) and [b, b + b_bytes) share a byte (compared as
 * addresses, without forming a pointer past either range). */
static int ranges_overlap(const void *a, size_t a_bytes, const void *b, size_t b_bytes) {
    const uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return x <= y ? y - x < a_bytes : x - y < b_bytes;
}

/* No kernel computes in place: tiles read the inputs, halos included, while other tiles'
 * outputs are written, so an output that shares memory with an input or another output
 * gives wrong values without an error. */
static apo_status check_no_overlap(const apo__kernel *k, const apo_workload *w,
                                   const double *params, size_t out_rows) {
    const size_t in_bytes = w->rows * w->cols * sizeof(double);
    size_t out_bytes[APO_MAX_IO];
    for (size_t o = 0; o < k->n_outputs; o++) {
        out_bytes[o] = out_rows * k->output_cols(k, params, w->cols, o) * sizeof(double);
        for (size_t i = 0; i < k->n_inputs; i++)
            if (ranges_overlap(w->inputs[i], in_bytes, w->outputs[o], out_bytes[o]))
                return apo__fail(APO_ERR_INVALID_ARGUMENT,
                                 "%s: output %zu (%s) shares memory with input %zu: outputs must "
                                 "not overlap the inputs or each other (no kernel works in place)",
                                 k->name, o, k->output_names[o], i);
        for (size_t p = 0; p < o; p++)
            if (ranges_overlap(w->outputs[p], out_bytes[p], w->outputs[o], out_bytes[o]))
                return apo__fail(APO_ERR_INVALID_ARGUMENT,
                                 "%s: outputs %zu (%s) and %zu (%s) share memory: outputs must "
                                 "not overlap the inputs or each other",
                                 k->name, p, k->output_names[p], o, k->output_names[o]);
    }
    return APO_OK;
}

/* The call's buffers, once the rest is resolved. */
static apo_status check_call_buffers(const apo_workload *w, apo__call *call) {
    const apo__kernel *k = call->kernel;
    if (w->n_inputs != k->n_inputs || w->n_outputs != k->n_outputs)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "%s takes %zu input(s) and %zu output(s); got %zu and %zu", k->name,
                         k->n_inputs, k->n_outputs, w->n_inputs, w->n_outputs);
    if (w->inputs == NULL || w->outputs == NULL)
        return apo__fail(APO_ERR_NULL, "%s: the inputs or outputs array is NULL", k->name);
    for (size_t i = 0; i < k->n_inputs; i++)
        if (w->inputs[i] == NULL)
            return apo__fail(APO_ERR_NULL, "%s: input %zu is NULL", k->name, i);
    for (size_t i = 0; i < k->n_outputs; i++)
        if (w->outputs[i] == NULL)
            return apo__fail(APO_ERR_NULL, "%s: output %zu (%s) is NULL", k->name, i,
                             k->output_names[i]);
    apo_status st = check_no_overlap(k, w, call->params, apo__call_output_rows(call));
    if (st != APO_OK)
        return st;
    call->inputs = w->inputs;
    call->outputs = w->outputs;
    return APO_OK;
}

apo_status apo__resolve_call(apo_runtime *rt, const apo_workload *w, apo__call *call,
                             int check_buffers) {
    APO_CHECK_STRUCT_SIZE(w, apo_workload, APO_WORKLOAD_INIT);
    if (w->kernel == NULL)
        return apo__fail(APO_ERR_NULL, "apo_workload.kernel is NULL");
    const apo__kernel *k = NULL;
    apo_status kst = apo__registry_lookup(&rt->registry, w->kernel, &k);
    if (kst != APO_OK)
        return kst;
    if (w->score != NULL) {
        /* A scored call runs the kernel and the rule as one (catalog/scored_kernels.h). */
        if (k->scoring != NULL)
            return apo__fail(APO_ERR_INVALID_ARGUMENT,
                             "%s is already scored: name the indicator and the rule apart",
                             k->name);
        /* A rule of this runtime's (apo_rule_register) before the built-in ones, whose
         * names it cannot take. */
        char scored_name[2 * APO_NAME_MAX];
        snprintf(scored_name, sizeof scored_name, "%s:%s", k->name, w->score);
        const apo__kernel *user_rule = apo__registry_find(&rt->registry, scored_name);
        apo_status sst = user_rule != NULL ? APO_OK : apo__scored_kernel_of(k->name, w->score, &k);
        if (sst != APO_OK)
            return sst;
        if (user_rule != NULL)
            k = user_rule;
    }
    if (w->rows == 0 || w->cols == 0)
        return apo__fail(APO_ERR_INVALID_ARGUMENT, "%s: rows (%zu) and cols (%zu) must be > 0",
                         k->name, w->rows, w->cols);
    if (w->rows > SIZE_MAX / sizeof(double) / w->cols)
        return apo__fail(APO_ERR_OVERFLOW, "%s: rows %zu x cols %zu x 8 bytes overflows size_t",
                         k->name, w->rows, w->cols);
    if ((int)w->split < APO_SPLIT_AUTO || (int)w->split > APO_SPLIT_TIME)
        return apo__fail(APO_ERR_INVALID_ARGUMENT, "apo_workload.split is %d, not an apo_split",
                         (int)w->split);
    if ((int)w->learn < APO_SWITCH_UNSET || (int)w->learn > APO_SWITCH_OFF)
        return apo__fail(APO_ERR_INVALID_ARGUMENT, "apo_workload.learn is %d, not an apo_switch",
                         (int)w->learn);

    memset(call, 0, sizeof *call);
    /* Host arrays until the call that runs it says otherwise (core/distribute.c). */
    call->ctx = &apo__call_ctx_host;
    call->kernel = k;
    call->rows = w->rows;
    call->cols = w->cols;
    call->seed = w->seed;
    apo_status st = apo__resolve_params(k, w->params, w->n_params, call->params);
    if (st != APO_OK)
        return st;
    /* A sweep checks each of its sets instead: the values not swept alone need not make a
     * valid set (a default period longer than cols, swept shorter). Ragged rows are checked
     * row by row, each as a call of that row alone (core/ragged.h). */
    if (w->sweep == NULL && w->row_lengths == NULL && k->validate != NULL) {
        char err[256];
        st = k->validate(k, call->params, w->rows, w->cols, err, sizeof err);
        if (st != APO_OK)
            return apo__fail(st, "%s", err);
    }
    /* A scored call's ranges give its kernel one output column per range: the shapes below
     * are its copy's (catalog/score_ranges.h). */
    st = apo__score_ranges_attach(w, call);
    if (st != APO_OK)
        return st;
    k = call->kernel;
    for (size_t i = 0; i < k->n_outputs && w->sweep == NULL; i++) {
        size_t oc = k->output_cols(k, call->params, w->cols, i);
        if (oc != 0 && w->rows > SIZE_MAX / sizeof(double) / oc) {
            apo__sweep_release(call);
            return apo__fail(APO_ERR_OVERFLOW, "%s: output %s of %zu x %zu overflows size_t",
                             k->name, k->output_names[i], w->rows, oc);
        }
    }

    call->axis_len = k->axis_len(k, call->params, w->cols);
    call->tile = k->tile_len(k, call->params);
    call->tiles_per_row = (call->axis_len + call->tile - 1) / call->tile;
    call->tiles = (uint64_t)w->rows * call->tiles_per_row;
    call->unit_work = k->unit_work(k, call->params, w->cols);
    st = apo__sweep_resolve(w, call);
    if (st != APO_OK)
        return st;

    if (!check_buffers)
        return APO_OK;
    st = check_call_buffers(w, call);
    if (st != APO_OK)
        apo__sweep_release(call);
    return st;
}

apo_status apo_output_shape(const apo_runtime *rt, const apo_workload *w, size_t index,
                            size_t *out_rows, size_t *out_cols) {
    if (rt == NULL || w == NULL || out_rows == NULL || out_cols == NULL)
        return apo__fail(APO_ERR_NULL, "apo_output_shape: NULL argument");
    apo__call call;
    apo_status st = apo__resolve_call((apo_runtime *)rt, w, &call, 0);
    if (st != APO_OK)
        return st;
    /* Read while the call is held: a ranged call's kernel is the call's own, freed with it. */
    const size_t rows = apo__call_output_rows(&call);
    const apo__kernel *k = call.kernel;
    if (index >= k->n_outputs) {
        st = apo__fail(APO_ERR_NOT_FOUND, "%s has %zu outputs, no output %zu", k->name,
                       k->n_outputs, index);
        apo__sweep_release(&call);
        return st;
    }
    *out_rows = rows;
    *out_cols = k->output_cols(k, call.params, w->cols, index);
    apo__sweep_release(&call);
    return APO_OK;
}

/* ---- planning ------------------------------------------------------------------------- */

apo_status apo__check_tag_text(const char *tag, const char *what) {
    for (size_t i = 0; tag[i] != '\0'; i++) {
        const unsigned char c = (unsigned char)tag[i];
        if (c < 0x20 || c == 0x7f)
            return apo__fail(APO_ERR_INVALID_ARGUMENT,
                             "%s: the tag holds the control character 0x%02x at byte %zu; tags "
                             "are stored in the profile and printed, so they may hold none",
                             what, c, i);
    }
    return APO_OK;
}

apo_status apo__workload_tag(const apo_workload *w, const apo__call *call, const char **tag) {
    *tag = w->tag != NULL ? w->tag : call->kernel->name;
    size_t len = strlen(*tag);
    if (len == 0 || len >= APO_TAG_MAX)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "apo_workload.tag must be 1 to %d characters, got %zu", APO_TAG_MAX - 1,
                         len);
    return apo__check_tag_text(*tag, "apo_workload.tag");
}

/* Whether device i could run the call: it must be able to run the kernel (a GPU needs the
 * kernel's CUDA implementation), and a call on device-resident arrays runs on GPUs only.
 * A sweep or a ragged call (host arrays only) runs on every kind: each device gets each
 * piece's tiles (a set's, a ragged row's) as a task of that piece's own call
 * (worker_pool.c), so a GPU stages and launches them as a call of that piece alone
 * (docs/api.md, "Sweeps" and "Ragged rows"). */
static int device_capable(const apo_runtime *rt, const apo__call *call, size_t i) {
    const apo__device *dev = &rt->devices[i];
    if (call->ctx->in_gpu >= 0 || call->ctx->out_gpu >= 0)
        if (dev->info.kind != APO_DEVICE_CUDA)
            return 0;
    /* A user's rule is a function of this process: a rank serves the call in another, where
     * it does not exist (docs/scores.md, "User rules"). */
    if (dev->info.kind == APO_DEVICE_RANK && call->kernel->scoring != NULL &&
        call->kernel->scoring->user_fn != NULL)
        return 0;
    /* A rank is sent the kernel's name and parameters, which do not carry the ranges
     * (docs/scores.md, "Ranges"). */
    if (dev->info.kind == APO_DEVICE_RANK && call->ranged != NULL)
        return 0;
    return apo__device_can_run(dev, call->kernel);
}

void apo__min_elements(const apo_runtime *rt, double elements, uint64_t tiles, double *min) {
    const double per_tile = tiles > 0 ? elements / (double)tiles : 0.0;
    for (size_t i = 0; i < rt->n_devices; i++) {
        const apo_device_info *info = &rt->devices[i].info;
        min[i] = info->kind == APO_DEVICE_CUDA
                     ? (double)apo__gpu_wave_tiles(info->multiprocessors) * per_tile
                     : 0.0;
    }
}

double apo__device_wave_tiles(const apo__device *dev, int kernel_bound) {
    if (!kernel_bound || !apo__device_is_gpu_like(dev))
        return 0;
    const int sms = dev->replay != NULL ? dev->replay->sms : dev->info.multiprocessors;
    return (double)apo__gpu_wave_tiles(sms);
}

double apo__wave_tiles(const apo_runtime *rt, const apo__call *call, size_t i) {
    const apo__device *dev = &rt->devices[i];
    /* A scored call's chains are sets x series, one a GPU thread, and a launch runs as many as
     * the GPU holds or its scratch allows at once: on an H200 a piece's time stayed at 25 ms
     * whether the GPU had half of its 26,500 series or four fifths (docs/perf-log/
     * 2026-11-26-h200-second-visit.md), so that is its wave, not the staged kernels'. */
    if (call->kernel->scoring != NULL && apo__device_is_gpu_like(dev))
        return (double)apo__scored_gpu_chains(apo__scored_scratch_of(call),
                                              dev->replay != NULL ? dev->replay->sms
                                                                  : dev->info.multiprocessors);
    /* Where a call's time is its kernels' rather than its copies': arrays already in GPU
     * memory. */
    const int kernel_bound = call->ctx->in_gpu >= 0 || call->ctx->out_gpu >= 0;
    return apo__device_wave_tiles(dev, kernel_bound);
}

void apo__call_shape(const apo_runtime *rt, const apo__call *call, uint64_t first, uint64_t end,
                     double *min, apo__shape *shape) {
    const size_t n = rt->n_devices;
    const double elements = (double)apo__tiles_elements(call, first, end);
    const uint64_t tiles = end - first;
    apo__min_elements(rt, elements, tiles, min);
    shape->elements = elements;
    shape->min_elements = min;
    shape->bus_bytes_s = 0;
    const double per_tile = tiles > 0 ? elements / (double)tiles : 0.0;
    double bus = 0;
    for (size_t i = 0; i < n; i++) {
        const apo__device *dev = &rt->devices[i];
        shape->wave_elements[i] = apo__wave_tiles(rt, call, i) * per_tile;
        shape->alone_speedup[i] =
            apo__device_is_host_like(dev) && dev->threads_alone > dev->info.threads
                ? (double)dev->threads_alone / (double)dev->info.threads
                : 1.0;
        shape->host_bytes[i] =
            elements > 0 ? apo__replay_host_bytes(dev, call, first, end, &bus) / elements : 0;
        shape->cold[i] = !atomic_load_explicit(&dev->warm, memory_order_relaxed);
    }
    /* Only replayed devices know their machine's bus (docs/scheduling.md, "The host bus"). */
    shape->bus_bytes_s = bus;
}

int apo__device_takes_part(const apo_runtime *rt, const apo__call *call, size_t i) {
    return device_capable(rt, call, i) && !apo__fault_quarantined(&rt->faults, i);
}

int apo__gpus_stay_out(const apo_runtime *rt, const apo__call *call) {
    if (!apo__call_serial_rows(call))
        return 0;
    for (size_t i = 0; i < rt->n_devices; i++)
        if (!apo__device_is_gpu_like(&rt->devices[i]) && apo__device_takes_part(rt, call, i))
            return 1;
    return 0;
}

void apo__usable_devices(const apo_runtime *rt, int gpus_out, int *usable) {
    for (size_t i = 0; i < rt->n_devices; i++)
        usable[i] = !apo__fault_quarantined(&rt->faults, i) &&
                    !(gpus_out && apo__device_is_gpu_like(&rt->devices[i]));
}

void apo__keep_gpus_out(const apo_runtime *rt, const apo__call *call, int gpus_out, apo__plan *p) {
    p->gpus_out = gpus_out && p->source != APO_RATIOS_EXPLICIT;
    if (!p->gpus_out)
        return;
    double left = 0;
    size_t others = 0;
    for (size_t i = 0; i < rt->n_devices; i++) {
        if (apo__device_is_gpu_like(&rt->devices[i])) {
            p->weights[i] = 0;
            continue;
        }
        const int part = apo__device_takes_part(rt, call, i);
        left += part ? p->weights[i] : 0;
        others += (size_t)part;
    }
    /* Ratios of a profile that gave the GPUs everything: the others share equally, as
     * apo__keep_capable_devices would share among all. */
    if (!(left > 0))
        for (size_t i = 0; i < rt->n_devices; i++)
            if (!apo__device_is_gpu_like(&rt->devices[i]) && apo__device_takes_part(rt, call, i))
                p->weights[i] = 1.0 / (double)others;
}

/* The error of a call that every capable device is quarantined from. */
static apo_status all_quarantined(const apo_runtime *rt, const apo__call *call) {
    size_t quarantined = 0, first = 0;
    for (size_t i = 0; i < rt->n_devices; i++)
        if (device_capable(rt, call, i) && apo__fault_quarantined(&rt->faults, i) &&
            quarantined++ == 0)
            first = i;
    return apo__fail(APO_ERR_ALL_DEVICES_FAILED,
                     "%s: every device that can run it is quarantined (%zu; %s %s)",
                     call->kernel->name, quarantined, rt->devices[first].info.id,
                     rt->faults.health[first].reason);
}

apo_status apo__keep_capable_devices(const apo_runtime *rt, const apo__call *call, apo__plan *p) {
    size_t n = rt->n_devices, capable = 0;
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        if (!apo__device_takes_part(rt, call, i))
            p->weights[i] = 0;
        else
            capable++;
        sum += p->weights[i];
    }
    if (capable == 0) {
        for (size_t i = 0; i < n; i++)
            if (device_capable(rt, call, i))
                return all_quarantined(rt, call);
        return apo__fail(APO_ERR_NO_DEVICE, "%s: no device of this runtime can run it%s",
                         call->kernel->name,
                         call->ctx->in_gpu >= 0 || call->ctx->out_gpu >= 0
                             ? " on device-resident arrays (only GPUs with the kernel's CUDA "
                               "implementation can)"
                             : "");
    }
    for (size_t i = 0; i < n; i++) {
        if (sum > 0)
            p->weights[i] /= sum;
        else
            p->weights[i] = apo__device_takes_part(rt, call, i) ? 1.0 / (double)capable : 0.0;
    }
    return APO_OK;
}

/* The units a call is shared out in along `axis`: rows (every piece's rows: a sweep's rows
 * of every set run, each ragged row) or tiles. */
static uint64_t unit_count(const apo__call *call, apo_split axis) {
    return axis == APO_SPLIT_ROWS ? apo__grid_rows(call) : call->tiles;
}

/* The first tile of unit u (u <= unit_count()): a row's first tile, in its piece's grid,
 * or tile u. */
static uint64_t unit_first_tile(const apo__call *call, apo_split axis, uint64_t u) {
    return axis == APO_SPLIT_ROWS ? apo__grid_row_first_tile(call, u) : u;
}

/* Lays the devices' unit counts out as consecutive tile ranges, in device order. */
static void lay_out(const apo__call *call, apo_split axis, size_t n, const uint64_t *counts,
                    apo__plan *p) {
    uint64_t next = 0;
    for (size_t i = 0; i < n; i++) {
        p->first[i] = unit_first_tile(call, axis, next);
        next += counts[i];
        p->end[i] = unit_first_tile(call, axis, next);
    }
}

/* Whether every row of the call is a single tile (of every piece, for a sweep or ragged
 * rows). */
static int single_tile_rows(const apo__call *call) {
    for (size_t p = 0; p < apo__grid_pieces(call); p++)
        if (apo__grid_piece(call, p)->tiles_per_row != 1)
            return 0;
    return 1;
}

/* Ragged rows differ in length, so whole rows are shared out by their elements rather than
 * their number: each device's run of rows ends where the elements before it come nearest
 * its cumulative share (a row goes to the run whose target passes its midpoint), and the
 * last device with a share takes the rest. Devices without a share get no row. */
static void ragged_row_counts(const apo__call *call, const double *weights, size_t n,
                              uint64_t *counts) {
    const size_t pieces = apo__grid_pieces(call);
    const double total = (double)apo__tiles_elements(call, 0, call->tiles);
    size_t last = 0;
    for (size_t i = 0; i < n; i++)
        if (weights[i] > 0)
            last = i;
    double share = 0, before = 0;
    uint64_t next = 0;
    for (size_t i = 0; i < n; i++) {
        counts[i] = 0;
        if (!(weights[i] > 0))
            continue;
        share += weights[i];
        uint64_t end = next;
        if (i == last)
            end = pieces;
        else
            for (; end < pieces; end++) {
                const apo__call *row = apo__grid_piece(call, end);
                const double e = (double)apo__tiles_elements(row, 0, row->tiles);
                if (before + e / 2 > share * total)
                    break;
                before += e;
            }
        counts[i] = end - next;
        next = end;
    }
}

/* Exploration: gives each device marked in `probe` (apo__balance_shares) that takes part
 * but got no unit an equal part of APO_PROBE_FRACTION of the units, at least one, taken one
 * by one from the devices with the most; the devices longest without work first when the
 * budget does not reach all. Returns whether any was probed: not when one unit each is
 * already more than APO_PROBE_FRACTION of the call's elements. The plan's ranges are laid
 * out either way. */
static int add_probes(const apo_runtime *rt, const apo__call *call, const unsigned *probe,
                      uint64_t units, apo_split axis, uint64_t *counts, apo__plan *p) {
    size_t n = rt->n_devices, order[APO_MAX_DEVICES], k = 0;
    for (size_t i = 0; i < n; i++)
        if (probe[i] > 0 && counts[i] == 0 && apo__device_takes_part(rt, call, i)) {
            size_t j = k++;
            for (; j > 0 && probe[order[j - 1]] < probe[i]; j--)
                order[j] = order[j - 1];
            order[j] = i;
        }
    const uint64_t budget = (uint64_t)(APO_PROBE_FRACTION * (double)units);
    if (k > budget)
        k = (size_t)budget;
    if (k == 0)
        return 0;
    const double total = (double)apo__tiles_elements(call, 0, call->tiles);
    /* Units differ by a row's shorter last tile: the layout is checked in elements, and
     * when the equal parts do not fit, one unit each is tried before giving up. */
    for (uint64_t each = budget / k; each > 0; each = each > 1 ? 1 : 0) {
        uint64_t probed[APO_MAX_DEVICES];
        memcpy(probed, counts, n * sizeof *counts);
        for (size_t j = 0; j < k; j++)
            for (uint64_t u = 0; u < each; u++) {
                size_t most = 0;
                for (size_t i = 1; i < n; i++)
                    if (probed[i] > probed[most])
                        most = i;
                probed[most]--;
                probed[order[j]]++;
            }
        lay_out(call, axis, n, probed, p);
        double elements = 0;
        for (size_t j = 0; j < k; j++)
            elements += (double)apo__tiles_elements(call, p->first[order[j]], p->end[order[j]]);
        if (elements <= APO_PROBE_FRACTION * total) {
            memcpy(counts, probed, n * sizeof *counts);
            /* The shares this call runs with. */
            for (size_t i = 0; i < n; i++)
                p->weights[i] = (double)counts[i] / (double)units;
            return 1;
        }
    }
    lay_out(call, axis, n, counts, p);
    return 0;
}

apo_status apo__plan_call(apo_runtime *rt, const apo_workload *w, const apo__call *call,
                          apo__plan *p, int explore) {
    size_t n = rt->n_devices;
    apo_status st = APO_OK;
    p->predicted_s = NAN;
    p->choice.alone = p->choice.unmeasured_alone = -1;
    p->choice.config_probe = 0;
    p->choice.predicted_s = p->choice.split_s = NAN;
    p->probed = 0;
    p->gpus_out = 0;
    /* Only the runtime's devices' entries are read: clearing all APO_MAX_DEVICES (a `rep
     * stos` of 256 bytes) was a visible part of a small call (docs/scheduling.md). */
    unsigned probe[APO_MAX_DEVICES];
    for (size_t i = 0; i < n; i++)
        probe[i] = 0;
    const char *tag = NULL;
    if (w->n_ratios != 0) {
        if (w->ratios == NULL)
            return apo__fail(APO_ERR_NULL, "n_ratios is %zu but ratios is NULL", w->n_ratios);
        if (w->n_ratios != n)
            return apo__fail(APO_ERR_INVALID_ARGUMENT,
                             "%zu ratios given for %zu devices (one per device, in device order)",
                             w->n_ratios, n);
        double sum = 0;
        for (size_t i = 0; i < n; i++) {
            if (!isfinite(w->ratios[i]) || w->ratios[i] < 0)
                return apo__fail(APO_ERR_INVALID_ARGUMENT,
                                 "ratio %zu (%s) is %g: ratios must be finite and >= 0", i,
                                 rt->devices[i].info.id, w->ratios[i]);
            sum += w->ratios[i];
        }
        if (isinf(sum))
            return apo__fail(APO_ERR_INVALID_ARGUMENT,
                             "the ratios sum to inf (beyond the largest double): scale them down");
        if (!(sum > 0))
            return apo__fail(APO_ERR_INVALID_ARGUMENT,
                             "the ratios sum to %g: at least one must be positive", sum);
        for (size_t i = 0; i < n; i++)
            p->weights[i] = w->ratios[i] / sum;
        p->source = APO_RATIOS_EXPLICIT;
    } else {
        /* A runtime call checked its tag when it began (apo__distribute_placed); a call
         * planned alone has none yet. */
        tag = call->ctx->tag;
        if (tag == NULL && (st = apo__workload_tag(w, call, &tag)) != APO_OK)
            return st;
        /* A kernel that is one serial chain per row on a GPU is solved without the GPUs
         * where another device takes it (docs/scheduling.md, "One serial chain per row"). */
        const int gpus_out = apo__gpus_stay_out(rt, call);
        int usable[APO_MAX_DEVICES];
        apo__usable_devices(rt, gpus_out, usable);
        double min[APO_MAX_DEVICES];
        apo__shape shape;
        apo__call_shape(rt, call, 0, call->tiles, min, &shape);
        apo__balance_shares(&rt->balance, tag, usable, &shape, explore, p->weights, probe,
                            &p->source, &p->predicted_s, &p->choice);
        apo__keep_gpus_out(rt, call, gpus_out, p);
    }

    st = apo__keep_capable_devices(rt, call, p);
    if (st != APO_OK)
        return st;
    size_t active = 0;
    for (size_t i = 0; i < n; i++)
        active += p->weights[i] > 0;
    p->axis = w->split;
    if (p->axis == APO_SPLIT_AUTO)
        p->axis = (single_tile_rows(call) ||
                   unit_count(call, APO_SPLIT_ROWS) >= APO_ROWS_PER_DEVICE_FOR_ROW_SPLIT * active)
                      ? APO_SPLIT_ROWS
                      : APO_SPLIT_TIME;

    uint64_t units = unit_count(call, p->axis);
    uint64_t counts[APO_MAX_DEVICES];
    if (p->axis == APO_SPLIT_ROWS && apo__grid_ragged(call))
        ragged_row_counts(call, p->weights, n, counts);
    else if (n == 1)
        counts[0] = units; /* the rounding's answer for one device, which takes part */
    else
        apo__largest_remainder(p->weights, n, units, counts);
    lay_out(call, p->axis, n, counts, p);
    /* A lone device has every unit: there is no device without work to probe. */
    if (n > 1 && tag != NULL && add_probes(rt, call, probe, units, p->axis, counts, p)) {
        apo__balance_probed(&rt->balance, tag);
        p->probed = 1;
    }
    return APO_OK;
}

apo_status apo_plan_workload(apo_runtime *rt, const apo_workload *w, apo_plan_info *out) {
    if (rt == NULL || w == NULL || out == NULL)
        return apo__fail(APO_ERR_NULL, "apo_plan_workload: NULL argument");
    APO_CHECK_STRUCT_SIZE(out, apo_plan_info, APO_PLAN_INFO_INIT);
    apo__call call;
    apo_status st = apo__resolve_call(rt, w, &call, 0);
    if (st != APO_OK)
        return st;
    apo__plan p;
    /* A preview: it neither probes nor counts towards the next probe. */
    st = apo__plan_call(rt, w, &call, &p, 0);
    if (st != APO_OK) {
        apo__sweep_release(&call);
        return st;
    }
    out->ratio_source = p.source;
    out->split_axis = p.axis;
    out->predicted_ms = p.predicted_s * 1e3;
    out->elements = apo__tiles_elements(&call, 0, call.tiles);
    out->sets = apo__grid_sets_run(&call);
    out->first_set = apo__grid_first_set(&call);
    out->sweep_sets = apo__grid_sweep_sets(&call);
    out->n_devices = rt->n_devices;
    for (size_t i = 0; i < rt->n_devices; i++) {
        out->shares[i] = p.weights[i];
        out->device_elements[i] = apo__tiles_elements(&call, p.first[i], p.end[i]);
    }
    apo__sweep_release(&call);
    return APO_OK;
}
