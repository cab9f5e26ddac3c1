/*
 * kernels.h: the pure-C CPU reference kernels of apportion.
 *
 * Every kernel here is a serial tile function: the runtime cuts the tiled axis of a series
 * into tiles whose length depends only on the kernel parameters (the *_tile_len functions)
 * and calls the tile function once per tile, with absolute indices into the whole row. A
 * tile function reads the input only, restarts every accumulator at the start of its tile
 * and writes only the outputs of its own tile, so its result depends on the tile grid and
 * never on which device or thread ran which tile, or in which order. These functions use
 * no threads, allocate nothing and depend on nothing but libc and libm.
 *
 * The arithmetic of each tile lives in an APO_HD static inline body in <name>_tile.h, in its
 * family's room (apo_hd.h), which the CUDA kernels of <name>.cu beside it (kernels_cuda.h)
 * call too; the functions declared in the families' headers gathered here wrap those bodies with
 * their precondition checks, so the CPU and the GPU run one source. The inline bodies are internal
 * (apo__ names): use the apo_ names outside kernels/.
 *
 * Conventions: `x` points at index 0 of a row of `n` samples; outputs are indexed by
 * absolute position, so a tile [begin, end) writes out[begin] .. out[end - 1] only.
 * Callers guarantee begin < end <= n (bootstrap: b_begin < b_end and n >= 2); the
 * functions check these preconditions with assert. Semantics, NaN/inf policy and accuracy
 * are described in docs/kernels.md.
 */
#ifndef APO_KERNELS_H
#define APO_KERNELS_H

#include <stddef.h>
#include <stdint.h>

/* Every family's entry points; the rooms' order is in kernels/README.md. */
#include "bollinger.h"
#include "bollinger_pass.h"
#include "cpu_isa.h"
#include "macd.h"
#include "reductions.h"
#include "tile_span.h"

#endif /* APO_KERNELS_H */
