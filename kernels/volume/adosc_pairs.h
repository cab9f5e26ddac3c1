/*
 * adosc_pairs.h: a long row's ADOSC tiles stepped two at a time in one loop, each by
 * adosc_tile.h's operations on its own bars in its own order, so every tile keeps the bits
 * of its body.
 *
 * Why: a tile's loop is bound by its chain (the A/D add, then each average's multiply and
 * add, about six cycles a bar), as TA-Lib's single loop is, and the tile also repeats a
 * warm-up of about 5.6% of its bars, so one tile at a time stayed 0.86x TA-Lib at 1e6 bars
 * (docs/PERF.md). The two tiles' lines sit in the two lanes of one vector, so one
 * instruction steps both chains; the loop is then bound by its instructions and the row's
 * memory traffic, not by the chain's latency.
 *
 * Each of the two lanes (sides) takes the group's next tile when its own ends, so the sides
 * run together from the group's first tiles to its last; only the first lead and the last
 * tail run alone. A side whose block holds a gap takes that tile to its end by the tile
 * loop (which steps a gap bar by bar) and then takes the next tile.
 *
 * Why two and not a round of lanes (adosc_lanes.h): rounds of four lanes lost on a long row,
 * whose bars stream from memory, because twenty streams (four inputs and the output per tile,
 * the tiles 32 KiB apart, so in the same L1 sets) thrashed the cache. Two tiles read ten
 * streams, and the second side trails the first by APO_ADOSC_PAIR_LAG bars (relative to its
 * tile's start), so that their streams fall in different L1 sets: without the lag the pair
 * took 1.94 to 2.04 ns a bar at 1e6 bars, with it 1.83.
 *
 * Host only: the GPU runs one tile per thread already (volume.cu).
 */
#ifndef APO_KERNELS_ADOSC_PAIRS_H
#define APO_KERNELS_ADOSC_PAIRS_H

#include "adosc_tile.h"
#include "tile_span.h"

#ifdef APO_TILE_LANES

/* Bars the second side trails the first by: 2 KiB of doubles, half of the 4 KiB
 * over which the L1's set index repeats. */
#define APO_ADOSC_PAIR_LAG 256

/* Tiles stepped together: their lines fill the lanes of one vector of this many doubles. Why
 * not four: four tiles read twenty streams, and on avx2 at 1e6 bars they ran slower than two
 * (2.1 to 2.6 ms against 1.85 to 2.0, lags of 64 to 256 bars; docs/PERF.md). */
#define APO_ADOSC_SIDES 2

/* One side: the tile it holds (live), its span and its run state
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

#if APO_ADOSC_SIDES != 2
#error "apo__adosc_sides_block regroups the outputs of exactly two sides"
#endif

/* Two bars' outputs of one side stored at `at`: past the caches where past_cache (at is then
 * 16-byte aligned: apo__flow_past_cache), else plainly. */
static inline void apo__adosc_side_store(double *at, __m128d two, int past_cache) {
    if (past_cache)
        _mm_stream_pd(at, two);
    else
        _mm_storeu_pd(at, two);
}

/* Every side's line stepped over n bars (whole vectors) from its position at[s], as
 * apo__adosc_block_clean steps one: the outputs fast - slow go to y[s][] (the row's outputs
 * or a scratch block), the line of a side whose bars had a gap is left (its outputs written
 * may be wrong and its tile loop rewrites them); past[s] says whether y[s] is stored past the
 * caches (apo__flow_past_cache). Returns a bit per side that was clean. */
