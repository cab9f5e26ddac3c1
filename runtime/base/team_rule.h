/*
 * When a host team keeps its helper threads out (team_rule.c; docs/scheduling.md, "A
 * helper preempted inside a piece"). The team (host_team.c) asks before each run its
 * helpers could share whether to run it alone instead, and has each shared run judged once
 * its pieces are done. Pure bookkeeping on the numbers it is given: no clock, no thread.
 */
#ifndef APO_RUNTIME_BASE_TEAM_RULE_H
#define APO_RUNTIME_BASE_TEAM_RULE_H

#include <stdint.h>

/* Shared runs that a losing run keeps the helpers out of: this many after the first loss,
 * twice as many after each further loss (the probe that follows the ones alone, or a later
 * run), at most APO_TEAM_ALONE_MAX; back to the first count after APO_TEAM_ALONE_MAX
 * judged shared runs in a row that did not lose. */
#define APO_TEAM_ALONE_FIRST 4
#define APO_TEAM_ALONE_MAX 64

/* A shared run loses when it takes more than this many times what the calling thread alone
 * would have taken at the pace it kept in the run. */
#define APO_TEAM_LOSS 1.25

typedef struct apo__team_rule {
    uint64_t alone_left; /* shared runs still to compute alone */
    uint64_t alone_next; /* how many the next losing run keeps the helpers out of */
    uint64_t clean_runs; /* judged shared runs since the last loss, none of them lost */
} apo__team_rule;

/* A rule that has seen nothing: the helpers take part. */
void apo__team_rule_init(apo__team_rule *rule);

/* Processor pressure (cpu_pressure.h, percent of the last 10 s) from which a new team
 * starts as after a loss: on a machine where runnable threads already wait for a processor
 * this much, a helper woken for a run is likely to be preempted inside a piece. Low, because
 * the figure is a decaying average updated every 2 s (three busy loops on the 2-core VM read
 * 2.9% after 2 s, 11.4% after 4 s) and a false alarm costs only 4 tasks on one thread. */
#define APO_TEAM_BUSY_PRESSURE 10.0

/* A rule that starts on a busy machine: the helpers are kept out as after a first loss,
 * then probed. Before any run only (a fresh rule). */
void apo__team_rule_start_busy(apo__team_rule *rule);

/* For a run the helpers could share: 1 when it must run on the calling thread alone (and
 * it is counted towards the probe), 0 when the helpers are offered its pieces. */
int apo__team_rule_alone(apo__team_rule *rule);

/* Judges a shared run that ended well: the calling thread computed `own` of its `pieces`
 * in `own_s` seconds from the run's start, and the run took `wall_s`. */
void apo__team_rule_judge(apo__team_rule *rule, double own_s, double wall_s, uint64_t own,
                          uint64_t pieces);

#endif
