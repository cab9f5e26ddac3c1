/*
 * catalog_lanes.h: the frame of a round of catalog tiles computed side by side, one tile per
 * vector lane (tile_vec.h), for the recurrences over bar-to-bar changes whose tiles start
 * with apo__cat_run_start_changes (rsi, cmo, atr, natr, plus_di, minus_di, adx, dx, adxr,
 * plus_dm, minus_dm), and rma's over the samples themselves.
 *
 * Why: a recurrence's chain (a multiply, an add and a divide per bar) is serial within a
 * tile, so one tile runs at the latency of that chain and leaves the divider mostly idle.
 * The tiles of a group are independent chains: in lanes, one vector chain advances up to
 * APO_TILE_LANES of them for the latency of one.
 *
 * How the bits stay a tile's: every tile starts empty at its own warm-up origin, so as long
 * as no lane meets a gap, the lanes are at the same step of the same definition (the same
 * seed counts), and each lane performs the scalar body's IEEE operations on its own tile's
 * samples. The round runs in lock-step until the second longest lane's tile ends and stops
 * before the first step where any lane meets a gap; then each tile's run state (apo__cat_run) is
 * set to where its lane stopped and the tile's scalar run goes on from there, as a stream's piece
 * would (catalog.h). Lanes past `count` repeat lane 0's tile and store nothing.
 *
 * Why past the shortest lane: the first tile of a row has no warm-up and the last is short,
 * so the lanes' lengths differ by up to a halo; stopping at the shortest left the others'
 * rest to serial chains, most of a round's time when a row is a few tiles (1e4 bars). A lane
 * whose tile has ended stores nothing, and its values after its end are thrown away; it reads
 * on into the bars after its tile where the round's last tile's end bounds every lane's reads
 * (a gap there ends the lock-step sooner, no more; in a row's order the next lane meets it
 * first), and else, in a round whose last tile is short (a row's last), it re-reads its tile's
 * last bar (a finite change of 0, never a gap nor a read past the round's tiles). Holding every
 * lane's position at its tile's last took a comparison and a select a lane and load: a sixth
 * to a fifth of rsi's and atr's time, measured without them
 * (docs/perf-log/2026-11-30-index-scans-lane-loads.md).
 * Why not to the longest: a step of lanes costs more than a scalar step (the loads gathered
 * lane by lane), so a lone lane's rest is cheaper as its scalar run.
 *
 * Host only: the GPU runs one tile per thread already (kernels/<family>/<family>.cu).
 */
#ifndef APO_KERNELS_CATALOG_LANES_H
#define APO_KERNELS_CATALOG_LANES_H

#include "catalog.h"
#include "tile_span.h"
#include "tile_vec.h"

#ifdef APO_TILE_LANES

/* A round: each lane's run as its tile's start left it, and the lock-step length. */
typedef struct apo__cat_lanes {
    apo__cat_run run[APO_TILE_LANES]; /* lane k's run; run[k].t is the lane's first position */
    size_t last[APO_TILE_LANES];      /* lane k's last position: its tile's end - 1 */
    size_t count;                     /* lanes that hold a tile of their own and store */
    size_t steps;                     /* positions the second longest lane has (see above) */
    int hold;                         /* 1: a lane's reads past its tile's last bar would pass
                                       * the round's last tile's end, so each lane's position is
                                       * held at its tile's last (see above) */
    size_t edge_step;                 /* the next step at which a lane is at its tile's
                                       * begin or end (apo__cat_lanes_edges) */
    size_t inside_from, inside_to;    /* every storing lane is inside its tile at the steps
                                       * inside_from .. inside_to - 1 (none when from >= to) */
} apo__cat_lanes;

/* A lane's runs at its tile's edges, for a lone tile cut into pieces (catalog_split.h):
 * `head` at its tile's begin (has_head 1 when the lock-step got there), `tail` at its end,
 * after its last position (has_tail 1 once known: from the lock-step, or from the scalar run
 * that finishes the tile). A lane's run after its tile's end is not the tile's (the lane
 * re-reads its last bar), so the tail is taken at the end, not where the lock-step stops. */
typedef struct apo__cat_edge {
    apo__cat_run head, tail;
    int has_head, has_tail;
} apo__cat_edge;

/* The first step after `after` (or at 0 when `first`) at which a storing lane is at its
 * tile's begin or end; (size_t)-1 when none is. */
