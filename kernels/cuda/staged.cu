/*
 * staged.cu: the staged CUDA kernels, which bring each tile's samples and outputs through
 * shared memory with coalesced copies (kernels/cuda/stage.h), and the choice between them and the
 * simple kernels of kernels/<room>/<name>.cu, whether bollinger runs as pairs of warps
 * (bollinger_split.cu), and the cap on the anchored catalog kernels' grid (kernels_cuda.h): the
 * choices of launch made once for the process.
 *
 * What: apo__cuda_<name>_staged computes a chunk view (kernels_cuda.h) as apo__cuda_<name>
 * does, with the warp code of staged_kernels.h. The simple launchers call them when the
 * process's variant is staged (APPORTION_CUDA_KERNELS, docs/env.md; set at GPU discovery by
 * apo__cuda_kernels_set) and run their own kernel otherwise, or when a staged launcher
 * answers APO_CUDA_NOT_STAGED (a bollinger period beyond the longest lookback, stage.h).
 *
 * Launch shape: bollinger, macd, returns_stats: blocks of one warp (32 threads), one group
 * of 32 work items per warp, ceil(items / 32) blocks up to 65535 with a grid-stride loop over
 * the groups, apo__stage_bytes() of dynamic shared memory (at most 48 KiB, the limit that
 * needs no opt-in). bootstrap's means: blocks of 4 warps, one (row, replicate) per warp, up
 * to 65535 blocks with a grid-stride loop; its tile moments stay with bootstrap.cu.
 *
 * Determinism: the warp code runs each tile's body over consecutive segments, the same
 * operations in the same order as one call over the tile, and adds a replicate's draws in
 * draw order (staged_kernels.h); tests/kernels/cuda/test_cuda_staging.c runs this very code on the
 * host against the CPU, bit for bit. Compiled, like the other kernels, with -fmad=false.
 */
#define APO_STAGED_ACCESS 1

#include <cuda_runtime.h>

#include "cut.h"
#include "kernels.h"
#include "kernels_cuda.h"
#include "staged_kernels.h"

static_assert(sizeof(apo__moments) == APO_PARTIAL_DOUBLES * sizeof(double),
              "a partial is 5 doubles");

/* The process's variant: staged unless APPORTION_CUDA_KERNELS=simple said otherwise. Set
 * at discovery, before any launch; read by every launcher. */
static int apo__variant = APO_CUDA_KERNELS_STAGED;

extern "C" void apo__cuda_kernels_set(int variant) {
    __atomic_store_n(&apo__variant, variant, __ATOMIC_RELAXED);
}

extern "C" int apo__cuda_kernels_get(void) {
    return __atomic_load_n(&apo__variant, __ATOMIC_RELAXED);
}

/* bollinger as pairs of warps (bollinger_split.cu) or one warp: set at discovery, before any
 * launch; read by bollinger.cu's launcher. */
static int apo__bollinger_pairs = 0;

extern "C" void apo__cuda_bollinger_split_set(int on) {
    __atomic_store_n(&apo__bollinger_pairs, on != 0, __ATOMIC_RELAXED);
}

extern "C" int apo__cuda_bollinger_split_get(void) {
    return __atomic_load_n(&apo__bollinger_pairs, __ATOMIC_RELAXED);
}

/* The anchored kernels' grid cap (0: none). Set at discovery; read by the catalog launchers. */
static unsigned int apo__anchored_grid_cap = 0;

extern "C" void apo__cuda_anchored_grid_set(unsigned int max_blocks) {
    __atomic_store_n(&apo__anchored_grid_cap, max_blocks, __ATOMIC_RELAXED);
}

extern "C" unsigned int apo__cuda_anchored_grid_get(void) {
    return __atomic_load_n(&apo__anchored_grid_cap, __ATOMIC_RELAXED);
}

extern __shared__ double apo__stage_shared[];

