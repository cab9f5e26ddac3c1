/*
 * bollinger_pass_tile.h: the body of bollinger's pass (bollinger_pass.h), for the host and
 * the GPU alike. The tile body of bollinger_tile.h is included with its three stores
 * redefined (bollinger_pass_stores.h), so the pass is the very body that computes the bands, window
 * for window, with the widths left out: the "upper" output receives the sd and the "middle" the
 * mean, and the "lower" is never written. A translation unit that includes this header must not
 * include bollinger_tile.h with its own stores (the bands): the body exists once per unit, and here
 * it stores the pass.
 */
#ifndef APO_BOLLINGER_PASS_TILE_H
#define APO_BOLLINGER_PASS_TILE_H

#include "apo_hd.h"

#ifdef APO_BOLLINGER_TILE_H
#error "bollinger_pass_tile.h must come before bollinger_tile.h: it redefines the body's stores"
#endif

#include "bollinger_pass_stores.h"
#include "bollinger_tile.h"

/* The pass over tile [begin, end) of a row read from x at absolute indices (period >= 1,
 * begin < end): mean[t] and sd[t] as apo__cpu_bollinger_pass_tile (bollinger_pass.h) documents
 * them. */
static inline APO_HD void apo__bollinger_pass_tile(apo__in x, size_t begin, size_t end,
                                                   size_t period, apo__out mean, apo__out sd) {
    /* The widths do not reach the stores above; 0 is as good as any. */
    apo__bollinger_tile(x, begin, end, period, 0.0, 0.0, sd, mean, sd);
}

#endif /* APO_BOLLINGER_PASS_TILE_H */