static inline size_t apo__cat_lanes_next_edge(const apo__cat_lanes *ln, const apo__tile_span *tiles,
                                              size_t after, int first) {
    size_t next = (size_t)-1;
    for (size_t k = 0; k < ln->count; k++) {
        const size_t t = ln->run[k].t;
        const size_t at[2] = {tiles[k].begin, tiles[k].end};
        for (int e = 0; e < 2; e++) {
            if (at[e] < t)
                continue;
            const size_t step = at[e] - t;
            if ((first || step > after) && step < next)
                next = step;
        }
    }
    return next;
}

/* Starts the round's tiles (count of them, 1 <= count <= APO_TILE_LANES), as their scalar
 * bodies would: each run `skip` bars after its warm-up origin, its outputs before that NaN.
 * skip 1: over bar-to-bar changes (apo__cat_run_start_changes); 0: over the samples from the
 * warm-up origin itself (rma_tile.h); zlema's lag: its de-lagged series, whose first value
 * reads lag bars back (zlema_tile.h). Every tile of a round of several has a position to run
 * (only a row's first tile starts at its own begin, and it is full length). */
static inline void apo__cat_lanes_start_at(apo__cat_lanes *ln, const apo__cat_io *io,
                                           const apo__tile_span *tiles, size_t count, size_t skip) {
    ln->count = count;
    ln->inside_from = 0;
    ln->inside_to = (size_t)-1;
    size_t longest = 0, second = 0;
    for (size_t k = 0; k < APO_TILE_LANES; k++) {
        if (k < count) {
            const size_t begin = tiles[k].begin, end = tiles[k].end;
            const size_t first = apo__cat_origin(io, begin) + skip;
            apo__cat_nan_lead(io->out[0], begin, end, first);
            apo__cat_run_from(&ln->run[k], first);
            const size_t t = ln->run[k].t;
            const size_t have = end > t ? end - t : 0;
            if (have > longest) {
                second = longest;
                longest = have;
            } else if (have > second) {
                second = have;
            }
            ln->last[k] = end > t ? end - 1 : t;
            const size_t inside_from = begin > t ? begin - t : 0, inside_to = have;
            ln->inside_from = inside_from > ln->inside_from ? inside_from : ln->inside_from;
            ln->inside_to = inside_to < ln->inside_to ? inside_to : ln->inside_to;
        } else {
            ln->run[k] = ln->run[0];
            ln->last[k] = ln->last[0];
        }
    }
    ln->steps = count > 1 ? second : longest;
    size_t reach = 0, bound = 0;
    for (size_t k = 0; k < count; k++) {
        reach = ln->run[k].t + ln->steps > reach ? ln->run[k].t + ln->steps : reach;
        bound = tiles[k].end > bound ? tiles[k].end : bound;
    }
    ln->hold = reach > bound;
    ln->edge_step = apo__cat_lanes_next_edge(ln, tiles, 0, 1);
}

/* Starts a round of tiles over bar-to-bar changes (apo__cat_lanes_start_at). */
static inline void apo__cat_lanes_start(apo__cat_lanes *ln, const apo__cat_io *io,
                                        const apo__tile_span *tiles, size_t count) {
    apo__cat_lanes_start_at(ln, io, tiles, count, 1);
}

/* Records, at step `step` (ln->edge_step), the run of each lane at its tile's begin or end
 * there: the counts n (every lane's, as in apo__cat_lanes_stop) and lane k of each of the
 * v_count state vectors v, as the scalar run keeps them in v[]; then moves edge_step on.
 * Called before the step's work, so the run is the one position run[k].t + step starts
 * from. */
static inline void apo__cat_lanes_edges(apo__cat_lanes *ln, const apo__tile_span *tiles,
                                        size_t step, const size_t *n, size_t n_count,
                                        const apo_tv *v, size_t v_count, apo__cat_edge *edges) {
    for (size_t k = 0; k < ln->count; k++) {
        const size_t t = ln->run[k].t + step;
        if (t != tiles[k].begin && t != tiles[k].end)
            continue;
        apo__cat_run *r = t == tiles[k].begin ? &edges[k].head : &edges[k].tail;
        apo__cat_run_from(r, t);
        for (size_t c = 0; c < n_count; c++)
            r->n[c] = n[c];
        for (size_t i = 0; i < v_count; i++)
            r->v[i] = v[i][k];
        if (t == tiles[k].begin)
            edges[k].has_head = 1;
        else
            edges[k].has_tail = 1;
    }
    ln->edge_step = apo__cat_lanes_next_edge(ln, tiles, step, 0);
}

