/*
 * scored.cu: the scored kernels on a GPU (scored_cuda.h; docs/cuda.md, "Scored sweeps on a
 * GPU").
 *
 * Launch shape: one kernel per tile body (bollinger's pass, macd, and each catalog kernel a
 * built-in rule reads), 256-thread blocks, `threads` threads in all, thread i scoring rows i,
 * i + threads, ... of the chunk, each in its own window of scratch (a row is one series: the
 * scored kernel's tile). A thread walks its series the way the host's scored tile does
 * (runtime/catalog/scored_kernels.c, scored_row): the indicator's tiles [t0, t0 + tile) in
 * order, each computed over a window that starts at the tile's halo (origin = t0 - halo, or
 * 0), into the window's scratch at the window's indices, then the tile's bars folded one by
 * one for every set of the launch. Sets that share a pass are up to APO_SCORED_CUDA_FOLDS per
 * launch, all reading the one copy of the inputs; only the scores are written,
 * APO_SCORE_IX_COUNT per row and set.
 *
 * Determinism: the tile bodies (bollinger_pass_tile.h, macd_tile.h, the catalog's
 * <name>_tile.h), the outputs at a bar (score_pass_outputs.h) and the fold (score_tile.h) are
 * the APO_HD sources the CPU runs, on the same windows with the same indices, compiled with
 * -fmad=false; the halos and macd's warm-up, which need libm's log, come from the host
 * (apo__scored_cuda_set). Each set's outputs at a bar are taken from the shared pass with its
 * own parameters and folded into its own running scores, as the host folds each set of a
 * shared call, so a set's scores are its bits alone whatever sets share its launch. No thread
 * reads another's scratch or writes another's scores, so neither the thread count nor the
 * schedule changes a bit.
 */
#include <cuda_runtime.h>
#include <string.h>

#include "averages_tiles.h"
#include "bollinger_pass_tile.h"
#include "cuda_chunk.h"
#include "macd_tile.h"
#include "oscillators_tiles.h"
#include "score_pass_outputs.h"
#include "scored_cuda.h"
#include "volume_tiles.h"

/* Device memory a launch of apo__cuda_scored asks for at most: it runs fewer threads rather
 * than more memory (a macd window is 16384 bars and more, 393 KB a thread). */
#define APO_SCORED_CUDA_SCRATCH_MAX_BYTES ((size_t)512 << 20)

/* The tile bodies a kernel is compiled for: bollinger's pass, macd, or one catalog kernel of a
 * family (CatId, a constant, so the family's switch folds to that kernel's body). One kernel
 * per body: the bodies of one kernel share its registers, and all of them in one kernel took
 * ptxas's 255 with spills. */
enum {
    APO_SCORED_BODY_BOLLINGER,
    APO_SCORED_BODY_MACD,
    APO_SCORED_BODY_AVERAGES,
    APO_SCORED_BODY_OSCILLATORS,
    APO_SCORED_BODY_VOLUME
};

/* The catalog kernels a built-in rule reads (runtime/catalog/scored_kernels.c, scored_defs):
 * X(name, family body, apo__cat_id) each. */
#define APO_SCORED_CATALOG_BODIES(X)                                                               \
    X(sma, APO_SCORED_BODY_AVERAGES, APO_CAT_SMA)                                                  \
    X(ema, APO_SCORED_BODY_AVERAGES, APO_CAT_EMA)                                                  \
    X(wma, APO_SCORED_BODY_AVERAGES, APO_CAT_WMA)                                                  \
    X(dema, APO_SCORED_BODY_AVERAGES, APO_CAT_DEMA)                                                \
    X(tema, APO_SCORED_BODY_AVERAGES, APO_CAT_TEMA)                                                \
    X(kama, APO_SCORED_BODY_AVERAGES, APO_CAT_KAMA)                                                \
    X(rsi, APO_SCORED_BODY_OSCILLATORS, APO_CAT_RSI)                                               \
    X(cmo, APO_SCORED_BODY_OSCILLATORS, APO_CAT_CMO)                                               \
    X(willr, APO_SCORED_BODY_OSCILLATORS, APO_CAT_WILLR)                                           \
    X(cci, APO_SCORED_BODY_OSCILLATORS, APO_CAT_CCI)                                               \
    X(stochf, APO_SCORED_BODY_OSCILLATORS, APO_CAT_STOCHF)                                         \
    X(stoch, APO_SCORED_BODY_OSCILLATORS, APO_CAT_STOCH)                                           \
    X(mfi, APO_SCORED_BODY_VOLUME, APO_CAT_MFI)