static __global__ void apo__bollinger_staged_kernel(apo__cuda_view v, size_t tiles, size_t period,
                                                    double nbdev_up, double nbdev_dn,
                                                    apo__stage_geom g) {
    apo__stage_warp w;
    apo__stage_warp_init(&w, apo__stage_shared, &g);
    const size_t groups = (v.rows * tiles + APO_STAGE_LANES - 1) / APO_STAGE_LANES;
    for (size_t grp = blockIdx.x; grp < groups; grp += gridDim.x) {
        apo__bollinger_staged_warp(&w, &v, tiles, grp, period, nbdev_up, nbdev_dn);
    }
}

static __global__ void apo__macd_staged_kernel(apo__cuda_view v, size_t tiles, size_t fast,
                                               size_t slow, size_t signal, size_t warmup,
                                               apo__stage_geom g) {
    apo__stage_warp w;
    apo__stage_warp_init(&w, apo__stage_shared, &g);
    const size_t groups = (v.rows * tiles + APO_STAGE_LANES - 1) / APO_STAGE_LANES;
    for (size_t grp = blockIdx.x; grp < groups; grp += gridDim.x) {
        apo__macd_staged_warp(&w, &v, tiles, grp, fast, slow, signal, warmup, 1, NULL);
    }
}

/* macd's cut (apo__cuda_macd_cut): the pieces of every tile in the lanes of staged warps, each
 * recording its edges, ... */
static __global__ void apo__macd_pieces_kernel(apo__cuda_view v, size_t tiles, size_t fast,
                                               size_t slow, size_t signal, size_t warmup,
                                               size_t most, apo__stage_geom g,
                                               apo__macd_edges *edges) {
    apo__stage_warp w;
    apo__stage_warp_init(&w, apo__stage_shared, &g);
    const size_t groups = (v.rows * tiles * most + APO_STAGE_LANES - 1) / APO_STAGE_LANES;
    for (size_t grp = blockIdx.x; grp < groups; grp += gridDim.x) {
        apo__macd_staged_warp(&w, &v, tiles, grp, fast, slow, signal, warmup, most, edges);
    }
}

/* ... then a thread a tile mends its pieces (apo__macd_mend_item). */
static __global__ void apo__macd_mend_kernel(apo__cuda_view v, size_t tiles, size_t fast,
                                             size_t slow, size_t signal, size_t warmup, size_t most,
                                             const apo__macd_edges *edges, size_t *counts) {
    for (size_t k = apo__cuda_first_item(); k < v.rows * tiles; k += apo__cuda_item_stride()) {
        apo__macd_mend_item(&v, tiles, k, fast, slow, signal, warmup, most, edges, counts);
    }
}

static __global__ void apo__returns_stats_staged_kernel(apo__cuda_view v, size_t tiles,
                                                        apo__stage_geom g) {
    apo__stage_warp w;
    apo__stage_warp_init(&w, apo__stage_shared, &g);
    const size_t groups = (v.rows * tiles + APO_STAGE_LANES - 1) / APO_STAGE_LANES;
    for (size_t grp = blockIdx.x; grp < groups; grp += gridDim.x) {
        apo__returns_stats_staged_warp(&w, &v, tiles, grp);
    }
}

#define APO_BOOTSTRAP_WARPS 4

static __global__ void apo__bootstrap_staged_kernel(apo__cuda_view v, size_t replicates,
                                                    uint64_t seed) {
    __shared__ double buf[APO_BOOTSTRAP_WARPS][APO_BOOTSTRAP_WARP_DOUBLES];
    const unsigned warp = threadIdx.x / APO_STAGE_LANES;
    const size_t items = v.rows * replicates;
    for (size_t i = (size_t)blockIdx.x * APO_BOOTSTRAP_WARPS + warp; i < items;
         i += (size_t)gridDim.x * APO_BOOTSTRAP_WARPS) {
        apo__bootstrap_staged_warp(buf[warp], &v, replicates, seed, i);
    }
}

extern "C" int apo__cuda_bollinger_staged(const apo__cuda_view *v, size_t period, double nbdev_up,
                                          double nbdev_dn, void *stream) {
    apo__stage_geom g;
    if (!apo__stage_geom_init(&g, period, 3)) {
        return APO_CUDA_NOT_STAGED;
    }
    const size_t tiles = apo__chunk_tiles(v);
    apo__bollinger_staged_kernel<<<apo__stage_grid(v->rows * tiles), APO_STAGE_LANES,
                                   apo__stage_bytes(&g), static_cast<cudaStream_t>(stream)>>>(
        *v, tiles, period, nbdev_up, nbdev_dn, g);
    return (int)cudaGetLastError();
}

