/*
 * A stream (apportion.h, "Streams"; docs/streaming.md): per series, the input bars that the
 * tile being filled still needs, and the arithmetic that turns new bars into outputs equal
 * bit for bit to one batch call over the whole history.
 *
 * The batch outputs are a pure function of the tile grid: tile j of a series covers
 * positions [j L, (j + 1) L) (L the kernel's tile length), restarts the kernel's state at
 * its start and reads inputs from j L - halo on. So a series needs only the bars from
 * (current tile's start - halo) on: at most halo + L per input, whatever the history's
 * length. An update re-runs the kernel's own tile function over the current tile up to the
 * last new bar, on views that keep absolute positions, and copies out the new positions.
 * A kernel that can resume a tile (apo__kernel.resume_tile: bollinger, macd) keeps its
 * running state per series between updates instead, so an update costs its new bars, not
 * the tile's head; the state is a cache, never saved: a loaded stream, or a series whose
 * kernel could not go on, starts its tile again once.
 *
 * The running sums obv and ad read whole rows, but their run carries across tiles
 * (apo__kernel.resume_carries): their state is the run's at the series' last bar, a few
 * doubles. It is not a cache: no bar is kept to rebuild it from, so it is saved with the
 * stream, never reset, and such series never go to the devices.
 */
#ifndef APO_RUNTIME_STREAMING_STREAM_H
#define APO_RUNTIME_STREAMING_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "catalog/kernel.h"

typedef struct apo__stream_series {
    uint64_t n; /* bars fed so far */
    double *in; /* n_inputs blocks of cap doubles: input i's kept bars, from apo__stream_base() */
    size_t cap; /* bars each block holds */
    /* The n at which the series' resume state (apo_stream.resume) goes on: it has emitted
     * the current tile up to position resume_at - 1. APO_STREAM_NO_RESUME: it holds none. */
    uint64_t resume_at;
} apo__stream_series;

#define APO_STREAM_NO_RESUME UINT64_MAX

/* Whole tiles a large update computes side by side per pass (feed_whole_tiles): twice the
 * lanes of the widest vector path, so that a long update keeps every lane busy. */
#define APO_STREAM_BULK_TILES 16

/* The cache line: each series' running state starts one (apo__stream_new), and the pools'
 * slots hold whole ones (stream_windows.c). */
#define APO_STREAM_LINE 64

/* Computes, elsewhere than on the calling thread, the series of an update that are worth it
 * (core/stream_devices.c: a batch call on the runtime's devices), and marks each series it
 * fed in done[r]; the update feeds the others itself. Set by the public calls, which see the
 * runtime; NULL: every series on the calling thread. */
typedef apo_status (*apo__stream_batch_fn)(apo_stream *s, const size_t *n_new,
                                           const double *const *inputs, double *const *outputs,
                                           unsigned char *done);

struct apo_stream {
    const apo__kernel *kernel;     /* a built-in, or a user kernel in its runtime's registry */
    double params[APO_MAX_PARAMS]; /* resolved, in the kernel's order */
    uint64_t seed;
    size_t n_series;
    size_t tile, halo;
    /* apo__stream_carry_len(kernel), kept because every update asks it of every series
     * (apo__stream_base) and the kernel answers through a function pointer. */
    size_t carried;
    /* Bars a series keeps past what its next bar needs, so that its last `revise` bars can
     * be replaced (apo_stream_desc.revise_bars, stream_revise.c): its window then starts at
     * the start of bar n - revise's tile, less the halo (apo__stream_base). */
    size_t revise;
    apo__stream_series *series;
    double *scratch; /* n_outputs blocks of scratch_cap doubles: the current tile's outputs */
    size_t scratch_cap;
    double *bulk; /* n_inputs blocks of bulk_cap doubles: whole tiles and their halo */
    size_t bulk_cap;
    /* Bars that every series can still take, update after update, before the room an update
     * reserves (apo__stream_reserve_set) would grow a window or the scratch: set by the pass
     * over the series that reserves it (stream_room.c), spent by the updates that skip that
     * pass; 0 asks for the pass. A resume, which moves series elsewhere, sets 0; a journal's
     * restore, which puts them back where the room was counted from, keeps it. */
    size_t room;
    /* The kept bars of every series whose window has grown to its bound (halo + tile per
     * input), in one block on huge pages where the system gives them, slot r series r's:
     * a one-bar update of thousands of series touches a page of kept bars per series, and
     * on 4 KiB pages each of those is a TLB miss (docs/perf-log/2026-11-23-stream-updates.md, "Cold
     * updates"). NULL: none yet, or none to be had (slab_tried), and the series' own blocks serve.
     */
    double *slab;
    size_t slab_bytes;
    int slab_tried;
    /* The windows of up to 512 bars of a stream of many series, a slot of them per series, in
     * one block on huge pages (stream_windows.c, young_slot), so that they do not grow, all
     * together, by doubling; young_users: the series in it. NULL: none (yet, or any more), or a
     * small stream, whose series keep blocks of their own. */
    double *young;
    size_t young_bytes, young_users;
    int young_tried;
    /* n_series states of resume_stride bytes for apo__kernel.resume_tile, or NULL; each
     * starts a cache line, and its first resume_hot bytes are what a one-bar update reads. */
    unsigned char *resume;
    size_t resume_stride, resume_hot;
    /* A carried run kept for revises (carried > 0, revise K > 0): each series' state K bars
     * back, at its first kept bar (apo__stream_base), laid out as `resume`; its kept bars are
     * the last K. A revise steps it over the kept bars (feed_carried, apo__stream_rerun).
     * NULL otherwise. */
    unsigned char *carry_base;
    /* A large update on the devices failed after feeding some series (stream_journal.h undoes
     * every other failure): the series may disagree on where they are. */
    int broken;
    /* A sweep's stream (apo_stream_desc.sweep): n_sets streams of one set each, fed the same
     * bars, and no series of its own (series NULL). 0 and NULL: a stream of one set. */
    size_t n_sets;
    apo_stream **sets;
    /* Large updates on the devices: the runtime the stream was made in, the fewest new bars
     * (of series with a whole tile or more) that go there, and the call that takes them. */
    apo_runtime *rt;
    size_t device_bars;
    /* The vector path of the updates on the calling thread and whether APPORTION_CPU_ISA named
     * it: the runtime's host path (runtime.h); 0 (AUTO) where no runtime handed one. */
    int cpu_isa, cpu_isa_named;
    apo__stream_batch_fn batch;
    /* A rule's stream (apo_stream_desc.score, stream_rule.h): kernel is the scored kernel,
     * n_series its series, and every bar goes through rule->inner; NULL for every other.
     * apo__stream_free does not free it (stream_rule.h sits above this file): a stream that
     * may be a rule's is freed by apo__stream_rule_destroy. */
    struct apo__stream_rule *rule;
};

