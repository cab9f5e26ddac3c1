/*
 * The pass of a scored kernel (docs/scores.md, "Scores"): what a tile of its indicator
 * computes before the parameters that only shape each set's outputs from it. Sets of a
 * sweep that differ in those parameters alone run one pass and each takes its outputs from
 * it, with the bits it has alone:
 *   - every indicator: the rule's `cost` and `periods_per_year` enter only the fold, so the
 *     indicator's tile itself is the pass;
 *   - bollinger: the band widths enter only the bands, so the pass is each window's mean
 *     and standard deviation (kernels/averages/bollinger_pass.h), and each width's bands
 *     are those the indicator's tile stores for it.
 * macd's `signal` is not applied: it sets the warm-up from which a tile restarts its fast
 * and slow EMAs, so two signals give MACD lines apart in the last place (docs/kernels.md,
 * "Sweeps: what is shared").
 */
#ifndef APO_RUNTIME_CATALOG_SCORE_PASS_H
#define APO_RUNTIME_CATALOG_SCORE_PASS_H

#include <stddef.h>
#include <stdint.h>

#include "catalog/kernel.h"
#include "score_pass_outputs.h"
#include "score_sets.h"
#include "tile_span.h"

typedef struct apo__score_pass {
    int kind;         /* APO_SCORE_PASS_* (score_pass_outputs.h) */
    size_t n_out;     /* doubles the pass keeps per bar */
    uint64_t applied; /* bit i: parameter i of the scored kernel does not enter the pass */
} apo__score_pass;

/* The pass of a scored kernel over `indicator`, whose own parameters are followed by the
 * rule's n_rule_params. */
void apo__score_pass_of(const apo__kernel *indicator, size_t n_rule_params, apo__score_pass *pass);

/* Whether sets with the scored kernel's parameters a and b (n_params of them) share a pass:
 * every parameter that enters it is the same. */
int apo__score_pass_shared(const apo__score_pass *pass, size_t n_params, const double *a,
                           const double *b);

/* Computes positions [begin, end) of the pass of `view` (the indicator's call on a window of
 * one row, as its run_tile takes it) into out[0 .. n_out), at the window's indices. */
apo_status apo__score_pass_tile(const apo__score_pass *pass, const apo__call *view, size_t begin,
                                size_t end, double *const *out);

/* Consecutive tiles of a row that apo__score_pass_tiles computes at once to advantage on
 * vector path `isa` (AUTO: the best): its lanes for bollinger's pass (a tile per lane), else
 * 1. */
size_t apo__score_pass_group(const apo__score_pass *pass, apo__cpu_isa isa);

/* apo__score_pass_tile for `count` tiles of `view`'s row (their row 0), each with the bits it
 * has alone: bollinger's pass in the lanes of a vector (bollinger_pass.h), the others one
 * after another, on vector path `isa`. */
apo_status apo__score_pass_tiles(const apo__score_pass *pass, const apo__call *view,
                                 const apo__tile_span *tiles, size_t count, double *const *out,
                                 apo__cpu_isa isa);

/* The indicator's outputs at position i of a pass, for a set with indicator parameters
 * `params` (kernels/scores/score_pass_outputs.h, which the GPU's scored kernel calls too). */
static inline void apo__score_pass_outputs(const apo__score_pass *pass, const double *params,
                                           const double *const *in, size_t i, size_t n_outputs,
                                           int compared, double *out) {
    apo__score_pass_outputs_of(pass->kind, params, in, i, n_outputs, compared, out);
}

/* What a set with indicator parameters `params`, rule `rule` and `cost` has of its own in a
 * fold of the pass's sets in vector lanes (score_sets.h): the band widths that
 * apo__score_pass_outputs applies to bollinger's pass, its thresholds, cost and side (no
 * compounded equity: the caller points a view's sets at theirs). */
static inline apo__score_set apo__score_pass_set(const apo__score_pass *pass, const double *params,
                                                 const apo__rule *rule, double cost) {
    const int widths = pass->kind == APO_SCORE_PASS_BOLLINGER_WIDTHS;
    apo__score_set s = {widths ? params[1] : 0.0,
                        widths ? params[2] : 0.0,
                        rule->lower,
                        rule->upper,
                        rule->middle,
                        cost,
                        rule->side,
                        NULL,
                        NULL};
    return s;
}

#endif
