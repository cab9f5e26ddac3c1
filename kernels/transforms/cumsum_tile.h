/*
 * cumsum_tile.h: CUMSUM, TA-Lib 0.8's running total of a series from its first bar. Input
 * close (TA-Lib's real); one output; the lookback is 0.
 *
 * Definition (TA-Lib's): the sum starts at 0 before the first bar and adds each sample in
 * index order, in plain double (`sum += x`), cumsum[t] being the sum after bar t. Every
 * operation is TA-Lib's, in its order, so every output has TA-Lib's bits (ad's and pvt's
 * choice: a compensated sum would be closer to the exact total, but no longer TA-Lib's
 * figure, and the plain sum's error, a few ulps of the sum of magnitudes per bar summed, stays
 * far inside the catalog's 1e-12).
 *
 * Tiles: a running sum from the row's first bar, so, as ad (ad_tile.h) and pvt (pvt_tile.h),
 * the kernel is whole-row: every tile runs the sum from the row's first bar, storing nothing
 * before `begin`, and the bits do not depend on the grid.
 *
 * Gaps: a bar with a non-finite sample gives NaN and adds nothing (obv's rule), so the clean
 * bars' outputs are the running total of the series with its gap bars taken out. A sum that
 * overflows is inf from there on, as TA-Lib's. A stream carries the sum (apo__cumsum_carry).
 */
#ifndef APO_KERNELS_CUMSUM_TILE_H
#define APO_KERNELS_CUMSUM_TILE_H

#include "catalog.h"
#include "running_blocks.h"

/* The running state a stream carries: the sum. */
#define APO_CUMSUM_CARRY 1

/* Adds bars [from, end) to *s one by one, each tested, writing the outputs of those from
 * `begin` on: the definition's loop. */
static inline APO_HD void apo__cumsum_bars(double *s, const apo__cat_io *io, size_t from,
                                           size_t begin, size_t end) {
    const double *x = io->in[0];
    double *out = io->out[0];
    double v = *s;
    for (size_t t = from; t < end; t++) {
        if (!isfinite(x[t])) {
            if (t >= begin)
                out[t] = NAN;
            continue;
        }
        v += x[t];
        if (t >= begin)
            out[t] = apo__canonical_nan(v);
    }
    *s = v;
}

#ifdef APO_TILE_LANES
/* cumsum's steps for running_blocks.h: the samples themselves, a lane that is not finite making
 * *gaps NaN (the block is then left to the loop). */
static inline apo_tv apo__cumsum_steps(const apo__cat_io *io, size_t k, apo_tv *gaps) {
    const apo_tv x = apo_tv_load(io->in[0] + k);
    *gaps += x - x;
    return x;
}

/* running_blocks.h's clean block of cumsum: the loop's additions without its tests (0.87 of the
 * tested loop's time at 1e4 and 1e6 bars on the Zen 4 VM). */
static inline int apo__cumsum_block(double *s, const apo__cat_io *io, size_t t, size_t n,
                                    double *out) {
    return apo__running_block(s, io, t, n, out, 0, apo__cumsum_steps);
}
#endif

/* Adds bars [from, end) to *sum, writing the outputs of those from `begin` on. The tile and a
 * stream's carried run both are this loop; on the vector paths the whole vectors of bars go in
 * clean blocks (running_blocks.h's apo__running_blocks), the loop takes the rest and the GPU's. */
static inline APO_HD void apo__cumsum_run(double *sum, const apo__cat_io *io, size_t from,
                                          size_t begin, size_t end) {
    size_t t = from;
    const size_t first_out = begin > from ? begin : from;
#ifdef APO_TILE_LANES
    t = apo__running_blocks(sum, io, t, first_out, 0, apo__cumsum_block, apo__cumsum_bars);
#endif
    apo__cumsum_bars(sum, io, t, begin, first_out);
    t = first_out;
#ifdef APO_TILE_LANES
    t = apo__running_blocks(sum, io, t, end, 1, apo__cumsum_block, apo__cumsum_bars);
#endif
    apo__cumsum_bars(sum, io, t, begin, end);
}

static inline APO_HD void apo__cumsum_tile(const apo__cat_io *io, size_t begin, size_t end) {
    double sum = 0.0;
    apo__cumsum_run(&sum, io, 0, begin, end);
}

/* A stream's series fed on from bar `begin` to `stop` - 1 from the sum `c` its last piece left
 * (0 before the first bar): the tile's state at `begin`, so the outputs are the bits of any
 * tile holding them (runtime/streaming/stream.c). */
static inline void apo__cumsum_carry(const apo__cat_io *io, double *c, size_t begin, size_t stop) {
    apo__cumsum_run(&c[0], io, begin, begin, stop);
}

#endif /* APO_KERNELS_CUMSUM_TILE_H */
