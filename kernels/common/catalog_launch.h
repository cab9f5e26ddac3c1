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
 * one.
 *
 * The position-independent kernels (apo__catalog_gpu_per_position: the element-wise
 * transforms and operators, the price transforms, the candles, the
 * per-position windows...) take another kernel: a thread per position rather than per tile,
 * each calling the tile body on [t, t + 1), the positions dealt out by a grid-stride walk
 * (apo__chunk_walk) so that the lanes of a warp hold consecutive positions of a row. A warp's
 * loads and stores then cover 32 consecutive doubles (two 128-byte lines) instead of 32 tiles
 * a tile apart, and a 1e8-sample row is 1e8 items rather than 24,415 tiles. Such a body writes
 * at [t, t + 1) what it writes there over the whole tile (catalog.h), so the bits are the
 * tile's; each thread takes APO_CATALOG_POSITIONS_A_THREAD positions (or more, past the grid's
 * cap), which keeps the grid, and a host run of it through the SIMT layer, small.
 *
 * The anchored kernels take a third kernel: a thread per block between anchors. Their bodies
 * restart at every multiple of a spacing A whatever their state (sma and wma up to APO_PLAIN_MAX,
 * ma at those matypes: anchors 64 to 512 apart; var and stddev up to 1024, correl up to 1024,
 * beta up to 512: blocks of 16 to 64; the linearreg family up to 2048: anchors 32 or 64 apart;
 * averages_anchors.h and statistics_anchors.h give A from the bodies' own functions), so a
 * block computed alone writes the tile's bits (tests/kernels/common/test_catalog_anchored.c).
 * The family's instantiation names its spacing function (APO_CATALOG_CUDA_FAMILY_ANCHORED), and
 * may list kernels that take a blocks kernel of their own (APO_CATALOG_CUDA_FAMILY_OWN_BLOCKS);
 * where it gives A > 0 and the kernel is neither position-independent nor whole-row, each
 * tile is cut at the multiples of A (anchor_blocks.h) and each block is an item, the lanes of
 * a warp on consecutive blocks of a row. A 1e8-sample sma row is then 1.56 million chains of at
 * most 64 steps (A = 64, period up to 64) instead of 24,415 chains of 4,096, and a warp's 32
 * blocks are 32 neighbours, whose windows overlap in the caches. A period past a body's range
 * (A = 0) takes the tile kernel. On an H200 sma at 1e8 took 2.6 ms at one block an SM
 * (APPORTION_CUDA_BLOCKS_PER_SM), 4.6 with as many as fit: the lanes a block apart evict
 * each other's lines from L1 (docs/cuda.md, "The anchored kernels").
 *
 * Staged (the default variant, APPORTION_CUDA_KERNELS), for the kernels a family names
 * (APO_CATALOG_CUDA_FAMILY_STAGED; statistics.cu: var, stddev and the linearreg family, 1.3 to
 * 2 times faster so on an H200, where sma, wma and correl were slower) and where a warp's 32
 * blocks with their halos fit in 48 KB of shared memory (anchor_stage.h): the warp copies them
 * into shared memory with coalesced asynchronous copies, each lane runs its block there, and
 * the warp stores the outputs coalesced: the same bodies on the same positions, the same bits.
 *
 * The recurrences with a cut on a GPU (APO_CAT_T_CUT or APO_CAT_T_GPU_CUT, a RUN stream) take
 * the cut launch of cuda/cut.cu before their family's, where it pays (the runtime's choice:
 * runtime/catalog/catalog_kernels.c): each tile cut into pieces on threads of their own, with
 * the bits of a thread a tile.
 *
 * No state is shared between threads and every output is written by one thread, so the bits
 * are the CPU's (catalog.h).
 */
#ifndef APO_KERNELS_CATALOG_LAUNCH_CUH
#define APO_KERNELS_CATALOG_LAUNCH_CUH

#include <cuda_runtime.h>

#include "anchor_blocks.h"
#include "anchor_stage.h"
#include "catalog_cuda.h"
#include "cuda_chunk.h"