static inline unsigned apo__adosc_sides_block(apo__adosc_line *line, const apo__cat_io *io,
                                              apo__adosc_rates k, const size_t *at, size_t n,
                                              double *const *y, const int *past) {
    /* The sides' lines in the lanes of a vector, side s in lane s: each lane performs
     * apo__adosc_chain's operations on its own line, so one vector instruction steps every
     * chain. */
    typedef double sides_v __attribute__((vector_size(APO_ADOSC_SIDES * sizeof(double))));
    sides_v fk, fk1, sk, sk1, ad, fe, se;
    for (int s = 0; s < APO_ADOSC_SIDES; s++) {
        fk[s] = k.fk;
        fk1[s] = k.fk1;
        sk[s] = k.sk;
        sk1[s] = k.sk1;
        ad[s] = line[s].ad;
        fe[s] = line[s].fe;
        se[s] = line[s].se;
    }
    const double *high = io->in[0], *low = io->in[1], *close = io->in[2], *vol = io->in[3];
    apo_tv gaps[APO_ADOSC_SIDES];
    for (int s = 0; s < APO_ADOSC_SIDES; s++)
        gaps[s] = apo_tv_splat(0.0);
    for (size_t j = 0; j < n; j += APO_TILE_LANES) {
        apo_tv step[APO_ADOSC_SIDES];
        for (int s = 0; s < APO_ADOSC_SIDES; s++)
            step[s] = apo__ad_steps_clean(high, low, close, vol, at[s] + j, &gaps[s]);
        /* Two bars at a time: their outputs fast - slow, one vector of both sides a bar,
         * regrouped into one vector of both bars a side, which is stored whole (past the
         * caches where past[s]). */
        for (int i = 0; i < APO_TILE_LANES; i += 2) {
            sides_v d[2];
            for (int b = 0; b < 2; b++) {
                sides_v bar;
                for (int s = 0; s < APO_ADOSC_SIDES; s++)
                    bar[s] = step[s][i + b];
                ad += bar;
                fe = (fk * ad) + (fk1 * fe);
                se = (sk * ad) + (sk1 * se);
                d[b] = fe - se;
            }
            const sides_v side0 = __builtin_shufflevector(d[0], d[1], 0, 2);
            const sides_v side1 = __builtin_shufflevector(d[0], d[1], 1, 3);
            apo__adosc_side_store(y[0] + j + (size_t)i, side0, past[0]);
            apo__adosc_side_store(y[1] + j + (size_t)i, side1, past[1]);
        }
    }
    unsigned clean = 0;
    for (int s = 0; s < APO_ADOSC_SIDES; s++) {
        if (!apo_tm_all((apo_tm)(gaps[s] == 0.0)))
            continue;
        if (!(isfinite(fe[s]) && isfinite(se[s])))
            for (size_t j = 0; j < n; j++)
                y[s][j] = apo__canonical_nan(y[s][j]);
        line[s].ad = ad[s];
        line[s].fe = fe[s];
        line[s].se = se[s];
        clean |= 1u << s;
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

/* A row's tiles (count >= 1, not overlapping) by APO_ADOSC_SIDES lanes, each taking the
 * next tile of the list when its own ends, so that the chains run together from the first
 * tiles' seeds to the last tiles' tails; every tile is given the outputs of its body alone.
 * Not inlined: inlined into the group function (catalog_entry.h) it slowed the short rows'
 * rounds there on avx512 (adosc at 1e4 bars 0.028 -> 0.030 ms, docs/PERF.md); a call per
 * group costs nothing beside a long row. */
static __attribute__((noinline)) void apo__adosc_pairs(const apo__cat_io *io,
                                                       const apo__tile_span *tiles, size_t count) {
    double *out = io->out[0];
    const size_t fast = (size_t)io->p[0], slow = (size_t)io->p[1];
    const size_t lookback = (fast > slow ? fast : slow) - 1;
    const apo__adosc_rates k = apo__adosc_rates_of(fast, slow);
    apo__adosc_side side[APO_ADOSC_SIDES];
    size_t next = 0;
    /* Side s starts (APO_ADOSC_SIDES - 1 - s) lags ahead, alone; after that the sides' tiles
     * end and are replaced in turn, and the lags stay between them. */
    for (int s = 0; s < APO_ADOSC_SIDES; s++) {
        side[s].live = 0;
        if (apo__adosc_side_ready(io, &side[s], tiles, count, &next, lookback)) {
            const size_t lead =
                side[s].run.t + (size_t)(APO_ADOSC_SIDES - 1 - s) * APO_ADOSC_PAIR_LAG;
            apo__adosc_run(io, side[s].begin, lead < side[s].end ? lead : side[s].end,
                           &side[s].run);
            if (side[s].run.t >= side[s].end)
                side[s].live = 0;
        }
    }
    double scratch[APO_ADOSC_SIDES][APO_ADOSC_BLOCK];
    /* The group's outputs, all of whose blocks go past the caches when there are enough. */
    const size_t group_bars = tiles[count - 1].end - tiles[0].begin;
    for (;;) {
        int ready = 1;
        for (int s = 0; s < APO_ADOSC_SIDES && ready; s++)
            ready = apo__adosc_side_ready(io, &side[s], tiles, count, &next, lookback);
        if (!ready)
            break;
        size_t n = APO_ADOSC_BLOCK, at[APO_ADOSC_SIDES];
        apo__adosc_line line[APO_ADOSC_SIDES];
        double *y[APO_ADOSC_SIDES];
        int past[APO_ADOSC_SIDES];
        for (int s = 0; s < APO_ADOSC_SIDES; s++) {
            const size_t left =
                (apo__adosc_side_stop(&side[s]) - side[s].run.t) / APO_TILE_LANES * APO_TILE_LANES;
            n = left < n ? left : n;
            at[s] = side[s].run.t;
            line[s].ad = side[s].run.v[0];
            line[s].fe = side[s].run.v[1];
            line[s].se = side[s].run.v[2];
            y[s] = at[s] < side[s].begin ? scratch[s] : out + at[s];
            past[s] = y[s] != scratch[s] && apo__flow_past_cache(y[s], group_bars);
        }
        const unsigned clean = apo__adosc_sides_block(line, io, k, at, n, y, past);
        /* A side with a gap rewrites the block by plain stores (apo__adosc_run): the
         * streaming stores go first, as bollinger's lanes fence before their rewrites. */
        if (clean != (1u << APO_ADOSC_SIDES) - 1u && (past[0] || past[1]))
            _mm_sfence();
        for (int s = 0; s < APO_ADOSC_SIDES; s++)
            apo__adosc_side_advance(io, &side[s], (clean >> s) & 1u, &line[s], n);
    }
    /* The stores past the caches are weakly ordered: fenced before the group returns. */
    if (group_bars >= APO_FLOW_PAST_CACHE_BARS)
        _mm_sfence();
    /* A side found no tile left to take: the others' tiles, where they hold one, alone. */
    for (int s = 0; s < APO_ADOSC_SIDES; s++)
        if (side[s].live)
            apo__adosc_run(io, side[s].begin, side[s].end, &side[s].run);
}

#endif /* APO_TILE_LANES */

#endif /* APO_KERNELS_ADOSC_PAIRS_H */
