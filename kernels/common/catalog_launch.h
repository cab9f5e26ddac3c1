/*
 * catalog_launch.h: the one CUDA kernel and launcher shape of every catalog family, as a
 * macro each kernels/<room>/<room>.cu instantiates with its family's dispatch
 * (apo__<family>_tile).
 *
 * Launch shape: 256-thread blocks and a grid-stride loop over the view's rows x tiles
 * (cuda_chunk.h); the thread of item i runs the whole serial tile body on that tile's
 * bounds, with the row's input and output pointers. The whole-row running sums (obv, ad:
 * apo__catalog_whole_row) take one item per row instead, the union of its tiles, as the CPU
 * does: each of their tiles sums the row from its first sample, so a thread per tile would
 * do work quadratic in the row's length. Either way a row is one serial chain, the GPU's
 * time is that chain's latency (a 1e6-sample obv: 245 ms on an H100 both ways,
 * docs/perf-log/2026-11-25-h100-first-run.md), and these kernels belong on the CPU where there is
 * one. No state is shared between threads and every output is written by one thread, so the bits
 * are the CPU's (catalog.h).
 */
#ifndef APO_KERNELS_CATALOG_LAUNCH_CUH
#define APO_KERNELS_CATALOG_LAUNCH_CUH

#include <cuda_runtime.h>

#include "catalog_cuda.h"
#include "cuda_chunk.h"

#define APO_CATALOG_CUDA_FAMILY(family)                                                            \
    static __global__ void apo__##family##_kernel(apo__cuda_view v, size_t tiles, int id,          \
                                                  apo__cat_io base, int whole_rows) {              \
        const size_t items = whole_rows ? v.rows : v.rows * tiles;                                 \
        for (size_t i = apo__cuda_first_item(); i < items; i += apo__cuda_item_stride()) {         \
            const apo__chunk_item it =                                                             \
                whole_rows ? apo__chunk_row_of(&v, i) : apo__chunk_item_of(&v, tiles, i);          \
            apo__cat_io io = base;                                                                 \
            for (int k = 0; k < APO_CAT_MAX_IN; k++)                                               \
                io.in[k] = base.in[k] != NULL ? base.in[k] + it.row * v.cols : NULL;               \
            for (int k = 0; k < APO_CAT_MAX_OUT; k++)                                              \
                io.out[k] = base.out[k] != NULL ? base.out[k] + it.row * v.out_cols : NULL;        \
            apo__##family##_tile(id, &io, it.begin, it.end);                                       \
        }                                                                                          \
    }                                                                                              \
    extern "C" int apo__cuda_##family(int id, const apo__cuda_view *v, const apo__cat_io *base,    \
                                      void *stream) {                                              \
        if (v == NULL || base == NULL || v->tile == 0 || base->in[0] == NULL ||                    \
            base->out[0] == NULL)                                                                  \
            return (int)cudaErrorInvalidValue;                                                     \
        if (v->rows == 0 || v->begin >= v->end)                                                    \
            return (int)cudaSuccess;                                                               \
        const size_t tiles = apo__chunk_tiles(v);                                                  \
        const int whole_rows = apo__catalog_whole_row((apo__cat_id)id);                            \
        const unsigned int blocks = apo__cuda_blocks(whole_rows ? v->rows : v->rows * tiles);      \
        apo__##family##_kernel<<<blocks, APO_CUDA_BLOCK, 0, static_cast<cudaStream_t>(stream)>>>(  \
            *v, tiles, id, *base, whole_rows);                                                     \
        return (int)cudaGetLastError();                                                            \
    }

#endif /* APO_KERNELS_CATALOG_LAUNCH_CUH */
