/*
 * nvi_tile.h: NVI and PVI, TA-Lib's negative and positive volume indexes. Inputs close, volume;
 * one output each. The lookback is 0.
 *
 * Definition (TA-Lib 0.8's, from the series' first bar): the index is 1000 at the first bar;
 * at each later bar whose volume is below (NVI) or above (PVI) the bar before's, and whose
 * previous close is not 0, it moves by the close's relative change,
 * `i += (close - prev) / prev * i` in that order, unless the result would not be finite
 * (TA-Lib keeps the last finite index rather than write an infinity); elsewhere it is
 * unchanged. Every operation is TA-Lib's, in its order, so every output has TA-Lib's bits.
 *
 * Tiles: the index is a running product from the row's first bar, so, as OBV (obv_tile.h), the
 * kernels are whole-row: every tile runs the definition from the row's first bar, storing
 * nothing before `begin`, and the bits do not depend on the grid.
 *
 * Gaps: a bar with a non-finite close or volume gives NaN, changes nothing and is not a bar
 * before: the clean bars' outputs are TA-Lib's index of the series with its gap bars taken out
 * (OBV's rule). A stream carries the state (apo__nvi_carry).
 *
 * On the CPU, chunks of clean bars take the index's factors in vector lanes and then its chain
 * without a branch (apo__vi_chunk), with TA-Lib's bits.
 */
#ifndef APO_KERNELS_NVI_TILE_H
#define APO_KERNELS_NVI_TILE_H

#include "catalog.h"
#include "tile_vec.h"
#include "window_sum.h"

/* The running state, in the order a stream carries it: whether a clean bar was seen (1.0),
 * the index, and the last clean bar's close and volume. */
#define APO_NVI_CARRY 4
#define APO_PVI_CARRY APO_NVI_CARRY
typedef struct apo__vi_state {
    double seen, index, close, volume;
} apo__vi_state;

#ifdef APO_TILE_LANES
/* The bars of a chunk that apo__vi_chunk takes at once. */
#define APO_VI_CHUNK 64

/* The loop's steps over the APO_VI_CHUNK bars from t, every close and volume finite and a bar
 * seen before them, writing every output; returns 0, with nothing kept, where an index would
 * not be finite (the loop then takes the chunk). First each bar's factor, in vector lanes: the
 * close's relative change where the index moves, else 0; then the index's chain, `i + f * i`
 * a bar. Where it moves those are the loop's operations; elsewhere i + (+0 * i) is i itself
 * for every finite i (the index is never -0: it starts at 1000 and a sum that cancels exactly
 * is +0), and the test after the chain keeps the loop's rule for a step that would overflow.
 * So the same bits. Why: the loop's division a bar waited on the divider, and its branch on the
 * volumes, which rise and fall at random, was mispredicted about every other bar. */
static inline int apo__vi_chunk(apo__vi_state *s, const double *close, const double *volume,
                                double *out, int negative, size_t t) {
    double factor[APO_VI_CHUNK];
    const double *c = close + t, *v = volume + t;
    const apo_tv zero = apo_tv_splat(0.0);
    for (size_t q = 0; q < APO_VI_CHUNK; q += APO_TILE_LANES) {
        /* The bar before bar t is read here and replaced below by the state's last clean bar. */
        const apo_tv cur = apo_tv_load(c + q), prev = apo_tv_load(c + q - 1);
        const apo_tv vol = apo_tv_load(v + q), vol_prev = apo_tv_load(v + q - 1);
        const apo_tm moves = (negative ? vol < vol_prev : vol > vol_prev) & (prev != zero);
        apo_tv_store(factor + q, apo_tv_pick(moves, (cur - prev) / prev, zero));
    }
    const int first_moves = (negative ? v[0] < s->volume : v[0] > s->volume) & (s->close != 0.0);
    factor[0] = first_moves ? (c[0] - s->close) / s->close : 0.0;
    double index = s->index;
    for (size_t q = 0; q < APO_VI_CHUNK; q++) {
        index = index + factor[q] * index;
        out[t + q] = index;
    }
    if (!apo__block_finite(out, t, t + APO_VI_CHUNK))
        return 0;
    s->index = index;
    s->close = c[APO_VI_CHUNK - 1];
    s->volume = v[APO_VI_CHUNK - 1];
    return 1;
}
#endif

