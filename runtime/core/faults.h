/*
 * The fault policy: the deadline a device's job gets, and quarantine (docs/design.md,
 * "Faults"). run_phases.c applies it; this file only decides.
 *
 * Deadline: a job predicted to take t seconds (the balancing model of the device for the
 * workload's tag, t(n) = latency + n * cost) must be over max(floor, factor * t) seconds
 * after it was handed over; without a prediction, the floor alone. A GPU's job of a kernel it
 * runs as one serial chain per row is predicted no faster than APO_GPU_SERIAL_SAMPLE_S a
 * sample, so that its deadline grows with the call's length.
 *
 * Quarantine: a device is quarantined for the runtime's life when it misses a deadline
 * (its worker may still be inside the abandoned task, so it cannot take another), or when
 * it fails in `quarantine_after` calls in a row among the calls in which it had work.
 */
#ifndef APO_RUNTIME_CORE_FAULTS_H
#define APO_RUNTIME_CORE_FAULTS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "apportion.h"

/* The three settings, resolved (their defaults and bounds are rows of base/settings_table.h). */
typedef struct apo__fault_settings {
    double deadline_factor;
    double deadline_floor_s;
    unsigned quarantine_after;
} apo__fault_settings;

typedef struct apo__device_health {
    unsigned failed_in_a_row;   /* calls with work in which it failed, since its last success */
    atomic_int quarantined;     /* read outside the call lock (apo_plan_workload) */
    char reason[APO_LABEL_MAX]; /* why; written before `quarantined` is set, then fixed */
} apo__device_health;

typedef struct apo__faults {
    apo__fault_settings settings;
    apo__device_health health[APO_MAX_DEVICES];
    uint64_t calls; /* calls started over the runtime's life; the current one's number */
} apo__faults;

/* What one call did to a device. */
typedef enum apo__call_outcome {
    APO_OUTCOME_NO_WORK,        /* it had no work: the count is left as it was */
    APO_OUTCOME_OK,             /* it finished all its work: the count starts again */
    APO_OUTCOME_FAILED,         /* it failed at least once */
    APO_OUTCOME_MISSED_DEADLINE /* it was abandoned at a deadline */
} apo__call_outcome;

/* The time a GPU is predicted to take, at least, for each sample of a kernel it runs as one
 * serial chain per row (docs/cuda.md, "One serial chain per row"): the slowest such kernel
 * measured on an H100 (ht_sine, 9.9 s per 1e6 samples), every sample of the job counted as if
 * its rows were one chain. */
#define APO_GPU_SERIAL_SAMPLE_S 1e-5

/* Seconds after hand-over by which a job predicted to take `predicted_s` must be over
 * (NaN or not positive: no prediction, the floor). */
double apo__fault_deadline_s(const apo__fault_settings *s, double predicted_s);

/* Whether device `d` is quarantined. */
int apo__fault_quarantined(const apo__faults *f, size_t d);

/* Applies one call's outcome for device `d` (`deadline_s`: the deadline it missed, for the
 * reason). Returns 1 when this quarantined it, so that the caller warns once. */
int apo__fault_record(apo__faults *f, size_t d, apo__call_outcome outcome, double deadline_s);

#endif
