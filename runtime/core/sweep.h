/*
 * Sweeps (apo_workload.sweep, docs/api.md "Sweeps"): several parameter sets in one call.
 * Each set run becomes a call of its own, exactly the call that set would make alone, and
 * the sweep's tile grid lays their grids end to end, set by set (catalog/kernel.h,
 * apo__call_sets). Planning, failover and balancing see one grid; every tile is computed by
 * its set's own call, so set s gets the bits of a call with set s alone.
 */
#ifndef APO_RUNTIME_CORE_SWEEP_H
#define APO_RUNTIME_CORE_SWEEP_H

#include "catalog/kernel.h"

/* Checks w->sweep against the kernel (its form, names, the values of every set as the
 * kernel checks parameters, output shapes, sizes, the range run) and builds call->sets for
 * the sets run, whose calls take the kernel, shape, seed and the parameters not swept from
 * `call` as apo__resolve_call() left it. The call then describes the first set run (its
 * parameters and grid), and call->tiles counts every set's tiles. Does nothing without a
 * sweep. On failure nothing is kept. */
apo_status apo__sweep_resolve(const apo_workload *w, apo__call *call);

/* Points each set's call at its part of the call's arrays: the inputs (shared), set s's
 * block of every output (set-major), its tiles' partials and non-finite counts, and the
 * call's placement and runtime. After the call's arrays, partials and counts are set. */
void apo__sweep_bind(apo__call *call);

/* Frees call->sets (NULL is fine) and clears it. */
void apo__sweep_release(apo__call *call);

/* The output rows of a call: rows, times the sets run for a sweep. */
size_t apo__call_output_rows(const apo__call *call);

#endif
