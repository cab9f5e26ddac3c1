/*
 * Running tiles on the host. The cpu device spreads them over its OpenMP threads; every
 * tile computes the same bits whichever thread runs it, because a tile's result depends
 * only on the input and the tile grid (see kernels/), so the schedule is free.
 */
#include <omp.h>
#include <time.h>
#include <unistd.h>

#include "device.h"

apo_status apo__run_tiles_on_host(const apo__call *call, uint64_t first, uint64_t end,
                                  int threads) {
    const apo__kernel *k = call->kernel;
    size_t plen = k->partial_len;
    apo_status status = APO_OK;
    int64_t n = (int64_t)(end - first);

    if (threads <= 1 || n == 1) {
        for (int64_t i = 0; i < n && status == APO_OK; i++) {
            uint64_t g = first + (uint64_t)i;
            size_t row, begin, stop;
            apo__tile_range(call, g, &row, &begin, &stop);
            status =
                k->run_tile(call, row, begin, stop, plen != 0 ? call->partials + g * plen : NULL);
        }
        return status;
    }

#pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t i = 0; i < n; i++) {
        apo_status seen;
#pragma omp atomic read
        seen = status;
        if (seen != APO_OK)
            continue;
        uint64_t g = first + (uint64_t)i;
        size_t row, begin, stop;
        apo__tile_range(call, g, &row, &begin, &stop);
        apo_status st =
            k->run_tile(call, row, begin, stop, plen != 0 ? call->partials + g * plen : NULL);
        if (st != APO_OK) {
#pragma omp critical(apo_tile_status)
            if (status == APO_OK)
                status = st;
        }
    }
    return status;
}

void apo__host_memory(uint64_t *total_bytes, uint64_t *free_bytes) {
    long pages = sysconf(_SC_PHYS_PAGES);
    long avail = sysconf(_SC_AVPHYS_PAGES);
    long page = sysconf(_SC_PAGESIZE);
    *total_bytes = (pages > 0 && page > 0) ? (uint64_t)pages * (uint64_t)page : 0;
    *free_bytes = (avail > 0 && page > 0) ? (uint64_t)avail * (uint64_t)page : 0;
}

double apo__now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
