/*
 * adosc_pairs.h: two of a long row's ADOSC tiles stepped in one loop, each by adosc_tile.h's
 * operations on its own bars in its own order, so every tile keeps the bits of its body.
 *
 * Why: a tile's loop is bound by its chain (the A/D add, then each average's multiply and
 * add, about six cycles a bar), as TA-Lib's single loop is, and the tile also repeats a
 * warm-up of about 5.6% of its bars, so one tile at a time stayed 0.86x TA-Lib at 1e6 bars
 * (docs/PERF.md). Two independent chains in one loop share the latency; the loop is then
 * bound by its instructions and the row's memory traffic.
 *
 * Why two and not a round of lanes (adosc_lanes.h): rounds of four lanes lost on a long row,
 * whose bars stream from memory, because twenty streams (four inputs and the output per tile,
 * the tiles 32 KiB apart, so in the same L1 sets) thrashed the cache. Two tiles read ten
 * streams, and the second tile runs APO_ADOSC_PAIR_LAG bars behind the first (relative to
 * its own start), so that the two tiles' streams fall in different L1 sets.
 *
 * Host only: the GPU runs one tile per thread already (volume.cu).
 */
#ifndef APO_KERNELS_ADOSC_PAIRS_H
#define APO_KERNELS_ADOSC_PAIRS_H

#include "adosc_tile.h"
#include "tile_span.h"

#ifdef APO_TILE_LANES

/* Bars the second tile of a pair trails the first by: 2 KiB of doubles, half of the 4 KiB
 * over which the L1's set index repeats. */
#define APO_ADOSC_PAIR_LAG 256

/* One of the pair: its run state (adosc_tile.h), its span and the stop of its next block. */
typedef struct apo__adosc_side {
    apo__cat_run run;
    size_t begin, end;
} apo__adosc_side;

/* The next bar side s stops at: its begin while warming up (no outputs before it), else its
 * end. */
static inline size_t apo__adosc_side_stop(const apo__adosc_side *s) {
    return s->run.t < s->begin ? s->begin : s->end;
}

/* The A/D steps of a vector of bars assumed finite (apo__adosc_block_clean's), added to the
 * block's NaN-sticky gap sum. */
static inline apo_tv apo__adosc_pair_steps(const apo__cat_io *io, size_t t, apo_tv *gaps) {
    const apo_tv h = apo_tv_load(io->in[0] + t), l = apo_tv_load(io->in[1] + t);
    const apo_tv c = apo_tv_load(io->in[2] + t), v = apo_tv_load(io->in[3] + t);
    *gaps += ((h - h) + (l - l)) + ((c - c) + (v - v));
    return apo_tv_pick((apo_tm)(h - l > 0.0), apo__ad_flow_volume(h, l, c, v), apo_tv_splat(-0.0));
}

/* Both sides' lines stepped over n bars (whole vectors) from their positions, as
 * apo__adosc_block_clean steps one: the outputs fast - slow go to ya[] and yb[] (the row's
 * outputs or a scratch block), the state of a side whose bars had a gap is left (its
 * outputs written may be wrong and its scalar run rewrites them). Returns a bit per side
 * that was clean (1: a, 2: b). */
static inline int apo__adosc_pair_block(apo__adosc_line *la, apo__adosc_line *lb,
                                        const apo__cat_io *io, apo__adosc_rates k, size_t ta,
                                        size_t tb, size_t n, double *ya, double *yb) {
    /* The two lines side by side in the two lanes of a vector, a in lane 0 and b in lane 1:
     * each lane performs apo__adosc_chain's operations on its own line, so one vector
     * instruction steps both chains (half the instructions of two scalar chains). */
    typedef double pair_v __attribute__((vector_size(2 * sizeof(double))));
    const pair_v fk = {k.fk, k.fk}, fk1 = {k.fk1, k.fk1}, sk = {k.sk, k.sk}, sk1 = {k.sk1, k.sk1};
    pair_v ad = {la->ad, lb->ad}, fe = {la->fe, lb->fe}, se = {la->se, lb->se};
    apo_tv gaps_a = apo_tv_splat(0.0), gaps_b = apo_tv_splat(0.0);
    for (size_t j = 0; j < n; j += APO_TILE_LANES) {
        const apo_tv step_a = apo__adosc_pair_steps(io, ta + j, &gaps_a);
        const apo_tv step_b = apo__adosc_pair_steps(io, tb + j, &gaps_b);
        for (int i = 0; i < APO_TILE_LANES; i++) {
            const pair_v step = {step_a[i], step_b[i]};
            ad += step;
            fe = (fk * ad) + (fk1 * fe);
            se = (sk * ad) + (sk1 * se);
            const pair_v y = fe - se;
            ya[j + (size_t)i] = y[0];
            yb[j + (size_t)i] = y[1];
        }
    }
    apo__adosc_line a = {ad[0], fe[0], se[0]}, b = {ad[1], fe[1], se[1]};
    int clean = 0;
    if (apo_tm_all((apo_tm)(gaps_a == 0.0))) {
        if (!(isfinite(a.fe) && isfinite(a.se)))
            for (size_t j = 0; j < n; j++)
                ya[j] = apo__canonical_nan(ya[j]);
        *la = a;
        clean |= 1;
    }
    if (apo_tm_all((apo_tm)(gaps_b == 0.0))) {
        if (!(isfinite(b.fe) && isfinite(b.se)))
            for (size_t j = 0; j < n; j++)
                yb[j] = apo__canonical_nan(yb[j]);
        *lb = b;
        clean |= 2;
    }
    return clean;
}

