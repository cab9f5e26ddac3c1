/*
 * Where a stream keeps its series' bars (stream_windows.h; the stream, stream_layout.h): each
 * series' window, a block of its own, a slot of the stream's pool of young windows, or a slot of
 * its slab at the bound, the slots spaced over the cache sets; and a series' window grown to hold
 * more bars (apo__stream_reserve), which an update's reserving pass asks for (stream_room.c).
 */
#define _DEFAULT_SOURCE /* madvise and MADV_HUGEPAGE beside POSIX, for the slab */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "streaming/stream_windows.h"

#if defined(__linux__)
#include <sys/mman.h>
#endif

/* See stream_windows.h. */
size_t apo__stream_window_bound(const apo_stream *s) {
    if (s->carried > 0)
        return s->revise;
    return s->halo + s->tile + (s->revise + s->tile - 1) / s->tile * s->tile;
}

/* Bars per input past which a series' window moves to the slab: a page of them, from which
 * on its next bar is on a page of its own whatever the allocation. */
#define APO_STREAM_SMALL_WINDOW 512

/* Streams of this many series or more keep their young windows in a pool (young_slot). */
#define APO_STREAM_YOUNG_SERIES 256

/* Huge pages are 2 MiB on the systems that give them to anonymous memory on request. */
#define APO_STREAM_HUGE_PAGE ((size_t)2 << 20)

/* Whether `block` is a slot of the stream's slab (not a block of its own to free). */
static int in_slab(const apo_stream *s, const double *block) {
    const uintptr_t at = (uintptr_t)block, from = (uintptr_t)s->slab;
    return s->slab != NULL && at >= from && at < from + s->slab_bytes;
}

/* Whether `block` is a slot of the stream's pool of young windows. */
static int in_young(const apo_stream *s, const double *block) {
    const uintptr_t at = (uintptr_t)block, from = (uintptr_t)s->young;
    return s->young != NULL && at >= from && at < from + s->young_bytes;
}

/* n_series slots of per_series doubles in one block, its pages asked to be huge ones
 * (untouched pages cost nothing), *bytes its size; NULL when there is no memory for it. */
static double *pool_make(size_t n_series, size_t per_series, size_t *bytes) {
    *bytes = 0;
    if (per_series == 0 || n_series > SIZE_MAX / sizeof(double) / per_series)
        return NULL;
    size_t size = n_series * per_series * sizeof(double);
    size = (size + APO_STREAM_HUGE_PAGE - 1) / APO_STREAM_HUGE_PAGE * APO_STREAM_HUGE_PAGE;
    double *pool = size > 0 ? aligned_alloc(APO_STREAM_HUGE_PAGE, size) : NULL;
#if defined(MADV_HUGEPAGE)
    /* Only advice: on a system without huge pages the pool is ordinary memory. */
    if (pool != NULL)
        (void)madvise(pool, size, MADV_HUGEPAGE);
#endif
    *bytes = pool != NULL ? size : 0;
    return pool;
}

/*
 * Doubles per input of a pool's slot of `bars` bars: whole cache lines, an odd count of them.
 * A one-bar update reads each series' newest lines, at the same offset of every slot; at a
 * stride of a power of two (a page of bars, 4 KiB an input) those lines of every series and
 * input fell in the same 32 of the 2,048 sets of a 2 MiB 16-way L2 (and one set of L1), which
 * then held 512 of them whatever its size, and a group update of 5,000 symbols x 10 indicators
 * read them from the next level: 2.48 ms against 1.65 once spaced
 * (docs/perf-log/2026-12-05-xeon-stream-cache-sets.md). An odd count of lines a step reaches
 * every set.
 */
static size_t slot_cap(size_t bars) {
    const size_t per_line = APO_STREAM_LINE / sizeof(double);
    const size_t lines = (bars + per_line - 1) / per_line;
    return lines == 0 ? 0 : (lines | 1) * per_line;
}

/* Doubles a series' slot of a pool takes, its inputs' blocks of `cap` each: a line more when
 * they are an even count, so that slots too start an odd count of lines apart. */
static size_t slot_len(const apo_stream *s, size_t cap) {
    const size_t n_in = s->kernel->n_inputs;
    return n_in * cap + (n_in % 2 == 0 ? APO_STREAM_LINE / sizeof(double) : 0);
}

/* Bars per input of a slab's slot: the bound, spaced as slot_cap spaces them. */
static size_t slab_cap(const apo_stream *s) { return slot_cap(apo__stream_window_bound(s)); }

