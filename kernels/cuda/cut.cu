/*
 * cut.cu: the catalog's recurrences with a warm-up and a RUN stream (the CUT trait: the Wilder
 * recurrences, dx, the DMs, rma, zlema, efi and the EMA chains dema, tema, t3 and tsi; and
 * GPU_CUT: trix) on a GPU, each tile cut into pieces that run on threads of their own, with
 * the bits of one thread a tile (docs/cuda.md, "Lone tiles cut into pieces").
 *
 * Why: the families' launch (catalog_launch.h), which the runtime calls where this one answers
 * APO_CUDA_NOT_CUT (runtime/catalog/catalog_kernels.c), gives a tile one thread, and the tile is a
 * serial chain of a few thousand steps, each waiting on the step before. A call of 1e6 samples
 * is some 300 such chains, a few hundredths of what an H100 keeps in flight, so the call takes
 * a chain's latency however many SMs idle. Cut into pieces, each running its own warm-up of h
 * bars (the halo) and a part of the tile's outputs, the call runs up to 32 times as many
 * threads, each about (h + len / pieces) steps long.
 *
 * How the bits stay the tile's (the CPU's cut: dispatch/catalog_split.h, the same functions of
 * common/lone_tile_cut.h): a first kernel runs piece j of every tile from its own start at its
 * cut (the start of a tile [cut_j, end_j) of another grid, from its warm-up origin), writes its
 * outputs, and records its run where its outputs begin (head) and where it ends (tail); a
 * second kernel, a thread a tile, walks the pieces in order: piece j's outputs stand when its
 * head is alike the whole tile's run at cut_j (apo__cat_runs_alike), which is the tail of piece
 * j - 1 once that piece stands, and otherwise piece j is run again from that tail, the step a
 * stream's resumed piece takes, overwriting its outputs. A piece's stream entries and the
 * tile's body are the same start and run (run_entries.h), so a piece that stands has the
 * tile's operations on its outputs, and one run again has them by construction.
 *
 * Launch shape: a grid-stride loop over (tile, piece) items, up to apo__cut_gpu_most pieces a
 * tile (lone_tile_cut.h); a tile whose cut does not pay
 * (apo__cut_pieces_most) is one piece, the tile body's start and run. Scratch: two runs a
 * piece (160 bytes), stream-ordered, freed after the second kernel; without room for it the
 * launch answers APO_CUDA_NOT_CUT and the family's runs.
 */
#include <stdlib.h>

#include <cuda_runtime.h>

#include "averages_tiles.h"
#include "catalog_launch.h"
#include "cuda_chunk.h"
#include "cut.h"
#include "lone_tile_cut.h"
#include "oscillators_tiles.h"
#include "trend_tiles.h"
#include "volume_tiles.h"

/* A piece's runs: at its first output (head; piece 0's is not read) and at its end (tail). */
typedef struct apo__cut_edges {
    apo__cat_run head, tail;
} apo__cut_edges;

/* The rows of the table cut.cu runs: a RUN stream with the CUT or GPU_CUT trait, in the rooms whose
 * tile headers are included above (a CUT kernel of another room would be left to its family's
 * launch, which the catalog_simt test would show as a kernel not cut). */
#define APO__CUT_IN_ROOMS(room, code)                                                              \
    APO_CAT_WHEN(room, averages)                                                                   \
    (code) APO_CAT_WHEN(room, oscillators)(code) APO_CAT_WHEN(room, trend)(code)                   \
        APO_CAT_WHEN(room, volume)(code)
/* The traits of the kernels a GPU cuts (apo__catalog_gpu_cuts). */
#define APO__CUT_TRAITS (APO_CAT_T_CUT | APO_CAT_T_GPU_CUT)
#define APO__CUT_RUN(code) code
#define APO__CUT_POSITION(code)
#define APO__CUT_PAIR(code)
#define APO__CUT_CARRY(code)
#define APO__CUT_NONE(code)
#define APO__CUT_OWN(code)

/* Kernel id's stream start at `begin` (apo__<name>_stream_start). */
static inline __device__ void apo__cut_start(int id, const apo__cat_io *io, size_t begin,
                                             apo__cat_run *r) {
    switch (id) {
#define APO__CUT_START(ID, name, room, inputs, outputs, par, lb, halo, stream, traits, ...)        \
    APO__CUT_IN_ROOMS(room, APO__CUT_##stream(case APO_CAT_##ID                                    \
                                              : if ((traits)&APO__CUT_TRAITS)                      \
                                                  apo__##name##_stream_start(io, begin, r);        \
                                              break;))
        APO_CATALOG(APO__CUT_START)
#undef APO__CUT_START
    default:
        break;
    }
}

