/*
 * returns_stats.cu: moments of the simple returns on a GPU, the CUDA twin of
 * returns_stats.c.
 *
 * What: for one chunk view (kernels_cuda.h), the apo__moments partial {count, mean, m2, min,
 * max} of the finite returns of every tile of rows [row0, row0 + rows), positions
 * [begin, end), with the semantics of apo__cpu_returns_stats_tile() (kernels.h), written as 5
 * doubles per tile to v->partials in the layout of kernels_cuda.h. The outputs (count,
 * mean, variance, min, max per row) are finalized on the host from the merged partials.
 *
 * Launch shape: in the staged variant (the default), the launcher hands the view to
 * apo__cuda_returns_stats_staged (staged.cu: a warp per 32 tiles, through shared memory). The
 * simple variant here: one thread per (row, tile) of the view (cuda_chunk.h): 256-thread blocks,
 * a grid-stride loop over rows * chunk_tiles items. Each thread runs the serial two-pass
 * tile body apo__returns_stats_tile (returns_stats_tile.h), reading x from begin - 1.
 *
 * Determinism: the thread runs the very source the CPU runs, on the same tile bounds,
 * compiled with -fmad=false (no FMA contraction, like gcc -ffp-contract=off on the CPU) and
 * using only IEEE +, -, *, /, isfinite and comparisons; each tile's partial goes to its own
 * slot (no atomics), and the host merges the partials in the fixed tree. So the partials,
 * and so the statistics, have the CPU's bits whatever the grid or the split.
 */
#include <cuda_runtime.h>

#include "cuda_chunk.h"
#include "kernels_cuda.h"
#include "returns_stats_tile.h"

static_assert(sizeof(apo__moments) == APO_PARTIAL_DOUBLES * sizeof(double),
              "a partial is 5 doubles");

static __global__ void apo__returns_stats_kernel(apo__cuda_view v, size_t tiles) {
    const size_t items = v.rows * tiles;
    for (size_t i = apo__cuda_first_item(); i < items; i += apo__cuda_item_stride()) {
        const apo__chunk_item it = apo__chunk_item_of(&v, tiles, i);
        apo__moments m;
        apo__returns_stats_tile(v.x + it.row * v.cols, it.begin, it.end, &m);
        apo__store_partial(v.partials + i * APO_PARTIAL_DOUBLES, &m);
    }
}

extern "C" int apo__cuda_returns_stats(const apo__cuda_view *v, void *stream) {
    if (v == NULL || v->tile == 0 || v->x == NULL || v->partials == NULL) {
        return (int)cudaErrorInvalidValue;
    }
    if (v->rows == 0 || v->begin >= v->end) {
        return (int)cudaSuccess;
    }
    if (apo__cuda_kernels_get() == APO_CUDA_KERNELS_STAGED) {
        return apo__cuda_returns_stats_staged(v, stream);
    }
    const size_t tiles = apo__chunk_tiles(v);
    apo__returns_stats_kernel<<<apo__cuda_blocks(v->rows * tiles), APO_CUDA_BLOCK, 0,
                                static_cast<cudaStream_t>(stream)>>>(*v, tiles);
    return (int)cudaGetLastError();
}
