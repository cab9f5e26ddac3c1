/*
 * The room an update reserves before any series of a stream moves (see stream.h): each
 * series' window grown ahead of its new bars, the scratch of the current tile's outputs and
 * the bulk of whole tiles, so that a failed allocation leaves every series where it was; and
 * how many more bars the stream can take before it must reserve again.
 */
#include <stdint.h>
#include <stdlib.h>

#include "base/error.h"
#include "streaming/stream.h"

/* Room for `bars` doubles in each of `blocks` blocks of *buf, which holds *cap each; what
 * was there is not kept (the scratch of one update). */
static apo_status reserve_blocks(double **buf, size_t *cap, size_t blocks, size_t bars,
                                 const char *what) {
    if (bars <= *cap)
        return APO_OK;
    double *grown = malloc(blocks * bars * sizeof *grown);
    if (grown == NULL)
        return apo__fail(APO_ERR_OUT_OF_MEMORY, "apo_stream: no memory for %zu %s", bars, what);
    free(*buf);
    *buf = grown;
    *cap = bars;
    return APO_OK;
}

/* Room for `bars` inputs of whole tiles and their halo, per input (feed_whole_tiles). */
static apo_status reserve_bulk(apo_stream *s, size_t bars) {
    return reserve_blocks(&s->bulk, &s->bulk_cap, s->kernel->n_inputs, bars, "bars");
}

/* Room for `bars` outputs of the current tile, per output. */
static apo_status reserve_scratch(apo_stream *s, size_t bars) {
    return reserve_blocks(&s->scratch, &s->scratch_cap, s->kernel->n_outputs, bars, "outputs");
}

apo_status apo__stream_reserve_rerun(apo_stream *s, size_t bars) {
    if (s->carried > 0) /* a carried run's kept bars, at most K (apo__stream_rerun) */
        return reserve_scratch(s, s->revise);
    return reserve_scratch(s, bars < s->tile ? bars : s->tile);
}

/* Bars of room short of full at which series r's window already grows (reserve_update):
 * under half its room and under APO_STREAM_GROW_SPREAD, by r's run of 2^shift series
 * (grow_shift). Fed a bar per update from the same first bar, every series of a stream fills
 * its room in the same update: grown there all together (to the slab at 520 bars; in blocks
 * of their own, a small stream's, at every doubling), the update takes several times the
 * median (5,000 symbols x 10 indicators: 50,000 allocations, copies and fresh pages,
 * docs/perf-log/2026-11-27-stream-latency-3.md). Staggered, a run of neighbouring series grows
 * at each of up to 64 updates. Only the layout moves: what a series keeps, and so every
 * output and the saved state (bars, not blocks), is the same. */
#define APO_STREAM_GROW_SPREAD 64
static size_t grow_lead(size_t cap, size_t r, unsigned shift) {
    size_t spread = APO_STREAM_GROW_SPREAD;
    while (spread > 1 && spread > cap / 2)
        spread /= 2;
    return (r >> shift) & (spread - 1);
}

/* The run length of grow_lead, 2^shift series: the fewest that make at most
 * APO_STREAM_GROW_SPREAD runs of the stream's series. */
static unsigned grow_shift(size_t n_series) {
    unsigned shift = 0;
    while (n_series > 0 && (n_series - 1) >> shift >= APO_STREAM_GROW_SPREAD)
        shift++;
    return shift;
}

/* Bars series r can take, update after update, from `kept_after` kept bars on, before
 * reserve_update would grow its window (its room within grow_lead of full grows it early);
 * every bar where the window is at its bound, where it never grows. */
static size_t window_room(const apo_stream *s, size_t r, size_t kept_after, size_t most,
                          unsigned shift) {
    const size_t cap = s->series[r].cap;
    if (cap >= most)
        return SIZE_MAX;
    const size_t full = cap - grow_lead(cap, r, shift);
    return kept_after < full ? full - kept_after : 0;
}

/* The most new bars any series of the update takes. */
static size_t most_new_bars(const size_t *n_new, size_t n_series) {
    size_t most = 0;
    for (size_t r = 0; r < n_series; r++)
        most = n_new[r] > most ? n_new[r] : most;
    return most;
}