/* Steps the state over bars [from, end), writing the outputs of those from `begin` on; the
 * index moves where the volume fell (negative) or rose. The tile and a stream's carried run
 * both are this loop. */
static APO_CAT_SPECIALISED APO_HD void apo__vi_run(apo__vi_state *s, const apo__cat_io *io,
                                                   int negative, size_t from, size_t begin,
                                                   size_t end) {
    const double *close = io->in[0], *volume = io->in[1];
    double *out = io->out[0];
#ifdef APO_TILE_LANES
    size_t plain_until = 0;
#endif
    for (size_t t = from; t < end; t++) {
#ifdef APO_TILE_LANES
        /* Whole chunks of clean bars once a bar was seen (apo__vi_chunk), past the run's first
         * bar (the chunk reads the bar before it); a chunk holding a gap, or an index that
         * would overflow, takes the loop below to its end. */
        if (s->seen != 0.0 && t > from && t >= begin && t >= plain_until &&
            end - t >= APO_VI_CHUNK &&
            apo__clean_span_end(io->in, 2, t, t + APO_VI_CHUNK, APO_VI_CHUNK, &plain_until) != t) {
            if (apo__vi_chunk(s, close, volume, out, negative, t)) {
                t += APO_VI_CHUNK - 1;
                continue;
            }
            plain_until = t + APO_VI_CHUNK;
        }
#endif
        const double c = close[t], v = volume[t];
        if (!(isfinite(c) && isfinite(v))) {
            if (t >= begin)
                out[t] = NAN;
            continue;
        }
        if (s->seen == 0.0) {
            s->seen = 1.0;
            s->index = 1000.0;
        } else {
            const int moves = negative ? v < s->volume : v > s->volume;
            if (moves && s->close != 0.0) {
                double next = s->index;
                next += (c - s->close) / s->close * next;
                if (isfinite(next))
                    s->index = next;
            }
        }
        s->close = c;
        s->volume = v;
        if (t >= begin)
            out[t] = s->index;
    }
}

static inline APO_HD void apo__vi_body(const apo__cat_io *io, int negative, size_t begin,
                                       size_t end) {
    apo__vi_state s = {0.0, 0.0, 0.0, 0.0};
    apo__vi_run(&s, io, negative, 0, begin, end);
}

static inline APO_HD void apo__nvi_tile(const apo__cat_io *io, size_t begin, size_t end) {
    apo__vi_body(io, 1, begin, end);
}

static inline APO_HD void apo__pvi_tile(const apo__cat_io *io, size_t begin, size_t end) {
    apo__vi_body(io, 0, begin, end);
}

/* A stream's series fed on from bar `begin` to `stop` - 1 from the state `c` its last piece left
 * (all zeros before the first bar), in apo__vi_state's order: the tile's state at `begin`, so
 * the outputs are the bits of any tile holding them (runtime/streaming/stream.c). */
static inline void apo__vi_carry(const apo__cat_io *io, int negative, double *c, size_t begin,
                                 size_t stop) {
    apo__vi_state s = {c[0], c[1], c[2], c[3]};
    apo__vi_run(&s, io, negative, begin, begin, stop);
    c[0] = s.seen;
    c[1] = s.index;
    c[2] = s.close;
    c[3] = s.volume;
}

static inline void apo__nvi_carry(const apo__cat_io *io, double *c, size_t begin, size_t stop) {
    apo__vi_carry(io, 1, c, begin, stop);
}

static inline void apo__pvi_carry(const apo__cat_io *io, double *c, size_t begin, size_t stop) {
    apo__vi_carry(io, 0, c, begin, stop);
}

#endif /* APO_KERNELS_NVI_TILE_H */
