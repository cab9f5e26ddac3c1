/*
 * adosc_lanes.h: ADOSC's tiles side by side, one per vector lane, as catalog_lanes.h runs the
 * Wilder recurrences: each lane performs adosc_tile.h's operations on its own tile's bars, in
 * its order, so every tile keeps the bits of its scalar body.
 *
 * Why: a tile's chain is serial (the A/D add, then each average's multiply and add: about
 * six cycles a bar), and both TA-Lib and the single tile run at that latency. Four tiles in
 * lanes advance four chains for the latency of one.
 *
 * Unlike catalog_lanes.h's round, which stops when its shortest tile ends, a lane whose tile
 * has ended is parked (its state saved, its steps no longer loaded, its stores off) and the others
 * go on in lock-step while two or more are live: a row of 1e4 bars has three tiles of unequal
 * length, and stopping at the shortest would leave half the row to one chain. The lanes stay
 * in lock-step because every tile starts empty at its warm-up origin (adosc_start): they
 * have seen the same count of bars at every step. The first gap in a live lane stops the
 * round; each tile's scalar run (apo__adosc_run) then goes on from where its lane stopped,
 * as a stream's piece would.
 *
 * Host only: the GPU runs one tile per thread already (volume.cu).
 */
#ifndef APO_KERNELS_ADOSC_LANES_H
#define APO_KERNELS_ADOSC_LANES_H

#include "adosc_tile.h"
#include "tile_span.h"

#ifdef APO_TILE_LANES

/* Bars per chunk of a lane's A/D steps (apo__adosc_lane_steps), computed ahead of the chain
 * into a small buffer per lane (16: 0.027 ms at 1e4 bars, 64: 0.030). */
#define APO_ADOSC_CHUNK 16

/* The A/D steps of the n bars from `from` (apo__ad_add's money flow volume, or -0.0 where it
 * adds nothing, as apo__ad_steps), written to dst[0 ..] up to the first bar with a
 * non-finite input; returns how many. Whole vectors of bars in lanes, the tail bar by bar
 * with the same operations. Why a lane's chunk at a time, not a bar of every lane: the
 * tiles of a row lie 4,096 bars (32 KiB) apart, so loading the four tiles' four inputs bar
 * by bar put sixteen streams in the same L1 sets and was slower than one tile alone. */
static inline size_t apo__adosc_lane_steps(const apo__cat_io *io, size_t from, size_t n,
                                           double *dst) {
    size_t j = 0;
    for (; n - j >= APO_TILE_LANES; j += APO_TILE_LANES) {
        if (!apo_tm_all(apo__flow_finite(io->in, 4, from + j)))
            break;
        const apo_tv step = apo__ad_steps(io, from + j);
        apo_tv_store(dst + j, step);
    }
    for (; j < n; j++) {
        const size_t t = from + j;
        if (!apo__all_finite_at(io->in, 4, t))
            break;
        const double high = io->in[0][t], low = io->in[1][t], close = io->in[2][t];
        const double range = high - low;
        dst[j] = range > 0.0 ? (((close - low) - (high - close)) / range) * io->in[3][t] : -0.0;
    }
    return j;
}

/* A lane's tile leaves the round at position t: its run state (adosc_tile.h) as the lane has
 * it, from which apo__adosc_run goes on. */
static inline void apo__adosc_lane_leave(apo__cat_run *r, size_t t, size_t seen, double ad,
                                         double fe, double se) {
    r->t = t;
    r->n[0] = seen;
    r->v[0] = ad;
    r->v[1] = fe;
    r->v[2] = se;
}

/* One step of every lane's chain: the A/D step into the line, then both averages (seeded by
 * the line's first value), adosc_tile.h's operations in its order; the output, NaN until the
 * lookback and where the difference is NaN. */
static inline apo_tv apo__adosc_lanes_step(apo_tv step, size_t lookback, apo_tv fk, apo_tv fk1,
                                           apo_tv sk, apo_tv sk1, apo_tv *ad, apo_tv *fe,
                                           apo_tv *se, size_t *seen) {
    const apo_tv nan = apo_tv_splat(NAN);
    *ad += step;
    if (*seen == 0) {
        *fe = *ad;
        *se = *ad;
    } else {
        *fe = (fk * *ad) + (fk1 * *fe);
        *se = (sk * *ad) + (sk1 * *se);
    }
    ++*seen;
    if (*seen <= lookback)
        return nan;
    const apo_tv d = *fe - *se;
    return apo_tv_pick((apo_tm)(d == d), d, nan);
}

/* 1 when a group's tiles are worth running in rounds: a whole short row, one round of tiles
 * from its first bar. Why not longer rows: rounds won where the row was in the caches (1e4
 * bars: 0.036 to 0.029 ms) and lost where it streamed from memory (1e6 bars: 3.7 to 4.1 ms
 * with chunks of 64 bars, 7.2 ms with 16; docs/PERF.md): four lanes read twenty streams (four
 * inputs and the output each) a chunk at a time, one tile reads five, and the body cannot
 * tell a cached row from a cold one; the runtime hands a long row 16 tiles at a time. */
