/*
 * ad_tile.h: AD, TA-Lib's Chaikin accumulation/distribution line. Inputs high, low, close,
 * volume; one output, ad.
 *
 * Definition (TA-Lib's): AD starts at 0 before the first bar and at each bar adds
 * ((close - low) - (high - close)) / (high - low) * volume, in that order, where
 * high - low > 0 (a bar with high at or below low adds nothing: flow.h); ad[t] is the sum
 * after bar t, so the lookback is 0.
 *
 * Tiles: AD at t is a running sum from the row's first bar, which no halo of fixed length
 * covers, and a sum restarted at a tile's start would be another indicator. So every tile
 * re-runs the sum from the row's first bar (the kernel is whole-row: catalog.h), storing
 * nothing before `begin`: the operations that give ad[t] are the same sequence whichever
 * tile t falls in and wherever the tile boundaries are, so the bits do not depend on the
 * grid at all, and they are TA-Lib's recursion's bits. The cost is the prefix: a tile
 * starting at `begin` reads `begin` bars before its own (docs/kernels/volume_statistics.md,
 * "Cumulative indicators"), which the CPU pays once per run of consecutive tiles: it calls this
 * body over their union, with the same bits.
 *
 * Gaps: a bar with a non-finite high, low, close or volume gives NaN and adds nothing, so
 * the clean bars' outputs are the AD of the series with its gap bars removed.
 */
#ifndef APO_KERNELS_AD_TILE_H
#define APO_KERNELS_AD_TILE_H

#include "flow.h"
#include "running_blocks.h"
#include "window.h"

#ifdef APO_TILE_LANES
/* AD's steps of a clean block in lanes (running_blocks.h): flow.h's, -0 where high - low is
 * not positive. */
static inline apo_tv apo__ad_block_steps(const apo__cat_io *io, size_t k, apo_tv *gaps) {
    return apo__ad_steps_clean(io->in[0], io->in[1], io->in[2], io->in[3], k, gaps);
}

/* The sum `ad` stepped over the n bars from t (whole vectors), each vector's gaps tested:
 * a gap bar adds -0.0 (apo__ad_steps) and writes NaN. */
static inline double apo__ad_vectors(double ad, const apo__cat_io *io, size_t t, size_t n,
                                     double *out) {
    for (size_t k = t; k < t + n; k += APO_TILE_LANES) {
        const apo_tv step = apo__ad_steps(io, k);
        apo_tv sum;
        for (int j = 0; j < APO_TILE_LANES; j++) {
            ad += step[j];
            sum[j] = ad;
        }
        if (out != NULL)
            apo_tv_store(out + k, apo__flow_output(apo__flow_finite(io->in, 4, k), sum));
    }
    return ad;
}

/* The sum `ad` stepped over bars *at .. in whole vectors while they last before stop, its
 * value after each bar written to out where out is not NULL; *at becomes the first bar
 * left. A block of up to APO_RUNNING_BLOCK bars (apo__running_block_upto) is run as clean
 * (apo__running_block, running_blocks.h), and again vector by vector if it had a gap. A vector's
 * steps are computed in lanes, then added one by one: each bar's add is the scalar loop's, so the
 * bits are. The steps of the next vector are computed while the adds of this one run, so the time
 * is about the chain's, an add a bar. A long call's clean blocks store past the caches
 * (apo__flow_past_cache). */
static inline double apo__ad_lanes(double ad, const apo__cat_io *io, size_t *at, size_t stop,
                                   double *out) {
    size_t t = *at;
    const int past_cache = apo__flow_past_cache(out != NULL ? out + t : NULL, stop - t);
    for (size_t n; (n = apo__running_block_upto(t, stop)) > 0; t += n)
        if (!apo__running_block(&ad, io, t, n, out, past_cache, apo__ad_block_steps)) {
            /* The block is rewritten by plain stores: the streaming ones go first. */
            if (past_cache)
                _mm_sfence();
            ad = apo__ad_vectors(ad, io, t, n, out);
        }
    if (past_cache)
        _mm_sfence();
    *at = t;
    return ad;
}
#endif

/* The sum `ad` stepped over bars [from, end), writing the outputs of those from `begin` on;
 * returns the sum after bar end - 1. The tile and a stream's carried run (apo__ad_carry)
 * both are this loop, so they perform the same operations on the same sum at every bar.
 * The vector path (apo__ad_lanes) takes the whole vectors of bars, the scalar loops the
 * rest and the GPU's. */
static inline APO_HD double apo__ad_run(double ad, const apo__cat_io *io, size_t from, size_t begin,
                                        size_t end) {
    double *out = io->out[0];
    size_t t = from;
#ifdef APO_TILE_LANES
    ad = apo__ad_lanes(ad, io, &t, begin, NULL);
#endif
    for (; t < begin; t++)
        if (apo__all_finite_at(io->in, 4, t))
            ad = apo__ad_add(ad, io, t);
#ifdef APO_TILE_LANES
    ad = apo__ad_lanes(ad, io, &t, end, out);
#endif
    for (; t < end; t++) {
        double y = NAN;
        if (apo__all_finite_at(io->in, 4, t)) {
            ad = apo__ad_add(ad, io, t);
            /* A sum past DBL_MAX (docs/kernels.md, Range) may turn into an arithmetic NaN,
             * whose bits the CPU and the GPU do not share (apo_hd.h). */
            y = apo__canonical_nan(ad);
        }
        out[t] = y;
    }
    return ad;
}

static inline APO_HD void apo__ad_tile(const apo__cat_io *io, size_t begin, size_t end) {
    (void)apo__ad_run(0.0, io, 0, begin, end);
}

/* Doubles of the state a stream carries per series (apo__ad_carry). */
#define APO_AD_CARRY 1

/* A stream's series fed on from bar `begin` to `stop` - 1, going on from the sum c[0] its
 * last piece left at `begin` (0 before the first bar, the tile's start). Never reset, as
 * the batch's sum never is (runtime/streaming/stream.c). */
static inline void apo__ad_carry(const apo__cat_io *io, double *c, size_t begin, size_t stop) {
    c[0] = apo__ad_run(c[0], io, begin, begin, stop);
}

#endif /* APO_KERNELS_AD_TILE_H */
