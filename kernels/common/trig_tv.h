/*
 * trig_tv.h: trig.h's atan in the vector lanes of tile_vec.h, each lane with the operations of
 * apo__atan in its order on its own value, so each lane gives apo__atan's bits (and so the
 * GPU's: -ffp-contract=off covers vector code too). Host only: defined where tile_vec.h
 * defines APO_TILE_LANES.
 *
 * Why: apo__atan branches on its argument (the reduction of |x| > 1, the table's cell, the
 * tiny and huge cases), so gcc keeps its loop scalar, and a sample costs its double-double
 * divisions one after another (about 29 ns a sample on the Zen 3 VM, where TA-Lib's atan takes
 * 4.4). Here every arm is computed in every lane and the lane's own arm selected, so the
 * divisions of APO_TILE_LANES samples run at once. The table of atan(k/16) is read lane by
 * lane from arrays of trig.h's own list (APO_TRIG_ATAN_TABLE).
 */
#ifndef APO_KERNELS_TRIG_TV_H
#define APO_KERNELS_TRIG_TV_H

#include "dd_tv.h"
#include "trig.h"

#ifdef APO_TILE_LANES
/* trig.h's table of atan(k/16) as arrays, k = 1..16 (0 unused), read lane by lane: the scalar
 * switch's indirect jump a lane mispredicted on cells that vary from sample to sample (25 to 27
 * ns a sample against 19 on one cell, Zen 3 VM). */
#define APO__TRIG_ATAN_HI(k, hi, lo) hi,
#define APO__TRIG_ATAN_LO(k, hi, lo) lo,
static const double apo__trig_atan_hi[17] = {
    0.0, APO_TRIG_ATAN_TABLE(APO__TRIG_ATAN_HI) APO_TRIG_ATAN_16_HI};
static const double apo__trig_atan_lo[17] = {
    0.0, APO_TRIG_ATAN_TABLE(APO__TRIG_ATAN_LO) APO_TRIG_ATAN_16_LO};
#undef APO__TRIG_ATAN_HI
#undef APO__TRIG_ATAN_LO

/* trunc(v) for 0 <= v < 2^51, lane by lane: the nearest integer, less one where it is above. */
static inline apo_tv apo__trunc_small_tv(apo_tv v) {
    const apo_tv big = apo_tv_splat(0x1p52);
    const apo_tv near = (v + big) - big;
    return apo_tv_pick(near > v, near - 1.0, near);
}

/* apo__trig_div in lanes. */
static inline apo__dd_tv apo__trig_div_tv(apo__dd_tv num, apo__dd_tv den) {
    const apo_tv q = num.hi / den.hi;
    const apo__dd_tv p = apo__two_prod_tv(q, den.hi);
    const apo_tv rest = (((num.hi - p.hi) - p.lo) + num.lo) - q * den.lo;
    return apo__quick_two_sum_tv(q, rest / den.hi);
}

/* apo__trig_atan01 in lanes, for lanes whose t.hi is in [0, 1] (other lanes give values the
 * caller does not select). */
static inline apo__dd_tv apo__trig_atan01_tv(apo__dd_tv t) {
    /* k = ((int)(32 t) + 1) >> 1 as doubles: both truncations exact for 0 <= 32 t <= 32. */
    const apo_tv k = apo__trunc_small_tv((apo__trunc_small_tv(t.hi * 32.0) + 1.0) * 0.5);
    const apo_tv c = k * 0.0625;
    const apo__dd_tv num = apo__two_sum_tv(t.hi - c, t.lo);
    const apo__dd_tv tc = apo__two_prod_tv(t.hi, c);
    const apo__dd_tv one_tc = apo__two_sum_tv(apo_tv_splat(1.0), tc.hi);
    const apo__dd_tv den = apo__quick_two_sum_tv(one_tc.hi, one_tc.lo + tc.lo + t.lo * c);
    const apo__dd_tv u = apo__trig_div_tv(num, den);
    const apo_tv z = u.hi * u.hi;
    apo_tv p = apo_tv_splat(-0x1.1111111111111p-4);
    p = 0x1.3b13b13b13b14p-4 + z * p;
    p = -0x1.745d1745d1746p-4 + z * p;
    p = 0x1.c71c71c71c71cp-4 + z * p;
    p = -0x1.2492492492492p-3 + z * p;
    p = 0x1.999999999999ap-3 + z * p;
    p = -0x1.5555555555555p-2 + z * p;
    const apo_tv series = u.lo + u.hi * z * p;
    /* atan(k/16) of each lane's cell (cell 0, k = 0, is not selected; a lane the caller drops
     * may hold any k and reads cell 0). */
    double k_lane[APO_TILE_LANES], base_hi[APO_TILE_LANES], base_lo[APO_TILE_LANES];
    apo_tv_store(k_lane, k);
    for (size_t l = 0; l < APO_TILE_LANES; l++) {
        const size_t cell = k_lane[l] >= 1.0 && k_lane[l] <= 16.0 ? (size_t)k_lane[l] : 0;
        base_hi[l] = apo__trig_atan_hi[cell];
        base_lo[l] = apo__trig_atan_lo[cell];
    }
    const apo_tv bhi = apo_tv_load(base_hi), blo = apo_tv_load(base_lo);
    const apo__dd_tv s = apo__two_sum_tv(bhi, u.hi);
    const apo__dd_tv with_base = apo__quick_two_sum_tv(s.hi, s.lo + (blo + series));
    const apo__dd_tv alone = apo__quick_two_sum_tv(u.hi, series);
    const apo_tm first = k == 0.0;
    return apo__dd_tv_make(apo_tv_pick(first, alone.hi, with_base.hi),
                           apo_tv_pick(first, alone.lo, with_base.lo));
}

/* apo__atan of each lane: apo__trig_angle((|x|, 0), (1, 0)) by its two arms, |x| <= 1 and
 * pi/2 - atan(1/|x|), then the tiny, huge and NaN cases and the sign, each a select. */
static inline apo_tv apo__atan_tv(apo_tv x) {
    const apo_tv ax = apo_tv_abs(x), zero = apo_tv_splat(0.0), one = apo_tv_splat(1.0);
    const apo_tm small = ax <= 1.0;
    const apo__dd_tv num = apo__dd_tv_make(apo_tv_pick(small, ax, one), zero);
    const apo__dd_tv den = apo__dd_tv_make(apo_tv_pick(small, one, ax), zero);
    const apo__dd_tv a = apo__trig_atan01_tv(apo__trig_div_tv(num, den));
    const apo__dd_tv s = apo__two_sum_tv(apo_tv_splat(APO_TRIG_PIO2_HI), -a.hi);
    const apo__dd_tv rest = apo__quick_two_sum_tv(s.hi, s.lo + (APO_TRIG_PIO2_LO - a.lo));
    const apo_tv angle = apo_tv_pick(small, a.hi + a.lo, rest.hi + rest.lo);
    apo_tv v = apo_tv_pick(ax > 0x1p60, apo_tv_splat(APO_TRIG_PIO2_HI), angle);
    v = apo_tv_pick(x < 0.0, -v, v);
    v = apo_tv_pick(ax < 0x1p-27, x, v);
    return apo_tv_pick(x != x, apo_tv_splat((double)NAN), v);
}
#endif

#endif /* APO_KERNELS_TRIG_TV_H */
