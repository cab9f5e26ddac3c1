/*
 * wad_tile.h: WAD, TA-Lib 0.8's Williams' accumulation/distribution. Inputs high, low, close;
 * one output; the lookback is 0.
 *
 * Definition (TA-Lib's, Achelis' form, no volume): 0 at the first bar; at each later bar the
 * close's move against the true range's extreme is added: where the close rose, `close -
 * min(low, previous close)`; where it fell, `close - max(high, previous close)`; where it is
 * exactly the previous close, nothing. The comparisons and the one subtraction and addition
 * are TA-Lib's, in its order, so every output has TA-Lib's bits.
 *
 * Tiles: a running sum from the row's first bar, so, as PVT (pvt_tile.h) and OBV, the kernel is
 * whole-row: every tile runs the definition from the row's first bar, storing nothing before
 * `begin`, and the bits do not depend on the grid.
 *
 * Gaps: a bar whose high, low or close is not finite gives NaN, changes nothing and is not a
 * bar before: the clean bars' outputs are TA-Lib's WAD of the series with its gap bars taken
 * out (OBV's rule). A sum that overflows to inf - inf is stored as the NAN constant. A stream
 * carries the state (apo__wad_carry).
 */
#ifndef APO_KERNELS_WAD_TILE_H
#define APO_KERNELS_WAD_TILE_H

#include "catalog.h"
#include "running_blocks.h"

/* The running state, in the order a stream carries it: whether a clean bar was seen (1.0),
 * the sum, and the last clean bar's close. */
#define APO_WAD_CARRY 3
typedef struct apo__wad_state {
    double seen, sum, close;
} apo__wad_state;

/* The bar's addition to the sum: the close against the true range's extreme on the side it
 * moved to, 0 where it did not move. */
static inline APO_HD double apo__wad_move(double high, double low, double close, double prev) {
    if (close > prev)
        return close - (prev < low ? prev : low);
    if (close < prev)
        return close - (prev > high ? prev : high);
    return 0.0;
}

#ifdef APO_TILE_LANES
/* WAD's steps in lanes (running_blocks.h): apo__wad_move's arms as selects, +0 where the close
 * did not move (the loop's skipped add). */
static inline apo_tv apo__wad_steps(const apo__cat_io *io, size_t k, apo_tv *gaps) {
    const apo_tv h = apo_tv_load(io->in[0] + k), l = apo_tv_load(io->in[1] + k);
    const apo_tv c = apo_tv_load(io->in[2] + k), prev = apo_tv_load(io->in[2] + k - 1);
    *gaps = *gaps + (h - h) + (l - l) + (c - c);
    const apo_tv rise = c - apo_tv_pick(prev < l, prev, l);
    const apo_tv fall = c - apo_tv_pick(prev > h, prev, h);
    return apo_tv_pick(c > prev, rise, apo_tv_pick(c < prev, fall, apo_tv_splat(0.0)));
}
#endif

/* Steps the state over bars [from, end), writing the outputs of those from `begin` on: the tile
 * and a stream's carried run are both this loop. The vector path (running_blocks.h) takes whole
 * blocks after a clean bar this loop has seen (a stream's run never reads the bar before
 * `from`). */
static inline APO_HD void apo__wad_run(apo__wad_state *s, const apo__cat_io *io, size_t from,
                                       size_t begin, size_t end) {
    const double *high = io->in[0], *low = io->in[1], *close = io->in[2];
    double *out = io->out[0];
    int last_clean = 0; /* whether bar t - 1 was clean and seen here */
#ifdef APO_TILE_LANES
    size_t scalar_until = from; /* the end of a block that had a gap, stepped bar by bar */
#endif
    for (size_t t = from; t < end; t++) {
#ifdef APO_TILE_LANES
        const size_t took = apo__running_turn(&s->sum, &s->close, io, 2, t, begin, end, last_clean,
                                              &scalar_until, apo__wad_steps);
        if (took > 0) {
            t += took - 1;
            continue;
        }
#endif
        const double h = high[t], l = low[t], c = close[t];
        last_clean = isfinite(h) && isfinite(l) && isfinite(c);
        if (!last_clean) {
            if (t >= begin)
                out[t] = NAN;
            continue;
        }
        /* TA-Lib skips the addition where the close did not move, so an unmoved bar adds no
         * -0.0 or rounding: the sum is left as it is. */
        if (s->seen != 0.0 && c != s->close)
            s->sum += apo__wad_move(h, l, c, s->close);
        s->seen = 1.0;
        s->close = c;
        if (t >= begin)
            out[t] = apo__canonical_nan(s->sum);
    }
}

static inline APO_HD void apo__wad_tile(const apo__cat_io *io, size_t begin, size_t end) {
    apo__wad_state s = {0.0, 0.0, 0.0};
    apo__wad_run(&s, io, 0, begin, end);
}

/* A stream's series fed on from bar `begin` to `stop` - 1 from the state `c` its last piece left
 * (all zeros before the first bar), in apo__wad_state's order: the tile's state at `begin`, so
 * the outputs are the bits of any tile holding them (runtime/streaming/stream.c). */
static inline void apo__wad_carry(const apo__cat_io *io, double *c, size_t begin, size_t stop) {
    apo__wad_state s = {c[0], c[1], c[2]};
    apo__wad_run(&s, io, begin, begin, stop);
    c[0] = s.seen;
    c[1] = s.sum;
    c[2] = s.close;
}

#endif /* APO_KERNELS_WAD_TILE_H */
