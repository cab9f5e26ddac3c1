/*
 * pvt_tile.h: PVT, TA-Lib 0.8's price volume trend. Inputs close, volume; one output; the
 * lookback is 0.
 *
 * Definition (TA-Lib's, from the series' first bar): 0 at the first bar; at each later bar
 * whose previous close is not exactly 0, `pvt += (close - prev) / prev * volume` in that order;
 * elsewhere unchanged (TA-Lib: a zero previous close adds nothing rather than an infinity).
 * Every operation is TA-Lib's, in its order, so every output has TA-Lib's bits.
 *
 * Tiles: a running sum from the row's first bar, so, as OBV (obv_tile.h) and the volume indexes
 * (nvi_tile.h), the kernel is whole-row: every tile runs the definition from the row's first
 * bar, storing nothing before `begin`, and the bits do not depend on the grid.
 *
 * Gaps: a bar with a non-finite close or volume gives NaN, changes nothing and is not a bar
 * before: the clean bars' outputs are TA-Lib's PVT of the series with its gap bars taken out
 * (OBV's rule). A sum that overflows is stored as the NAN constant. A stream carries the state
 * (apo__pvt_carry).
 */
#ifndef APO_KERNELS_PVT_TILE_H
#define APO_KERNELS_PVT_TILE_H

#include "catalog.h"
#include "running_blocks.h"

/* The running state, in the order a stream carries it: whether a clean bar was seen (1.0),
 * the sum, and the last clean bar's close. */
#define APO_PVT_CARRY 3
typedef struct apo__pvt_state {
    double seen, sum, close;
} apo__pvt_state;

#ifdef APO_TILE_LANES
/* PVT's steps in lanes (running_blocks.h): `(close - before) / before * volume`, +0 where the
 * close before is 0 (the loop's skipped add). */
static inline apo_tv apo__pvt_steps(const apo__cat_io *io, size_t k, apo_tv *gaps) {
    const apo_tv c = apo_tv_load(io->in[0] + k), v = apo_tv_load(io->in[1] + k);
    const apo_tv before = apo_tv_load(io->in[0] + k - 1);
    *gaps = *gaps + (c - c) + (v - v);
    return apo_tv_pick(before != 0.0, (c - before) / before * v, apo_tv_splat(0.0));
}
#endif

/* Steps the state over bars [from, end), writing the outputs of those from `begin` on. The
 * tile and a stream's carried run both are this loop. The vector path (running_blocks.h)
 * takes whole blocks after a clean bar this loop has seen (a stream's run never reads the bar
 * before `from`). */
static inline APO_HD void apo__pvt_run(apo__pvt_state *s, const apo__cat_io *io, size_t from,
                                       size_t begin, size_t end) {
    const double *close = io->in[0], *volume = io->in[1];
    double *out = io->out[0];
    int last_clean = 0; /* whether bar t - 1 was clean and seen here */
#ifdef APO_TILE_LANES
    size_t scalar_until = from; /* the end of a block that had a gap, stepped bar by bar */
#endif
    for (size_t t = from; t < end; t++) {
#ifdef APO_TILE_LANES
        const size_t took = apo__running_turn(&s->sum, &s->close, io, 0, t, begin, end, last_clean,
                                              &scalar_until, apo__pvt_steps);
        if (took > 0) {
            t += took - 1;
            continue;
        }
#endif
        const double c = close[t], v = volume[t];
        last_clean = isfinite(c) && isfinite(v);
        if (!last_clean) {
            if (t >= begin)
                out[t] = NAN;
            continue;
        }
        if (s->seen == 0.0)
            s->seen = 1.0;
        else if (s->close != 0.0)
            s->sum += (c - s->close) / s->close * v;
        s->close = c;
        if (t >= begin)
            out[t] = apo__canonical_nan(s->sum);
    }
}

static inline APO_HD void apo__pvt_tile(const apo__cat_io *io, size_t begin, size_t end) {
    apo__pvt_state s = {0.0, 0.0, 0.0};
    apo__pvt_run(&s, io, 0, begin, end);
}

/* A stream's series fed on from bar `begin` to `stop` - 1 from the state `c` its last piece left
 * (all zeros before the first bar), in apo__pvt_state's order: the tile's state at `begin`, so
 * the outputs are the bits of any tile holding them (runtime/streaming/stream.c). */
static inline void apo__pvt_carry(const apo__cat_io *io, double *c, size_t begin, size_t stop) {
    apo__pvt_state s = {c[0], c[1], c[2]};
    apo__pvt_run(&s, io, begin, begin, stop);
    c[0] = s.seen;
    c[1] = s.sum;
    c[2] = s.close;
}

#endif /* APO_KERNELS_PVT_TILE_H */
