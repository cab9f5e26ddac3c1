/*
 * What the two files of the fault tests share (faults_fixtures.c): the workloads of every
 * built-in kernel and their cpu references, runtimes on sim devices with fault settings,
 * calls compared bit for bit, and the fault-tally lines that docs/robustness.md sums.
 */
#ifndef APO_TEST_FAULTS_FIXTURES_H
#define APO_TEST_FAULTS_FIXTURES_H

#include <criterion/criterion.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "devices/worker_pool.h"
#include "helpers.h"

/* ---- workloads and references ------------------------------------------------------------ */

/* Every built-in kernel with several tiles per row, a ragged last tile and 6 rows, so that
 * both axes give each of up to 6 devices several tasks. */
#define N_CASES 4
extern const kernel_case cases[N_CASES];

/* Both axes of a split. */
extern const apo_split axes[2];

void case_job(test_job *job, apo_runtime *rt, const kernel_case *c, apo_split split);

void assert_same_bits(const test_job *ref, const test_job *got, const char *what);

/* ---- runtimes ------------------------------------------------------------------------------- */

typedef struct fault_config {
    apo_sim_clock clock; /* UNSET: virtual */
    double floor_s, factor;
    unsigned quarantine_after;
} fault_config;

apo_runtime *fault_runtime(const char *devices, const fault_config *fc);

/* A fault runtime of `devices` (fault_runtime), and in *job the first case's job on it along
 * time (case_job): the cases of one call on one faulty device set start so. */
apo_runtime *first_case_on(const char *devices, const fault_config *fc, test_job *job);

/* The single-device cpu run that every faulty run must equal bit for bit. */
void reference(const kernel_case *c, test_job *ref);

/* ---- the figures ------------------------------------------------------------------------- */

typedef struct tally {
    unsigned long long calls, calls_failed, faults, survived, quarantined, deadlines;
} tally;

/* Checks what every successful report must say, and counts its faults. */
void check_report(tally *t, const apo_report *r);

void print_tally(const char *test, const tally *t);

/* Runs `calls` calls of case c on `devices` along `split`, checks each against the
 * reference, and returns the last report. */
apo_report run_calls(tally *t, const char *devices, const fault_config *fc, const kernel_case *c,
                     apo_split split, const test_job *ref, int calls);

/* For each of the N_CASES cases, its reference, then for each device list and each split:
 * run_calls() of `calls` calls and check() of the last report, given the case, the list and
 * the split to name in its failures. The fault cases that run every case on fixed lists of
 * faulty devices share this loop. */
void run_every_case(tally *t, const char *const *lists, size_t n_lists, const apo_split *splits,
                    size_t n_splits, const fault_config *fc, int calls,
                    void (*check)(const apo_report *r, const kernel_case *c, const char *devices,
                                  apo_split split));

#endif