/* What a launch folds beyond its pass: each set's own parameters (bollinger's widths enter its
 * outputs), rule, cost and sqrt(periods_per_year). Passed by value, as the set is: a kernel's
 * parameters are copied at the launch, so nothing on the host must outlive it. */
typedef struct apo__scored_folds {
    size_t n; /* 1 .. APO_SCORED_CUDA_FOLDS */
    double params[APO_SCORED_CUDA_FOLDS][APO_CAT_MAX_PAR];
    apo__rule rule[APO_SCORED_CUDA_FOLDS];
    double cost[APO_SCORED_CUDA_FOLDS], sqrt_periods[APO_SCORED_CUDA_FOLDS];
} apo__scored_folds;

/* The pass of tile [begin, end) of a window with tile body `Body` (and CatId): x[i] its inputs from
 * the window's first sample, out[k] the pass's doubles at the window's indices. */
template <int Body, int CatId>
static __device__ void apo__scored_pass_tile(const apo__scored_cuda_set *s, const double *const *x,
                                             size_t begin, size_t end, double *const *out) {
    if (Body == APO_SCORED_BODY_BOLLINGER) {
        /* The pass's order (score_pass_outputs.h): the sd, then the mean. */
        apo__bollinger_pass_tile(x[0], begin, end, (size_t)s->params[0], out[1], out[0]);
        return;
    }
    if (Body == APO_SCORED_BODY_MACD) {
        /* The body puts a fast period longer than the slow one second, as the host does. */
        apo__macd_tile(x[0], begin, end, (size_t)s->params[0], (size_t)s->params[1],
                       (size_t)s->params[2], s->warmup, out[0], out[1], out[2]);
        return;
    }
    apo__cat_io io = s->io;
    for (size_t i = 0; i < s->n_in; i++)
        io.in[i] = x[i];
    for (size_t k = 0; k < s->n_pass; k++)
        io.out[k] = out[k];
    if (Body == APO_SCORED_BODY_AVERAGES)
        apo__averages_tile(CatId, &io, begin, end);
    else if (Body == APO_SCORED_BODY_OSCILLATORS)
        apo__oscillators_tile(CatId, &io, begin, end);
    else
        apo__volume_tile(CatId, &io, begin, end);
}

/* The running scores of every set of the launch over one series of n samples (x[i]: its
 * inputs), in a window of scratch of `cap` bars per pass double: the pass once per tile, each
 * set's outputs at a bar from it. */
template <int Body, int CatId>
static __device__ void apo__scored_series(const apo__scored_cuda_set *s,
                                          const apo__scored_folds *folds, const double *const *x,
                                          size_t n, double *scratch, size_t cap,
                                          apo__score_fold *f) {
    double *pass_out[APO_CAT_MAX_OUT];
    const double *pass_in[APO_CAT_MAX_OUT];
    for (size_t k = 0; k < s->n_pass; k++)
        pass_in[k] = pass_out[k] = scratch + k * cap;
    const double *close = x[s->close_in];
    for (size_t j = 0; j < folds->n; j++)
        apo__score_fold_init(&f[j]);
    for (size_t t0 = 0; t0 < n; t0 += s->tile) {
        const size_t t1 = t0 + s->tile < n ? t0 + s->tile : n;
        const size_t origin = s->whole_row ? 0 : (t0 > s->halo ? t0 - s->halo : 0);
        const double *window[APO_CAT_MAX_IN];
        for (size_t i = 0; i < s->n_in; i++)
            window[i] = x[i] + origin;
        apo__scored_pass_tile<Body, CatId>(s, window, t0 - origin, t1 - origin, pass_out);
        for (size_t t = t0; t < t1; t++) {
            const double prev = t > 0 ? close[t - 1] : (double)NAN;
            for (size_t j = 0; j < folds->n; j++) {
                double out[APO_CAT_MAX_OUT];
                apo__score_pass_outputs_of(s->pass, folds->params[j], pass_in, t - origin, s->n_out,
                                           1, out);
                apo__score_bar(&f[j], &folds->rule[j], folds->cost[j], prev, close[t], out,
                               s->n_out);
            }
        }
    }
}

/* Thread `me` of `threads` scores rows me, me + threads, ... of the chunk in its window, for
 * every set of the launch (set j's scores at j * set_stride from r's). */