/* Kernel id's stream run from r->t to `end`, writing from `begin` (apo__<name>_stream_run). */
static inline __device__ void apo__cut_run(int id, const apo__cat_io *io, size_t begin, size_t end,
                                           apo__cat_run *r) {
    switch (id) {
#define APO__CUT_RUN_TO(ID, name, room, inputs, outputs, par, lb, halo, stream, traits, ...)       \
    APO__CUT_IN_ROOMS(room, APO__CUT_##stream(case APO_CAT_##ID                                    \
                                              : if ((traits)&APO__CUT_TRAITS)                      \
                                                  apo__##name##_stream_run(io, begin, end, r);     \
                                              break;))
        APO_CATALOG(APO__CUT_RUN_TO)
#undef APO__CUT_RUN_TO
    default:
        break;
    }
}

/* Whether kernel id runs here: 0 for a kernel without the trait, or whose stream is not RUN
 * (none of the catalog's today), which its family's launch keeps as one thread a tile. */
static int apo__cut_runs(int id) {
    switch (id) {
#define APO__CUT_KNOWN(ID, name, room, inputs, outputs, par, lb, halo, stream, traits, ...)        \
    APO__CUT_IN_ROOMS(room, APO__CUT_##stream(case APO_CAT_##ID                                    \
                                              : return ((traits)&APO__CUT_TRAITS) != 0;))
        APO_CATALOG(APO__CUT_KNOWN)
#undef APO__CUT_KNOWN
    default:
        return 0;
    }
}

/* The pieces of tile item k's tile (the same rule in both kernels). */
static inline __device__ size_t apo__cut_pieces_of(const apo__chunk_item *it, size_t h,
                                                   size_t most) {
    return apo__cut_pieces_most(it->end - it->begin, h, most, APO_CATALOG_CUT_QUARTERS);
}

/* Item i = tile item i / most, piece i % most: runs the piece and records its edges. */
static __global__ void apo__cut_pieces_kernel(apo__cuda_view v, size_t tiles, size_t most, int id,
                                              apo__cat_io base, apo__cut_edges *edges) {
    const size_t items = v.rows * tiles * most;
    for (size_t i = apo__cuda_first_item(); i < items; i += apo__cuda_item_stride()) {
        const apo__chunk_item it = apo__chunk_item_of(&v, tiles, i / most);
        const size_t pieces = apo__cut_pieces_of(&it, base.h, most), j = i % most;
        if (j >= pieces)
            continue;
        const apo__tile_span s = apo__cut_span(it.begin, it.end, base.h, pieces, j);
        apo__cat_io io = base;
        apo__catalog_row_io(&io, &base, &v, it.row);
        apo__cat_run r;
        apo__cut_start(id, &io, s.begin, &r);
        apo__cut_run(id, &io, s.begin, s.begin, &r); /* the warm-up: no output */
        edges[i].head = r;
        apo__cut_run(id, &io, s.begin, s.end, &r);
        edges[i].tail = r;
    }
}

/* Tile item k: walks its pieces, running again from the tail before each piece whose head is
 * not alike it, as a stream's resumed piece of the tile runs (its `begin` the tile's: kama's
 * run, given the piece's, wrote other bits); counts[2k] and counts[2k + 1], where counts is not
 * NULL, take its pieces and the pieces run again. */
static __global__ void apo__cut_check_kernel(apo__cuda_view v, size_t tiles, size_t most, int id,
                                             apo__cat_io base, const apo__cut_edges *edges,
                                             size_t *counts) {
    const size_t p = (size_t)base.p[0];
    for (size_t k = apo__cuda_first_item(); k < v.rows * tiles; k += apo__cuda_item_stride()) {
        const apo__chunk_item it = apo__chunk_item_of(&v, tiles, k);
        const size_t pieces = apo__cut_pieces_of(&it, base.h, most);
        const apo__cut_edges *e = edges + k * most;
        apo__cat_io io = base;
        apo__catalog_row_io(&io, &base, &v, it.row);
        apo__cat_run run = e[0].tail;
        size_t again = 0;
        for (size_t j = 1; j < pieces; j++) {
            if (apo__cat_runs_alike((apo__cat_id)id, &run, &e[j].head, p)) {
                run = e[j].tail;
                continue;
            }
            const apo__tile_span s = apo__cut_span(it.begin, it.end, base.h, pieces, j);
            apo__cut_run(id, &io, it.begin, s.end, &run);
            again++;
        }
        if (counts != NULL) {
            counts[2 * k] = pieces;
            counts[2 * k + 1] = again;
        }
    }
}

