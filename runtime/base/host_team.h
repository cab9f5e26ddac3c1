/*
 * The host team (host_team.c): helper threads that share a run's pieces with the thread that
 * asks for it. A cpu device computes its tiles with one (devices/host_tiles.c), a stream group
 * feeds the sets of a large update with one (streaming/stream_group.c). The thread that asks
 * for the work takes part, and the work is handed out piece by piece (a shared
 * counter), so a thread that the operating system has not woken yet holds none of it, and
 * the run ends when its last piece is done, not when every thread has checked in
 * (docs/scheduling.md, "The cpu device's threads"). A run that waited for a helper so long
 * that it took more than the caller alone would have (by a margin) keeps the helpers out of
 * the next runs, and they are probed back in with a doubling back-off (team_rule.h;
 * docs/scheduling.md, "A helper preempted inside a piece").
 */
#ifndef APO_RUNTIME_BASE_HOST_TEAM_H
#define APO_RUNTIME_BASE_HOST_TEAM_H

#include <stdint.h>

#include "apportion.h"

typedef struct apo__host_team apo__host_team;

/* Computes piece `piece` of a run for the thread in slot `slot` (0: the thread that called
 * apo__host_team_run(); helpers 1 to threads - 1). Adds the seconds it spent faulting
 * output pages in to *touch_s and those it spent computing to *compute_s. */
typedef apo_status (*apo__team_piece_fn)(void *job, int slot, uint64_t piece, double *touch_s,
                                         double *compute_s);

/* What a run's threads did, summed over them. */
typedef struct apo__team_times {
    double touch_s, compute_s;
    uint64_t pieces_by_helpers; /* pieces that another thread than the caller computed */
    int threads_offered;        /* 1: the caller alone; else the caller and every helper */
} apo__team_times;

/* Runs pieces [0, pieces) of `job` with up to `threads` threads, the calling thread one of
 * them; *team is the caller's team (a device's, a group's), started on first use with threads - 1
 * helpers (when they cannot be started, the caller computes alone) and a rule that starts busy
 * where `pressure` (a device's cpu_pressure; below 0: unknown) is at least APO_TEAM_BUSY_PRESSURE.
 * While the team keeps its helpers out after a losing run (team_rule.h), the caller computes every
 * piece alone, and the run counts towards the next probe. Every piece is computed exactly once;
 * once one fails, the pieces not started yet are skipped. Returns when every piece is done or
 * skipped: the first failure's status, else APO_OK. `job` is only read by threads holding one of
 * its pieces, so it may live on the caller's stack. Runs of one team must not overlap (a device
 * runs one task at a time, a group one update).
 */
apo_status apo__host_team_run(apo__host_team **team, int threads, double pressure, uint64_t pieces,
                              apo__team_piece_fn fn, void *job, apo__team_times *times);

/* Stops and joins the helpers and frees the team (NULL: nothing). Only between runs. */
void apo__host_team_destroy(apo__host_team *team);

/* For tests: when set (before the runtime starts), every helper calls it after it wakes for
 * a run and before it looks for a piece, with its slot. A test holds a helper there to show
 * that a run does not wait for a thread that has not woken. */
extern void (*apo__host_team_wake_hook)(int slot);

#endif
