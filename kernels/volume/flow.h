/*
 * flow.h: the money flow, the volume term and the accumulation/distribution step of a bar,
 * shared by the volume family's bodies.
 */
#ifndef APO_KERNELS_FLOW_H
#define APO_KERNELS_FLOW_H

#include "catalog.h"
#include "dd.h"
#include "tile_vec.h"

/* The money flow tp * volume of bar t, exact as a double-double, tp its typical price
 * (apo__typical, catalog.h) where the caller already has it. */
static APO_HD_STEP APO_HD apo__dd apo__money_flow_of(const apo__cat_io *io, size_t t, double tp) {
    return apo__two_prod(tp, io->in[3][t]);
}

/* The money flow typical * volume of bar t, exact as a double-double. */
static APO_HD_STEP APO_HD apo__dd apo__money_flow(const apo__cat_io *io, size_t t) {
    return apo__money_flow_of(io, t, apo__typical(io, t));
}

/* Bar t's volume (in[3]) as a term of a sum of doubles: the volume sums of cmf's and mvwap's
 * bodies (sliding_sums.h). */
static APO_HD_STEP APO_HD apo__dd apo__volume_term(const apo__cat_io *io, size_t t) {
    return apo__dd_make(io->in[3][t], 0.0);
}

/* TA-Lib's accumulation/distribution step: ad plus bar t's money flow volume
 * ((close - low) - (high - close)) / (high - low) * volume, in that order, where
 * high - low > 0; ad unchanged otherwise (a bar with high at or below low adds nothing). The
 * one definition of the A/D line's step, so that ad and adosc cannot drift apart. Inputs
 * high, low, close, volume are in[0 .. 3]; the caller has checked they are finite. */
static APO_HD_STEP APO_HD double apo__ad_add(double ad, const apo__cat_io *io, size_t t) {
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

/* The A/D steps of the bars t .. t + APO_TILE_LANES - 1 of inputs high, low, close, volume
 * assumed finite: apo__ad_add's money flow volume where high - low > 0, else -0.0 (as
 * apo__ad_steps); each input's x - x is added to the NaN-sticky gap sum *gaps, which stays
 * 0 only if every bar was finite, so that one test after a block of them checks the
 * assumption (ad's and adosc's clean blocks, adosc's pairs). The four pointers, not the
 * io: a store into the outputs may alias io->in[], and the loop reloaded them after each. */
static APO_CAT_SPECIALISED apo_tv apo__ad_steps_clean(const double *high, const double *low,
                                                      const double *close, const double *vol,
                                                      size_t t, apo_tv *gaps) {
    const apo_tv h = apo_tv_load(high + t), l = apo_tv_load(low + t);
    const apo_tv c = apo_tv_load(close + t), v = apo_tv_load(vol + t);
    *gaps += ((h - h) + (l - l)) + ((c - c) + (v - v));
    return apo_tv_pick((apo_tm)(h - l > 0.0), apo__ad_flow_volume(h, l, c, v), apo_tv_splat(-0.0));
}

/* Calls that write at least this many bars of a running sum's output store them past the
 * caches (apo_tv_stream, tile_vec.h): 2 MiB of doubles, twice the L2 of a core of the Zen 4
 * this was measured on, so the output would leave the core's caches before anyone reads it,
 * while a store that misses them first reads its line from memory (the "read for
 * ownership"). ad at 1e6 bars: 1.37-1.49 ns a bar with plain stores, 1.22-1.25 with these
 * (docs/PERF.md). A shorter call keeps its output in the caches for the caller. */
#define APO_FLOW_PAST_CACHE_BARS ((size_t)1 << 18)

/* Whether the outputs of bars from `at` on, a span of `bars` of them, go past the caches
 * (apo_tv_stream, tile_vec.h): a long span whose vectors' halves are 16-byte aligned (the
 * streaming stores' rule; a span of doubles keeps the alignment of its first one vector after
 * vector). */
static inline int apo__flow_past_cache(const double *at, size_t bars) {
    return at != NULL && bars >= APO_FLOW_PAST_CACHE_BARS && ((uintptr_t)at & 15u) == 0;
}

/* The lanes of a sum the running kernels write: NaN (the NAN constant) where the bar is not
 * finite (keep clear) or the sum is NaN (apo__canonical_nan), the sum elsewhere. */
static inline apo_tv apo__flow_output(apo_tm keep, apo_tv sum) {
    return apo_tv_pick(keep & (apo_tm)(sum == sum), sum, apo_tv_splat(NAN));
}
#endif

#endif /* APO_KERNELS_FLOW_H */