template <int Body, int CatId>
static __device__ void apo__scored_rows(const apo__scored_cuda_set *s,
                                        const apo__scored_folds *folds,
                                        const apo__scored_cuda_rows *r, double *scratch,
                                        size_t per_thread, size_t threads) {
    const size_t me = apo__cuda_first_item();
    if (me >= threads)
        return; /* the last block's threads past the scratch */
    double *mine = scratch + me * per_thread;
    const size_t cap = per_thread / s->n_pass;
    for (size_t i = me; i < r->rows; i += threads) {
        const size_t row = r->row0 + i;
        const double *x[APO_CAT_MAX_IN];
        for (size_t k = 0; k < s->n_in; k++)
            x[k] = r->in[k] + row * r->cols;
        apo__score_fold f[APO_SCORED_CUDA_FOLDS];
        apo__scored_series<Body, CatId>(s, folds, x, r->cols, mine, cap, f);
        for (size_t j = 0; j < folds->n; j++) {
            double scores[APO_SCORE_IX_COUNT];
            apo__score_finish(&f[j], folds->sqrt_periods[j], scores);
            for (size_t k = 0; k < APO_SCORE_IX_COUNT; k++)
                r->scores[k][j * r->set_stride + row] = scores[k];
        }
    }
}

/* One kernel per tile body (a launch names no template: the SIMT layer's lowering takes plain
 * names). */
#define APO_SCORED_KERNEL(name, body, cat_id)                                                      \
    static __global__ void apo__scored_##name##_kernel(                                            \
        apo__scored_cuda_set s, apo__scored_folds folds, apo__scored_cuda_rows r, double *scratch, \
        size_t per_thread, size_t threads) {                                                       \
        apo__scored_rows<body, cat_id>(&s, &folds, &r, scratch, per_thread, threads);              \
    }
APO_SCORED_KERNEL(bollinger, APO_SCORED_BODY_BOLLINGER, 0)
APO_SCORED_KERNEL(macd, APO_SCORED_BODY_MACD, 0)
APO_SCORED_CATALOG_BODIES(APO_SCORED_KERNEL)

/* Whether a catalog kernel has a body here. */
static bool apo__scored_cuda_has_body(int cat_id) {
#define APO_SCORED_HAS(name, body, id)                                                             \
    if (cat_id == (id))                                                                            \
        return true;
    APO_SCORED_CATALOG_BODIES(APO_SCORED_HAS)
#undef APO_SCORED_HAS
    return false;
}

extern "C" size_t apo__scored_cuda_scratch(const apo__scored_cuda_set *set, size_t cols) {
    const size_t window = set->halo + set->tile;
    const size_t cap = set->whole_row || window > cols ? cols : window;
    return set->n_pass * cap;
}

/* Whether set b has the pass of set a's shape: the fields the pass and the scratch are laid out
 * by (the pass's parameters are the caller's word). */
static bool apo__scored_same_pass_shape(const apo__scored_cuda_set *a,
                                        const apo__scored_cuda_set *b) {
    return a->indicator == b->indicator && a->pass == b->pass && a->n_in == b->n_in &&
           a->n_pass == b->n_pass && a->n_out == b->n_out && a->close_in == b->close_in &&
           a->tile == b->tile && a->halo == b->halo && a->whole_row == b->whole_row &&
           a->cat_id == b->cat_id && a->warmup == b->warmup;
}

/* Whether the sets and rows are ones the kernel can run. */
static bool apo__scored_cuda_valid(const apo__scored_cuda_set *sets, size_t n_sets,
                                   const apo__scored_cuda_rows *r) {
    if (sets == NULL || n_sets == 0 || (n_sets > 1 && r != NULL && r->set_stride == 0))
        return false;
    for (size_t j = 1; j < n_sets; j++)
        if (!apo__scored_same_pass_shape(&sets[0], &sets[j]))
            return false;
    const apo__scored_cuda_set *s = &sets[0];
    if (r == NULL || s->tile == 0 || s->n_in == 0 || s->n_in > APO_CAT_MAX_IN || s->n_pass == 0 ||
        s->n_pass > APO_CAT_MAX_OUT || s->n_out == 0 || s->n_out > APO_CAT_MAX_OUT ||
        s->close_in >= s->n_in)
        return false;
    if (s->indicator == APO_SCORED_CUDA_CATALOG && !apo__scored_cuda_has_body(s->cat_id))
        return false; /* no built-in rule reads it (APO_SCORED_CATALOG_BODIES) */
    for (size_t i = 0; i < s->n_in; i++)
        if (r->in[i] == NULL)
            return false;
    for (size_t k = 0; k < APO_SCORE_IX_COUNT; k++)
        if (r->scores[k] == NULL)
            return false;
    return true;
}

/* Launches the sets `folds` names, whose scores start at `rows`' (scratch as for
 * apo__cuda_scored_in). */