/*
 * Series r's slot in the slab, which is made at the first window to reach its bound; NULL
 * when there is none (no memory for it: the caller's own block serves, as before there was
 * a slab). Untouched pages cost nothing, so the slab of a stream whose series never fill
 * costs address space only.
 */
static double *slab_slot(apo_stream *s, size_t r) {
    const size_t per_series = slot_len(s, slab_cap(s));
    if (!s->slab_tried) {
        s->slab_tried = 1;
        s->slab = pool_make(s->n_series, per_series, &s->slab_bytes);
    }
    return s->slab != NULL ? s->slab + r * per_series : NULL;
}

/* Bars per input of a young window's slot: a page of them, or the bound where it is less,
 * spaced as slot_cap spaces them. */
static size_t young_cap(const apo_stream *s) {
    const size_t most = apo__stream_window_bound(s);
    return slot_cap(most < APO_STREAM_SMALL_WINDOW ? most : APO_STREAM_SMALL_WINDOW);
}

/*
 * Series r's slot in the pool of young windows (young_cap: 520 bars, APO_STREAM_SMALL_WINDOW
 * and a line), made at the first series to keep a bar, for a stream of
 * APO_STREAM_YOUNG_SERIES series or more; NULL for a smaller stream, or when there is no
 * memory for it (a block of its own serves).
 * Grown by doubling in blocks of their own, the windows of a stream fed a bar an update from
 * the same first bar all grow in the same updates (at 64, 128 and 256 bars), thousands of
 * allocations, copies and fresh pages at once, each series' bars on pages of their own; in
 * the pool they never grow before the slab, and the next bars of neighbouring series share
 * huge pages, as on the slab (docs/perf-log/2026-11-27-stream-latency-3.md). The cost: the
 * pool's pages from the first bar, a page of bars per input and series (at 5,000 symbols x
 * the bench's ten indicators, 400 MB, a tenth of their windows on the slab past 512 bars).
 * It is given back when its last series has moved to the slab.
 */
static double *young_slot(apo_stream *s, size_t r) {
    const size_t per_series = slot_len(s, young_cap(s));
    if (!s->young_tried && s->n_series >= APO_STREAM_YOUNG_SERIES) {
        s->young_tried = 1;
        s->young = pool_make(s->n_series, per_series, &s->young_bytes);
    }
    if (s->young == NULL)
        return NULL;
    s->young_users++;
    return s->young + r * per_series;
}

/* Gives back series r's block (its own, or its slot in the young pool, which goes when its
 * last series leaves); a slot of the slab stays. */
static void drop_block(apo_stream *s, double *block) {
    if (in_young(s, block)) {
        if (--s->young_users == 0) {
            free(s->young);
            s->young = NULL;
            s->young_bytes = 0;
        }
    } else if (!in_slab(s, block)) {
        free(block);
    }
}

apo_status apo__stream_reserve(apo_stream *s, size_t r, size_t bars) {
    apo__stream_series *se = &s->series[r];
    if (bars <= se->cap)
        return APO_OK;
    size_t n_in = s->kernel->n_inputs;
    /* A window past a page of bars takes its slot in the slab, at its bound, where it never
     * grows again; a short one takes its slot in the young pool of a stream of many series,
     * else (a short history, a test's) keeps a small block of its own. */
    double *in = NULL;
    if (bars > APO_STREAM_SMALL_WINDOW) {
        if ((in = slab_slot(s, r)) != NULL)
            bars = slab_cap(s);
    } else if (!in_young(s, se->in) && (in = young_slot(s, r)) != NULL) {
        bars = young_cap(s);
    }
    if (in == NULL)
        in = malloc(n_in * bars * sizeof *in);
    if (in == NULL)
        return apo__fail(APO_ERR_OUT_OF_MEMORY, "apo_stream: no memory for %zu bars of series %zu",
                         bars, r);
    size_t kept = apo__stream_kept(s, se->n);
    for (size_t i = 0; i < n_in && kept > 0; i++)
        memcpy(in + i * bars, se->in + i * se->cap, kept * sizeof *in);
    drop_block(s, se->in);
    se->in = in;
    se->cap = bars;
    return APO_OK;
}

void apo__stream_free_windows(apo_stream *s) {
    for (size_t r = 0; s->series != NULL && r < s->n_series; r++)
        if (!in_slab(s, s->series[r].in) && !in_young(s, s->series[r].in))
            free(s->series[r].in);
    free(s->slab);
    free(s->young);
}