/* The staged blocks kernels' dynamic shared memory: each warp's regions (anchor_stage.h). */
extern __shared__ double apo__catalog_stage[];

/* Positions a thread of the position-independent launch takes, at least: the grid is this many
 * times smaller than the view's positions. A 1e8-sample row is still some 48,000 blocks (every
 * SM full), and the loop's cost per position is a few additions (apo__chunk_walk_next). */
#define APO_CATALOG_POSITIONS_A_THREAD 8

/* Row `row` of the view's pointers: base's, moved to the row (NULL stays NULL). */
static inline __device__ void apo__catalog_row_io(apo__cat_io *io, const apo__cat_io *base,
                                                  const apo__cuda_view *v, size_t row) {
    for (int k = 0; k < APO_CAT_MAX_IN; k++)
        io->in[k] = base->in[k] != NULL ? base->in[k] + row * v->cols : NULL;
    for (int k = 0; k < APO_CAT_MAX_OUT; k++)
        io->out[k] = base->out[k] != NULL ? base->out[k] + row * v->out_cols : NULL;
}

/* The spacing function of a family without anchored kernels. */
static inline APO_HD size_t apo__catalog_no_anchors(int id, const double *p) {
    (void)id, (void)p;
    return 0;
}

#define APO_CATALOG_CUDA_FAMILY(family)                                                            \
    APO_CATALOG_CUDA_FAMILY_ANCHORED(family, apo__catalog_no_anchors)

/* The loop of a blocks kernel: each item a block between anchors, its body kernel `id`. */
#define APO__CATALOG_BLOCKS_LOOP(family, id)                                                       \
    const size_t items = v.rows * tiles * slots;                                                   \
    for (size_t i = apo__cuda_first_item(); i < items; i += apo__cuda_item_stride()) {             \
        const apo__chunk_item it = apo__anchor_block_of(&v, tiles, slots, spacing, i);             \
        if (it.begin == it.end)                                                                    \
            continue;                                                                              \
        apo__cat_io io = base;                                                                     \
        apo__catalog_row_io(&io, &base, &v, it.row);                                               \
        apo__##family##_tile(id, &io, it.begin, it.end);                                           \
    }                                                                                              \
    (void)0

/* The loop of a staged blocks kernel (anchor_stage.h): each warp takes groups of 32 items,
 * stages their regions, runs each lane's block on its region and stores the outputs. A warp's
 * lanes go round the loop together (g is the same for all 32), as the shuffles need. */
#define APO__CATALOG_STAGED_LOOP(family, id)                                                       \
    const unsigned lane = threadIdx.x % 32u;                                                       \
    const size_t warps_here = blockDim.x / 32u;                                                    \
    double *const warp_sm = apo__catalog_stage + (threadIdx.x / 32u) * st.warp_doubles;            \
    const size_t groups = (v.rows * tiles * slots + 31u) / 32u;                                    \
    for (size_t g = blockIdx.x * warps_here + threadIdx.x / 32u; g < groups;                       \
         g += gridDim.x * warps_here) {                                                            \
        const apo__chunk_item it = apo__anchor_group_item(&v, tiles, slots, spacing, g, lane);     \
        apo__anchor_stage_in(&v, &base, &st, warp_sm, it, lane);                                   \
        apo__cat_io io = apo__anchor_stage_io(&base, &st, warp_sm, it, lane);                      \
        if (it.begin < it.end)                                                                     \
            apo__##family##_tile(id, &io, it.begin, it.end);                                       \
        apo__anchor_stage_out(&v, &base, &st, warp_sm, it, lane);                                  \
    }                                                                                              \
    (void)0

/* A blocks kernel of its own for kernel ID of a family, with the id a constant: the family's
 * switch folds to that one body, and the kernel keeps that body's registers and stack rather
 * than the largest body's (ptxas, sm_90: the averages' blocks kernel 127 registers and a 9 KB
 * stack a thread; sma's own 72 and 1.5 KB; docs/cuda.md, "The anchored kernels"). */