static int apo__scored_launch(const apo__scored_cuda_set *set, const apo__scored_folds *folds,
                              const apo__scored_cuda_rows *rows, double *scratch, size_t threads,
                              cudaStream_t st) {
    const size_t per_thread = apo__scored_cuda_scratch(set, rows->cols);
    const unsigned int blocks = apo__cuda_blocks(threads);
/* Launches the kernel of tile body `name`. */
#define APO_SCORED_LAUNCH(name)                                                                    \
    apo__scored_##name##_kernel<<<blocks, APO_CUDA_BLOCK, 0, st>>>(*set, *folds, *rows, scratch,   \
                                                                   per_thread, threads)
/* The launch of a catalog kernel's body. */
#define APO_SCORED_CASE(name, body, id)                                                            \
    case id:                                                                                       \
        APO_SCORED_LAUNCH(name);                                                                   \
        break;
    if (set->indicator == APO_SCORED_CUDA_BOLLINGER) {
        APO_SCORED_LAUNCH(bollinger);
    } else if (set->indicator == APO_SCORED_CUDA_MACD) {
        APO_SCORED_LAUNCH(macd);
    } else {
        switch (set->cat_id) {
            APO_SCORED_CATALOG_BODIES(APO_SCORED_CASE)
        default: /* apo__scored_cuda_valid refused it */
            break;
        }
    }
#undef APO_SCORED_CASE
#undef APO_SCORED_LAUNCH
    return (int)cudaGetLastError();
}

extern "C" int apo__cuda_scored_in(const apo__scored_cuda_set *sets, size_t n_sets,
                                   const apo__scored_cuda_rows *rows, double *scratch,
                                   size_t threads, void *stream) {
    if (!apo__scored_cuda_valid(sets, n_sets, rows) || scratch == NULL || threads == 0 ||
        threads > (size_t)65535 * APO_CUDA_BLOCK)
        return (int)cudaErrorInvalidValue;
    if (rows->rows == 0 || rows->cols == 0)
        return (int)cudaSuccess;
    const cudaStream_t st = static_cast<cudaStream_t>(stream);
    /* The sets in launches of APO_SCORED_CUDA_FOLDS, in order: the scratch is reused, which the
     * stream's order makes safe. */
    for (size_t j0 = 0; j0 < n_sets; j0 += APO_SCORED_CUDA_FOLDS) {
        apo__scored_folds folds;
        memset(&folds, 0, sizeof folds);
        folds.n = n_sets - j0 < APO_SCORED_CUDA_FOLDS ? n_sets - j0 : APO_SCORED_CUDA_FOLDS;
        for (size_t j = 0; j < folds.n; j++) {
            const apo__scored_cuda_set *s = &sets[j0 + j];
            memcpy(folds.params[j], s->params, sizeof folds.params[j]);
            folds.rule[j] = s->rule;
            folds.cost[j] = s->cost;
            folds.sqrt_periods[j] = s->sqrt_periods;
        }
        apo__scored_cuda_rows part = *rows;
        for (size_t k = 0; k < APO_SCORE_IX_COUNT; k++)
            part.scores[k] = rows->scores[k] + j0 * rows->set_stride;
        const int rc = apo__scored_launch(&sets[0], &folds, &part, scratch, threads, st);
        if (rc != 0)
            return rc;
    }
    return (int)cudaSuccess;
}

extern "C" int apo__cuda_scored(const apo__scored_cuda_set *sets, size_t n_sets,
                                const apo__scored_cuda_rows *rows, void *stream) {
    if (!apo__scored_cuda_valid(sets, n_sets, rows))
        return (int)cudaErrorInvalidValue;
    if (rows->rows == 0 || rows->cols == 0)
        return (int)cudaSuccess;
    const size_t bytes = apo__scored_cuda_scratch(&sets[0], rows->cols) * sizeof(double);
    const size_t most = APO_SCORED_CUDA_SCRATCH_MAX_BYTES / bytes;
    size_t threads =
        rows->rows < (size_t)65535 * APO_CUDA_BLOCK ? rows->rows : (size_t)65535 * APO_CUDA_BLOCK;
    if (threads > most)
        threads = most > 0 ? most : 1;
    const cudaStream_t s = static_cast<cudaStream_t>(stream);
    double *scratch = NULL;
    for (;;) {
        const cudaError_t e = cudaMallocAsync((void **)&scratch, threads * bytes, s);
        if (e == cudaSuccess)
            break;
        (void)cudaGetLastError(); /* not sticky: try with fewer threads */
        if (threads == 1)
            return (int)e;
        threads /= 2;
    }
    const int rc = apo__cuda_scored_in(sets, n_sets, rows, scratch, threads, stream);
    const cudaError_t freed = cudaFreeAsync(scratch, s);
    return rc != 0 ? rc : (int)freed;
}
