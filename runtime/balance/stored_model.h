/*
 * A device's cost model and its stored form in multigpu.json (profiles/profile_store.h):
 * the plausible bounds a stored model must keep, and the conversion both ways, online
 * refinement's window included, so that the evidence of separate runtimes adds up
 * (docs/profiles.md, "online").
 */
#ifndef APO_RUNTIME_BALANCE_STORED_MODEL_H
#define APO_RUNTIME_BALANCE_STORED_MODEL_H

#include "balance/model.h"
#include "profiles/profile_store.h"

/* The plausible stored models (docs/profiles.md, "Which stored models are used"): from
 * 1e13 elements per second to 0.1 per second (a sim device of rate=1 measures 1e9), and a
 * latency of at most an hour. A model beyond them would take all work or none for good. */
#define APO_MS_PER_MELEM_MIN 1e-4
#define APO_MS_PER_MELEM_MAX 1e10
#define APO_LATENCY_MS_MAX 3.6e6

/* Whether a stored latency and cost lie within the plausible bounds. */
int apo__stored_model_plausible(double latency_ms, double ms_per_melem);

/* The model a stored device holds, with the online state stored beside it. */
void apo__stored_model_get(apo__model *m, const apo__stored_device *s);

/* Stores model `m` in `s`: latency, cost, samples and online state; a model that a load
 * would refuse as implausible (or none) is stored as none, and the device then borrows one. */
void apo__stored_model_put(apo__stored_device *s, const apo__model *m);

/* A stored line (an alone model, a configuration's measured makespans) as a model: invalid
 * when absent or implausible. */
void apo__stored_line_get(apo__model *m, const apo__stored_line *line);

/* Stores the line of model `m` (none when it is invalid or implausible). */
void apo__stored_line_put(apo__stored_line *line, const apo__model *m);

#endif