#define APO__CATALOG_BLOCKS_KERNEL_OF(family, ID)                                                  \
    static __global__ void apo__##family##_blocks_##ID##_kernel(                                   \
        apo__cuda_view v, size_t tiles, size_t slots, size_t spacing, apo__cat_io base) {          \
        APO__CATALOG_BLOCKS_LOOP(family, APO_CAT_##ID);                                            \
    }

/* The launch of kernel ID's own blocks kernel, as a case of the launcher's switch on the id. */
#define APO__CATALOG_BLOCKS_LAUNCH_OF(family, ID)                                                  \
    case APO_CAT_##ID:                                                                             \
        apo__##family##_blocks_##ID##_kernel<<<blocks, APO_CUDA_BLOCK, 0,                          \
                                               static_cast<cudaStream_t>(stream)>>>(               \
            *v, tiles, slots, spacing, *base);                                                     \
        return (int)cudaGetLastError();

/* The staged blocks kernel of a family that stages some of its anchored kernels (X of
 * APO_CATALOG_CUDA_FAMILY_STAGED; `stages` says which), and its launch, a step of the
 * launcher taken when the kernel stages, the variant is staged and its regions fit. */
#define APO__CATALOG_STAGED_KERNEL(family, stages)                                                 \
    static __global__ void apo__##family##_staged_blocks_kernel(                                   \
        apo__cuda_view v, size_t tiles, size_t slots, size_t spacing, apo__anchor_stage st,        \
        int id, apo__cat_io base) {                                                                \
        APO__CATALOG_STAGED_LOOP(family, id);                                                      \
    }
#define APO__CATALOG_STAGED_LAUNCH(family, stages)                                                 \
    {                                                                                              \
        apo__anchor_stage st;                                                                      \
        if (stages(id) && apo__cuda_kernels_get() == APO_CUDA_KERNELS_STAGED &&                    \
            apo__anchor_stage_plan(base, spacing, &st)) {                                          \
            unsigned int blocks, threads;                                                          \
            size_t bytes;                                                                          \
            apo__anchor_stage_shape(&st, items, &blocks, &threads, &bytes);                        \
            apo__##family##_staged_blocks_kernel<<<blocks, threads, bytes,                         \
                                                   static_cast<cudaStream_t>(stream)>>>(           \
                *v, tiles, slots, spacing, st, id, *base);                                         \
            return (int)cudaGetLastError();                                                        \
        }                                                                                          \
    }
/* A family that stages none of its kernels. */
#define APO__CATALOG_NOT_STAGED(X, family)

/* No kernel of the family has a blocks kernel of its own. */
#define APO__CATALOG_NO_OWN_BLOCKS(X, family)

/* A family whose kernels' anchors are anchor_spacing(id, p) apart (0: none). */
#define APO_CATALOG_CUDA_FAMILY_ANCHORED(family, anchor_spacing)                                   \
    APO_CATALOG_CUDA_FAMILY_OWN_BLOCKS(family, anchor_spacing, APO__CATALOG_NO_OWN_BLOCKS)

/* The same, where own_blocks(X, family) lists as X(family, ID) the kernels that take a blocks
 * kernel of their own (APO__CATALOG_BLOCKS_KERNEL_OF); the others share the family's. */
#define APO_CATALOG_CUDA_FAMILY_OWN_BLOCKS(family, anchor_spacing, own_blocks)                     \
    APO_CATALOG_CUDA_FAMILY_STAGED(family, anchor_spacing, own_blocks, APO__CATALOG_NOT_STAGED)

/* The same, where staged(X, family) is X(family, stages) for a family whose anchored kernels
 * with stages(id) true take the staged launch (anchor_stage.h), or nothing. */
