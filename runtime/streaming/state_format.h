/*
 * A stream's state as bytes (docs/streaming.md, "The state", byte by byte): a fixed header
 * naming the format, the library, the kernel and its parameters and the grid, then each
 * series' bar count and kept bars, then each series' carried run (obv, ad), then an FNV-1a 64
 * checksum of everything before it. All numbers little-endian, doubles as their IEEE-754 bits (NaN
 * payloads kept).
 *
 * Reading is in two steps so that nothing is built from a state before all of it has been
 * checked: the header and the layout (apo__stream_state_read), then, once the caller has
 * found the kernel the state names, the kernel's agreement with it (apo__stream_state_restore).
 */
#ifndef APO_RUNTIME_STREAMING_STATE_FORMAT_H
#define APO_RUNTIME_STREAMING_STATE_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "streaming/stream.h"

/* 2: the header counts the doubles each series carries (a running sum's state, obv and ad)
 * and the series' carried doubles follow their kept bars. 3: the header gives the bars kept
 * for revises (apo_stream_desc.revise_bars), which the kept windows' lengths follow. A
 * version-2 state still loads, as a stream that keeps none (its layout is version 3's without
 * that field). */
#define APO_STREAM_FORMAT_VERSION 3
#define APO_STREAM_FORMAT_OLDEST 2
#define APO_STREAM_HEADER_LEN 192
#define APO_STREAM_HEADER_LEN_V2 184
/* A sweep's container, whose layout versions 2 and 3 did not change. */
#define APO_STREAM_SWEEP_FORMAT_VERSION 1
#define APO_STREAM_VERSION_LEN 16

/* The header of a state that passed apo__stream_state_read. */
typedef struct apo__stream_head {
    char version[APO_STREAM_VERSION_LEN + 1];
    char kernel[APO_NAME_MAX];
    uint32_t n_params;
    double params[APO_MAX_PARAMS];
    uint64_t seed, tile, halo;
    uint32_t n_inputs, n_outputs;
    uint64_t n_series;
    uint64_t carry;    /* doubles each series carries (apo__stream_carry_len); 0: it keeps bars */
    uint64_t revise;   /* bars kept for revises (0 in a version-2 state) */
    size_t header_len; /* where the series' counts start: the header's length in its version */
} apo__stream_head;

/* Bytes of the stream's state (a sweep's: its container, docs/streaming.md "Sweeps"). */
size_t apo__stream_state_len(const apo_stream *s);

/* Writes the state into buf, which holds apo__stream_state_len(s) bytes. */
void apo__stream_state_write(const apo_stream *s, unsigned char *buf);

/* Whether buf starts with a sweep's magic: its sets' states in a container. */
int apo__stream_state_is_sweep(const void *buf, size_t len);

/* Checks a sweep's container whole (magic, format version, length, checksum, reserved field,
 * that the sets' lengths fill it exactly) and gives the sets' offsets in buf, *n_sets + 1 of
 * them (the last the checksum's), for the caller to free; each set is then a state of its
 * own for apo__stream_state_read. */
apo_status apo__stream_sweep_state_read(const void *buf, size_t len, size_t *n_sets,
                                        size_t **offsets);

/* Checks a state whole: magic, format version, length, checksum, library version, and that
 * its series' counts fill exactly its length. Fails with APO_ERR_INVALID_ARGUMENT, saying
 * which check failed. */
apo_status apo__stream_state_read(const void *buf, size_t len, apo__stream_head *head);

/* A stream from a state that passed apo__stream_state_read, for kernel k (the one the header
 * names): fails unless k has the state's inputs, outputs, tile length and halo and accepts its
 * parameters. */
apo_status apo__stream_state_restore(const apo__stream_head *head, const void *buf,
                                     const apo__kernel *k, apo_stream **out);

#endif
