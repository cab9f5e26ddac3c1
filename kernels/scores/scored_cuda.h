/*
 * scored_cuda.h: the scored kernels' CUDA launcher (scored.cu; docs/cuda.md, "Scored sweeps on
 * a GPU"). Plain C, no CUDA header (as kernels_cuda.h).
 *
 * What: the scores of one set, or of several sets that share a pass (score_pass.h: they
 * differ only in what the pass leaves out, bollinger's widths and every rule's thresholds and
 * cost), for every series of a chunk (docs/scores.md, "Scores"), the series' samples in GPU
 * memory once for all the sets and only each set's APO_SCORE_IX_COUNT scores written back.
 * One GPU thread scores one series as the host's scored tile does
 * (runtime/catalog/scored_kernels.c): the indicator's tiles one after another, each computed
 * by the tile body the CPU runs into a window of scratch memory that starts at the tile's
 * halo, then each bar's outputs (score_pass_outputs.h) folded for every set with
 * score_tile.h's apo__score_bar. The same bodies on the same windows, compiled without FMA
 * contraction on both sides (apo_hd.h), so the scores are the CPU's bits.
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
 * r at in[i][r * cols + t], and score k of row r for set j written to
 * scores[k][j * set_stride + r] (both biased for absolute indexing, as apo__cuda_chunk's;
 * set_stride is unused for one set). */
typedef struct apo__scored_cuda_rows {
    const double *in[APO_CAT_MAX_IN];
    double *scores[APO_SCORE_IX_COUNT];
    size_t cols, row0, rows;
    size_t set_stride;
} apo__scored_cuda_rows;

/* Sets one launch folds at most: a thread keeps their running scores, so a launch of more
 * would spill them; more sets take more launches, each running the pass again over the same
 * inputs in GPU memory (the copy is what sharing saves; the pass is recomputed). */
#define APO_SCORED_CUDA_FOLDS 8

/* Device memory a launch of apo__cuda_scored asks for at most: it runs fewer threads rather
 * than more memory (a macd window is 16384 bars and more, 393 KB a thread). */
#define APO_SCORED_CUDA_SCRATCH_MAX_BYTES ((size_t)512 << 20)

/* Threads one SM holds at once on the GPUs the project has met (the H100 and H200; the A100
 * too): the most series a GPU scores at once when the scratch allows it. */
#define APO_SCORED_CUDA_THREADS_PER_SM 2048

/* Doubles of scratch one GPU thread needs: the pass's window of halo + tile bars (or the
 * whole row when whole_row is set), no longer than the row, n_pass doubles a bar. */
static inline size_t apo__scored_scratch_doubles(size_t n_pass, size_t halo, size_t tile,
                                                 int whole_row, size_t cols) {
    const size_t window = halo + tile;
    return n_pass * (whole_row || window > cols ? cols : window);
}

/* Series a GPU of `sms` SMs scores at once (docs/cuda.md, "Scored sweeps on a GPU"): one a
 * thread, as many as its SMs hold, or fewer where APO_SCORED_CUDA_SCRATCH_MAX_BYTES holds fewer
 * windows of `scratch_doubles` (at least one). A scored launch's time is its longest chain's
 * while its series fit this: the planner's wave for a scored call (runtime/core/plan.c). */
static inline size_t apo__scored_chains_at_once(size_t scratch_doubles, int sms) {
    const size_t resident = (size_t)(sms > 0 ? sms : 1) * APO_SCORED_CUDA_THREADS_PER_SM;
    const size_t bytes = (scratch_doubles > 0 ? scratch_doubles : 1) * sizeof(double);
    const size_t fit = APO_SCORED_CUDA_SCRATCH_MAX_BYTES / bytes;
    const size_t most = fit < resident ? fit : resident;
    return most > 0 ? most : 1;
}

/* Doubles of scratch one thread of `set`'s launch needs (apo__scored_scratch_doubles). */
size_t apo__scored_cuda_scratch(const apo__scored_cuda_set *set, size_t cols);

/* Enqueues the scores of every row for the n_sets sets on `stream` (a cudaStream_t): at most
 * `threads` GPU threads, thread i working in scratch + i * apo__scored_cuda_scratch(&sets[0],
 * cols), a device buffer the caller keeps until the stream has run the launches. The sets
 * must share a pass (the caller's word: apo__kernel.shares_pass); the pass is the first's,
 * each set's outputs and fold its own. One launch per APO_SCORED_CUDA_FOLDS sets. Returns the
 * CUDA error of a launch (0: launched), cudaErrorInvalidValue for sets that differ in their
 * pass's shape. */
int apo__cuda_scored_in(const apo__scored_cuda_set *sets, size_t n_sets,
                        const apo__scored_cuda_rows *rows, double *scratch, size_t threads,
                        void *stream);

/* apo__cuda_scored_in with scratch of its own: stream-ordered device memory for as many
 * threads as there are rows, or fewer when that much memory cannot be had (down to one
 * thread), freed in stream order after the launches. */
int apo__cuda_scored(const apo__scored_cuda_set *sets, size_t n_sets,
                     const apo__scored_cuda_rows *rows, void *stream);

/* Sets one mixed launch takes at most (the runtime's groups, APO_GRID_SHARE_MAX). */
#define APO_SCORED_CUDA_UNITS_MAX 64

/* The scores of sets that need not share a pass (a GPU's group of a sweep's consecutive sets:
 * periods that differ), in one launch: pass_starts[j] is nonzero where set j's pass is not set
 * j - 1's (pass_starts[0] is not read). Each run of sets that share a pass is cut into units of
 * APO_SCORED_CUDA_FOLDS sets, and one thread scores one (unit, series) item, so a launch has
 * units x rows items where a launch per unit would have rows (500 series make 500 threads,
 * which left an H100 idle: docs/perf-log/2026-11-25-h100-first-run.md, "Scored sweeps on a GPU").
 * Every run must be a valid set list for apo__cuda_scored, and all of them of the first run's tile
 * body and inputs. The units are copied to stream-ordered device memory, the scratch is as
 * apo__cuda_scored's for the largest window, and both are freed in stream order. Returns as
 * apo__cuda_scored. */
int apo__cuda_scored_mixed(const apo__scored_cuda_set *sets, size_t n_sets,
                           const unsigned char *pass_starts, const apo__scored_cuda_rows *rows,
                           void *stream);

#ifdef __cplusplus
}
#endif

#endif /* APO_SCORED_CUDA_H */
