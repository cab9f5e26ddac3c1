/*
 * What a stream is made of (stream.h): its fields, each series' kept bars and running state,
 * and the positions a series keeps (apo__stream_base). Below both stream.c, which feeds the
 * series, and stream_windows.c, which says where their bars lie, so that neither includes the
 * other's header.
 */
#ifndef APO_RUNTIME_STREAMING_STREAM_LAYOUT_H
#define APO_RUNTIME_STREAMING_STREAM_LAYOUT_H

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

/* The first position a series of n bars keeps: the current tile's start less the halo, or
 * for a stream that revises, the start of bar n - revise's tile less the halo; for a carried
 * run, which needs no bar before the next one, its last `revise` bars (none without revises).
 * Inline: where a stream's windows live (stream_windows.c) and what each update reads
 * (stream.c) both ask it for every series. */
static inline uint64_t apo__stream_base(const apo_stream *s, uint64_t n) {
    /* A carried run keeps its state at the first of its kept bars (carry_base). */
    if (s->carried > 0)
        return n > s->revise ? n - s->revise : 0;
    /* The window a revise of the last `revise` bars re-runs from (stream_revise.c): the tile
     * that holds bar n - revise, from its start less the halo. */
    if (n < s->revise)
        return 0;
    const uint64_t from = n - s->revise, start = from - from % s->tile;
    return start > s->halo ? start - s->halo : 0;
}

/* Bars a series of n bars keeps per input (n - apo__stream_base()). */
static inline size_t apo__stream_kept(const apo_stream *s, uint64_t n) {
    return (size_t)(n - apo__stream_base(s, n));
}

/* Set j of a stream: a sweep's set j, or a stream of one set itself (j 0). Like strchr, it
 * takes a const stream and gives the set as the caller may use it. */
static inline apo_stream *apo__stream_set(const apo_stream *s, size_t j) {
    return s->n_sets > 0 ? s->sets[j] : (apo_stream *)s;
}

#endif