/* After a lane's scalar run: its tail, where the lock-step did not reach its end. */
static inline void apo__cat_lanes_tail(const apo__cat_lanes *ln, size_t k, apo__cat_edge *edges) {
    if (!edges[k].has_tail) {
        edges[k].tail = ln->run[k];
        edges[k].has_tail = 1;
    }
}

/* Clears the edges before a round that records them. */
static inline void apo__cat_edges_clear(apo__cat_edge *edges, size_t count) {
    for (size_t k = 0; k < count; k++)
        edges[k].has_head = edges[k].has_tail = 0;
}

/* Each lane's sample of `row` at its position at `step` minus `back`: lane k's position is its
 * first plus step, held at its tile's last where the round holds positions (ln->hold), tested
 * once a load rather than by a select a lane. */
static inline apo_tv apo__cat_lanes_load(const double *row, const apo__cat_lanes *ln, size_t step,
                                         size_t back) {
    apo_tv v = {0};
    if (ln->hold) {
        for (size_t k = 0; k < APO_TILE_LANES; k++) {
            const size_t t = ln->run[k].t + step;
            v[k] = row[(t < ln->last[k] ? t : ln->last[k]) - back];
        }
    } else {
        for (size_t k = 0; k < APO_TILE_LANES; k++)
            v[k] = row[ln->run[k].t + step - back];
    }
    return v;
}

/* Writes step `step`'s outputs y of the lanes that store, at the positions in their tiles. */
static inline void apo__cat_lanes_store(double *out, const apo__cat_lanes *ln,
                                        const apo__tile_span *tiles, size_t step, apo_tv y) {
    for (size_t k = 0; k < ln->count; k++) {
        const size_t t = ln->run[k].t + step;
        if (t >= tiles[k].begin && t < tiles[k].end)
            out[t] = y[k];
    }
}

/* apo__cat_lanes_store, with one test of the step against the round's middle, where every
 * lane stores, in place of a test a lane: the same writes. Taken by the kernels whose loops it
 * made faster, dema, tema, trix, t3 and tsi; in the Wilder
 * kernels' loops the same change moved gcc's register allocation and cost up to 13% (plus_di
 * at 1e6 bars), so they keep the plain form (docs/perf-log/2026-11-30-index-scans-lane-loads.md).
 */
static inline void apo__cat_lanes_store_inside(double *out, const apo__cat_lanes *ln,
                                               const apo__tile_span *tiles, size_t step, apo_tv y) {
    if (step >= ln->inside_from && step < ln->inside_to) {
        for (size_t k = 0; k < ln->count; k++)
            out[ln->run[k].t + step] = y[k];
        return;
    }
    apo__cat_lanes_store(out, ln, tiles, step, y);
}

/* Steady steps. Between a round's events (a lane reaching its tile's begin or end, an edge to
 * record, a lane's reads reaching its tile's last bar where the round holds positions), which
 * lanes store is fixed and no read needs holding, so a kernel's loop there, once every lane is
 * past its seed, can gather each lane's samples through a pointer a lane and store through one,
 * without the tests apo__cat_lanes_load and apo__cat_lanes_store make a step: the same operations
 * on the same samples, so the same bits. The rounds that take such a loop run their general loop
 * up to the steady steps, the steady loop through them (it stops early at a sample the general
 * loop must see: a gap), and the general loop on from where it stopped. Measured: efi's round
 * at 1e5 bars took 0.62 to 0.66 of its time before (docs/perf-log/2026-11-30-steady-lanes.md). */
typedef struct apo__cat_steady {
    size_t to;                    /* the first step after `step` at which an event falls (step:
                                   * none steady) */
    unsigned stores;              /* bit k set: lane k stores at every step of the range */
    size_t moves[APO_TILE_LANES]; /* all ones: lane k reads at its position; 0: it is held at
                                   * its tile's last bar (a held round's ended lane) */
    int held;                     /* 1 when a lane is held: the steady loop's copy that masks the
                                   * step a lane (apo__cat_lanes_at) */
} apo__cat_steady;

/* No steady step from `step` (a kernel's lanes not all past their seeds). */
static inline apo__cat_steady apo__cat_steady_none(size_t step) {
    apo__cat_steady sd = {step, 0, {0}, 0};
    return sd;
}