extern "C" int apo__cuda_macd_staged(const apo__cuda_view *v, size_t fast, size_t slow,
                                     size_t signal, size_t warmup, void *stream) {
    apo__stage_geom g;
    apo__stage_geom_init(&g, 0, 3);
    const size_t tiles = apo__chunk_tiles(v);
    apo__macd_staged_kernel<<<apo__stage_grid(v->rows * tiles), APO_STAGE_LANES,
                              apo__stage_bytes(&g), static_cast<cudaStream_t>(stream)>>>(
        *v, tiles, fast, slow, signal, warmup, g);
    return (int)cudaGetLastError();
}

extern "C" int apo__cuda_macd_cut(const apo__cuda_view *v, size_t fast, size_t slow, size_t signal,
                                  size_t warmup, void *stream, size_t *pieces) {
    /* The cut is a staged-variant kernel, as the catalog's (cut.cu). */
    if (v == NULL || v->rows == 0 || v->begin >= v->end || v->tile == 0 ||
        apo__cuda_kernels_get() != APO_CUDA_KERNELS_STAGED)
        return APO_CUDA_NOT_CUT;
    const size_t tiles = apo__chunk_tiles(v), items = v->rows * tiles;
    const size_t most = apo__cut_gpu_most(items);
    /* The longest tile of the view: if its cut does not pay, none does. */
    apo__chunk_item longest;
    longest.begin = 0;
    longest.end = apo__chunk_longest_tile(v);
    if (apo__macd_cut_pieces(&longest, warmup, most) < 2)
        return APO_CUDA_NOT_CUT;
    const cudaStream_t s = static_cast<cudaStream_t>(stream);
    void *scratch;
    size_t *counts;
    if (apo__cut_scratch(items, most, sizeof(apo__macd_edges), pieces != NULL, stream, &scratch,
                         &counts) != 0)
        return APO_CUDA_NOT_CUT;
    apo__macd_edges *edges = (apo__macd_edges *)scratch;
    apo__stage_geom g;
    apo__stage_geom_init(&g, 0, 3);
    apo__macd_pieces_kernel<<<apo__stage_grid(items * most), APO_STAGE_LANES, apo__stage_bytes(&g),
                              s>>>(*v, tiles, fast, slow, signal, warmup, most, g, edges);
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess) {
        apo__macd_mend_kernel<<<apo__cuda_blocks(items), APO_CUDA_BLOCK, 0, s>>>(
            *v, tiles, fast, slow, signal, warmup, most, edges, counts);
        e = cudaGetLastError();
    }
    return apo__cut_finish((int)e, items, stream, edges, counts, pieces);
}

extern "C" int apo__cuda_returns_stats_staged(const apo__cuda_view *v, void *stream) {
    apo__stage_geom g;
    apo__stage_geom_init(&g, 1, 0);
    const size_t tiles = apo__chunk_tiles(v);
    apo__returns_stats_staged_kernel<<<apo__stage_grid(v->rows * tiles), APO_STAGE_LANES,
                                       apo__stage_bytes(&g), static_cast<cudaStream_t>(stream)>>>(
        *v, tiles, g);
    return (int)cudaGetLastError();
}

extern "C" int apo__cuda_bootstrap_means_staged(const apo__cuda_view *per_replicate,
                                                size_t replicates, uint64_t seed, void *stream) {
    const size_t items = per_replicate->rows * replicates;
    const size_t blocks = (items + APO_BOOTSTRAP_WARPS - 1) / APO_BOOTSTRAP_WARPS;
    apo__bootstrap_staged_kernel<<<
        (unsigned int)(blocks < APO_STAGE_GRID_MAX ? blocks : APO_STAGE_GRID_MAX),
        APO_BOOTSTRAP_WARPS * APO_STAGE_LANES, 0, static_cast<cudaStream_t>(stream)>>>(
        *per_replicate, replicates, seed);
    return (int)cudaGetLastError();
}
