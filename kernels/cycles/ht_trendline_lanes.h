/*
 * ht_trendline_lanes.h: ht_trendline's run on the CPU's vector paths (ht_tile.h's
 * apo__ht_run takes it there): the transform's period a clean bar at a time, as every path
 * steps it (hilbert.h), then the trend lines of a chunk of those bars in vector lanes, a bar a
 * lane.
 *
 * Why: a bar's trend line sums the last round(smoothed period) clean prices (up to 50) one
 * addition after another, then divides twice; written after the period's step in the same
 * loop, that chain and its loop, whose count moves with the period, took about a third of
 * ht_trendline's bar beside the period's own chain (docs/kernels/cycles.md). The trend line
 * never feeds the transform, so the chunk's periods can be stepped first and its trend lines
 * taken afterwards, side by side.
 *
 * Bits: each lane adds its bar's prices from the newest in the order of apo__ht_trend_line,
 * a step that lies past its bar's count (or before the series' first bar) leaving its sum as
 * it was (a select, not an addition of 0); the mean and the 4-bar WMA of the means are the
 * same operations in the same order, lane for lane. The scalar loop (a GPU, the bars before
 * the transform's start) is ht_tile.h's; catalog_simt compares the two.
 */
#ifndef APO_KERNELS_HT_TRENDLINE_LANES_H
#define APO_KERNELS_HT_TRENDLINE_LANES_H

#include "catalog.h"
#include "hilbert.h"
#include "tile_vec.h"

#ifdef APO_TILE_LANES

/* Clean bars a chunk steps before its trend lines. */
#define APO_HT_CHUNK 64

/* What a chunk keeps of its bars: the clean prices (the APO_HT_MAX_CYCLE before the chunk
 * first, oldest first), and for each bar its cycle and clean number as doubles, its trend line
 * and its place in the row; the means with the three before the chunk first. The arrays run a
 * vector past the chunk, so that its last vector's loads stay inside. */
typedef struct apo__ht_chunk {
    double price[APO_HT_MAX_CYCLE + APO_HT_CHUNK + APO_TILE_LANES];
    double cycle[APO_HT_CHUNK + APO_TILE_LANES], bar[APO_HT_CHUNK + APO_TILE_LANES];
    double mean[3 + APO_HT_CHUNK + APO_TILE_LANES], line[APO_HT_CHUNK + APO_TILE_LANES];
    size_t at[APO_HT_CHUNK];
    size_t count;
} apo__ht_chunk;

/* The sums and means of bars j0 .. j0 + APO_TILE_LANES - 1 of the chunk (apo__ht_trend_line's
 * `mean`, one lane each). */
static inline void apo__ht_chunk_means(apo__ht_chunk *c, size_t j0) {
    const apo_tv cycle = apo_tv_load(c->cycle + j0), bar = apo_tv_load(c->bar + j0);
    /* At most APO_HT_MAX_CYCLE steps (the smoothed period's bound), so that a stream's saved
     * state carrying a larger one cannot lead the loads out of the chunk's prices. */
    double most = 0.0;
    for (int k = 0; k < APO_TILE_LANES; k++)
        most = c->cycle[j0 + k] > most ? c->cycle[j0 + k] : most;
    most = most < APO_HT_MAX_CYCLE ? most : APO_HT_MAX_CYCLE;
    const double *newest = c->price + APO_HT_MAX_CYCLE + j0;
    apo_tv sum = apo_tv_splat(0.0);
    for (int i = 0; i < (int)most; i++) {
        const apo_tv step = apo_tv_splat((double)i);
        sum = apo_tv_pick((step < cycle) & (step <= bar), sum + apo_tv_load(newest - i), sum);
    }
    apo_tv_store(c->mean + 3 + j0, apo_tv_pick(cycle > 0.0, sum / cycle, sum));
}

/* The chunk's trend lines from its means, and the state's last three means and trend line. */
static inline void apo__ht_chunk_lines(apo__ht_chunk *c, apo__ht_state *s) {
    for (size_t j0 = 0; j0 < c->count; j0 += APO_TILE_LANES)
        apo__ht_chunk_means(c, j0);
    const double *m = c->mean;
    for (size_t j0 = 0; j0 < c->count; j0 += APO_TILE_LANES) {
        const apo_tv line = (4.0 * apo_tv_load(m + 3 + j0) + 3.0 * apo_tv_load(m + 2 + j0) +
                             2.0 * apo_tv_load(m + 1 + j0) + apo_tv_load(m + j0)) /
                            10.0;
        apo_tv_store(c->line + j0, line);
    }
    s->itrend[0] = m[c->count + 2];
    s->itrend[1] = m[c->count + 1];
    s->itrend[2] = m[c->count];
    s->trendline = c->line[c->count - 1];
}

/* Steps the period over clean bars from row position t on, up to APO_HT_CHUNK of them (the
 * transform already past its start bar, so each gives a trend line), writing NaN for the gap
 * bars among them; returns the row position after the chunk. */
static inline size_t apo__ht_chunk_periods(apo__ht_chunk *c, apo__ht_state *s,
                                           const apo__cat_io *io, size_t t, size_t begin,
                                           size_t end) {
    const size_t first = (size_t)s->bars;
    for (int i = 0; i < APO_HT_MAX_CYCLE; i++)
        c->price[i] = s->price[(first - APO_HT_MAX_CYCLE + (size_t)i) & (APO_HT_PRICES - 1)];
    c->mean[0] = s->itrend[2];
    c->mean[1] = s->itrend[1];
    c->mean[2] = s->itrend[0];
    c->count = 0;
    for (; t < end && c->count < APO_HT_CHUNK; t++) {
        const double x = io->in[0][t];
        if (!isfinite(x)) {
            if (t >= begin)
                io->out[0][t] = (double)NAN;
            continue;
        }
        const size_t n = (size_t)s->bars, j = c->count++;
        apo__ht_step_period(s, x, APO_HT_LONG_START);
        c->price[APO_HT_MAX_CYCLE + j] = x;
        c->cycle[j] = (double)apo__ht_cycle(s);
        c->bar[j] = (double)n;
        c->at[j] = t;
    }
    /* The last vector's lanes past the chunk: no step, and prices that no step reads. */
    for (size_t j = c->count; j < c->count + APO_TILE_LANES; j++) {
        c->price[APO_HT_MAX_CYCLE + j] = 0.0;
        c->cycle[j] = 0.0;
        c->bar[j] = 0.0;
    }
    return t;
}

/* ht_trendline over row positions [t, end) once the transform is past its start bar: chunk
 * after chunk, the periods and then the trend lines, each bar's output written as
 * apo__ht_store writes it. */
static inline void apo__ht_trendline_chunks(apo__ht_state *s, const apo__cat_io *io, size_t t,
                                            size_t begin, size_t end) {
    apo__ht_chunk c;
    while (t < end) {
        t = apo__ht_chunk_periods(&c, s, io, t, begin, end);
        if (c.count == 0)
            continue;
        apo__ht_chunk_lines(&c, s);
        for (size_t j = 0; j < c.count; j++)
            if (c.at[j] >= begin)
                io->out[0][c.at[j]] =
                    apo__canonical_nan(c.bar[j] >= APO_HT_LONG_LOOKBACK ? c.line[j] : NAN);
    }
}

#endif /* APO_TILE_LANES */

#endif /* APO_KERNELS_HT_TRENDLINE_LANES_H */
