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

/* One lane of the pair: the tile it holds (live), its span and its run state
 * (adosc_tile.h). */
typedef struct apo__adosc_side {
    apo__cat_run run;
    size_t begin, end;
    int live;
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
 * seed or its tile's end, whichever comes first. */
static inline void apo__adosc_side_seed(const apo__cat_io *io, apo__adosc_side *s,
                                        size_t lookback) {
    while (s->run.n[0] <= lookback && s->run.t < s->end) {
        const size_t want = s->run.t + (lookback + 1 - s->run.n[0]);
        apo__adosc_run(io, s->begin, want < s->end ? want : s->end, &s->run);
    }
}

/* Makes side s ready for a block: it holds a tile whose averages are past their seed and at
 * least a vector of bars before its stop. A tile ended (or taken to its end alone) is
 * replaced by the next one of tiles[*next ..]; the bars that fill no vector before a
 * tile's begin or end are taken by its tile loop. Returns 0 when no tile is left. */
static inline int apo__adosc_side_ready(const apo__cat_io *io, apo__adosc_side *s,
                                        const apo__tile_span *tiles, size_t count, size_t *next,
                                        size_t lookback) {
    for (;;) {
        if (!s->live) {
            if (*next >= count)
                return 0;
            s->begin = tiles[*next].begin;
            s->end = tiles[*next].end;
            (*next)++;
            s->live = 1;
            apo__adosc_start(io, s->begin, &s->run);
        }
        apo__adosc_side_seed(io, s, lookback);
        const size_t stop = apo__adosc_side_stop(s);
        if (s->run.n[0] > lookback && stop - s->run.t >= APO_TILE_LANES)
            return 1;
        apo__adosc_run(io, s->begin, stop, &s->run);
        if (s->run.t >= s->end)
            s->live = 0;
    }
}

/* Side s stepped by n bars (a clean block's line), or, when its block had a gap, taken to
 * its tile's end by its tile loop, which steps the gap bar by bar. */
static inline void apo__adosc_side_advance(const apo__cat_io *io, apo__adosc_side *s, int clean,
                                           const apo__adosc_line *line, size_t n) {
    if (clean) {
        s->run.v[0] = line->ad;
        s->run.v[1] = line->fe;
        s->run.v[2] = line->se;
        s->run.n[0] += n;
        s->run.t += n;
    } else {
        apo__adosc_run(io, s->begin, s->end, &s->run);
    }
    if (s->run.t >= s->end)
        s->live = 0;
}

/* A row's tiles (count >= 1, not overlapping) by two lanes a and b, each taking the next
 * tile of the list when its own ends, so that both chains run from the first tiles' seeds
 * to the last tiles' tails; every tile is given the outputs of its body alone. */
static inline void apo__adosc_pairs(const apo__cat_io *io, const apo__tile_span *tiles,
                                    size_t count) {
    double *out = io->out[0];
    const size_t fast = (size_t)io->p[0], slow = (size_t)io->p[1];
    const size_t lookback = (fast > slow ? fast : slow) - 1;
    apo__adosc_rates k;
    k.fk = 2.0 / (double)(fast + 1);
    k.sk = 2.0 / (double)(slow + 1);
    k.fk1 = 1.0 - k.fk;
    k.sk1 = 1.0 - k.sk;
    apo__adosc_side a, b;
    a.live = 0;
    b.live = 0;
    size_t next = 0;
    /* a runs the lag ahead alone; after that the lanes' tiles end and are replaced in turn,
     * and the lag stays between them. */
    if (apo__adosc_side_ready(io, &a, tiles, count, &next, lookback)) {
        const size_t lead = a.run.t + APO_ADOSC_PAIR_LAG;
        apo__adosc_run(io, a.begin, lead < a.end ? lead : a.end, &a.run);
        if (a.run.t >= a.end)
            a.live = 0;
    }
    double scratch_a[APO_ADOSC_BLOCK], scratch_b[APO_ADOSC_BLOCK];
    while (apo__adosc_side_ready(io, &a, tiles, count, &next, lookback) &&
           apo__adosc_side_ready(io, &b, tiles, count, &next, lookback)) {
        const size_t left_a = (apo__adosc_side_stop(&a) - a.run.t) / APO_TILE_LANES;
        const size_t left_b = (apo__adosc_side_stop(&b) - b.run.t) / APO_TILE_LANES;
        size_t n = (left_a < left_b ? left_a : left_b) * APO_TILE_LANES;
        n = n < APO_ADOSC_BLOCK ? n : APO_ADOSC_BLOCK;
        apo__adosc_line la = {a.run.v[0], a.run.v[1], a.run.v[2]};
        apo__adosc_line lb = {b.run.v[0], b.run.v[1], b.run.v[2]};
        double *ya = a.run.t < a.begin ? scratch_a : out + a.run.t;
        double *yb = b.run.t < b.begin ? scratch_b : out + b.run.t;
        const int clean = apo__adosc_pair_block(&la, &lb, io, k, a.run.t, b.run.t, n, ya, yb);
        apo__adosc_side_advance(io, &a, clean & 1, &la, n);
        apo__adosc_side_advance(io, &b, clean & 2, &lb, n);
    }
    /* A lane found no tile left to take: the other's tile, if it holds one, alone. */
    if (a.live)
        apo__adosc_run(io, a.begin, a.end, &a.run);
    if (b.live)
        apo__adosc_run(io, b.begin, b.end, &b.run);
}

#endif /* APO_TILE_LANES */

#endif /* APO_KERNELS_ADOSC_PAIRS_H */