/*
 * Every allocation an update needs, so that a failure leaves every series where it was.
 *
 * The pass over the series that reserves it also sets s->room, the bars every series can take
 * before any of its windows, or the scratch, would grow; an update whose series take no more
 * bars than that room (and less than a tile, which bulk takes) reserves nothing and only spends
 * the room. A one-bar update of a group of 5,000 symbols x 10 indicators passed over 50,000
 * series for it on the calling thread alone, before feeding them on two (some 0.2 ms of 1.5
 * on the Xeon VM; docs/perf-log/2026-12-06-zen4-stream-room.md); now one update in many does. The
 * bound holds because a series' kept bars grow by at most the bars it is fed (its base only
 * moves on) and its window only grows; a stream starts at 0 (new, loaded or forked),
 * and whatever else moves a series (a resume) sets it to 0. A journal's restore (stream_journal.c)
 * puts a series back where it stood before the update that spent the room: the room left still
 * holds.
 */
static apo_status reserve_update(apo_stream *s, const size_t *n_new) {
    /* A carried run reads and writes the caller's arrays and keeps no bars (feed_carried),
     * but its last K for revises, whose leaving bars' outputs go to the scratch. */
    if (s->carried > 0) {
        for (size_t r = 0; s->revise > 0 && r < s->n_series; r++)
            if (n_new[r] > 0)
                APO_CHECK(apo__stream_reserve(s, r, s->revise));
        return s->revise > 0 ? reserve_scratch(s, s->revise) : APO_OK;
    }
    const size_t most_new = most_new_bars(n_new, s->n_series);
    if (most_new < s->tile && most_new <= s->room) {
        s->room -= most_new;
        return APO_OK;
    }
    s->room = 0;
    size_t widest = 0, bulk = 0, room = SIZE_MAX, reach = 0;
    const size_t most = apo__stream_window_bound(s);
    const unsigned shift = grow_shift(s->n_series);
    for (size_t r = 0; r < s->n_series; r++) {
        const uint64_t n = s->series[r].n;
        const size_t kept = apo__stream_kept(s, n), done = (size_t)(n % s->tile);
        if (n_new[r] > 0) {
            /* Whole tiles go through run_tiles, at most APO_STREAM_BULK_TILES at a time,
             * after the bars kept before them (the halo, and a revising stream's tiles before
             * it; the first whole tile may follow this update's first piece). */
            if (s->kernel->run_tiles != NULL && n_new[r] >= s->tile) {
                size_t tiles = n_new[r] / s->tile < APO_STREAM_BULK_TILES ? n_new[r] / s->tile
                                                                          : APO_STREAM_BULK_TILES;
                const size_t need = most - s->tile + tiles * s->tile;
                bulk = need > bulk ? need : bulk;
            }
            size_t need = n_new[r] < most - kept ? kept + n_new[r] : most;
            /* Doubling (up to the bound), so that a tile filled bar by bar is not copied
             * whole at every bar; early for some series (grow_lead), so that they do not all
             * grow in the same update. */
            const size_t cap = s->series[r].cap;
            if (need <= cap && cap < most && need > cap - grow_lead(cap, r, shift))
                need = cap + 1;
            if (need > cap && need < 2 * cap)
                need = 2 * cap < most ? 2 * cap : most;
            if (need > cap)
                APO_CHECK(apo__stream_reserve(s, r, need));
        }
        /* The scratch holds the current tile's outputs up to the update's last bar. */
        const size_t span = n_new[r] < s->tile - done ? done + n_new[r] : s->tile;
        widest = n_new[r] > 0 && span > widest ? span : widest;
        reach = done + n_new[r] > reach ? done + n_new[r] : reach;
        const size_t left = window_room(s, r, kept + n_new[r], most, shift);
        room = left < room ? left : room;
    }
    /* Doubling (up to a tile), as the windows do, so that a tile's scratch is not taken
     * afresh at each of its bars. */
    if (widest > s->scratch_cap && widest < 2 * s->scratch_cap)
        widest = 2 * s->scratch_cap < s->tile ? 2 * s->scratch_cap : s->tile;
    APO_CHECK(reserve_scratch(s, widest));
    APO_CHECK(reserve_bulk(s, bulk));
    /* A later bar of a series lies at most `reach` bars into its tile's scratch, plus the
     * bars fed since; a scratch of a whole tile holds any. */
    if (s->scratch_cap < s->tile) {
        const size_t scratch_left = reach < s->scratch_cap ? s->scratch_cap - reach : 0;
        room = scratch_left < room ? scratch_left : room;
    }
    s->room = room;
    return APO_OK;
}

apo_status apo__stream_reserve_set(apo_stream *s, const size_t *n_new) {
    return reserve_update(s, n_new);
}
