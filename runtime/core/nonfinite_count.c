/*
 * The report's count of outputs that are not finite although their inputs are (see
 * nonfinite_count.h). Each tile's count is written by whichever device computed it last, so
 * a tile redone in failover is counted once, with the same value (the same bits).
 */
#include "core/nonfinite_count.h"

#include <omp.h>
#include <stdlib.h>

#include "base/error.h"
#include "catalog/grid.h"

apo_status apo__nonfinite_start(apo__call *call) {
    call->nonfinite = NULL;
    /* Arrays on a GPU (apo_distribute_workload_cuda) cannot be read here. */
    if (call->kernel->count_nonfinite == NULL || call->ctx->in_gpu >= 0 || call->ctx->out_gpu >= 0)
        return APO_OK;
    if (call->tiles > SIZE_MAX / sizeof(uint64_t))
        return apo__fail(APO_ERR_OVERFLOW, "%s: %llu tiles overflow size_t", call->kernel->name,
                         (unsigned long long)call->tiles);
    uint64_t *counts = malloc((size_t)call->tiles * sizeof *counts);
    if (counts == NULL)
        return apo__fail(APO_ERR_OUT_OF_MEMORY, "%s: cannot allocate %llu tile counts",
                         call->kernel->name, (unsigned long long)call->tiles);
    for (uint64_t g = 0; g < call->tiles; g++)
        counts[g] = APO_NONFINITE_UNCHECKED;
    call->nonfinite = counts;
    return APO_OK;
}

/* A tile no device checked: its piece's call and its range there. */
typedef struct unchecked_tile {
    const apo__call *call;
    size_t row, begin, end;
} unchecked_tile;

/* Unchecked elements from which the count takes the host's cores: a team's start costs some
 * microseconds, a million elements' read about a millisecond on one thread. */
#define APO_NONFINITE_TEAM_MIN ((uint64_t)1 << 20)

/* Counts the listed tiles, on every core when they hold enough elements: a GPU's tiles of a
 * 1e8-sample bollinger leave 3.2 GB to read here, about 100 ms on one thread, which doubled the
 * call's time on an H200 (docs/perf-log/2026-11-27-h200-fourth-visit.md). The total is a sum of
 * integers, the same in any order. */
static uint64_t count_tiles(const apo__kernel *kernel, const unchecked_tile *todo, size_t n,
                            uint64_t elements) {
    uint64_t total = 0;
    const int threads = elements >= APO_NONFINITE_TEAM_MIN && n > 1 ? omp_get_max_threads() : 1;
    const long long count = (long long)n;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 4) reduction(+ : total) if (threads > 1)
    for (long long i = 0; i < count; i++)
        total += kernel->count_nonfinite(todo[i].call, todo[i].row, todo[i].begin, todo[i].end);
    return total;
}

uint64_t apo__nonfinite_finish(apo__call *call) {
    if (call->nonfinite == NULL)
        return 0;
    /* A sweep's tiles lie in their pieces' grids, piece by piece; those no device checked
     * are listed, then counted. The list is allocated at the first such tile, so that a call
     * whose host devices checked every tile allocates nothing; without memory for it, the
     * tiles are counted one by one as they are met. */
    unchecked_tile *todo = NULL;
    int listing = 1;
    uint64_t total = 0, elements = 0;
    size_t n = 0;
    apo__grid_iter it;
    apo__grid_run run;
    apo__grid_iter_init(&it, call, 0, call->tiles);
    while (apo__grid_iter_next(&it, &run)) {
        for (uint64_t g = run.first; g < run.end; g++) {
            const uint64_t count = call->nonfinite[run.at + (g - run.first)];
            if (count != APO_NONFINITE_UNCHECKED) {
                total += count;
                continue;
            }
            unchecked_tile t = {run.call, 0, 0, 0};
            apo__tile_range(run.call, g, &t.row, &t.begin, &t.end);
            if (todo == NULL && listing) {
                todo = malloc((size_t)call->tiles * sizeof *todo);
                listing = todo != NULL;
            }
            if (todo == NULL) {
                total += call->kernel->count_nonfinite(t.call, t.row, t.begin, t.end);
                continue;
            }
            todo[n++] = t;
            elements += t.end - t.begin;
        }
    }
    if (todo != NULL)
        total += count_tiles(call->kernel, todo, n, elements);
    free(todo);
    apo__nonfinite_discard(call);
    return total;
}

void apo__nonfinite_discard(apo__call *call) {
    free(call->nonfinite);
    call->nonfinite = NULL;
}