/* Side s run by its scalar tile loop (apo__adosc_run) until both averages are past their
 * seed or `until`, whichever comes first. */
static inline void apo__adosc_side_warm(const apo__cat_io *io, apo__adosc_side *s, size_t lookback,
                                        size_t until) {
    while (s->run.n[0] <= lookback && s->run.t < until) {
        const size_t want = s->run.t + (lookback + 1 - s->run.n[0]);
        apo__adosc_run(io, s->begin, want < until ? want : until, &s->run);
    }
}

/* The two tiles a and b of one row (not overlapping), each given its tile's outputs. */
static inline void apo__adosc_pair(const apo__cat_io *io, apo__tile_span ta, apo__tile_span tb) {
    double *out = io->out[0];
    const size_t fast = (size_t)io->p[0], slow = (size_t)io->p[1];
    const size_t lookback = (fast > slow ? fast : slow) - 1;
    apo__adosc_rates k;
    k.fk = 2.0 / (double)(fast + 1);
    k.sk = 2.0 / (double)(slow + 1);
    k.fk1 = 1.0 - k.fk;
    k.sk1 = 1.0 - k.sk;
    apo__adosc_side a, b;
    a.begin = ta.begin;
    a.end = ta.end;
    b.begin = tb.begin;
    b.end = tb.end;
    apo__adosc_start(io, a.begin, &a.run);
    apo__adosc_start(io, b.begin, &b.run);
    /* The seeds bar by bar; then a runs ahead by the lag, alone. */
    apo__adosc_side_warm(io, &a, lookback, a.end);
    apo__adosc_side_warm(io, &b, lookback, b.end);
    {
        const size_t lead = a.run.t + APO_ADOSC_PAIR_LAG;
        apo__adosc_run(io, a.begin, lead < a.end ? lead : a.end, &a.run);
    }
    double scratch_a[APO_ADOSC_BLOCK], scratch_b[APO_ADOSC_BLOCK];
    while (a.run.n[0] > lookback && b.run.n[0] > lookback) {
        const size_t stop_a = apo__adosc_side_stop(&a), stop_b = apo__adosc_side_stop(&b);
        const size_t left_a = (stop_a - a.run.t) / APO_TILE_LANES * APO_TILE_LANES;
        const size_t left_b = (stop_b - b.run.t) / APO_TILE_LANES * APO_TILE_LANES;
        if (left_a == 0 || left_b == 0) {
            /* A side whose warm-up ends within a vector steps to its begin by its tile loop
             * (as the tile alone does) and the pair goes on; a side at its end leaves it. */
            const int warm_a = left_a == 0 && stop_a == a.begin;
            const int warm_b = left_b == 0 && stop_b == b.begin;
            if (!warm_a && !warm_b)
                break;
            if (warm_a)
                apo__adosc_run(io, a.begin, a.begin, &a.run);
            if (warm_b)
                apo__adosc_run(io, b.begin, b.begin, &b.run);
            continue;
        }
        size_t n = left_a < left_b ? left_a : left_b;
        n = n < APO_ADOSC_BLOCK ? n : APO_ADOSC_BLOCK;
        apo__adosc_line la = {a.run.v[0], a.run.v[1], a.run.v[2]};
        apo__adosc_line lb = {b.run.v[0], b.run.v[1], b.run.v[2]};
        double *ya = a.run.t < a.begin ? scratch_a : out + a.run.t;
        double *yb = b.run.t < b.begin ? scratch_b : out + b.run.t;
        const int clean = apo__adosc_pair_block(&la, &lb, io, k, a.run.t, b.run.t, n, ya, yb);
        if (clean & 1) {
            a.run.v[0] = la.ad;
            a.run.v[1] = la.fe;
            a.run.v[2] = la.se;
            a.run.n[0] += n;
            a.run.t += n;
        }
        if (clean & 2) {
            b.run.v[0] = lb.ad;
            b.run.v[1] = lb.fe;
            b.run.v[2] = lb.se;
            b.run.n[0] += n;
            b.run.t += n;
        }
        /* A gap: each side goes on alone by its tile loop, which takes the gap bar by bar. */
        if (clean != 3)
            break;
    }
    /* What is left of each (a tail, a side past a gap, or all when a tile is shorter than
     * its seeds) by its tile loop, from its state: the same operations as the tile alone. */
    apo__adosc_run(io, a.begin, a.end, &a.run);
    apo__adosc_run(io, b.begin, b.end, &b.run);
}

/* A row's tiles (count >= 1) two at a time, in the order given; an odd last one alone. */
static inline void apo__adosc_pairs(const apo__cat_io *io, const apo__tile_span *tiles,
                                    size_t count) {
    size_t k = 0;
    for (; k + 1 < count; k += 2)
        apo__adosc_pair(io, tiles[k], tiles[k + 1]);
    if (k < count)
        apo__adosc_tile(io, tiles[k].begin, tiles[k].end);
}

#endif /* APO_TILE_LANES */

#endif /* APO_KERNELS_ADOSC_PAIRS_H */
