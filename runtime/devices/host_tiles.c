/*
 * Running tiles on the host. The cpu device spreads them over its OpenMP threads; every
 * tile computes the same bits whichever thread runs it, because a tile's result depends
 * only on the input and the tile grid (see kernels/), so the schedule is free.
 */
#include <omp.h>

#include "catalog/call_span.h"
#include "devices/device.h"
#include "devices/host_tiles.h"

/* Below this much work, a task runs on one thread (see apo__run_tiles_on_host). */
#define APO_HOST_PARALLEL_MIN_ELEMENTS 32768

/* Runs a unit of work: tile `first + unit` alone, or, for kernels with a pair function,
 * tiles first + 2 unit and first + 2 unit + 1 together (the last unit may be a single).
 * The unit is one access to the call: it starts only while the task is wanted, and the
 * runtime waits for it to end before it gives the tiles to another device. */
static apo_status run_unit(apo__device *dev, const apo__call *call, uint64_t first, uint64_t end,
                           int64_t unit, int paired) {
    if (!apo__task_enter_call(&dev->guard))
        return APO_ERR_DEVICE_LOST;
    const apo__kernel *k = call->kernel;
    size_t plen = k->partial_len;
    size_t row, begin, stop;
    uint64_t g = first + (uint64_t)unit * (paired ? 2 : 1);
    apo__tile_range(call, g, &row, &begin, &stop);
    apo_status st;
    /* The outputs are checked while the tile is still in cache (catalog/kernel.h). */
    int check = call->nonfinite != NULL && k->count_nonfinite != NULL;
    if (paired && g + 1 < end) {
        size_t row1, begin1, stop1;
        apo__tile_range(call, g + 1, &row1, &begin1, &stop1);
        st = k->run_tile_pair(call, row, begin, stop, row1, begin1, stop1);
        if (st == APO_OK && check)
            call->nonfinite[g + 1] = k->count_nonfinite(call, row1, begin1, stop1);
    } else {
        st = k->run_tile(call, row, begin, stop, plen != 0 ? call->partials + g * plen : NULL);
    }
    if (st == APO_OK && check)
        call->nonfinite[g] = k->count_nonfinite(call, row, begin, stop);
    apo__task_leave_call(&dev->guard);
    return st;
}

apo_status apo__run_tiles_on_host(apo__device *dev, const apo__call *call, uint64_t first,
                                  uint64_t end, int threads) {
    /* Reading the call's shape is an access too: the call may already have moved on. */
    if (!apo__task_enter_call(&dev->guard))
        return APO_ERR_DEVICE_LOST;
    const apo__kernel *k = call->kernel;
    int paired = k->run_tile_pair != NULL && k->partial_len == 0;
    /* A small task gains microseconds from a second thread but, on a shared machine,
     * can lose whole scheduler ticks (milliseconds) waiting for it: keep it on the
     * calling thread. */
    if (apo__tiles_elements(call, first, end) < APO_HOST_PARALLEL_MIN_ELEMENTS)
        threads = 1;
    apo__task_leave_call(&dev->guard);
    int64_t n = (int64_t)(end - first);
    int64_t units = paired ? (n + 1) / 2 : n;
    apo_status status = APO_OK;

    if (threads <= 1 || units == 1) {
        for (int64_t u = 0; u < units && status == APO_OK; u++)
            status = run_unit(dev, call, first, end, u, paired);
        return status;
    }

#pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t u = 0; u < units; u++) {
        apo_status seen;
#pragma omp atomic read
        seen = status;
        if (seen != APO_OK)
            continue;
        apo_status st = run_unit(dev, call, first, end, u, paired);
        if (st != APO_OK) {
#pragma omp critical(apo_tile_status)
            if (status == APO_OK)
                status = st;
        }
    }
    return status;
}
