/*
 * macd.cu: MACD on a GPU, the CUDA twin of macd.c.
 *
 * What: for one chunk view (kernels_cuda.h), the macd line, the signal line and the
 * histogram of every tile of rows [row0, row0 + rows), positions [begin, end), into
 * v->out[0], [1] and [2] at absolute indices, with the semantics of apo__cpu_macd_tile()
 * (macd.h): TA-Lib's seeding, non-finite samples as gaps, fast > slow swapped.
 *
 * Launch shape: in the staged variant (the default), the launcher hands the view to
 * apo__cuda_macd_cut (staged.cu: each tile cut into pieces in the lanes of staged warps, then
 * checked; docs/cuda.md, "Lone tiles cut into pieces"), or where the cut does not pay to
 * apo__cuda_macd_staged (staged.cu: a warp per 32 tiles, through shared memory). The
 * simple variant here: one thread per (row, tile) of the view (cuda_chunk.h): 256-thread blocks,
 * a grid-stride loop over rows * chunk_tiles items. Each thread runs the whole serial tile
 * body apo__macd_tile (macd_tile.h): it re-runs the EMAs from begin - H (the halo the
 * runtime staged) and writes [begin, end) of its tile only.
 *
 * Determinism: the warm-up H needs libm's log, which a GPU may round differently, so the
 * launcher (host code) computes it with the CPU's own apo__macd_warmup (macd.c) and passes
 * it in; the thread then runs the very source the CPU runs, on the same tile bounds,
 * compiled with -fmad=false (no FMA contraction, like gcc -ffp-contract=off on the CPU) and
 * using only IEEE +, -, *, / and isfinite; no atomics, no state shared between threads. So
 * every output has the CPU's bits, whatever the grid or the split. Links against the CPU
 * kernel library for apo__macd_warmup.
 */
#include <cuda_runtime.h>

#include "cuda_chunk.h"
#include "kernels_cuda.h"
#include "macd.h"
#include "macd_tile.h"

static __global__ void apo__macd_kernel(apo__cuda_view v, size_t tiles, size_t fast, size_t slow,
                                        size_t signal, size_t warmup) {
    const size_t items = v.rows * tiles;
    for (size_t i = apo__cuda_first_item(); i < items; i += apo__cuda_item_stride()) {
        const apo__chunk_item it = apo__chunk_item_of(&v, tiles, i);
        const double *x = v.x + it.row * v.cols;
        const size_t o = it.row * v.out_cols;
        apo__macd_tile(x, it.begin, it.end, fast, slow, signal, warmup, v.out[0] + o, v.out[1] + o,
                       v.out[2] + o);
    }
}

extern "C" int apo__cuda_macd(const apo__cuda_view *v, size_t fast, size_t slow, size_t signal,
                              void *stream) {
    if (v == NULL || v->tile == 0 || fast < 1 || slow < 1 || signal < 1 || v->x == NULL ||
        v->out[0] == NULL || v->out[1] == NULL || v->out[2] == NULL) {
        return (int)cudaErrorInvalidValue;
    }
    if (v->rows == 0 || v->begin >= v->end) {
        return (int)cudaSuccess;
    }
    /* The CPU's warm-up, from the same parameters (it takes the larger of fast and slow, as
     * the swap in the tile body does). */
    const size_t warmup = apo__macd_warmup(fast, slow, signal);
    if (apo__cuda_kernels_get() == APO_CUDA_KERNELS_STAGED) {
        /* Its tiles cut into pieces where that pays, else a warp a group of tiles. */
        const int rc = apo__cuda_macd_cut(v, fast, slow, signal, warmup, stream, NULL);
        if (rc != APO_CUDA_NOT_CUT) {
            return rc;
        }
        return apo__cuda_macd_staged(v, fast, slow, signal, warmup, stream);
    }
    const size_t tiles = apo__chunk_tiles(v);
    apo__macd_kernel<<<apo__cuda_blocks(v->rows * tiles), APO_CUDA_BLOCK, 0,
                       static_cast<cudaStream_t>(stream)>>>(*v, tiles, fast, slow, signal, warmup);
    return (int)cudaGetLastError();
}