#define APO_CATALOG_CUDA_FAMILY_STAGED(family, anchor_spacing, own_blocks, staged)                 \
    static __global__ void apo__##family##_blocks_kernel(                                          \
        apo__cuda_view v, size_t tiles, size_t slots, size_t spacing, int id, apo__cat_io base) {  \
        APO__CATALOG_BLOCKS_LOOP(family, id);                                                      \
    }                                                                                              \
    staged(APO__CATALOG_STAGED_KERNEL, family) static_assert(true, "a staged blocks kernel");      \
    own_blocks(APO__CATALOG_BLOCKS_KERNEL_OF, family) static_assert(true, "own blocks kernels");   \
    static __global__ void apo__##family##_positions_kernel(apo__cuda_view v, int id,              \
                                                            apo__cat_io base) {                    \
        apo__cat_io io = base;                                                                     \
        size_t io_row = v.rows;                                                                    \
        for (apo__chunk_walk w =                                                                   \
                 apo__chunk_walk_from(&v, apo__cuda_first_item(), apo__cuda_item_stride());        \
             w.row < v.rows; apo__chunk_walk_next(&w)) {                                           \
            if (w.row != io_row) {                                                                 \
                io_row = w.row;                                                                    \
                apo__catalog_row_io(&io, &base, &v, v.row0 + w.row);                               \
            }                                                                                      \
            const size_t t = v.begin + w.at;                                                       \
            apo__##family##_tile(id, &io, t, t + 1);                                               \
        }                                                                                          \
    }                                                                                              \
    static __global__ void apo__##family##_kernel(apo__cuda_view v, size_t tiles, int id,          \
                                                  apo__cat_io base, int whole_rows) {              \
        const size_t items = whole_rows ? v.rows : v.rows * tiles;                                 \
        for (size_t i = apo__cuda_first_item(); i < items; i += apo__cuda_item_stride()) {         \
            const apo__chunk_item it =                                                             \
                whole_rows ? apo__chunk_row_of(&v, i) : apo__chunk_item_of(&v, tiles, i);          \
            apo__cat_io io = base;                                                                 \
            apo__catalog_row_io(&io, &base, &v, it.row);                                           \
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
        if (apo__catalog_gpu_per_position((apo__cat_id)id)) {                                      \
            const size_t items = v->rows * (v->end - v->begin);                                    \
            const unsigned int blocks = apo__cuda_blocks(                                          \
                (items + APO_CATALOG_POSITIONS_A_THREAD - 1) / APO_CATALOG_POSITIONS_A_THREAD);    \
            apo__##family##_positions_kernel<<<blocks, APO_CUDA_BLOCK, 0,                          \
                                               static_cast<cudaStream_t>(stream)>>>(*v, id,        \
                                                                                    *base);        \
            return (int)cudaGetLastError();                                                        \
        }                                                                                          \
        const size_t tiles = apo__chunk_tiles(v);                                                  \
        const int whole_rows = apo__catalog_whole_row((apo__cat_id)id);                            \
        const size_t spacing = whole_rows ? 0 : anchor_spacing(id, base->p);                       \
        if (spacing > 0) {                                                                         \
            const size_t slots = apo__anchor_slots(v->tile, spacing);                              \
            const size_t items = v->rows * tiles * slots;                                          \
            staged(APO__CATALOG_STAGED_LAUNCH, family);                                            \
            const unsigned int cap = apo__cuda_anchored_grid_get();                                \
            unsigned int blocks = apo__cuda_blocks(items);                                         \
            blocks = cap > 0 && blocks > cap ? cap : blocks;                                       \
            switch (id) { own_blocks(APO__CATALOG_BLOCKS_LAUNCH_OF, family) default : break; }     \
            apo__##family##_blocks_kernel<<<blocks, APO_CUDA_BLOCK, 0,                             \
                                            static_cast<cudaStream_t>(stream)>>>(                  \
                *v, tiles, slots, spacing, id, *base);                                             \
            return (int)cudaGetLastError();                                                        \
        }                                                                                          \
        const unsigned int blocks = apo__cuda_blocks(whole_rows ? v->rows : v->rows * tiles);      \
        apo__##family##_kernel<<<blocks, APO_CUDA_BLOCK, 0, static_cast<cudaStream_t>(stream)>>>(  \
            *v, tiles, id, *base, whole_rows);                                                     \
        return (int)cudaGetLastError();                                                            \
    }

#endif /* APO_KERNELS_CATALOG_LAUNCH_CUH */
