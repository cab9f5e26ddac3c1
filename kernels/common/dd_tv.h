/*
 * dd_tv.h: dd.h's double-doubles in the vector lanes of tile_vec.h: the same operations as
 * apo__two_sum, apo__quick_two_sum, apo__split, apo__two_prod, apo__dd_add_d and
 * apo__dd_div_d, each lane on its own values, so that a tile body summing the windows of
 * consecutive bars side by side gives each lane the scalar functions' bits (-ffp-contract=off
 * covers vector code too). Host only: defined where tile_vec.h defines APO_TILE_LANES.
 */
#ifndef APO_KERNELS_DD_TV_H
#define APO_KERNELS_DD_TV_H

#include "tile_vec.h"

#ifdef APO_TILE_LANES
typedef struct apo__dd_tv {
    apo_tv hi, lo;
} apo__dd_tv;

static inline apo__dd_tv apo__dd_tv_make(apo_tv hi, apo_tv lo) {
    apo__dd_tv r;
    r.hi = hi;
    r.lo = lo;
    return r;
}

static inline apo__dd_tv apo__two_sum_tv(apo_tv a, apo_tv b) {
    const apo_tv s = a + b;
    const apo_tv bb = s - a;
    return apo__dd_tv_make(s, (a - (s - bb)) + (b - bb));
}

static inline apo__dd_tv apo__quick_two_sum_tv(apo_tv a, apo_tv b) {
    const apo_tv s = a + b;
    return apo__dd_tv_make(s, b - (s - a));
}

static inline apo__dd_tv apo__split_tv(apo_tv a) {
    const apo_tv c = 134217729.0 * a;
    const apo_tv hi = c - (c - a);
    return apo__dd_tv_make(hi, a - hi);
}

static inline apo__dd_tv apo__two_prod_tv(apo_tv a, apo_tv b) {
    const apo_tv p = a * b;
    const apo__dd_tv as = apo__split_tv(a), bs = apo__split_tv(b);
    const apo_tv e = ((as.hi * bs.hi - p) + as.hi * bs.lo + as.lo * bs.hi) + as.lo * bs.lo;
    return apo__dd_tv_make(p, e);
}

static inline apo__dd_tv apo__dd_add_d_tv(apo__dd_tv a, apo_tv b) {
    apo__dd_tv s = apo__two_sum_tv(a.hi, b);
    s.lo = s.lo + a.lo;
    return apo__quick_two_sum_tv(s.hi, s.lo);
}

static inline apo__dd_tv apo__dd_div_d_tv(apo__dd_tv a, apo_tv b) {
    const apo_tv q1 = a.hi / b;
    const apo__dd_tv p = apo__two_prod_tv(q1, b);
    apo__dd_tv r = apo__two_sum_tv(a.hi, -p.hi);
    r.lo = r.lo - p.lo;
    r.lo = r.lo + a.lo;
    const apo_tv q2 = (r.hi + r.lo) / b;
    return apo__quick_two_sum_tv(q1, q2);
}
#endif

#endif /* APO_KERNELS_DD_TV_H */