/* The steady steps from `step` on (see above): [step, to) and the lanes that store in them. */
static inline apo__cat_steady apo__cat_lanes_steady(const apo__cat_lanes *ln,
                                                    const apo__tile_span *tiles, size_t step,
                                                    const apo__cat_edge *edges) {
    apo__cat_steady sd = {ln->steps, 0, {0}, 0};
    if (edges != NULL && ln->edge_step < sd.to)
        sd.to = ln->edge_step;
    for (size_t k = 0; k < APO_TILE_LANES; k++) {
        const size_t first = ln->run[k].t, t = first + step;
        sd.moves[k] = ln->hold && t > ln->last[k] ? 0 : (size_t)-1;
        sd.held |= sd.moves[k] == 0;
        if (k >= ln->count) /* lane 0's copy: its events are lane 0's */
            continue;
        size_t event = (size_t)-1;
        if (t < tiles[k].begin) {
            event = tiles[k].begin - first;
        } else if (t < tiles[k].end) {
            sd.stores |= 1u << k;
            event = tiles[k].end - first;
        }
        if (sd.moves[k] != 0 && ln->hold && ln->last[k] - first + 1 < event)
            event = ln->last[k] - first + 1; /* held from the step after its last */
        sd.to = event < sd.to ? event : sd.to;
    }
    sd.to = sd.to > step ? sd.to : step;
    return sd;
}

/* Each lane's pointer into `row` for its steady loop (apo__cat_lanes_at): at its first position
 * minus `back`, or, for a lane held at its tile's last bar, at that bar minus `back`. */
static inline void apo__cat_lanes_rows(const apo__cat_lanes *ln, const apo__cat_steady *sd,
                                       const double *row, size_t back,
                                       const double *at[APO_TILE_LANES]) {
    for (size_t k = 0; k < APO_TILE_LANES; k++)
        at[k] = row + (sd->moves[k] ? ln->run[k].t : ln->last[k]) - back;
}

/* The lanes' samples at step s through their pointers (apo__cat_lanes_rows): a held lane's
 * index is 0 at every step. held: sd->held, a constant of the loop's copy, so that a round
 * without a held lane pays no mask a load. */
static inline apo_tv apo__cat_lanes_at(const double *const at[APO_TILE_LANES],
                                       const apo__cat_steady *sd, size_t s, const int held) {
    apo_tv v;
    for (size_t k = 0; k < APO_TILE_LANES; k++)
        v[k] = at[k][held ? s & sd->moves[k] : s];
    return v;
}

/* Each lane's output pointer for its steady loop: lane k's output at step s is at[k][s]. */
static inline void apo__cat_lanes_outs(const apo__cat_lanes *ln, double *out,
                                       double *at[APO_TILE_LANES]) {
    for (size_t k = 0; k < APO_TILE_LANES; k++)
        at[k] = out + ln->run[k].t;
}

/* The output y at step s of the lanes that store (apo__cat_lanes_outs, apo__cat_steady): all of
 * them without a test a lane in a full round's middle. */
static inline void apo__cat_lanes_put(double *const at[APO_TILE_LANES], unsigned stores, size_t s,
                                      apo_tv y) {
    if (stores == (1u << APO_TILE_LANES) - 1) {
        for (size_t k = 0; k < APO_TILE_LANES; k++)
            at[k][s] = y[k];
        return;
    }
    for (size_t k = 0; k < APO_TILE_LANES; k++)
        if (stores >> k & 1u)
            at[k][s] = y[k];
}

/* The steps a round's steady loop may take as one block (apo__cat_lanes_block). */
#define APO_CAT_BLOCK 4

/* The 4-lane blocks ask for each lane's row APO_CAT_AHEAD samples (8 lines) ahead, once a line
 * of doubles (APO_CAT_LINE steps). A round reads and writes a row at four places a tile apart,
 * and at 1e6 bars on the Zen 5 VM atr's and natr's rounds waited on memory: the hints took a
 * sixth to a fifth off their time there, level at 1e4 (docs/perf-log/2026-12-02-zen5-table.md). A
 * hint: no bit depends on it. */
#define APO_CAT_LINE 8
#define APO_CAT_AHEAD 64

#if APO_TILE_LANES == APO_CAT_BLOCK
/* Steps s .. s + APO_CAT_BLOCK - 1 of each lane's samples as they lie in its row: lane k's four
 * samples are v[k], one load (a held lane's bar broadcast: apo_tv_splat of the loaded bar
 * measured 2 to 4% slower on atr's rows of 1e4 bars). A body whose terms are each bar's own
 * function of its samples (a true range, a change) computes them on these rows, the same
 * operations on the same samples, and transposes only the terms: one transpose a term where
 * each input took one (atr: 0.91 of the time at 1e4 bars, efi 0.81,
 * docs/perf-log/2026-12-04-zen3-closed-bodies-lane-terms.md). */
