/*
 * The report's count of outputs that are not finite although their inputs are (see
 * nonfinite_count.h). Each tile's count is written by whichever device computed it last, so
 * a tile redone in failover is counted once, with the same value (the same bits).
 */
#include "core/nonfinite_count.h"

#include <stdlib.h>

#include "base/error.h"

apo_status apo__nonfinite_start(apo__call *call) {
    call->nonfinite = NULL;
    /* Arrays on a GPU (apo_distribute_workload_cuda) cannot be read here. */
    if (call->kernel->count_nonfinite == NULL || call->in_gpu >= 0 || call->out_gpu >= 0)
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

/* The counts of one call's tiles, counting those no device checked. */
static uint64_t tiles_total(const apo__call *call, const uint64_t *counts) {
    uint64_t total = 0;
    for (uint64_t g = 0; g < call->tiles; g++) {
        uint64_t count = counts[g];
        if (count == APO_NONFINITE_UNCHECKED) {
            size_t row, begin, end;
            apo__tile_range(call, g, &row, &begin, &end);
            count = call->kernel->count_nonfinite(call, row, begin, end);
        }
        total += count;
    }
    return total;
}

uint64_t apo__nonfinite_finish(apo__call *call) {
    if (call->nonfinite == NULL)
        return 0;
    uint64_t total = 0;
    if (call->sets != NULL) {
        /* A sweep's tiles lie in their sets' grids, set by set. */
        for (size_t s = 0; s < call->sets->n; s++)
            total += tiles_total(&call->sets->sets[s], call->nonfinite + call->sets->offset[s]);
    } else {
        total = tiles_total(call, call->nonfinite);
    }
    apo__nonfinite_discard(call);
    return total;
}

void apo__nonfinite_discard(apo__call *call) {
    free(call->nonfinite);
    call->nonfinite = NULL;
}
