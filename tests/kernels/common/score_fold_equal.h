/*
 * score_fold_equal.h: whether two score folds (kernels/scores/score_tile.h, apo__score_fold) hold
 * the same state, every field and every bit: what the vector paths' folds are held to against the
 * scalar fold (common/test_cpu_isa.c; dispatch/score_fixtures.c, for test_score_ride.c and
 * test_score_sides.c; each says in its own message where the two differ).
 */
#ifndef APO_TEST_SCORE_FOLD_EQUAL_H
#define APO_TEST_SCORE_FOLD_EQUAL_H

#include <string.h>

#include "score_tile.h"

static inline int score_folds_equal(const apo__score_fold *a, const apo__score_fold *b) {
    const double ga[6] = {a->total, a->shift, a->dev_sum, a->dev_sq, a->peak, a->drawdown};
    const double gb[6] = {b->total, b->shift, b->dev_sum, b->dev_sq, b->peak, b->drawdown};
    return a->pos == b->pos && a->started == b->started && a->bars == b->bars &&
           a->trades == b->trades && a->exposed == b->exposed && memcmp(ga, gb, sizeof ga) == 0;
}

#endif /* APO_TEST_SCORE_FOLD_EQUAL_H */
