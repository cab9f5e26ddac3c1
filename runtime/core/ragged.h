/*
 * Ragged rows (apo_workload.row_lengths, docs/api.md "Ragged rows"): series of different
 * lengths in one call. Row r is its first row_lengths[r] samples of a row of stride cols,
 * and is computed by a call of its own, exactly the call of that series alone (one row of
 * its own length, its own tile grid); the sweep's machinery lays those calls end to end
 * (core/sweep.h, catalog/grid.h). Here: the checks of the lengths and the outputs past
 * each row's length.
 */
#ifndef APO_RUNTIME_CORE_RAGGED_H
#define APO_RUNTIME_CORE_RAGGED_H

#include "catalog/kernel.h"

/* Checks every row's length (1 .. cols) and, with parameters `params`, that the kernel
 * accepts a call of that row alone (bollinger's period no longer than the row, bootstrap's
 * two samples). `set` is the sweep set checked, or SIZE_MAX without a sweep; a failure
 * names the row (and the set). Does nothing without row_lengths. */
apo_status apo__ragged_check_rows(const apo_workload *w, const apo__kernel *k, const double *params,
                                  size_t set);

/* Writes NaN in every output past each row's own output length, up to the row's stride
 * (the output's columns for cols samples). Does nothing unless the call is ragged. */
void apo__ragged_fill_tails(const apo__call *call);

#endif
