/*
 * Sweeps (apo_workload.sweep, docs/api.md "Sweeps"): several parameter sets in one call.
 * Each set run becomes a call of its own, exactly the call that set would make alone, and
 * the sweep's tile grid lays their grids end to end, set by set (catalog/kernel.h,
 * catalog/grid.h). Planning, failover and balancing see one grid; every tile is computed by
 * its set's own call, so set s gets the bits of a call with set s alone. Ragged rows
 * (apo_workload.row_lengths, core/ragged.h) are laid out the same way, one piece per set
 * run and row, each the call of that row's series alone.
 */
#ifndef APO_RUNTIME_CORE_SWEEP_H
#define APO_RUNTIME_CORE_SWEEP_H

#include "catalog/kernel.h"

/* Checks w->sweep against the kernel (its form, names, the values of every set as the
 * kernel checks parameters, output shapes, sizes, the range run) and w->row_lengths (each
 * row of every set as a call of that row alone), and builds call->grid: a piece for each
 * set run, or for each set run and row when ragged, whose calls take the kernel, shape,
 * seed and the parameters not swept from `call` as apo__resolve_call() left it (a ragged
 * row's: one row of its own length). The call then describes the first piece (its
 * parameters and grid), and call->tiles counts every piece's tiles. Does nothing without a
 * sweep or ragged rows. On failure nothing is kept. */
apo_status apo__sweep_resolve(const apo_workload *w, apo__call *call);

/* Points each piece's call at its part of the call's arrays: the inputs (shared; a ragged
 * row's from its row), set s's block of every output (set-major; a ragged row's row of it,
 * at the stride of cols samples), its tiles' partials and non-finite counts, and the call's
 * context (catalog/call_context.h). After the call's arrays, partials and counts are set. */
void apo__sweep_bind(apo__call *call);

/* Frees call->grid (NULL is fine) and a ranged call's own kernel (catalog/score_ranges.h), and
 * clears them. */
void apo__sweep_release(apo__call *call);

/* The resolved parameters of the sets w->sweep runs (first_set on, n_sets_run of them), each
 * checked as apo__sweep_resolve checks it (every set of the sweep, for w->rows x w->cols):
 * *params is *n_run blocks of APO_MAX_PARAMS doubles, for the caller to free. Streams
 * (apo_stream_desc.sweep) run each set as a stream of its own. */
apo_status apo__sweep_set_params(const apo_workload *w, const apo__kernel *k, size_t *n_run,
                                 double **params);

/* The output rows of a call: rows, times the sets run for a sweep. */
size_t apo__call_output_rows(const apo__call *call);

#endif
