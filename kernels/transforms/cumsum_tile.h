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

/* The running state a stream carries: the sum. */
#define APO_CUMSUM_CARRY 1

/* Adds bars [from, end) to *s one by one, each tested, writing the outputs of those from
 * `begin` on: the definition's loop. */
static inline APO_HD void apo__cumsum_bars(double *s, const double *x, double *out, size_t from,
                                           size_t begin, size_t end) {
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

#ifndef __CUDA_ARCH__
/* Bars a clean stretch takes at most before its samples are scanned again. */
#define APO_CUMSUM_BLOCK 256

/* Whether x[from .. to) are all finite: a scan without a branch a bar, which gcc vectorises. */
static inline int apo__cumsum_clean(const double *x, size_t from, size_t to) {
    int finite = 1;
    for (size_t t = from; t < to; t++)
        finite &= (x[t] - x[t]) == 0.0;
    return finite;
}

/* Bars [from, end) of a block whose samples are all finite, from a sum that is not a NaN:
 * apo__cumsum_bars' operations without its tests (a finite sample is added, and a sum of
 * finite samples onto a number is never a NaN, so its NaN test changes nothing), so the same
 * bits. The chain is the addition alone, as in TA-Lib's loop (0.87 of the tested loop's time at
 * 1e4 and 1e6 bars on the Zen 4 VM). */
static inline void apo__cumsum_clean_bars(double *s, const double *x, double *out, size_t from,
                                          size_t begin, size_t end) {
    double v = *s;
    size_t t = from;
    for (; t < end && t < begin; t++)
        v += x[t];
    for (; t < end; t++) {
        v += x[t];
        out[t] = v;
    }
    *s = v;
}
#endif

/* Adds bars [from, end) to *sum, writing the outputs of those from `begin` on. The tile and a
 * stream's carried run both are this loop; on the CPU in blocks, a clean block's bars without
 * the tests (apo__cumsum_clean_bars). */
static inline APO_HD void apo__cumsum_run(double *sum, const apo__cat_io *io, size_t from,
                                          size_t begin, size_t end) {
    const double *x = io->in[0];
    double *out = io->out[0];
#ifdef __CUDA_ARCH__
    apo__cumsum_bars(sum, x, out, from, begin, end);
#else
    for (size_t t = from; t < end;) {
        const size_t e = end - t < APO_CUMSUM_BLOCK ? end : t + APO_CUMSUM_BLOCK;
        if (!isnan(*sum) && apo__cumsum_clean(x, t, e))
            apo__cumsum_clean_bars(sum, x, out, t, begin, e);
        else
            apo__cumsum_bars(sum, x, out, t, begin, e);
        t = e;
    }
#endif
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
