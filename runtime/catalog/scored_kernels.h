/*
 * Scored kernels (docs/scores.md, "Scores"): an indicator and a rule as one kernel whose
 * tile is a whole series and whose outputs are that series' scores. A workload that names a
 * rule (apo_workload.score) runs the scored kernel "<kernel>:<rule>" instead of the
 * indicator, so sweeps, ragged rows, planning, devices and failover handle it as any other
 * kernel, and no indicator output is ever stored: each series is computed tile by tile of
 * the indicator's own grid into a tile's scratch, and every bar is folded into the scores
 * as soon as its outputs exist.
 */
#ifndef APO_RUNTIME_CATALOG_SCORED_KERNELS_H
#define APO_RUNTIME_CATALOG_SCORED_KERNELS_H

#include <pthread.h>
#include <stddef.h>

#include "catalog/kernel.h"
#include "catalog/score_pass.h"
#include "score_tile.h"

/* The first failure of a user rule in a call (a return outside {-1, 0, 1}), kept where the
 * caller's thread can read it: the rule runs on the devices' threads, whose last error the
 * caller does not see. A runtime runs one call at a time, so one slot per rule suffices. */
typedef struct apo__rule_failure {
    pthread_mutex_t mutex; /* guards the two below: several series may fail at once */
    int failed;
    char message[256];
} apo__rule_failure;

/* A ranged call's ranges (catalog/score_ranges.h makes them): how the fold of a series
 * restarts and finishes (scored_kernels.c). */
typedef struct apo__score_ranges {
    size_t n;               /* ranges, sorted by begin then end, none twice */
    const apo_range *range; /* the call's copy */
    /* Runs of ranges with one first bar: chain c holds ranges [first[c], first[c + 1]) in
     * order of their ends, folded as one. */
    size_t n_chains;
    const size_t *first; /* n_chains + 1 */
} apo__score_ranges;

/* The indicator and the rule of a scored kernel (apo__kernel.scoring). */
struct apo__scoring {
    const apo__kernel *indicator;
    apo__rule rule;     /* its kind and outputs, at the default thresholds (score_tile.h) */
    size_t close_input; /* the indicator's input the rule trades on: "close" */
    const char *rule_name;
    /* The rule's own parameters, after the indicator's: 0, or 2 (lower, upper) for a rule
     * with thresholds; `cost` and `periods_per_year` follow them, then `side` for a built-in
     * rule (has_side). */
    size_t n_rule_params;
    int has_side;
    /* A generic rule (`zone.<output>`, docs/scores.md "Rules on any output"): its thresholds
     * have no defaults of their own, which the refusal of a call without them says. */
    int generic;
    /* What its outputs are (kernels/scores/score_more.h): the eight with summed returns (the
     * plain `<kernel>:<rule>`), compounded or log returns, or the eight more. */
    int view;
    apo__score_pass pass; /* what sets differing in the applied parameters share */
    /* A user's rule (apo_rule_register) in place of `rule`, or NULL for a built-in one. */
    apo_rule_fn user_fn;
    void *user;
    apo__rule_failure *failure; /* user rules: where a failing call's reason waits */
    /* A ranged call's ranges (catalog/score_ranges.h), each an output column; NULL: the
     * whole series, one column. Set only in a call's own copy of the kernel. */
    const apo__score_ranges *ranges;
};

/* The rule of a set whose scored-kernel parameters are `params`: sc->rule with that set's
 * thresholds. */
apo__rule apo__scoring_rule(const apo__scoring *sc, const double *params);

/* The scored kernel of that name ("bollinger:bands_revert"), or NULL. */
const apo__kernel *apo__scored_kernel_find(const char *name);

/* The scored kernel of an indicator and a rule, or NULL with the reason in the last error:
 * APO_ERR_UNKNOWN_KERNEL for an unknown rule, APO_ERR_INVALID_ARGUMENT for a rule that does
 * not fit the kernel (which rules do). */
apo_status apo__scored_kernel_of(const char *kernel, const char *rule, const apo__kernel **out);

/* Builds the scored kernel "<indicator>:<rule_name>" of a user's rule into k and sc (which
 * must stay put while it is used), `failure` initialised by the caller. Refuses, with the
 * reason in err, a kernel that cannot be scored: one that is not built in, one without an
 * output per bar (reductions, bootstrap) or with too many parameters. */
apo_status apo__scored_kernel_user(apo__kernel *k, apo__scoring *sc, const apo__kernel *indicator,
                                   const char *rule_name, apo_rule_fn fn, void *user,
                                   apo__rule_failure *failure, char *err, size_t err_size);

/* Whether `rule` names a built-in rule (of any kernel). */
int apo__scored_rule_builtin(const char *rule);

/* Doubles of scratch one GPU thread needs to score one series of `call` (its pass's window;
 * 0 for a call that scores nothing), and the series a GPU of `sms` SMs scores at once with
 * windows of `scratch` doubles (apo__scored_chains_at_once; docs/cuda.md, "Scored sweeps on a
 * GPU"): a scored call's wave, for the planner and the replayed GPUs. */
size_t apo__scored_scratch_of(const apo__call *call);
size_t apo__scored_gpu_chains(size_t scratch, int sms);

/* The vector path a scored call whose sets make n_passes passes (own: folded in the same
 * rounds of lanes, bollinger's periods) runs on where the runtime picks it, `widest` the
 * widest this CPU has and avx512_kind its apo__avx512_kind: avx2 for several passes folded
 * together on a CPU that runs 512-bit operations in halves (Zen 4), where the careful numba
 * rival's grid of 12 periods x 5 widths ran in 0.26 s on avx2 against 0.33 s on avx512
 * (docs/perf-log/2026-12-03-zen4-cvi-scores.md, "Scored grids on Zen 4"); else `widest`.
 * Every path gives the same bits. */
int apo__scored_path_on(size_t n_passes, int own, int widest, int avx512_kind);

/* A call of user-rule kernel k begins: forget the last call's failure. */
void apo__scored_failure_clear(const apo__kernel *k);

/* The reason a call of user-rule kernel k failed, copied into msg; 0 when it did not. */
int apo__scored_failure_take(const apo__kernel *k, char *msg, size_t msg_size);

#endif
