/*
 * Revising a stream's last bars and starting a stream from a window of a history
 * (docs/streaming.md, "Revise", "Resume from a window").
 *
 * A revise of the last k bars of a series keeps its bar count: the corrected bars replace
 * the old ones where they lie in the kept window, which a stream made with revise_bars K >= k
 * reaches back far enough for (apo__stream_base: from the start of bar n - K's tile, less
 * the halo), and every tile from bar n - k's to the last is run again from its start, as the
 * batch runs it. So the window stays a function of the bar count alone, and the saved state
 * needs nothing but K to describe it.
 *
 * A stream resumed from a window is a stream loaded from a state built of those bars: the
 * kept bars of a series of n bars are all its next update reads, and the kernels' running
 * states are caches rebuilt from them. The carried runs (obv, ad, sar, ...) keep their last K
 * bars and their state K bars back, from which a revise replays the run (stream.h,
 * carry_base); no window holds their state from the first bar, so they do not resume.
 */
#ifndef APO_RUNTIME_STREAMING_STREAM_REVISE_H
#define APO_RUNTIME_STREAMING_STREAM_REVISE_H

#include <stddef.h>
#include <stdint.h>

#include "streaming/stream.h"

/* The most bars a stream may keep for revises (apo_stream_desc.revise_bars). */
#define APO_STREAM_MAX_REVISE ((size_t)1 << 24)

/* Fails (APO_ERR_INVALID_ARGUMENT, naming `call`) unless a stream may keep `revise` bars for
 * revises: at most APO_STREAM_MAX_REVISE (a carried run keeps its state K bars back too,
 * stream.h's carry_base). */
apo_status apo__stream_check_revise(size_t revise, const char *call);

/* apo_stream_revise(), arguments checked but k[r] against the kept window: replaces the last
 * k[r] bars of each series r with the packed inputs and writes their outputs (a sweep's sets
 * one after another, `total` apart). All or nothing: on any failure every set's kept bars are
 * as they were. */
apo_status apo__stream_revise(apo_stream *s, const size_t *k, size_t total,
                              const double *const *inputs, double *const *outputs);

/* Bars a series of n bars must be given for a stream resumed from them: the stream's kept
 * window at n (the most over a sweep's sets). */
size_t apo__stream_resume_needs(const apo_stream *s, uint64_t n);

/* Fills the empty stream s (every set) from windows of histories: series r's n_bars[r] bars,
 * packed, the first of them at position first[r]. Fails, changing nothing that the caller
 * keeps, where a window holds fewer bars than the series needs or the kernel carries its run. */
apo_status apo__stream_resume_fill(apo_stream *s, const uint64_t *first, const size_t *n_bars,
                                   const double *const *inputs);

#endif
