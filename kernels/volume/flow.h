/*
 * flow.h: the typical price, the money flow and the accumulation/distribution step of a bar,
 * shared by the volume family's bodies.
 */
#ifndef APO_KERNELS_FLOW_H
#define APO_KERNELS_FLOW_H

#include "catalog.h"
#include "dd.h"
#include "tile_vec.h"

/* TA-Lib's typical price (high + low + close) / 3, in that order. */
static inline APO_HD double apo__typical(const apo__cat_io *io, size_t t) {
    return (io->in[0][t] + io->in[1][t] + io->in[2][t]) / 3.0;
}

/* The money flow tp * volume of bar t, exact as a double-double, tp its typical price
 * (apo__typical) where the caller already has it. */
static inline APO_HD apo__dd apo__money_flow_of(const apo__cat_io *io, size_t t, double tp) {
    return apo__two_prod(tp, io->in[3][t]);
}

/* The money flow typical * volume of bar t, exact as a double-double. */
static inline APO_HD apo__dd apo__money_flow(const apo__cat_io *io, size_t t) {
    return apo__money_flow_of(io, t, apo__typical(io, t));
}

/* TA-Lib's accumulation/distribution step: ad plus bar t's money flow volume
 * ((close - low) - (high - close)) / (high - low) * volume, in that order, where
 * high - low > 0; ad unchanged otherwise (a bar with high at or below low adds nothing). The
 * one definition of the A/D line's step, so that ad and adosc cannot drift apart. Inputs
 * high, low, close, volume are in[0 .. 3]; the caller has checked they are finite. */
static inline APO_HD double apo__ad_add(double ad, const apo__cat_io *io, size_t t) {
    const double high = io->in[0][t], low = io->in[1][t], close = io->in[2][t];
    const double range = high - low;
    if (range > 0.0)
        ad += (((close - low) - (high - close)) / range) * io->in[3][t];
    return ad;
}

#ifdef APO_TILE_LANES
/* The volume family's vector lanes (tile_vec.h), for the running sums (ad, obv, adosc) and
 * mfi's flows: a bar per lane, each lane computing what the scalar body computes for its
 * bar, the same operations on the same values, so the same bits. */

/* All-ones lanes for the bars t .. t + APO_TILE_LANES - 1 whose n inputs are all finite:
 * x - x is +0 for a finite x and NaN for the others, and a sum holding a NaN is not 0. */
static APO_CAT_SPECIALISED apo_tm apo__flow_finite(const double *const *in, size_t n, size_t t) {
    apo_tv z = apo_tv_splat(0.0);
    for (size_t i = 0; i < n; i++) {
        const apo_tv v = apo_tv_load(in[i] + t);
        z += v - v;
    }
    return (apo_tm)(z == 0.0);
}

/* apo__ad_add's money flow volume ((close - low) - (high - close)) / (high - low) * volume
 * of the bars in the lanes, in that order, whatever their range. */
static inline apo_tv apo__ad_flow_volume(apo_tv high, apo_tv low, apo_tv close, apo_tv vol) {
    return (((close - low) - (high - close)) / (high - low)) * vol;
}

/* The A/D steps of bars t .. t + APO_TILE_LANES - 1 (inputs high, low, close, volume):
 * apo__ad_add's money flow volume where the bar is finite and high - low > 0, else -0.0,
 * the one term whose addition leaves every sum as it is (x + -0 is x, signed zeros
 * included), so that adding the step is apo__ad_add's step or its "unchanged". Always
 * inlined: gcc left it a call per vector in ad's loop (4.4% of a 1e4 bench run's samples
 * against the loop's 13.4%), its vector passed through memory; inlined, ad's 1e4 call went
 * from 0.021 to 0.017 ms (docs/PERF.md). */
static APO_CAT_SPECIALISED apo_tv apo__ad_steps(const apo__cat_io *io, size_t t) {
    const apo_tv high = apo_tv_load(io->in[0] + t), low = apo_tv_load(io->in[1] + t);
    const apo_tv close = apo_tv_load(io->in[2] + t), vol = apo_tv_load(io->in[3] + t);
    const apo_tv range = high - low;
    const apo_tm take = apo__flow_finite(io->in, 4, t) & (apo_tm)(range > 0.0);
    return apo_tv_pick(take, apo__ad_flow_volume(high, low, close, vol), apo_tv_splat(-0.0));
}

/* The lanes of a sum the running kernels write: NaN (the NAN constant) where the bar is not
 * finite (keep clear) or the sum is NaN (apo__canonical_nan), the sum elsewhere. */
static inline apo_tv apo__flow_output(apo_tm keep, apo_tv sum) {
    return apo_tv_pick(keep & (apo_tm)(sum == sum), sum, apo_tv_splat(NAN));
}
#endif

#endif /* APO_KERNELS_FLOW_H */