extern "C" int apo__cut_scratch(size_t items, size_t most, size_t edge_bytes, int counted,
                                void *stream, void **edges, size_t **counts) {
    const cudaStream_t s = static_cast<cudaStream_t>(stream);
    *edges = NULL;
    *counts = NULL;
    cudaError_t e = cudaMallocAsync(edges, items * most * edge_bytes, s);
    if (e == cudaSuccess && counted)
        e = cudaMallocAsync((void **)counts, 2 * items * sizeof **counts, s);
    if (e != cudaSuccess) {
        /* No room: the uncut launch needs none (not sticky). */
        (void)cudaGetLastError();
        if (*edges != NULL)
            (void)cudaFreeAsync(*edges, s);
        *edges = NULL;
        return (int)e;
    }
    return 0;
}

extern "C" int apo__cut_finish(int launched, size_t items, void *stream, void *edges,
                               size_t *counts, size_t *pieces) {
    const cudaStream_t s = static_cast<cudaStream_t>(stream);
    cudaError_t e = (cudaError_t)launched;
    /* The counts are for the tests (a copy and a wait): the launchers pass NULL. */
    if (e == cudaSuccess && pieces != NULL) {
        size_t *host = (size_t *)malloc(2 * items * sizeof *host);
        e = host == NULL ? cudaErrorMemoryAllocation
                         : cudaMemcpyAsync(host, counts, 2 * items * sizeof *host,
                                           cudaMemcpyDeviceToHost, s);
        if (e == cudaSuccess)
            e = cudaStreamSynchronize(s);
        pieces[0] = pieces[1] = 0;
        for (size_t k = 0; e == cudaSuccess && k < items; k++) {
            pieces[0] += host[2 * k];
            pieces[1] += host[2 * k + 1];
        }
        free(host);
    }
    if (counts != NULL)
        (void)cudaFreeAsync(counts, s);
    (void)cudaFreeAsync(edges, s);
    return (int)e;
}

extern "C" int apo__cuda_catalog_cut(int id, const apo__cuda_view *v, const apo__cat_io *base,
                                     void *stream, size_t *pieces) {
    /* The cut is a staged-variant kernel: APPORTION_CUDA_KERNELS=simple keeps a thread a tile,
     * so that one library times both (scripts/gpu-check.sh, bench-ab). */
    if (v == NULL || base == NULL || !apo__cut_runs(id) || v->rows == 0 || v->begin >= v->end ||
        v->tile == 0 || apo__cuda_kernels_get() != APO_CUDA_KERNELS_STAGED)
        return APO_CUDA_NOT_CUT;
    const size_t tiles = apo__chunk_tiles(v), items = v->rows * tiles;
    const size_t most = apo__cut_gpu_most(items);
    /* The longest tile of the view: if its cut does not pay, none does. */
    const size_t longest = apo__chunk_longest_tile(v);
    if (apo__cut_pieces_most(longest, base->h, most, APO_CATALOG_CUT_QUARTERS) < 2)
        return APO_CUDA_NOT_CUT;
    const cudaStream_t s = static_cast<cudaStream_t>(stream);
    void *scratch;
    size_t *counts;
    if (apo__cut_scratch(items, most, sizeof(apo__cut_edges), pieces != NULL, stream, &scratch,
                         &counts) != 0)
        return APO_CUDA_NOT_CUT;
    apo__cut_edges *edges = (apo__cut_edges *)scratch;
    apo__cut_pieces_kernel<<<apo__cuda_blocks(items * most), APO_CUDA_BLOCK, 0, s>>>(
        *v, tiles, most, id, *base, edges);
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess) {
        apo__cut_check_kernel<<<apo__cuda_blocks(items), APO_CUDA_BLOCK, 0, s>>>(
            *v, tiles, most, id, *base, edges, counts);
        e = cudaGetLastError();
    }
    return apo__cut_finish((int)e, items, stream, edges, counts, pieces);
}