static inline int apo__adosc_rounds_pay(const apo__tile_span *tiles, size_t count) {
    return tiles[0].begin == 0 && count <= APO_TILE_LANES;
}

/* A round of up to APO_TILE_LANES tiles of one row (count >= 1). */
static inline void apo__adosc_round(const apo__cat_io *io, const apo__tile_span *tiles,
                                    size_t count) {
    double *out = io->out[0];
    const size_t fast = (size_t)io->p[0], slow = (size_t)io->p[1];
    const size_t lookback = (fast > slow ? fast : slow) - 1;
    const apo_tv zero = {0}, fk = zero + 2.0 / (double)(fast + 1),
                 sk = zero + 2.0 / (double)(slow + 1), fk1 = zero + (1.0 - fk[0]),
                 sk1 = zero + (1.0 - sk[0]);
    apo__cat_run run[APO_TILE_LANES];
    size_t at[APO_TILE_LANES], stop[APO_TILE_LANES], begin[APO_TILE_LANES];
    apo_tm live = {0};
    size_t alive = 0;
    for (size_t k = 0; k < APO_TILE_LANES; k++) {
        /* Lanes past count read lane 0's first bar and are never live. */
        const size_t tile = k < count ? k : 0;
        apo__adosc_start(io, tiles[tile].begin, &run[k]);
        at[k] = run[k].t;
        stop[k] = tiles[tile].end;
        begin[k] = tiles[tile].begin;
        if (k < count && at[k] < stop[k]) {
            live[k] = -1;
            alive++;
        }
    }
    apo_tv ad = zero, fe = zero, se = zero;
    size_t seen = 0;
    int gap = 0;
    while (alive > 1 && !gap) {
        /* A segment: the steps until a live lane reaches its tile's begin or end, so that
         * within it whether each lane stores is fixed. Parked lanes' steps are left as they
         * are (their state was saved) and they store nothing. */
        size_t len = (size_t)-1;
        for (size_t k = 0; k < APO_TILE_LANES; k++) {
            if (!live[k])
                continue;
            const size_t limit = at[k] < begin[k] ? begin[k] : stop[k];
            len = limit - at[k] < len ? limit - at[k] : len;
        }
        double steps[APO_TILE_LANES][APO_ADOSC_CHUNK] = {{0}};
        int store[APO_TILE_LANES];
        for (size_t k = 0; k < APO_TILE_LANES; k++)
            store[k] = live[k] && at[k] >= begin[k];
        size_t s = 0;
        while (s < len && !gap) {
            const size_t want = len - s < APO_ADOSC_CHUNK ? len - s : APO_ADOSC_CHUNK;
            size_t m = want;
            for (size_t k = 0; k < APO_TILE_LANES; k++) {
                if (!live[k])
                    continue;
                const size_t got = apo__adosc_lane_steps(io, at[k] + s, m, steps[k]);
                m = got < m ? got : m;
            }
            gap = m < want;
            /* A square of APO_TILE_LANES steps of every lane at a time: the lanes' A/D steps
             * and outputs transposed as vectors rather than gathered and scattered a lane at
             * a time; the rest of the chunk step by step. The same operations in the same
             * order either way. */
            size_t j = 0;
            for (; j + APO_TILE_LANES <= m; j += APO_TILE_LANES) {
                apo_tv sq[APO_TILE_LANES];
                for (size_t k = 0; k < APO_TILE_LANES; k++)
                    sq[k] = apo_tv_load(steps[k] + j);
                apo_tv_transpose(sq);
                for (size_t jj = 0; jj < APO_TILE_LANES; jj++)
                    sq[jj] = apo__adosc_lanes_step(sq[jj], lookback, fk, fk1, sk, sk1, &ad, &fe,
                                                   &se, &seen);
                apo_tv_transpose(sq);
                for (size_t k = 0; k < APO_TILE_LANES; k++)
                    if (store[k])
                        apo_tv_store(out + at[k] + s + j, sq[k]);
            }
            for (; j < m; j++) {
                apo_tv step = zero;
                for (size_t k = 0; k < APO_TILE_LANES; k++)
                    step[k] = steps[k][j];
                const apo_tv y =
                    apo__adosc_lanes_step(step, lookback, fk, fk1, sk, sk1, &ad, &fe, &se, &seen);
                for (size_t k = 0; k < APO_TILE_LANES; k++)
                    if (store[k])
                        out[at[k] + s + j] = y[k];
            }
            s += m;
        }
        for (size_t k = 0; k < APO_TILE_LANES; k++) {
            if (!live[k])
                continue;
            at[k] += s;
            if (at[k] == stop[k]) {
                /* The tile's end: its state is final. */
                live[k] = 0;
                alive--;
                apo__adosc_lane_leave(&run[k], at[k], seen, ad[k], fe[k], se[k]);
            }
        }
    }
    for (size_t k = 0; k < count; k++) {
        if (live[k])
            apo__adosc_lane_leave(&run[k], at[k], seen, ad[k], fe[k], se[k]);
        apo__adosc_run(io, tiles[k].begin, tiles[k].end, &run[k]);
    }
}

#endif /* APO_TILE_LANES */

#endif /* APO_KERNELS_ADOSC_LANES_H */