static inline void apo__cat_lanes_rows_block(const double *const at[APO_TILE_LANES],
                                             const apo__cat_steady *sd, size_t s, const int held,
                                             apo_tv v[APO_CAT_BLOCK]) {
    for (size_t k = 0; k < APO_CAT_BLOCK; k++) {
        if (s % APO_CAT_LINE == 0)
            __builtin_prefetch(at[k] + s + APO_CAT_AHEAD, 0, 3);
        v[k] =
            held && sd->moves[k] == 0 ? (apo_tv)_mm256_broadcast_sd(at[k]) : apo_tv_load(at[k] + s);
    }
}
#endif

/* Steps s .. s + APO_CAT_BLOCK - 1 of the lanes' samples at once, for a round's steady loop:
 * lane k of v[j] is its sample at step s + j (apo__cat_lanes_at), a held lane's last bar at every
 * step. On the 4-lane path a moving lane's four samples are one load and the four vectors one
 * apo_tv_transpose, where apo__cat_lanes_at gathers each vector a sample at a time (a load and a
 * shuffle a lane, the shuffle port's work); the other paths gather them. The samples move; no
 * bit changes. */
static inline void apo__cat_lanes_block(const double *const at[APO_TILE_LANES],
                                        const apo__cat_steady *sd, size_t s, const int held,
                                        apo_tv v[APO_CAT_BLOCK]) {
#if APO_TILE_LANES == APO_CAT_BLOCK
    apo__cat_lanes_rows_block(at, sd, s, held, v);
    apo_tv_transpose(v);
#else
    for (size_t j = 0; j < APO_CAT_BLOCK; j++)
        v[j] = apo__cat_lanes_at(at, sd, s + j, held);
#endif
}

/* A block's samples for terms that are each bar's own function of its samples: as they lie in
 * each lane's row on the 4-lane path (apo__cat_lanes_rows_block: v[k] lane k's four steps), else
 * as the steps' vectors (apo__cat_lanes_block). The body computes its terms alike on either
 * (the same operations on the same samples) and hands them to apo__cat_lanes_terms_steps, after
 * which t[j] is step s + j's vector on every path. */
static inline void apo__cat_lanes_terms_block(const double *const at[APO_TILE_LANES],
                                              const apo__cat_steady *sd, size_t s, const int held,
                                              apo_tv v[APO_CAT_BLOCK]) {
#if APO_TILE_LANES == APO_CAT_BLOCK
    apo__cat_lanes_rows_block(at, sd, s, held, v);
#else
    apo__cat_lanes_block(at, sd, s, held, v);
#endif
}

static inline void apo__cat_lanes_terms_steps(apo_tv t[APO_CAT_BLOCK]) {
#if APO_TILE_LANES == APO_CAT_BLOCK
    apo_tv_transpose(t);
#else
    (void)t;
#endif
}

/* The outputs y[0 .. APO_CAT_BLOCK) of steps s, s + 1, ... of the lanes that store
 * (apo__cat_lanes_put): on the 4-lane path transposed back, each storing lane's four outputs
 * one store. */
static inline void apo__cat_lanes_put_block(double *const at[APO_TILE_LANES], unsigned stores,
                                            size_t s, const apo_tv y[APO_CAT_BLOCK]) {
#if APO_TILE_LANES == APO_CAT_BLOCK
    apo_tv rows[APO_CAT_BLOCK];
    for (size_t j = 0; j < APO_CAT_BLOCK; j++)
        rows[j] = y[j];
    apo_tv_transpose(rows);
    for (size_t k = 0; k < APO_CAT_BLOCK; k++) {
        if (s % APO_CAT_LINE == 0)
            __builtin_prefetch(at[k] + s + APO_CAT_AHEAD, 1, 3);
        if (stores >> k & 1u)
            apo_tv_store(at[k] + s, rows[k]);
    }
#else
    for (size_t j = 0; j < APO_CAT_BLOCK; j++)
        apo__cat_lanes_put(at, stores, s + j, y[j]);
#endif
}

/* Moves each storing lane's run to the position after `done` lock-step steps, its counts
 * to n (the same in every lane: no lane met a gap), ready for its values and the scalar run;
 * a lane whose tile ended before `done` is past its end, and its scalar run does nothing. */
static inline void apo__cat_lanes_stop(apo__cat_lanes *ln, size_t done, const size_t *n,
                                       size_t n_count) {
    for (size_t k = 0; k < ln->count; k++) {
        ln->run[k].t += done;
        for (size_t c = 0; c < n_count; c++)
            ln->run[k].n[c] = n[c];
    }
}

#endif /* APO_TILE_LANES */

#endif /* APO_KERNELS_CATALOG_LANES_H */
