/*
 * bootstrap.cu: bootstrap replicate means on a GPU, the CUDA twin of bootstrap.c.
 *
 * What: for one chunk view (kernels_cuda.h), whose tiled axis is the replicates
 * (out_cols of them; a row has n = cols samples), the replicate means of replicates
 * [begin, end) of rows [row0, row0 + rows) into v->out[0] at absolute indices, with the
 * semantics of apo__cpu_bootstrap_tile() (reductions.h), then the apo__moments partial of every
 * tile of 8 means, as apo__cpu_bootstrap_tile_moments() computes it, into v->partials (5 doubles
 * per tile, the layout of kernels_cuda.h). The mean and standard error per row are finalized on the
 * host from the merged partials.
 *
 * Launch shape: two kernels on the stream, in order. The means: in the staged variant (the
 * default) apo__cuda_bootstrap_means_staged (staged.cu: a warp per replicate); in the simple
 * one apo__bootstrap_means_kernel: one thread
 * per (row, replicate), 256-thread blocks and a grid-stride loop over rows * (end - begin)
 * items (the view's item mapping with a tile of 1, cuda_chunk.h); each thread draws its
 * replicate's n - 1 returns from the whole row and writes one mean.
 * apo__bootstrap_moments_kernel: one thread per (row, tile of 8 replicates), the same
 * blocks, reading the means the first kernel wrote.
 *
 * Determinism: every draw is keyed by (seed, global row, replicate, draw index) through
 * Philox4x32-10 with exact integer arithmetic (philox_tile.h), never by a thread. A thread
 * runs apo__bootstrap_tile on [b, b + 1), which is exactly what the CPU's loop over the tile
 * does for replicate b, since replicates share nothing; the moments run
 * apo__bootstrap_tile_moments on the CPU's tile bounds. Both are the CPU's source, compiled
 * with -fmad=false, with only IEEE +, -, *, / and comparisons; no atomics. So the means and
 * the partials have the CPU's bits, except the sign and payload of a NaN mean (a non-finite
 * return drawn), which IEEE 754 leaves to the hardware (bootstrap_tile.h).
 */
#include <cuda_runtime.h>

#include "bootstrap_tile.h"
#include "cuda_chunk.h"
#include "kernels_cuda.h"

static_assert(sizeof(apo__moments) == APO_PARTIAL_DOUBLES * sizeof(double),
              "a partial is 5 doubles");

/* `v` is the chunk view with tile 1, so item i is one replicate [b, b + 1) of one row. */
static __global__ void apo__bootstrap_means_kernel(apo__cuda_view v, size_t replicates,
                                                   uint64_t seed) {
    const size_t items = v.rows * replicates;
    for (size_t i = apo__cuda_first_item(); i < items; i += apo__cuda_item_stride()) {
        const apo__chunk_item it = apo__chunk_item_of(&v, replicates, i);
        apo__bootstrap_tile(v.x + it.row * v.cols, v.cols, seed, (uint64_t)it.row, it.begin, it.end,
                            v.out[0] + it.row * v.out_cols);
    }
}

static __global__ void apo__bootstrap_moments_kernel(apo__cuda_view v, size_t tiles) {
    const size_t items = v.rows * tiles;
    for (size_t i = apo__cuda_first_item(); i < items; i += apo__cuda_item_stride()) {
        const apo__chunk_item it = apo__chunk_item_of(&v, tiles, i);
        apo__moments m;
        apo__bootstrap_tile_moments(v.out[0] + it.row * v.out_cols, it.begin, it.end, &m);
        apo__store_partial(v.partials + i * APO_PARTIAL_DOUBLES, &m);
    }
}

extern "C" int apo__cuda_bootstrap(const apo__cuda_view *v, uint64_t seed, void *stream) {
    if (v == NULL || v->tile == 0 || v->cols < 2 || v->x == NULL || v->out[0] == NULL ||
        v->partials == NULL) {
        return (int)cudaErrorInvalidValue;
    }
    if (v->rows == 0 || v->begin >= v->end) {
        return (int)cudaSuccess;
    }
    cudaStream_t s = static_cast<cudaStream_t>(stream);

    apo__cuda_view per_replicate = *v;
    per_replicate.tile = 1;
    const size_t replicates = v->end - v->begin;
    cudaError_t rc;
    if (apo__cuda_kernels_get() == APO_CUDA_KERNELS_STAGED) {
        rc =
            (cudaError_t)apo__cuda_bootstrap_means_staged(&per_replicate, replicates, seed, stream);
    } else {
        apo__bootstrap_means_kernel<<<apo__cuda_blocks(v->rows * replicates), APO_CUDA_BLOCK, 0,
                                      s>>>(per_replicate, replicates, seed);
        rc = cudaGetLastError();
    }
    if (rc != cudaSuccess) {
        return (int)rc;
    }

    const size_t tiles = apo__chunk_tiles(v);
    apo__bootstrap_moments_kernel<<<apo__cuda_blocks(v->rows * tiles), APO_CUDA_BLOCK, 0, s>>>(
        *v, tiles);
    return (int)cudaGetLastError();
}
