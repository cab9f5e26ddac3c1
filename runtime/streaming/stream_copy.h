/*
 * A stream's independent copy (apo_stream_fork(); docs/streaming.md, "Fork"): the same
 * series, kept windows and running states, in memory of its own, so that the copy and the
 * original go on apart, each with the bits of its own bars. It costs what a save and a load
 * cost (the kept windows), without the bytes between them, and keeps the running state, which
 * a loaded stream rebuilds once.
 */
#ifndef APO_RUNTIME_STREAMING_STREAM_COPY_H
#define APO_RUNTIME_STREAMING_STREAM_COPY_H

#include "streaming/stream.h"

/* A copy of s (not broken: the caller checks), with its runtime, device and vector-path
 * settings. Returns APO_ERR_OUT_OF_MEMORY with nothing made. */
apo_status apo__stream_copy(const apo_stream *s, apo_stream **out);

#endif
