/*
 * kernels_cuda.h: the CUDA launchers of the built-in kernels (kernels/<room>/<name>.cu).
 *
 * Plain C, no CUDA header: the stream is a cudaStream_t passed as void *, and every
 * launcher returns the cudaError_t of its launch as an int (0: launched). The launchers
 * run the same tile bodies as the CPU kernels (kernels/<room>/<name>_tile.h, compiled for both with
 * no FMA contraction), one GPU thread (a lane of a warp, in the staged variant) per tile
 * (bootstrap: a thread, or a warp, per replicate), so a chunk computed on a GPU has the CPU's
 * bits (docs/determinism.md).
 */
#ifndef APO_KERNELS_CUDA_H
#define APO_KERNELS_CUDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A chunk of one call staged in GPU memory: rows [row0, row0 + rows) of the workload,
 * positions [begin, end) of the tiled axis in each of them (begin on a tile boundary).
 *
 * Indexing is absolute, as in kernels.h: sample t of global row r is x[r * cols + t], and
 * output value t of global row r is out[k][r * out_cols + t]. The pointers are biased (they
 * may point before the staged allocation) so that only the staged part is ever touched:
 * x from max(0, begin - halo) of each row (bootstrap: the whole row), outputs inside
 * [begin, end). out[k] is NULL for outputs the GPU does not write (the reductions'
 * finalized values, which the host computes from the partials).
 *
 * partials (reductions only): 5 doubles (an apo__moments) per tile, for tile j of global row
 * r at partials[((r - row0) * chunk_tiles + (j - begin / tile)) * 5], with
 * chunk_tiles = ceil(end / tile) - begin / tile.
 */
/* Outputs a view carries: the catalog's most (APO_CAT_MAX_OUT, which cuda_views.c checks). */
#define APO_CUDA_VIEW_MAX_OUT 4

typedef struct apo__cuda_view {
    const double *x;
    double *out[APO_CUDA_VIEW_MAX_OUT];
    double *partials;
    size_t cols;     /* samples per input row */
    size_t out_cols; /* values per output row: cols, or the replicates for bootstrap */
    size_t row0, rows;
    size_t begin, end; /* along the tiled axis (bootstrap: replicates) */
    size_t tile;
} apo__cuda_view;

int apo__cuda_bollinger(const apo__cuda_view *v, size_t period, double nbdev_up, double nbdev_dn,
                        void *stream);
int apo__cuda_macd(const apo__cuda_view *v, size_t fast, size_t slow, size_t signal, void *stream);
int apo__cuda_returns_stats(const apo__cuda_view *v, void *stream);
int apo__cuda_bootstrap(const apo__cuda_view *v, uint64_t seed, void *stream);

/*
 * The kernel variants (docs/cuda.md, "Staged kernels"), one for the whole process:
 * APO_CUDA_KERNELS_STAGED (the default: warps stage tiles through shared memory,
 * kernels/cuda/staged.cu) or APO_CUDA_KERNELS_SIMPLE (one thread per tile on global memory, the
 * kernels of kernels/<room>/<name>.cu). Set from APPORTION_CUDA_KERNELS when the GPUs are
 * discovered; both give the same bits.
 */
#define APO_CUDA_KERNELS_STAGED 0
#define APO_CUDA_KERNELS_SIMPLE 1
void apo__cuda_kernels_set(int variant);
int apo__cuda_kernels_get(void);

/*
 * Whether the staged variant runs bollinger as pairs of warps, one running the sliding chains
 * and one the square roots and stores (kernels/cuda/bollinger_split.h; APPORTION_CUDA_KERNELS=
 * split, set at discovery): 1 or 0 (the default, one warp). The same bits either way.
 */
void apo__cuda_bollinger_split_set(int on);
int apo__cuda_bollinger_split_get(void);

/*
 * The most blocks an anchored catalog kernel's grid has (catalog_launch.h; docs/cuda.md, "The
 * anchored kernels"), 0 for no cap beyond the launch's own: APPORTION_CUDA_BLOCKS_PER_SM times
 * the largest multiprocessor count of the process's GPUs, set when the GPUs are discovered.
 * The kernels walk their items in a grid-stride loop, so a smaller grid keeps fewer blocks on a
 * multiprocessor at once and changes no bit.
 */
void apo__cuda_anchored_grid_set(unsigned int max_blocks);
unsigned int apo__cuda_anchored_grid_get(void);

/* The staged launchers, called by the ones above when the variant is staged, after their
 * argument checks and with a non-empty view. APO_CUDA_NOT_STAGED: the staged kernel does not
 * apply (bollinger's period exceeds the longest lookback), run the simple one. */
#define APO_CUDA_NOT_STAGED (-1)
int apo__cuda_bollinger_staged(const apo__cuda_view *v, size_t period, double nbdev_up,
                               double nbdev_dn, void *stream);
/* The pair of warps (bollinger_split.cu); APO_CUDA_NOT_STAGED past a period of 32, whose
 * block would need more than 48 KiB of shared memory. */
int apo__cuda_bollinger_split(const apo__cuda_view *v, size_t period, double nbdev_up,
                              double nbdev_dn, void *stream);
int apo__cuda_macd_staged(const apo__cuda_view *v, size_t fast, size_t slow, size_t signal,
                          size_t warmup, void *stream);
int apo__cuda_returns_stats_staged(const apo__cuda_view *v, void *stream);
/* What a cut launch (the catalog's, kernels/cuda/cut.h; macd's, below) answers where it
 * launches nothing: the caller runs its uncut kernel. */
#define APO_CUDA_NOT_CUT (-2)
/* The built-in macd on the chunk view v (fast, slow, signal as apo__cuda_macd takes them; warmup
 * = apo__macd_warmup of them), each tile cut into pieces that run in the lanes of staged warps
 * (kernels/cuda/staged.cu; the check of kernels/oscillators/macd_cut.h, the CPU's split's own),
 * with the bits of a tile at a time. APO_CUDA_NOT_CUT where the process runs the simple kernels,
 * the view is empty, even its longest tile's cut does not pay or its scratch finds no room
 * (apo__cuda_macd then runs the staged kernel), else the CUDA error of the launches. `pieces`,
 * where not NULL, receives the pieces run in [0] and those run again in [1]: a copy and a wait,
 * for the tests (the launcher passes NULL). */
int apo__cuda_macd_cut(const apo__cuda_view *v, size_t fast, size_t slow, size_t signal,
                       size_t warmup, void *stream, size_t *pieces);
/* bootstrap's means only, on the view with tile 1 (one replicate per item). */
int apo__cuda_bootstrap_means_staged(const apo__cuda_view *per_replicate, size_t replicates,
                                     uint64_t seed, void *stream);

#ifdef __cplusplus
}
#endif

#endif /* APO_KERNELS_CUDA_H */
