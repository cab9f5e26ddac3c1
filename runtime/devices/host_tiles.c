/*
 * Running tiles on the host. The cpu device spreads them over its OpenMP threads; every
 * tile computes the same bits whichever thread runs it, because a tile's result depends
 * only on the input and the tile grid (see kernels/), so the schedule is free.
 *
 * A kernel with a group function (run_tiles) gets its tiles in groups, which it computes
 * side by side in the lanes of the device's vector path (dev->cpu_isa; docs/kernels.md,
 * "Vector paths"), with the bits of one tile at a time.
 *
 * Before its tiles, a task writes once into every page of the output elements it owns that
 * is not in memory yet (first_touch.h), so that the page faults of a caller's fresh arrays
 * are timed on their own instead of passing for the device's speed (docs/scheduling.md,
 * "What a device's time includes").
 */
#include <assert.h>
#include <omp.h>
#include <stdlib.h>

#include "base/clock.h"
#include "catalog/call_span.h"
#include "devices/device.h"
#include "devices/first_touch.h"
#include "devices/host_tiles.h"
#include "kernels.h"

/* Below this much work, a task runs on one thread (see apo__run_tiles_on_host). */
#define APO_HOST_PARALLEL_MIN_ELEMENTS 32768

/* Groups hold at most this many tiles. */
#define APO_HOST_GROUP_MAX 64

/* Tiles per group: one round of the path's lanes, or, when rows have at most 4 tiles, whole
 * rows' worth of rounds: the last tile of a row is often shorter, and with several rows in
 * a group the kernel can give the short tiles a round of their own. */
static uint64_t group_size(const apo__call *call, int isa) {
    uint64_t lanes = apo__cpu_isa_lanes((apo__cpu_isa)isa);
    uint64_t per_row = call->tiles_per_row;
    uint64_t g = per_row <= 4 ? lanes * per_row : lanes;
    return g < APO_HOST_GROUP_MAX ? g : APO_HOST_GROUP_MAX;
}

/* Runs unit `unit` of tiles [first, end): `group` tiles from first + unit * group (the last
 * unit may be shorter), together when the kernel has a group function, else one by one.
 * The unit is one access to the call: it starts only while the task is wanted, and the
 * runtime waits for it to end before it gives the tiles to another device. */
static apo_status run_unit(apo__device *dev, const apo__call *call, uint64_t first, uint64_t end,
                           int64_t unit, uint64_t group, double *scratch, size_t scratch_len) {
    if (!apo__task_enter_call(&dev->guard))
        return APO_ERR_DEVICE_LOST;
    const apo__kernel *k = call->kernel;
    size_t plen = k->partial_len;
    uint64_t g0 = first + (uint64_t)unit * group;
    uint64_t g1 = end - g0 < group ? end : g0 + group;
    apo_status st = APO_OK;
    if (k->run_tiles != NULL) {
        st = k->run_tiles(call, g0, g1, dev->cpu_isa, scratch, scratch_len);
    } else {
        for (uint64_t g = g0; g < g1 && st == APO_OK; g++) {
            size_t row, begin, stop;
            apo__tile_range(call, g, &row, &begin, &stop);
            st = k->run_tile(call, row, begin, stop, plen != 0 ? call->partials + g * plen : NULL);
        }
    }
    /* The outputs are checked while the tiles are still in cache (catalog/kernel.h). */
    if (st == APO_OK && call->nonfinite != NULL && k->count_nonfinite != NULL) {
        for (uint64_t g = g0; g < g1; g++) {
            size_t row, begin, stop;
            apo__tile_range(call, g, &row, &begin, &stop);
            call->nonfinite[g] = k->count_nonfinite(call, row, begin, stop);
        }
    }
    apo__task_leave_call(&dev->guard);
    return st;
}

/* Makes room for `threads` scratch buffers of the device; 0 when that fails. */
static int scratch_slots(apo__device *dev, int threads) {
    if (dev->host_scratch.threads >= threads)
        return 1;
    double **buf = calloc((size_t)threads, sizeof *buf);
    size_t *len = calloc((size_t)threads, sizeof *len);
    if (buf == NULL || len == NULL) {
        free(buf);
        free(len);
        return 0;
    }
    for (int t = 0; t < dev->host_scratch.threads; t++) {
        buf[t] = dev->host_scratch.buf[t];
        len[t] = dev->host_scratch.len[t];
    }
    free(dev->host_scratch.buf);
    free(dev->host_scratch.len);
    dev->host_scratch.buf = buf;
    dev->host_scratch.len = len;
    dev->host_scratch.threads = threads;
    return 1;
}

/* Thread `t`'s scratch of at least `want` doubles, kept for the next calls: a kernel that
 * reduces memory traffic with it must not pay an allocation and its page faults on every
 * call. NULL (and *len 0) when the kernel wants none or it cannot be had: the kernel then
 * does without, with the same bits. */
