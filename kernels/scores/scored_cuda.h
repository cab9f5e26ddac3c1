/*
 * scored_cuda.h: the scored kernels' CUDA launcher (scored.cu; docs/cuda.md, "Scored sweeps on
 * a GPU"). Plain C, no CUDA header (as kernels_cuda.h).
 *
 * What: the scores of one set (docs/kernels.md, "Scores") for every series of a chunk, the
 * series' samples in GPU memory and only its APO_SCORE_IX_COUNT scores written back. One GPU
 * thread scores one series as the host's scored tile does (runtime/catalog/scored_kernels.c):
 * the indicator's tiles one after another, each computed by the tile body the CPU runs into a
 * window of scratch memory that starts at the tile's halo, then each bar's outputs
 * (score_pass_outputs.h) folded with score_tile.h's apo__score_bar. The same bodies on the
 * same windows, compiled without FMA contraction on both sides (apo_hd.h), so the scores are
 * the CPU's bits.
 */
#ifndef APO_SCORED_CUDA_H
#define APO_SCORED_CUDA_H

#include <stddef.h>

#include "catalog.h"
#include "score_tile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The indicators a scored kernel's GPU pass computes. */
enum {
    APO_SCORED_CUDA_BOLLINGER = 0, /* bollinger's pass of mean and sd (score_pass_outputs.h) */
    APO_SCORED_CUDA_MACD,          /* macd's tile */
    APO_SCORED_CUDA_CATALOG        /* a catalog kernel's tile (catalog.h) */
};

/* One set of a scored kernel, as the host resolves it: everything that needs libm's log (the
 * halos, macd's warm-up) or the runtime's tables is taken here, on the host, so the GPU only
 * runs the bodies. */
typedef struct apo__scored_cuda_set {
    int indicator;   /* APO_SCORED_CUDA_* */
    int pass;        /* APO_SCORE_PASS_* (score_pass_outputs.h) */
    size_t n_in;     /* the indicator's inputs (at most APO_CAT_MAX_IN) */
    size_t n_pass;   /* doubles the pass keeps per bar (at most APO_CAT_MAX_OUT) */
    size_t n_out;    /* the indicator's outputs, which the rule reads (at most APO_CAT_MAX_OUT) */
    size_t close_in; /* the input that is the close */
    size_t tile;     /* the indicator's tile length */
    size_t halo;     /* the samples before a tile that it reads */
    int whole_row;   /* every tile reads its row from the first sample (the window starts at 0) */
    /* The indicator's parameters, in its order; for a catalog kernel `io` holds them too,
     * with its halo in the field h (its pointers are unused). */
    double params[APO_CAT_MAX_PAR];
    apo__cat_io io;
    int cat_id;    /* APO_SCORED_CUDA_CATALOG: its apo__cat_id (one a built-in rule reads) */
    size_t warmup; /* APO_SCORED_CUDA_MACD: apo__macd_warmup of its periods */
    apo__rule rule;
    double cost, sqrt_periods; /* the rule's cost; sqrt(periods_per_year) */
} apo__scored_cuda_set;

/* The series of a chunk: rows [row0, row0 + rows) of cols samples each, sample t of global row
 * r at in[i][r * cols + t], and score k of row r written to scores[k][r] (both biased for
 * absolute indexing, as apo__cuda_chunk's). */
typedef struct apo__scored_cuda_rows {
    const double *in[APO_CAT_MAX_IN];
    double *scores[APO_SCORE_IX_COUNT];
    size_t cols, row0, rows;
} apo__scored_cuda_rows;

/* Doubles of scratch one GPU thread needs: the pass's window of halo + tile bars (or the
 * whole row when whole_row is set), no longer than the row. */
size_t apo__scored_cuda_scratch(const apo__scored_cuda_set *set, size_t cols);

/* Enqueues the scores of every row on `stream` (a cudaStream_t): at most `threads` GPU
 * threads, thread i working in scratch + i * apo__scored_cuda_scratch(set, cols), a device
 * buffer the caller keeps until the stream has run the launch. Returns the CUDA error of the
 * launch (0: launched). */
int apo__cuda_scored_in(const apo__scored_cuda_set *set, const apo__scored_cuda_rows *rows,
                        double *scratch, size_t threads, void *stream);

/* apo__cuda_scored_in with scratch of its own: stream-ordered device memory for as many
 * threads as there are rows, or fewer when that much memory cannot be had (down to one
 * thread), freed in stream order after the launch. */
int apo__cuda_scored(const apo__scored_cuda_set *set, const apo__scored_cuda_rows *rows,
                     void *stream);

#ifdef __cplusplus
}
#endif

#endif /* APO_SCORED_CUDA_H */
