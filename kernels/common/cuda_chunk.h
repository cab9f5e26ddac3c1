/*
 * cuda_chunk.h: how the CUDA kernels (<name>.cu in each family's room) map their threads onto the
 * tiles of an apo__cuda_view (kernels_cuda.h).
 *
 * What: a chunk view holds rows [row0, row0 + rows) and positions [begin, end) of the tiled
 * axis, begin on a tile boundary. Each row of it has chunk_tiles = ceil(end / tile) -
 * begin / tile tiles, and work item i in [0, rows * chunk_tiles) is tile
 * j = begin / tile + i % chunk_tiles of global row row0 + i / chunk_tiles, covering
 * [max(j * tile, begin), min((j + 1) * tile, end)); `end` is a tile boundary or the axis
 * length, so that is exactly the CPU's tile j. Item i is also the index of its tile's
 * partial (partials[i * 5], the layout of kernels_cuda.h; the reductions write it with
 * apo__store_partial of reductions/moments_tile.h). The item mapping is APO_HD
 * plain code, so a host-only test can drive the tile bodies through it exactly as the GPU
 * does; the launch helpers below it exist under nvcc only.
 *
 * Launch shape: 256-thread blocks, a grid of ceil(items / 256) blocks capped at 65535, and
 * a grid-stride loop over the items, so any item count is covered.
 *
 * Determinism: a thread's item, and so its tile bounds, depend only on the view and i; the
 * tile body does not depend on which thread runs it, and no two items write the same
 * output or partial. Grid size and scheduling therefore do not change any bit.
 */
#ifndef APO_CUDA_CHUNK_H
#define APO_CUDA_CHUNK_H

#include "apo_hd.h"
#include "kernels_cuda.h"

/* Tiles in each row of the view: ceil(end / tile) - begin / tile. */
static inline APO_HD size_t apo__chunk_tiles(const apo__cuda_view *v) {
    return (v->end + v->tile - 1) / v->tile - v->begin / v->tile;
}

/* The length of the view's longest tile: its first, since begin lies on a tile boundary and
 * only the last tile may be short. The cuts' launchers ask whether that tile's cut pays: if
 * it does not, no tile's does. */
static inline APO_HD size_t apo__chunk_longest_tile(const apo__cuda_view *v) {
    return v->end - v->begin < v->tile ? v->end - v->begin : v->tile;
}

/* One work item: the tile [begin, end) of global row `row`. */
typedef struct apo__chunk_item {
    size_t row;
    size_t begin, end;
} apo__chunk_item;

/* Work item i (i < v->rows * tiles, tiles = apo__chunk_tiles(v)) of the view. */
static inline APO_HD apo__chunk_item apo__chunk_item_of(const apo__cuda_view *v, size_t tiles,
                                                        size_t i) {
    const size_t j = v->begin / v->tile + i % tiles;
    apo__chunk_item it;
    it.row = v->row0 + i / tiles;
    it.begin = j * v->tile > v->begin ? j * v->tile : v->begin;
    it.end = (j + 1) * v->tile < v->end ? (j + 1) * v->tile : v->end;
    return it;
}

/* Row i (i < v->rows) of the view whole: the union of its tiles, [begin, end) of global row
 * row0 + i. The work item of a kernel whose tile bits do not depend on where the tile
 * begins (the catalog's whole-row running sums, catalog.h): one call over a row's tiles
 * reads the row's prefix once, where a thread per tile would read it once per tile. */
static inline APO_HD apo__chunk_item apo__chunk_row_of(const apo__cuda_view *v, size_t i) {
    apo__chunk_item it;
    it.row = v->row0 + i;
    it.begin = v->begin;
    it.end = v->end;
    return it;
}

/* A thread's walk over the positions of a view one at a time (the position-independent
 * catalog kernels' launch, catalog_launch.h): work item i is position begin + i % n of row
 * row0 + i / n, n = end - begin, so the 32 lanes of a warp hold 32 consecutive positions of a
 * row and their loads and stores are coalesced. A thread takes items first, first + stride,
 * ...; the stride is cut once into whole rows and positions, so a step costs no division. */
typedef struct apo__chunk_walk {
    size_t row;         /* the row of the view, from 0: the walk is over once it reaches rows */
    size_t at;          /* the position, from begin: begin + at */
    size_t n;           /* positions a row: end - begin */
    size_t stride_rows; /* the stride's whole rows */
    size_t stride_at;   /* and its positions beyond them */
} apo__chunk_walk;

/* The walk of the thread whose first item is `first`, with the grid's `stride`; the view is
 * not empty (n > 0). */
static inline APO_HD apo__chunk_walk apo__chunk_walk_from(const apo__cuda_view *v, size_t first,
                                                          size_t stride) {
    apo__chunk_walk w;
    w.n = v->end - v->begin;
    w.row = first / w.n;
    w.at = first % w.n;
    w.stride_rows = stride / w.n;
    w.stride_at = stride % w.n;
    return w;
}

/* The next item of the walk: `stride` items on. */
static inline APO_HD void apo__chunk_walk_next(apo__chunk_walk *w) {
    w->at += w->stride_at;
    w->row += w->stride_rows;
    if (w->at >= w->n) {
        w->at -= w->n;
        w->row++;
    }
}

#ifdef __CUDACC__

#define APO_CUDA_BLOCK 256

/* Blocks for `items` work items; the kernels' grid-stride loops cover the rest. */
static inline unsigned int apo__cuda_blocks(size_t items) {
    const size_t blocks = (items + APO_CUDA_BLOCK - 1) / APO_CUDA_BLOCK;
    return (unsigned int)(blocks < 65535 ? blocks : 65535);
}

static inline __device__ size_t apo__cuda_first_item(void) {
    return (size_t)blockIdx.x * blockDim.x + threadIdx.x;
}

static inline __device__ size_t apo__cuda_item_stride(void) {
    return (size_t)gridDim.x * blockDim.x;
}

#endif /* __CUDACC__ */

#endif /* APO_CUDA_CHUNK_H */
