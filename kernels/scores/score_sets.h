/*
 * score_sets.h: the fold of several sets of one shared pass over a tile of bars, one set per
 * lane of a vector (docs/scores.md, "Scores").
 *
 * Why: the sets of a scored sweep that share a pass (bollinger's band widths, every rule's
 * cost and thresholds) see the same bars and the same pass, and each folds its own scores
 * bar by bar. Folded one after another, each set costs about a hundred scalar instructions a
 * bar; in the lanes of a vector, a vector instruction does that step for APO_LANES sets at
 * once. Each lane performs the operations of apo__score_bar_move (score_tile.h) on its set,
 * in the same order and bar after bar, so every set's scores are the bits of its fold alone:
 * positions, counts and the running sums are doubles in the lanes (positions -1, 0 and 1,
 * counts below 2^53, so exact), and the comparisons and selections that replace the scalar
 * fold's integer arithmetic give the same positions and the same returns.
 *
 * The bodies are in score_lanes.h (and a lone set's in score_lone_lanes.h), built once per
 * vector path (kernels/dispatch/lanes_*.c);
 * apo__cpu_score_fold_sets (kernels/dispatch/lanes_dispatch.c) hands the sets to them in
 * rounds of the path's lanes.
 */
#ifndef APO_SCORE_SETS_H
#define APO_SCORE_SETS_H

#include <stddef.h>

#include "cpu_isa.h"
#include "score_more.h"
#include "score_tile.h"

/* A tile of bars as every set of the pass sees it. Indices run from the tile's first bar. */
typedef struct apo__score_sets_tile {
    const double *close;         /* the closes */
    const double *move;          /* each bar's change of the close (apo__score_move) */
    const unsigned char *finite; /* whether that bar's close and the previous are finite */
    const double *const *out;    /* the pass's outputs, out[k][0 .. n) */
    size_t n;                    /* bars */
    size_t n_out;                /* outputs of the indicator a rule reads */
    /* Bollinger's pass (runtime/catalog/score_pass.h): out[0] holds the sd and out[1] the
     * mean, and each set takes its bands (n_out 3) as apo__bollinger_pass_bands_compared
     * gives them. Otherwise out[] are the indicator's outputs themselves, alike for all.
     * APO_SCORE_WIDTHS_OWN: bollinger's passes of several periods, each set reading the sd
     * and mean of its own (apo__score_set.pass) and out[] unused. */
    int widths;
    int kind, a, b; /* the rule (apo__rule): the same for every set of a pass */
} apo__score_sets_tile;

/* apo__score_sets_tile.widths of a tile whose sets read bollinger passes of their own. */
#define APO_SCORE_WIDTHS_OWN 2

/* What a set of the pass has of its own: its band widths (for a `widths` pass), its rule's
 * thresholds (apo__rule's lower, upper, middle), its cost and its rule's side (apo__rule's
 * side: APO_SIDE_BOTH, LONG or SHORT). Sets of one pass, and so lanes of one round, may have
 * different sides: the side only changes which positions a set's rule may take.
 *
 * `compound`: for the views, the set's more statistics (score_more.h), folded beside the plain
 * fold with the bits of apo__score_bar_more: of the `/compound` and `/log` views' (their
 * `view`), the compounded equity, its peak and its drawdown (what apo__score_more_compound
 * adds), their other fields left as they are; of the `/more` view's, every field (the
 * downside's sum, the units traded, the trades' sums and counts too). NULL for the plain view;
 * every set of a call alike, of one view.
 *
 * `pass`: on an APO_SCORE_WIDTHS_OWN tile, the sd and mean of the set's own pass (pass[0],
 * pass[1]) from the tile's first bar; NULL otherwise. */
typedef struct apo__score_set {
    double nbdev_up, nbdev_dn;
    double lower, upper, middle;
    double cost;
    int side;
    apo__score_more *compound;
    const double *const *pass;
} apo__score_set;

/* Folds the tile's bars into folds[0 .. n_sets) on vector path `isa` (AUTO: the best this
 * CPU has), set j with sets[j], bitwise as apo__score_bar_move would one set after another:
 * more sets than the path has lanes go in its rounds, two side by side (their chains
 * overlap, so a last round of one set costs little beside a full one); fewer, in one round
 * of the narrowest path that holds them; a lone set, with its bars in the lanes of the path
 * (score_lone_lanes.h: docs/perf-log/2026-11-23-scored-sweeps.md, "A lone set's bars in vector
 * lanes"), and two sets on a path wider than two lanes, each so, one after the other (cheaper than
 * a round of sse2). On an APO_SCORE_WIDTHS_OWN tile, sets of different passes share the
 * rounds, each lane reading its set's pass (docs/scores.md, "Sets of several periods"), and a
 * lone set or two fold as above on their own pass. */
void apo__cpu_score_fold_sets(const apo__score_sets_tile *tile, const apo__score_set *sets,
                              size_t n_sets, apo__score_fold *folds, apo__cpu_isa isa);

/* Folds the tile's bars into the folds of n_chains chains of ranges (chains[c][0 .. n_sets),
 * set j with sets[j]), bitwise as apo__cpu_score_fold_sets would into each chain, but each
 * set's positions and returns taken once per bar for all of them (score_ride_lanes.h): a
 * reference fold carries set j's position from ref_pos[j] through the tile (ref_pos is left
 * at the position after it; any start gives the same bits, a start the chains share saves
 * the most), and a chain whose sets have started and hold the reference's positions only
 * adds its returns. On vector path `isa` (AUTO: the best), or the narrowest that holds the
 * sets. */
void apo__cpu_score_ride_sets(const apo__score_sets_tile *tile, const apo__score_set *sets,
                              size_t n_sets, int *ref_pos, apo__score_fold *const *chains,
                              size_t n_chains, apo__cpu_isa isa);

/* Each bar's change of the close and whether it and the previous close are finite, as
 * apo__score_move gives them, for bars [t0, t1) of a row of closes (`close` at the row's
 * index 0; bar 0 has no previous close): move[t - t0] and finite[t - t0], on vector path `isa`
 * (AUTO: the best), with the scalar code's bits: the division of a tile's bars took about
 * a tenth of a lone set's CPU time (docs/PERF.md). */
void apo__cpu_score_moves(const double *close, size_t t0, size_t t1, double *move,
                          unsigned char *finite, apo__cpu_isa isa);

#endif /* APO_SCORE_SETS_H */
