/*
 * (Implemented in distribute.c, with the same phases, failover, deadlines and quarantine
 * as a whole call: run_phases.c.) Runs a given run of tiles of a call on this runtime's devices:
 * what a serving rank does with a task from rank 0 (docs/cluster.md). The call's arrays may be
 * views that hold only the spans the tiles touch; the tile grid is the caller's. Shares come from
 * this runtime's models for the tag, which learn from the run only when call->ctx->learn says so; a
 * device that fails has its unfinished tiles redone by the others. Reductions are not finalized
 * here: the partials go back to the caller.
 */
#ifndef APO_RUNTIME_CORE_DISTRIBUTE_RANGE_H
#define APO_RUNTIME_CORE_DISTRIBUTE_RANGE_H

#include <stdint.h>

#include "catalog/kernel.h"
#include "cluster/cluster.h"

typedef struct apo_runtime apo_runtime;

/* Returns APO_OK, APO_ERR_ALL_DEVICES_FAILED (some tiles not computed), or the status of a
 * failing kernel. Takes the runtime's call lock. */
apo_status apo__distribute_range(apo_runtime *rt, const apo__call *call, const char *tag,
                                 uint64_t first, uint64_t end, apo__range_result *result);

#endif
