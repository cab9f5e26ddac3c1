/*
 * The ranges of a scored call (apo_workload.ranges; docs/scores.md, "Ranges"): which bars
 * each range covers, and how the ranges fold in one pass over a series. Ranges that begin at
 * the same bar share one fold, finished at each of their ends (an anchored walk-forward's
 * train windows are one fold); the other chains take each set's positions and returns from
 * one reference fold once they agree with it and add only their own sums
 * (catalog/scored_kernels.c, kernels/scores/score_ride_lanes.h), so a bar costs one position
 * a set plus the sums of each chain that covers it.
 *
 * A ranged call runs a copy of its scored kernel that carries the ranges (its outputs have
 * one column per range), made when the call is resolved and freed with it, so sweeps, ragged
 * rows, planning and the devices handle it as any call. The copy has no GPU launcher and
 * ranks take no share of it (the ranges would not travel): the host's devices score it.
 */
#ifndef APO_RUNTIME_CATALOG_SCORE_RANGES_H
#define APO_RUNTIME_CATALOG_SCORE_RANGES_H

#include <stddef.h>

#include "catalog/kernel.h"
#include "catalog/scored_kernels.h"

/* Checks w's ranges against the call resolved so far and, when there are any, makes
 * call->kernel a copy of its scored kernel that carries them (call->ranged, freed by
 * apo__score_ranges_release). Returns APO_ERR_NULL (ranges NULL with n_ranges > 0),
 * APO_ERR_INVALID_ARGUMENT (a call that is not scored; ranges given with n_ranges 0; more
 * than APO_MAX_SCORE_RANGES; a range empty, past cols, out of order or given twice, the
 * message naming it), APO_ERR_OUT_OF_MEMORY. */
apo_status apo__score_ranges_attach(const apo_workload *w, apo__call *call);

/* Frees what apo__score_ranges_attach made for the call (nothing when it made nothing). */
void apo__score_ranges_release(apo__call *call);

#endif
