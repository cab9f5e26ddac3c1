/*
 * bollinger.cu: Bollinger bands on a GPU, the CUDA twin of bollinger.c.
 *
 * What: for one chunk view (kernels_cuda.h), the upper, middle and lower bands of every
 * tile of rows [row0, row0 + rows), positions [begin, end), into v->out[0], [1] and [2]
 * at absolute indices, with the semantics of apo__cpu_bollinger_tile() (bollinger.h).
 *
 * Launch shape: in the staged variant (the default), the launcher hands the view to
 * apo__cuda_bollinger_staged (staged.cu: a warp per 32 tiles, through shared memory), or first
 * to apo__cuda_bollinger_split where the process asked for pairs of warps (bollinger_split.cu). The
 * simple variant here: one thread per (row, tile) of the view (cuda_chunk.h): 256-thread blocks,
 * a grid-stride loop over rows * chunk_tiles items. Each thread runs the whole serial tile
 * body apo__bollinger_tile (bollinger_tile.h) on its tile, reading x from
 * begin - (period - 1) (the halo the runtime staged) and writing its own outputs only.
 *
 * Determinism: the thread runs the very source the CPU runs, on the same tile bounds,
 * compiled with -fmad=false (no FMA contraction, like gcc -ffp-contract=off on the CPU) and
 * using only IEEE +, -, *, /, sqrt (correctly rounded in CUDA's double precision) and fabs
 * and comparisons; no atomics, no state shared between threads. So every output has the
 * CPU's bits, whatever the grid or the split.
 */
#include <cuda_runtime.h>

#include "bollinger_tile.h"
#include "cuda_chunk.h"
#include "kernels_cuda.h"

static __global__ void apo__bollinger_kernel(apo__cuda_view v, size_t tiles, size_t period,
                                             double nbdev_up, double nbdev_dn) {
    const size_t items = v.rows * tiles;
    for (size_t i = apo__cuda_first_item(); i < items; i += apo__cuda_item_stride()) {
        const apo__chunk_item it = apo__chunk_item_of(&v, tiles, i);
        const double *x = v.x + it.row * v.cols;
        const size_t o = it.row * v.out_cols;
        apo__bollinger_tile(x, it.begin, it.end, period, nbdev_up, nbdev_dn, v.out[0] + o,
                            v.out[1] + o, v.out[2] + o);
    }
}

extern "C" int apo__cuda_bollinger(const apo__cuda_view *v, size_t period, double nbdev_up,
                                   double nbdev_dn, void *stream) {
    if (v == NULL || v->tile == 0 || period < 1 || v->x == NULL || v->out[0] == NULL ||
        v->out[1] == NULL || v->out[2] == NULL) {
        return (int)cudaErrorInvalidValue;
    }
    if (v->rows == 0 || v->begin >= v->end) {
        return (int)cudaSuccess;
    }
    if (apo__cuda_kernels_get() == APO_CUDA_KERNELS_STAGED) {
        int rc = APO_CUDA_NOT_STAGED;
        if (apo__cuda_bollinger_split_get()) {
            rc = apo__cuda_bollinger_split(v, period, nbdev_up, nbdev_dn, stream);
        }
        if (rc == APO_CUDA_NOT_STAGED) {
            rc = apo__cuda_bollinger_staged(v, period, nbdev_up, nbdev_dn, stream);
        }
        if (rc != APO_CUDA_NOT_STAGED) {
            return rc;
        }
    }
    const size_t tiles = apo__chunk_tiles(v);
    apo__bollinger_kernel<<<apo__cuda_blocks(v->rows * tiles), APO_CUDA_BLOCK, 0,
                            static_cast<cudaStream_t>(stream)>>>(*v, tiles, period, nbdev_up,
                                                                 nbdev_dn);
    return (int)cudaGetLastError();
}
