/*
 * run_phases.h: a call's plan run on the devices (run_phases.c): the phases, each device
 * within its deadline, the failover of what failed or late devices left, and the outcomes
 * applied to the quarantine rule; the state of the run that the report (call_report.c) and
 * the models' learning (call_learning.c) read afterwards. Private to core/.
 */
#ifndef APO_RUNTIME_CORE_RUN_PHASES_H
#define APO_RUNTIME_CORE_RUN_PHASES_H

#include <stdint.h>

#include "core/plan.h"
#include "core/runtime.h"

/* What one device did in a call: its planned and taken-over work and the time it took. */
typedef struct apo__device_tally {
    uint64_t assigned, elements, tiles, moved_in, tasks; /* assigned: planned + taken over */
    uint64_t chunks;
    double h2d_s, kernel_s, d2h_s, wall_s;
    double host_copy_s, busy_s; /* devices that time their phases as intervals (GPUs) */
    double touch_s;             /* host devices' first touch of the output pages */
    int threads_offered;        /* the cpu device: the most its tasks were offered to */
    int failed;
    int timed_out;     /* it missed a deadline (failed is also set) */
    double deadline_s; /* the longest deadline it was given */
} apo__device_tally;

/* A call's run: its devices' tallies and what the phases and the gather add up. */
typedef struct apo__run_state {
    apo_runtime *rt;
    const apo__call *call;
    const char *tag; /* for the deadlines' predictions; NULL: no valid tag */
    int serial_rows; /* a GPU runs each row of the call as one serial chain */
    apo__device_tally tally[APO_MAX_DEVICES];
    double virtual_makespan_s; /* sum over phases of the slowest device's busy time */
    apo_gather gather;         /* how GPU outputs reached out_gpu */
    double gather_s;           /* the gather after the phases */
} apo__run_state;

/* A run's state with no device's tally yet, for `call` under `tag` (NULL: no valid tag). */
void apo__run_state_init(apo__run_state *s, apo_runtime *rt, const apo__call *call,
                         const char *tag);

/* Runs the plan's jobs, then redoes what failed devices left, until nothing is left or no
 * device is; then applies the outcomes to the quarantine rule. Returns APO_OK, the first
 * status that is neither OK nor a device loss, or APO_ERR_ALL_DEVICES_FAILED with
 * *lost_tiles the number of tiles not computed. */
apo_status apo__run_plan(apo__run_state *s, const apo__plan *p, uint64_t *lost_tiles);

#endif /* APO_RUNTIME_CORE_RUN_PHASES_H */
