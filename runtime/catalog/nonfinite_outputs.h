/*
 * Outputs that are not finite although every input sample that defines them is: an
 * overflow inside a kernel's arithmetic, for inputs beyond the range it computes through
 * (docs/kernels.md, "Range"). Each function counts them in positions [begin, end) of one
 * row of a call, after the tile was written, and is the built-in's `count_nonfinite` hook
 * (kernel.h). Ordinary data must cost a small fraction of the tile, so each first asks a
 * cheap question that settles it: bollinger, whether every sample is within the range it
 * computes through (one read of the input, in cache), then whether upper and lower are all
 * finite; macd, whether the output at the tile's last finite sample is (O(1)). Only a tile
 * that fails these is examined position by position.
 */
#ifndef APO_RUNTIME_CATALOG_NONFINITE_OUTPUTS_H
#define APO_RUNTIME_CATALOG_NONFINITE_OUTPUTS_H

#include <stddef.h>
#include <stdint.h>

#include "catalog/kernel.h"

/* Bollinger: output t (t >= period - 1) is defined from x[t - period + 1 .. t]; it counts
 * when those samples are all finite and upper, middle or lower is not (each such value
 * counts once). */
uint64_t apo__bollinger_nonfinite(const apo__call *call, size_t row, size_t begin, size_t end);

/* MACD: output t is defined when x[t] is finite and the tile has seen max(fast, slow) +
 * signal - 1 finite samples by t, counted from its warm-up start max(0, begin - H) (macd.c);
 * the finite samples are all it uses (non-finite ones are gaps). It counts when macd,
 * signal or hist is not finite there (each such value counts once), in every tile whose
 * running state overflowed. A macd or hist value that overflows on its own while the state
 * stays finite (only where a tile's samples span more than DBL_MAX / 2) is not counted
 * unless the tile's state overflowed too. */
uint64_t apo__macd_nonfinite(const apo__call *call, size_t row, size_t begin, size_t end);

#endif
