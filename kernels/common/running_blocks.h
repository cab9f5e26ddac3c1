/*
 * running_blocks.h: the vector path of a whole-row running total whose bar adds a step that
 * reads the bar and the close before it (pvt, wad): blocks of bars with no gap, after a clean
 * bar the run has seen, take their steps in vector lanes and add them to the total one by one,
 * as the scalar loop adds them.
 *
 * Why the bits are the loop's: each step is the loop's operations on the same samples; where
 * the loop skips its add (a bar that does not move the total), the lanes' step is one that
 * leaves the total's bits: -0 (ad's), or +0 where the total is never -0 (pvt's and wad's: it
 * starts at +0, and an exact zero sum is +0). A block that finds a gap after all is left to the
 * loop, which rewrites its outputs. A total that turns infinite or NaN stays so, so NaN is made
 * canonical only when a block ends with a total that is not finite. Why one gap test for the
 * block: a test and a NaN fix per vector (and the inputs' pointers reloaded after each store)
 * kept ad's loop above the chain's add a bar (docs/PERF.md).
 *
 * ad's blocks (ad_tile.h) take apo__running_block alone, with their own dispatch and the long
 * calls' stores past the caches; cumsum's (cumsum_tile.h: its steps are the samples) take it
 * through apo__running_blocks, as vwap's own two-total block does (vwap_tile.h); pvt's and
 * wad's take it through apo__running_turn.
 */
#ifndef APO_KERNELS_RUNNING_BLOCKS_H
#define APO_KERNELS_RUNNING_BLOCKS_H

#include "catalog.h"
#include "tile_vec.h"

#ifdef APO_TILE_LANES
/* Bars per block. */
#define APO_RUNNING_BLOCK 256

/* The steps of bars k .. k + APO_TILE_LANES - 1 (for pvt and wad k is past the run's first
 * bar, so the close before each is in the row), each lane as the loop computes it, and a step
 * that keeps the total's bits where the loop adds nothing; *gaps becomes NaN in a lane whose
 * bar is not clean (it is not otherwise read). */
typedef apo_tv (*apo__running_steps)(const apo__cat_io *io, size_t k, apo_tv *gaps);

/* The bars a block from t takes: whole vectors up to APO_RUNNING_BLOCK, not past `stop`; 0
 * once fewer than a vector are left. apo__running_block_len stops at the first output bar
 * while t is before it, so that a block either writes its outputs or none, else at the end. */
static inline size_t apo__running_block_upto(size_t t, size_t stop) {
    const size_t whole = (stop - t) / APO_TILE_LANES * APO_TILE_LANES;
    return whole < APO_RUNNING_BLOCK ? whole : APO_RUNNING_BLOCK;
}
static inline size_t apo__running_block_len(size_t t, size_t begin, size_t end) {
    return apo__running_block_upto(t, t < begin ? begin : end);
}

/* *total stepped over the n bars from t (whole vectors) on the assumption that none has a
 * gap, its value after each bar written to out where out is not NULL, past the caches with
 * past_cache (flow.h's apo__flow_past_cache; the caller issues _mm_sfence() before it reads or
 * writes those lines again). Returns 1, or 0 when a bar had a gap after all (*total left as it
 * was; the outputs written are the caller's to rewrite). */
static inline int apo__running_block(double *total, const apo__cat_io *io, size_t t, size_t n,
                                     double *out, int past_cache, apo__running_steps steps) {
    double sum = *total;
    apo_tv gaps = apo_tv_splat(0.0);
    for (size_t k = t; k < t + n; k += APO_TILE_LANES) {
        const apo_tv step = steps(io, k, &gaps);
        apo_tv line;
        for (int j = 0; j < APO_TILE_LANES; j++) {
            sum += step[j];
            line[j] = sum;
        }
        if (past_cache)
            apo_tv_stream(out + k, line);
        else if (out != NULL)
            apo_tv_store(out + k, line);
    }
    if (!apo_tm_all((apo_tm)(gaps == 0.0)))
        return 0;
    if (out != NULL && !isfinite(sum))
        for (size_t k = t; k < t + n; k++)
            out[k] = apo__canonical_nan(out[k]);
    *total = sum;
    return 1;
}

/* A kernel's clean block for apo__running_blocks: its state c moved over the n bars from t
 * (whole vectors) on the assumption that none has a gap, the outputs written to out where out
 * is not NULL; returns 1, or 0 when a bar had a gap after all (c left as it was). */
typedef int (*apo__running_clean_block)(double *c, const apo__cat_io *io, size_t t, size_t n,
                                        double *out);
/* The kernel's definition loop: c moved over bars [from, end) one by one, each tested, the
 * outputs of those from `begin` on written to io->out[0]. */
typedef void (*apo__running_bars)(double *c, const apo__cat_io *io, size_t from, size_t begin,
                                  size_t end);

/* The state c of a running kernel whose every bar starts a block (cumsum, vwap: no close
 * before the bar to read) moved over the whole vectors of bars from t before stop in clean
 * blocks of up to APO_RUNNING_BLOCK, their outputs written when `write`, and a block that met
 * a gap run again by the loop, which rewrites its outputs. Returns the first bar left. */
static inline size_t apo__running_blocks(double *c, const apo__cat_io *io, size_t t, size_t stop,
                                         int write, apo__running_clean_block block,
                                         apo__running_bars bars) {
    for (size_t n; (n = apo__running_block_upto(t, stop)) > 0; t += n)
        if (!block(c, io, t, n, write ? io->out[0] : NULL))
            bars(c, io, t, write ? t : t + n, t + n);
    return t;
}

/* The vector path's turn at bar t of a run (the run's loop calls it first at every bar): a
 * clean block from t where the bar before was clean and seen by the run (last_clean) and t is
 * past the last block that met a gap (*scalar_until). Returns the bars it took, *total moved
 * over them, their outputs written and *last_close their last close (input `close` of io), or
 * 0: the loop steps bar t itself, and after a block that met a gap, every bar of it. */
static inline size_t apo__running_turn(double *total, double *last_close, const apo__cat_io *io,
                                       size_t close, size_t t, size_t begin, size_t end,
                                       int last_clean, size_t *scalar_until,
                                       apo__running_steps steps) {
    const size_t n = last_clean && t >= *scalar_until ? apo__running_block_len(t, begin, end) : 0;
    if (n == 0)
        return 0;
    if (apo__running_block(total, io, t, n, t < begin ? NULL : io->out[0], 0, steps)) {
        *last_close = io->in[close][t + n - 1];
        return n;
    }
    *scalar_until = t + n;
    return 0;
}
#endif

#endif /* APO_KERNELS_RUNNING_BLOCKS_H */
