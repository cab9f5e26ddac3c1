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
} apo__stream_series;

struct apo_stream {
    const apo__kernel *kernel;     /* a built-in, or a user kernel in its runtime's registry */
    double params[APO_MAX_PARAMS]; /* resolved, in the kernel's order */
    uint64_t seed;
    size_t n_series;
    size_t tile, halo;
    apo__stream_series *series;
    double *scratch; /* n_outputs blocks of scratch_cap doubles: the current tile's outputs */
    size_t scratch_cap;
    int broken; /* a user kernel failed mid-update: the series may disagree on where they are */
};

/* Fails (APO_ERR_INVALID_ARGUMENT, naming the kernel and why) unless the kernel's outputs
 * are per bar over halo-bounded windows: the reductions and whole-row kernels are refused. */
apo_status apo__stream_check_kernel(const apo__kernel *k, const double *params);

/* A stream of n_series empty series (n_series checked by the caller). */
apo_status apo__stream_new(const apo__kernel *k, const double *params, size_t n_series,
                           uint64_t seed, apo_stream **out);

/* The first position a series of n bars keeps: the current tile's start less the halo. */
uint64_t apo__stream_base(const apo_stream *s, uint64_t n);

/* Bars a series of n bars keeps per input (n - apo__stream_base()). */
size_t apo__stream_kept(const apo_stream *s, uint64_t n);

/* Gives series `r` room for `bars` kept bars per input; its kept bars stay. */
apo_status apo__stream_reserve(apo_stream *s, size_t r, size_t bars);

/* apo_stream_update(), arguments already checked for NULL. */
apo_status apo__stream_feed(apo_stream *s, const size_t *n_new, const double *const *inputs,
                            double *const *outputs);

void apo__stream_free(apo_stream *s);

#endif
