/*
 * anchor_stage.h: the anchored catalog kernels' blocks brought through shared memory, so that
 * a warp's loads and stores are coalesced (catalog_launch.h, docs/cuda.md "The anchored
 * kernels").
 *
 * Why: a thread per block between anchors puts a warp's 32 lanes a block apart (512 bytes for
 * A = 64), so each of its loads and stores touches 32 lines and the lanes' lines evict each
 * other from L1. Taken only for the kernels a family names (catalog_launch.h): on an H200 it
 * made var, stddev and the linearreg family 1.3 to 2 times faster, and sma, wma and correl
 * slower (docs/perf-log/2026-11-27-h200-fourth-visit.md). Here a warp owns 32
 * consecutive items (blocks) and, for each, the warp copies the block's samples, from its
 * halo on, into that lane's region of shared memory, 32 consecutive doubles a load; each lane
 * runs its unchanged tile body on its region, writing its outputs into an output region; then
 * the warp stores every lane's outputs, 32 consecutive doubles a store.
 *
 * The body reads in[k][t] for t in [begin - h, end) and writes out[m][t] for t in [begin, end)
 * (the halo contract of catalog.h: h, the io's field), so its pointers are the regions moved
 * back by the region's first position: the body indexes them with the absolute positions it
 * always uses, and performs the same operations: the bits are those of the block computed from
 * global memory, which are the tile's (anchor_blocks.h).
 *
 * Layout of a warp's shared memory (doubles): for each staged input in order, 32 regions of
 * in_stride (lane j's at j * in_stride), then for each output 32 regions of out_stride. Both
 * strides are odd, so 32 lanes reading the same position of their regions hit 32 banks.
 */
#ifndef APO_KERNELS_ANCHOR_STAGE_H
#define APO_KERNELS_ANCHOR_STAGE_H

#include "anchor_blocks.h"
#include "catalog.h"
#include "cuda_chunk.h"

/* The largest shared memory a block of the staged launch takes: the default limit, which needs
 * no opt-in; a warp whose regions exceed it takes the unstaged launch. */
#define APO_ANCHOR_STAGE_BYTES_MAX (48u * 1024u)
/* Warps a block, at most. */
#define APO_ANCHOR_STAGE_WARPS 4u

/* A staged launch's layout, the same for every warp. */
typedef struct apo__anchor_stage {
    size_t in_stride, out_stride; /* doubles of a lane's input and output regions */
    size_t outs_at;               /* where the output regions start, after the inputs' */
    size_t warp_doubles;          /* a warp's whole share */
} apo__anchor_stage;

/* The layout for blocks of at most `spacing` positions with the halo of `base`, or 0 when a
 * warp's share would exceed APO_ANCHOR_STAGE_BYTES_MAX (a long period: the unstaged launch). */
static inline APO_HD int apo__anchor_stage_plan(const apo__cat_io *base, size_t spacing,
                                                apo__anchor_stage *st) {
    size_t n_in = 0, n_out = 0;
    for (int k = 0; k < APO_CAT_MAX_IN; k++)
        n_in += base->in[k] != NULL;
    for (int k = 0; k < APO_CAT_MAX_OUT; k++)
        n_out += base->out[k] != NULL;
    if (spacing == 0 || base->h > APO_ANCHOR_STAGE_BYTES_MAX)
        return 0;
    st->in_stride = (spacing + base->h) | 1u;
    st->out_stride = spacing | 1u;
    st->outs_at = 32u * n_in * st->in_stride;
    st->warp_doubles = st->outs_at + 32u * n_out * st->out_stride;
    return st->warp_doubles * sizeof(double) <= APO_ANCHOR_STAGE_BYTES_MAX;
}

/* A staged launch's shape: warps a block (as many as fit under the shared memory's limit, at
 * most APO_ANCHOR_STAGE_WARPS) and blocks for the items' groups of 32. */
static inline void apo__anchor_stage_shape(const apo__anchor_stage *st, size_t items,
                                           unsigned int *blocks, unsigned int *threads,
                                           size_t *bytes) {
    const size_t warp_bytes = st->warp_doubles * sizeof(double);
    size_t warps = APO_ANCHOR_STAGE_BYTES_MAX / warp_bytes;
    warps = warps < APO_ANCHOR_STAGE_WARPS ? warps : APO_ANCHOR_STAGE_WARPS;
    const size_t groups = (items + 31u) / 32u;
    const size_t needed = (groups + warps - 1) / warps;
    *blocks = (unsigned int)(needed < 65535 ? needed : 65535);
    *threads = (unsigned int)(32u * warps);
    *bytes = warps * warp_bytes;
}

#ifdef __CUDACC__

#include <cuda_pipeline_primitives.h>