/* Fails (APO_ERR_INVALID_ARGUMENT, naming the kernel and why) unless the kernel's outputs
 * are per bar over halo-bounded windows: the reductions and whole-row kernels are refused. */
apo_status apo__stream_check_kernel(const apo__kernel *k, const double *params);

/* Doubles of the run a series of kernel k carries across tiles (kernel.h, resume_carries),
 * which its saved state holds; 0 for a kernel whose state is a cache of its kept bars. */
size_t apo__stream_carry_len(const apo__kernel *k);

/* A stream of n_series empty series that keeps `revise` bars more (n_series and revise
 * checked by the caller). */
apo_status apo__stream_new(const apo__kernel *k, const double *params, size_t n_series,
                           uint64_t seed, size_t revise, apo_stream **out);

/* The first position a series of n bars keeps: the current tile's start less the halo, or
 * for a stream that revises, the start of bar n - revise's tile less the halo (n for a
 * carried run, which keeps no bar). */
uint64_t apo__stream_base(const apo_stream *s, uint64_t n);

/* Bars a series of n bars keeps per input (n - apo__stream_base()). */
size_t apo__stream_kept(const apo_stream *s, uint64_t n);

/* Set j of a stream: a sweep's set j, or a stream of one set itself (j 0). Like strchr, it
 * takes a const stream and gives the set as the caller may use it. */
static inline apo_stream *apo__stream_set(const apo_stream *s, size_t j) {
    return s->n_sets > 0 ? s->sets[j] : (apo_stream *)s;
}

/* The stream of a sweep's sets, taking `sets` (n_sets streams of one set each, of the same
 * kernel and series count), which it frees with itself, also on failure. */
apo_status apo__stream_sweep_of(apo_stream **sets, size_t n_sets, apo_stream **out);

/* Frees n_sets streams (NULL ones too) and the array holding them (NULL is fine). */
void apo__stream_free_sets(apo_stream **sets, size_t n_sets);

/* Gives series `r` room for `bars` kept bars per input; its kept bars stay. */
apo_status apo__stream_reserve(apo_stream *s, size_t r, size_t bars);

/* The most bars a series holds per input (stream_windows.c): the current tile's and the halo
 * before it, a piece of new bars included, and for a stream that revises the tiles back to bar
 * n - revise's. */
size_t apo__stream_window_bound(const apo_stream *s);

/* Frees every series' window and the stream's pools (stream_windows.c). */
void apo__stream_free_windows(apo_stream *s);

/* Records that series r took m new bars whose outputs were computed elsewhere (the batch
 * hook): `row[i]` holds input i's bars from position `first` (at most the series' kept base)
 * to the series' bars + m; the series keeps its window of them and starts its next tile
 * afresh. */
void apo__stream_advance(apo_stream *s, size_t r, size_t m, const double *const *row,
                         uint64_t first);

/* Every allocation an update of a stream of one set needs, made before any series moves, so
 * that a failure leaves every series where it was. */
apo_status apo__stream_reserve_set(apo_stream *s, const size_t *n_new);

/* Feeds every series of a stream of one set, its room reserved (apo__stream_reserve_set):
 * with on_devices, a large update's series through the batch hook first. On a failure some
 * series may have moved: stream_journal.h puts them back. */
apo_status apo__stream_feed_set(apo_stream *s, const size_t *n_new, const double *const *inputs,
                                double *const *outputs, int on_devices);

/* Feeds series [from, to) of a stream of one set on the calling thread, their room reserved,
 * series `from`'s bars at offset `at` of the packed arrays: a group's block of symbols
 * (stream_group.c). The batch hook is not called: for updates it would hand nothing. */
apo_status apo__stream_feed_range(apo_stream *s, const size_t *n_new, const double *const *inputs,
                                  double *const *outputs, size_t from, size_t to, size_t at);

/* Room for a re-run of up to `bars` positions of one tile (apo__stream_rerun), made before
 * any series moves. */
apo_status apo__stream_reserve_rerun(apo_stream *s, size_t bars);

/* Computes again the outputs of series r at positions [from, n) from its kept bars (from at
 * least n - revise, or the current tile's start, so that the kept bars cover every tile it
 * meets), each tile from its start as the batch does, and writes them to outputs[o] + at.
 * The series' running state is dropped: its next update starts its tile afresh. Fails only
 * where a user kernel does (APO_ERR_KERNEL_FAILED), changing no kept bar. */
apo_status apo__stream_rerun(apo_stream *s, size_t r, uint64_t from, double *const *outputs,
                             size_t at);

void apo__stream_free(apo_stream *s);

#endif