static double *scratch_for(apo__device *dev, int t, size_t want, size_t *len) {
    *len = 0;
    if (want == 0 || t >= dev->host_scratch.threads)
        return NULL;
    if (dev->host_scratch.len[t] < want) {
        free(dev->host_scratch.buf[t]);
        dev->host_scratch.buf[t] = malloc(want * sizeof(double));
        dev->host_scratch.len[t] = dev->host_scratch.buf[t] != NULL ? want : 0;
    }
    *len = dev->host_scratch.len[t];
    return dev->host_scratch.buf[t];
}

void apo__host_tiles_release(apo__device *dev) {
    for (int t = 0; t < dev->host_scratch.threads; t++)
        free(dev->host_scratch.buf[t]);
    free(dev->host_scratch.buf);
    free(dev->host_scratch.len);
    dev->host_scratch.buf = NULL;
    dev->host_scratch.len = NULL;
    dev->host_scratch.threads = 0;
}

apo_status apo__run_tiles_on_host(apo__device *dev, const apo__call *call, uint64_t first,
                                  uint64_t end, int threads, double *touch_s) {
    if (touch_s != NULL)
        *touch_s = 0;
    /* Reading the call's shape is an access too: the call may already have moved on. */
    if (!apo__task_enter_call(&dev->guard))
        return APO_ERR_DEVICE_LOST;
    const apo__kernel *k = call->kernel;
    /* Host devices never get device-resident arrays (plan.c gives those to GPUs only). */
    assert(call->out_gpu < 0);
    apo__touch_plan touch;
    apo__touch_plan_of(call, first, end, &touch);
    /* A device opened without a path (cpu_isa 0, AUTO) gets the fastest. */
    const int isa = dev->cpu_isa != APO_CPU_ISA_AUTO ? dev->cpu_isa : (int)apo__cpu_isa_best();
    uint64_t group = k->run_tiles != NULL ? group_size(call, isa) : 1;
    size_t want =
        k->run_tiles != NULL && k->tiles_scratch != NULL ? k->tiles_scratch(call, isa) : 0;
    /* A small task gains microseconds from a second thread but, on a shared machine,
     * can lose whole scheduler ticks (milliseconds) waiting for it: keep it on the
     * calling thread. */
    if (apo__tiles_elements(call, first, end) < APO_HOST_PARALLEL_MIN_ELEMENTS)
        threads = 1;
    apo__task_leave_call(&dev->guard);
    int64_t units = (int64_t)((end - first + group - 1) / group);
    int64_t touch_units = (int64_t)touch.units;
    apo_status status = APO_OK;
    if (threads <= 1 || (units == 1 && touch_units <= 1))
        threads = 1;
    if (want > 0 && !scratch_slots(dev, threads))
        want = 0;

    if (threads == 1) {
        double t0 = apo__now();
        for (int64_t u = 0; u < touch_units && status == APO_OK; u++)
            status = apo__touch_unit(&dev->guard, &touch, (uint64_t)u);
        if (touch_s != NULL && touch_units > 0)
            *touch_s = apo__now() - t0;
        size_t scratch_len;
        double *scratch = scratch_for(dev, 0, want, &scratch_len);
        for (int64_t u = 0; u < units && status == APO_OK; u++)
            status = run_unit(dev, call, first, end, u, group, scratch, scratch_len);
        return status;
    }

    /* One parallel region for both passes: the team is woken once. The pass's time is the
     * longest any thread spent in it, not counting the wait for the team to start, which
     * belongs to the computing as it did before the pass existed. */
    double touched_s = 0;
#pragma omp parallel num_threads(threads) reduction(max : touched_s)
    {
        double mine = apo__now();
#pragma omp for schedule(static) nowait
        for (int64_t u = 0; u < touch_units; u++) {
            apo_status seen;
#pragma omp atomic read
            seen = status;
            if (seen != APO_OK)
                continue;
            apo_status st = apo__touch_unit(&dev->guard, &touch, (uint64_t)u);
            if (st != APO_OK) {
#pragma omp critical(apo_tile_status)
                if (status == APO_OK)
                    status = st;
            }
        }
        touched_s = touch_units > 0 ? apo__now() - mine : 0;
        /* No tile starts before every page is in: a tile's stores never meet the pass's
         * read-modify-write of the same byte. (touch_units is the same for every thread, so
         * all or none of them meet the barrier.) */
        if (touch_units > 0) {
#pragma omp barrier
        }
        size_t scratch_len;
        double *scratch = scratch_for(dev, omp_get_thread_num(), want, &scratch_len);
#pragma omp for schedule(static)
        for (int64_t u = 0; u < units; u++) {
            apo_status seen;
#pragma omp atomic read
            seen = status;
            if (seen != APO_OK)
                continue;
            apo_status st = run_unit(dev, call, first, end, u, group, scratch, scratch_len);
            if (st != APO_OK) {
#pragma omp critical(apo_tile_status)
                if (status == APO_OK)
                    status = st;
            }
        }
    }
    if (touch_s != NULL)
        *touch_s = touched_s;
    return status;
}
