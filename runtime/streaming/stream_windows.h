/*
 * Where a stream keeps its series' bars (stream_windows.c): a series' window grown to hold
 * more bars, the bound of a window, and the windows freed.
 */
#ifndef APO_RUNTIME_STREAMING_STREAM_WINDOWS_H
#define APO_RUNTIME_STREAMING_STREAM_WINDOWS_H

#include "streaming/stream_layout.h"

/* Gives series `r` room for `bars` kept bars per input; its kept bars stay. */
apo_status apo__stream_reserve(apo_stream *s, size_t r, size_t bars);

/* The most bars a series holds per input (stream_windows.c): the current tile's and the halo
 * before it, a piece of new bars included, and for a stream that revises the tiles back to bar
 * n - revise's. */
size_t apo__stream_window_bound(const apo_stream *s);

/* Frees every series' window and the stream's pools (stream_windows.c). */
void apo__stream_free_windows(apo_stream *s);

#endif
