/*
 * vwap_tile.h: VWAP, TA-Lib 0.8's volume-weighted average price from the series' first bar.
 * Inputs high, low, close, volume; one output; the lookback is 0. (The moving VWAP over a window
 * of bars, the catalog's kernel of this name before TA-Lib had one, is mvwap: mvwap_tile.h.)
 *
 * Definition (TA-Lib's): tp = (high + low + close) / 3 (catalog.h's apo__typical); the sums of
 * tp * volume and of the volume start at 0 before the first bar and add each bar in index
 * order in plain double, the product rounded before its addition; vwap[t] is the first sum over
 * the second after bar t. Every operation is TA-Lib's, in its order, so every output of a clean
 * series with volume has TA-Lib 0.8.1's bits (cumsum's and ad's choice: a compensated sum would
 * be closer to the exact quotient, but no longer TA-Lib's figure, and the plain sums of terms of
 * one sign stay within a few ulps a bar of it, far inside the catalog's 1e-12).
 *
 * Where the volume's sum is 0 (no trade yet: no price) the output is NaN, as mvwap's window
 * without volume; TA-Lib 0.8.1 writes 0 there. A negative volume is refused before the kernel
 * runs (runtime/catalog/volume_inputs.h).
 *
 * Tiles: a running sum from the row's first bar, so, as cumsum (cumsum_tile.h) and ad, the
 * kernel is whole-row: every tile runs the sums from the row's first bar, storing nothing before
 * `begin`, and the bits do not depend on the grid.
 *
 * Gaps: a bar with a non-finite sample of any input gives NaN and adds nothing (obv's rule), so
 * the clean bars' outputs are the VWAP of the series with its gap bars taken out; TA-Lib 0.8.1
 * repeats its last output there instead. A stream carries the two sums (apo__vwap_carry).
 */
#ifndef APO_KERNELS_VWAP_TILE_H
#define APO_KERNELS_VWAP_TILE_H

#include "catalog.h"
#include "flow.h"
#include "running_blocks.h"
#include "window.h"

/* The running state a stream carries: the sum of tp * volume, then the volume's. */
#define APO_VWAP_CARRY 2

/* The output of the sums pv and v: their quotient, NaN where no volume has traded. */
static inline APO_HD double apo__vwap_of(double pv, double v) {
    const double q = apo__canonical_nan(pv / v);
    return v != 0.0 ? q : (double)NAN;
}

/* Adds bars [from, end) to the sums c one by one, each tested, writing the outputs of those
 * from `begin` on: the definition's loop. */
static inline APO_HD void apo__vwap_bars(double *c, const apo__cat_io *io, size_t from,
                                         size_t begin, size_t end) {
    const double *vol = io->in[3];
    double *out = io->out[0];
    double pv = c[0], v = c[1];
    for (size_t t = from; t < end; t++) {
        if (!apo__all_finite_at(io->in, 4, t)) {
            if (t >= begin)
                out[t] = NAN;
            continue;
        }
        pv += apo__typical(io, t) * vol[t];
        v += vol[t];
        if (t >= begin)
            out[t] = apo__vwap_of(pv, v);
    }
    c[0] = pv;
    c[1] = v;
}

#ifdef APO_TILE_LANES
/* The sums c moved over the n bars from t (whole vectors, at most APO_RUNNING_BLOCK) on the
 * assumption that none has a gap: each vector's typical prices and flows in lanes (the loop's
 * operations, so its values), added to the two chains one by one as the loop adds them, then
 * the quotients in lanes where out is not NULL. One gap test for the block (running_blocks.h's
 * reason). Returns 1, or 0 when a bar had a gap after all (c left as it was, the block the
 * loop's to run again, which rewrites any output written). */
static inline int apo__vwap_block(double *c, const apo__cat_io *io, size_t t, size_t n,
                                  double *out) {
    const double *high = io->in[0], *low = io->in[1], *close = io->in[2], *vol = io->in[3];
    double sums[2][APO_RUNNING_BLOCK];
    double pv = c[0], v = c[1];
    apo_tv gaps = apo_tv_splat(0.0);
    for (size_t k = 0; k < n; k += APO_TILE_LANES) {
        const apo_tv h = apo_tv_load(high + t + k), l = apo_tv_load(low + t + k);
        const apo_tv cl = apo_tv_load(close + t + k), vv = apo_tv_load(vol + t + k);
        gaps += ((h - h) + (l - l)) + ((cl - cl) + (vv - vv));
        const apo_tv flow = ((h + l + cl) / 3.0) * vv;
        for (int j = 0; j < APO_TILE_LANES; j++) {
            pv += flow[j];
            v += vv[j];
            sums[0][k + (size_t)j] = pv;
            sums[1][k + (size_t)j] = v;
        }
    }
    if (!apo_tm_all((apo_tm)(gaps == 0.0)))
        return 0;
    if (out != NULL) {
        const apo_tv nan = apo_tv_splat(NAN);
        for (size_t k = 0; k < n; k += APO_TILE_LANES) {
            const apo_tv vs = apo_tv_load(sums[1] + k);
            apo_tv_store(out + t + k,
                         apo_tv_pick((apo_tm)(vs != 0.0), apo_tv_load(sums[0] + k) / vs, nan));
        }
        /* Sums that overflowed stay infinite or NaN to the end, so a block whose sums end
         * finite made no NaN but its selected ones. */
        if (!isfinite(pv) || !isfinite(v))
            for (size_t k = t; k < t + n; k++)
                out[k] = apo__canonical_nan(out[k]);
    }
    c[0] = pv;
    c[1] = v;
    return 1;
}
#endif

/* Adds bars [from, end) to the sums c, writing the outputs of those from `begin` on. The tile
 * and a stream's carried run both are this; on the vector paths the whole vectors of bars go in
 * clean blocks (apo__vwap_block through running_blocks.h's apo__running_blocks), the loop takes the
 * rest and the GPU's. */
static inline APO_HD void apo__vwap_run(double *c, const apo__cat_io *io, size_t from, size_t begin,
                                        size_t end) {
    size_t t = from;
    const size_t first_out = begin > from ? begin : from;
#ifdef APO_TILE_LANES
    t = apo__running_blocks(c, io, t, first_out, 0, apo__vwap_block, apo__vwap_bars);
#endif
    apo__vwap_bars(c, io, t, begin, first_out);
    t = first_out;
#ifdef APO_TILE_LANES
    t = apo__running_blocks(c, io, t, end, 1, apo__vwap_block, apo__vwap_bars);
#endif
    apo__vwap_bars(c, io, t, begin, end);
}

static inline APO_HD void apo__vwap_tile(const apo__cat_io *io, size_t begin, size_t end) {
    double c[APO_VWAP_CARRY] = {0.0, 0.0};
    apo__vwap_run(c, io, 0, begin, end);
}

/* A stream's series fed on from bar `begin` to `stop` - 1 from the sums `c` its last piece
 * left (0 before the first bar): the tile's state at `begin`, so the outputs are the bits of
 * any tile holding them (runtime/streaming/stream.c). */
static inline void apo__vwap_carry(const apo__cat_io *io, double *c, size_t begin, size_t stop) {
    apo__vwap_run(c, io, begin, begin, stop);
}

#endif /* APO_KERNELS_VWAP_TILE_H */