/* Lane `lane`'s item of group g: a block, or an empty one past the items. */
static inline __device__ apo__chunk_item apo__anchor_group_item(const apo__cuda_view *v,
                                                                size_t tiles, size_t slots,
                                                                size_t spacing, size_t g,
                                                                unsigned lane) {
    const size_t i = g * 32u + lane;
    if (i < v->rows * tiles * slots)
        return apo__anchor_block_of(v, tiles, slots, spacing, i);
    apo__chunk_item none;
    none.row = none.begin = none.end = 0;
    return none;
}

/* The first position a block's region holds: its halo's, or the row's start. */
static inline __device__ size_t apo__anchor_region_lo(apo__chunk_item it, size_t h) {
    return it.begin - (it.begin < h ? it.begin : h);
}

/* The warp copies every lane's region of every input, lane j's [lo_j, end_j) of its row: the
 * regions' positions dealt out to the lanes in turn, so that a copy instruction moves 32
 * consecutive doubles of one region (two of them where one ends), each an asynchronous copy
 * into shared memory (cp.async), all issued before the one wait: a warp has its whole share
 * in flight rather than one load a lane. Ends with the warp synchronised. */
static inline __device__ void apo__anchor_stage_in(const apo__cuda_view *v, const apo__cat_io *base,
                                                   const apo__anchor_stage *st, double *warp_sm,
                                                   apo__chunk_item it, unsigned lane) {
    const size_t lo = apo__anchor_region_lo(it, base->h);
    const size_t n = it.begin < it.end ? it.end - lo : 0;
    const size_t stride = st->in_stride, total = 32u * stride;
    for (size_t first = 0; first < total; first += 32u) {
        const size_t idx = first + lane;
        const unsigned j = (unsigned)(idx / stride) & 31u;
        const size_t e = idx - (size_t)j * stride;
        const size_t nj = __shfl_sync(0xffffffffu, n, (int)j);
        const size_t loj = __shfl_sync(0xffffffffu, lo, (int)j);
        const size_t rowj = __shfl_sync(0xffffffffu, it.row, (int)j);
        if (idx >= total || e >= nj)
            continue;
        size_t slot = 0;
        for (int k = 0; k < APO_CAT_MAX_IN; k++) {
            if (base->in[k] == NULL)
                continue;
            __pipeline_memcpy_async(warp_sm + slot * total + idx,
                                    base->in[k] + rowj * v->cols + loj + e, sizeof(double));
            slot++;
        }
    }
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncwarp();
}

/* The lane's io: the regions in place of the row's arrays, each moved back by the position its
 * region starts at, so that the body's absolute positions index them. */
static inline __device__ apo__cat_io apo__anchor_stage_io(const apo__cat_io *base,
                                                          const apo__anchor_stage *st,
                                                          double *warp_sm, apo__chunk_item it,
                                                          unsigned lane) {
    apo__cat_io io = *base;
    const size_t lo = apo__anchor_region_lo(it, base->h);
    size_t slot = 0;
    for (int k = 0; k < APO_CAT_MAX_IN; k++) {
        if (base->in[k] == NULL)
            continue;
        io.in[k] = warp_sm + (slot * 32u + lane) * st->in_stride - lo;
        slot++;
    }
    double *outs = warp_sm + st->outs_at;
    slot = 0;
    for (int k = 0; k < APO_CAT_MAX_OUT; k++) {
        if (base->out[k] == NULL)
            continue;
        io.out[k] = outs + (slot * 32u + lane) * st->out_stride - it.begin;
        slot++;
    }
    return io;
}

/* After every lane's body (the warp synchronised first): the warp stores every lane's outputs,
 * lane j's [begin_j, end_j) of its row, 32 consecutive doubles a store. Ends synchronised, so
 * that the next group may overwrite the regions. */
static inline __device__ void apo__anchor_stage_out(const apo__cuda_view *v,
                                                    const apo__cat_io *base,
                                                    const apo__anchor_stage *st, double *warp_sm,
                                                    apo__chunk_item it, unsigned lane) {
    const double *outs = warp_sm + st->outs_at;
    __syncwarp();
    for (unsigned j = 0; j < 32u; j++) {
        const size_t bj = __shfl_sync(0xffffffffu, it.begin, (int)j);
        const size_t nj = __shfl_sync(0xffffffffu, it.end - it.begin, (int)j);
        const size_t rowj = __shfl_sync(0xffffffffu, it.row, (int)j);
        size_t slot = 0;
        for (int k = 0; k < APO_CAT_MAX_OUT; k++) {
            if (base->out[k] == NULL)
                continue;
            double *dst = base->out[k] + rowj * v->out_cols + bj;
            const double *src = outs + (slot * 32u + j) * st->out_stride;
            for (size_t e = lane; e < nj; e += 32u)
                dst[e] = src[e];
            slot++;
        }
    }
    __syncwarp();
}

#endif /* __CUDACC__ */

#endif /* APO_KERNELS_ANCHOR_STAGE_H */
