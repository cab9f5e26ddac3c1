/*
 * lanes_entry.h: the entry points of one vector path (lanes_paths.h), built from the lane
 * bodies: each runs its tiles in rounds of APO_LANES, in the order given (lanes_dispatch.c
 * orders them by length and picks the path of each round). The order only decides which
 * lane computes which tile: tiles write disjoint outputs, and each lane's bits are those of
 * the scalar tile body.
 *
 * Included once by each lanes_<path>.c, after it has defined APO_LANES and APO_LANES_NAME.
 */
#ifndef APO_LANES_ENTRY_H
#define APO_LANES_ENTRY_H

#include "bollinger_lanes.h"
#include "bollinger_stream_lanes.h"
#include "lanes_paths.h"
#include "macd_lanes.h"
#include "returns_stats_lanes.h"
#include "score_lanes.h"
#include "score_lone_lanes.h"
#include "score_ride_lanes.h"

void APO_LANES_NAME(apo__bollinger_tiles)(const double *x, size_t cols, const apo__tile_span *tiles,
                                          size_t count, size_t period, double nbdev_up,
                                          double nbdev_dn, double *upper, double *middle,
                                          double *lower, int stream) {
    for (size_t r = 0; r < count; r += APO_LANES)
        APO_LANES_NAME(apo__bollinger_round)
    (x, cols, tiles + r, count - r < APO_LANES ? count - r : APO_LANES, period, nbdev_up, nbdev_dn,
     upper, middle, lower, stream);
}

void APO_LANES_NAME(apo__macd_tiles)(const double *x, size_t cols, const apo__tile_span *tiles,
                                     size_t count, size_t fast, size_t slow, size_t signal,
                                     size_t h, const apo__macd_rates *r, double *macd,
                                     double *signal_line, double *hist, int stream,
                                     apo__macd_edges *edges) {
    for (size_t k = 0; k < count; k += APO_LANES)
        APO_LANES_NAME(apo__macd_round)
    (x, cols, tiles + k, count - k < APO_LANES ? count - k : APO_LANES, fast, slow, signal, h, r,
     macd, signal_line, hist, stream, edges != NULL ? edges + k : NULL);
}

void APO_LANES_NAME(apo__returns_stats_tiles)(const double *x, size_t cols,
                                              const apo__tile_span *tiles, size_t count,
                                              apo__moments *const *partials, double *scratch,
                                              size_t scratch_len) {
    for (size_t r = 0; r < count; r += APO_LANES)
        APO_LANES_NAME(apo__returns_stats_round)
    (x, cols, tiles + r, count - r < APO_LANES ? count - r : APO_LANES, partials + r, scratch,
     scratch_len);
}

void APO_LANES_NAME(apo__score_fold_sets)(const apo__score_sets_tile *tile,
                                          const apo__score_set *sets, size_t n_sets,
                                          apo__score_fold *folds) {
    /* A lone set: its bars in the lanes (score_lone_lanes.h). */
    if (n_sets == 1) {
        APO_LANES_NAME(apo__score_fold_lone)(tile, sets, folds);
        return;
    }
    /* Two rounds side by side (score_lanes.h). */
    const size_t per_call = APO_SCORE_LANES_ROUNDS * APO_LANES;
    for (size_t r = 0; r < n_sets; r += per_call)
        APO_LANES_NAME(apo__score_fold_round)
    (tile, sets + r, n_sets - r < per_call ? n_sets - r : per_call, folds + r);
}

void APO_LANES_NAME(apo__score_ride_sets)(const apo__score_sets_tile *tile,
                                          const apo__score_set *sets, size_t n_sets, int *ref_pos,
                                          apo__score_fold *const *chains, size_t n_chains) {
    /* Two rounds of the path's lanes side by side (score_ride_lanes.h). */
    const size_t per_call = APO_SCORE_LANES_ROUNDS * APO_LANES;
    for (size_t r = 0; r < n_sets; r += per_call)
        APO_LANES_NAME(apo__score_ride_round)
    (tile, sets, r, n_sets - r < per_call ? n_sets - r : per_call, ref_pos, chains, n_chains);
}

void APO_LANES_NAME(apo__score_moves)(const double *close, size_t t0, size_t t1, double *move,
                                      unsigned char *finite) {
    APO_LANES_NAME(apo__score_moves_run)(close, t0, t1, move, finite);
}

#endif /* APO_LANES_ENTRY_H */
