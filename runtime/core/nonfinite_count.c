/*
 * The report's count of outputs that are not finite although their inputs are (see
 * nonfinite_count.h). Each tile's count is written by whichever device computed it last, so
 * a tile redone in failover is counted once, with the same value (the same bits).
 */
#include "core/nonfinite_count.h"

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

uint64_t apo__nonfinite_finish(apo__call *call) {
    if (call->nonfinite == NULL)
        return 0;
    /* A sweep's tiles lie in their pieces' grids, piece by piece; those no device checked
     * are counted here, in their piece's call. */
    uint64_t total = 0;
    apo__grid_iter it;
    apo__grid_run run;
    apo__grid_iter_init(&it, call, 0, call->tiles);
    while (apo__grid_iter_next(&it, &run)) {
        for (uint64_t g = run.first; g < run.end; g++) {
            uint64_t count = call->nonfinite[run.at + (g - run.first)];
            if (count == APO_NONFINITE_UNCHECKED) {
                size_t row, begin, end;
                apo__tile_range(run.call, g, &row, &begin, &end);
                count = call->kernel->count_nonfinite(run.call, row, begin, end);
            }
            total += count;
        }
    }
    apo__nonfinite_discard(call);
    return total;
}

void apo__nonfinite_discard(apo__call *call) {
    free(call->nonfinite);
    call->nonfinite = NULL;
}
