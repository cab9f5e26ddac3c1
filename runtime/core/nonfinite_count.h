/*
 * The report's count of outputs that are not finite although their inputs are
 * (apo_report.nonfinite_outputs, docs/kernels.md "Range"). Host devices check each tile as
 * they write it (catalog/kernel.h, count_nonfinite), while it is in cache; the tiles that
 * other devices computed (GPUs, ranks) are checked here after the call.
 */
#ifndef APO_RUNTIME_CORE_NONFINITE_COUNT_H
#define APO_RUNTIME_CORE_NONFINITE_COUNT_H

#include <stdint.h>

#include "catalog/kernel.h"

/* Gives the call its per-tile counts, every tile unchecked, when its kernel has a check and
 * its arrays are in host memory; otherwise leaves call->nonfinite NULL (nothing counted).
 * Returns APO_ERR_OUT_OF_MEMORY. */
apo_status apo__nonfinite_start(apo__call *call);

/* After the call's phases: checks the tiles that no device checked, sums the counts and
 * releases them. 0 when nothing was counted. */
uint64_t apo__nonfinite_finish(apo__call *call);

/* Releases the counts of a call that failed. */
void apo__nonfinite_discard(apo__call *call);

#endif
