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

/* The bodies that read and write through apo_hd.h's accessors (bollinger's pass, macd) get
 * strides: their windows are interleaved across the launch's threads (apo__scored_interleaved). */
#define APO_STRIDED_ACCESS

/* Before averages_tiles.h, whose bbands includes bollinger's body: here the body stores the
 * pass (bbands_tile.h forms its bands from it). */
#include "bollinger_pass_tile.h"

#include "averages_tiles.h"
#include "cuda_chunk.h"
#include "macd_tile.h"
#include "oscillators_tiles.h"
#include "score_pass_outputs.h"
#include "scored_cuda.h"
#include "volume_tiles.h"

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

/* The catalog kernels a built-in rule reads (runtime/catalog/scored_table.c, scored_defs):
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
    int lone; /* n is 1 and the process runs the staged kernels: the fold in registers */
    double params[APO_SCORED_CUDA_FOLDS][APO_CAT_MAX_PAR];
    apo__rule rule[APO_SCORED_CUDA_FOLDS];
    double cost[APO_SCORED_CUDA_FOLDS], sqrt_periods[APO_SCORED_CUDA_FOLDS];
} apo__scored_folds;

/* One unit of a launch over several passes (apo__cuda_scored_mixed): a pass (its first set),
 * the sets of it folded together, and the index of the first of them among the chunk's sets.
 * An array of units lives in device memory for the launch. */
typedef struct apo__scored_unit {
    apo__scored_cuda_set set;
    apo__scored_folds folds;
    size_t first_set;
} apo__scored_unit;

/* The folds of sets [j0, j0 + n) (n at most APO_SCORED_CUDA_FOLDS). */
static void apo__scored_folds_of(const apo__scored_cuda_set *sets, size_t j0, size_t n,
                                 apo__scored_folds *folds) {
    memset(folds, 0, sizeof *folds);
    folds->n = n;
    /* APPORTION_CUDA_KERNELS=simple keeps the array, so that one library times both. */
    folds->lone = n == 1 && apo__cuda_kernels_get() == APO_CUDA_KERNELS_STAGED;
    for (size_t j = 0; j < n; j++) {
        const apo__scored_cuda_set *s = &sets[j0 + j];
        memcpy(folds->params[j], s->params, sizeof folds->params[j]);
        folds->rule[j] = s->rule;
        folds->cost[j] = s->cost;
        folds->sqrt_periods[j] = s->sqrt_periods;
    }
}

/* Whether the windows of tile body `Body` (and CatId) are interleaved across the launch's
 * threads: index i of thread `me`'s pass double k at scratch[(k * cap + i) * threads + me], so
 * that the threads of a warp, at the same index of their series, read and write one 256-byte span
 * where each read a line of its own (docs/cuda.md, "Scored sweeps on a GPU", "Interleaved
 * windows"). Only the bodies that reach their outputs through apo_hd.h's accessors can:
 * bollinger's pass, macd, and of the catalog rsi and cmo (apo__wilder_osc_tile_to); the other
 * catalog bodies store through apo__cat_io's plain pointers, and their windows stay one after the
 * other (scratch[me * per_thread + k * cap + i]). */
template <int Body, int CatId>
static constexpr bool apo__scored_interleaved = Body == APO_SCORED_BODY_BOLLINGER ||
                                                Body == APO_SCORED_BODY_MACD ||
                                                (Body == APO_SCORED_BODY_OSCILLATORS &&
                                                 (CatId == APO_CAT_RSI || CatId == APO_CAT_CMO));

/* The pass of tile [begin, end) of a window with tile body `Body` (and CatId): x[i] its inputs from
 * the window's first sample, out[k][i * stride] the pass's doubles at the window's indices
 * (stride 1 but where apo__scored_interleaved). */
template <int Body, int CatId>
static __device__ void apo__scored_pass_tile(const apo__scored_cuda_set *s, const double *const *x,
                                             size_t begin, size_t end, double *const *out,
                                             size_t stride) {
    if (Body == APO_SCORED_BODY_BOLLINGER) {
        /* The pass's order (score_pass_outputs.h): the sd, then the mean. */
        apo__bollinger_pass_tile(apo__in_at(x[0]), begin, end, (size_t)s->params[0],
                                 apo__out_strided(out[1], stride),
                                 apo__out_strided(out[0], stride));
        return;
    }
    if (Body == APO_SCORED_BODY_MACD) {
        /* The body puts a fast period longer than the slow one second, as the host does. */
        apo__macd_tile(apo__in_at(x[0]), begin, end, (size_t)s->params[0], (size_t)s->params[1],
                       (size_t)s->params[2], s->warmup, apo__out_strided(out[0], stride),
                       apo__out_strided(out[1], stride), apo__out_strided(out[2], stride));
        return;
    }
    apo__cat_io io = s->io;
    for (size_t i = 0; i < s->n_in; i++)
        io.in[i] = x[i];
    if constexpr (Body == APO_SCORED_BODY_OSCILLATORS && apo__scored_interleaved<Body, CatId>) {
        /* rsi and cmo: their one output through a strided accessor. */
        apo__wilder_osc_tile_to(&io, begin, end, CatId == APO_CAT_CMO,
                                apo__out_strided(out[0], stride));
    } else {
        for (size_t k = 0; k < s->n_pass; k++)
            io.out[k] = out[k];
        if (Body == APO_SCORED_BODY_AVERAGES)
            apo__averages_tile(CatId, &io, begin, end);
        else if (Body == APO_SCORED_BODY_OSCILLATORS)
            apo__oscillators_tile(CatId, &io, begin, end);
        else
            apo__volume_tile(CatId, &io, begin, end);
    }
}

/* Folds one bar into set j's running scores f: the set's outputs at index i of the pass's doubles
 * (pass_in; the window's index times its stride) with its own parameters, then its rule and cost;
 * prev and close are the bar's close before and its own. */
static __device__ __forceinline__ void apo__scored_fold_bar(const apo__scored_cuda_set *s,
                                                            const apo__scored_folds *folds,
                                                            size_t j, const double *const *pass_in,
                                                            size_t i, double prev, double close,
                                                            apo__score_fold *f) {
    double out[APO_CAT_MAX_OUT];
    apo__score_pass_outputs_of(s->pass, folds->params[j], pass_in, i, s->n_out, 1, out);
    apo__score_bar(f, &folds->rule[j], folds->cost[j], prev, close, out, s->n_out);
}

/* The running scores of every set of the launch over one series of n samples (x[i]: its
 * inputs), in a window of scratch of `cap` bars per pass double, index i of pass double k at
 * scratch[(k * cap + i) * stride]: the pass once per tile, each set's outputs at a bar from it.
 *
 * A launch or unit of one set (a sweep whose sets each have a pass of their own, as rsi's
 * periods) folds into `lone`, which no index reaches, so that the compiler keeps it in
 * registers; the sets of a launch of several are an array indexed by a count known at run
 * time, kept in local memory, whose loads and stores come at every bar (docs/cuda.md, "Scored
 * sweeps on a GPU"). The same operations on the same values either way: the same bits. Not
 * for stoch and stochf, whose kernels spill at ptxas's 255 registers already (twice the spill
 * stores with it). */
template <int Body, int CatId>
static __device__ void apo__scored_series(const apo__scored_cuda_set *s,
                                          const apo__scored_folds *folds, const double *const *x,
                                          size_t n, double *scratch, size_t cap, size_t stride,
                                          apo__score_fold *f) {
    double *pass_out[APO_CAT_MAX_OUT];
    const double *pass_in[APO_CAT_MAX_OUT];
    for (size_t k = 0; k < s->n_pass; k++)
        pass_in[k] = pass_out[k] = scratch + k * cap * stride;
    const double *close = x[s->close_in];
    const bool spills =
        Body == APO_SCORED_BODY_OSCILLATORS && (CatId == APO_CAT_STOCH || CatId == APO_CAT_STOCHF);
    const bool one = !spills && folds->lone;
    apo__score_fold lone;
    apo__score_fold_init(&lone);
    for (size_t j = 0; j < folds->n; j++)
        apo__score_fold_init(&f[j]);
    for (size_t t0 = 0; t0 < n; t0 += s->tile) {
        const size_t t1 = t0 + s->tile < n ? t0 + s->tile : n;
        const size_t origin = s->whole_row ? 0 : (t0 > s->halo ? t0 - s->halo : 0);
        const double *window[APO_CAT_MAX_IN];
        for (size_t i = 0; i < s->n_in; i++)
            window[i] = x[i] + origin;
        apo__scored_pass_tile<Body, CatId>(s, window, t0 - origin, t1 - origin, pass_out, stride);
        for (size_t t = t0; t < t1; t++) {
            const double prev = t > 0 ? close[t - 1] : (double)NAN;
            const size_t at = (t - origin) * stride;
            if (one)
                apo__scored_fold_bar(s, folds, 0, pass_in, at, prev, close[t], &lone);
            else
                for (size_t j = 0; j < folds->n; j++)
                    apo__scored_fold_bar(s, folds, j, pass_in, at, prev, close[t], &f[j]);
        }
    }
    if (one)
        f[0] = lone;
}

/* Global row `row` scored in the window `mine` (`cap` bars per pass double, `stride` apart) for
 * every set of `folds`, the sets first_set, first_set + 1, ... of the chunk (set j's scores at
 * j * set_stride from r's). */
template <int Body, int CatId>
static __device__ void apo__scored_row(const apo__scored_cuda_set *s,
                                       const apo__scored_folds *folds,
                                       const apo__scored_cuda_rows *r, size_t row, size_t first_set,
                                       double *mine, size_t cap, size_t stride) {
    const double *x[APO_CAT_MAX_IN];
    for (size_t k = 0; k < s->n_in; k++)
        x[k] = r->in[k] + row * r->cols;
    apo__score_fold f[APO_SCORED_CUDA_FOLDS];
    apo__scored_series<Body, CatId>(s, folds, x, r->cols, mine, cap, stride, f);
    for (size_t j = 0; j < folds->n; j++) {
        double scores[APO_SCORE_IX_COUNT];
        apo__score_finish(&f[j], folds->sqrt_periods[j], scores);
        for (size_t k = 0; k < APO_SCORE_IX_COUNT; k++)
            r->scores[k][(first_set + j) * r->set_stride + row] = scores[k];
    }
}

/* Thread `me`'s window of the launch's scratch (per_thread doubles a thread, `threads` threads),
 * and in *stride how far apart its indices lie (apo__scored_interleaved). */
template <int Body, int CatId>
static __device__ double *apo__scored_window(double *scratch, size_t me, size_t per_thread,
                                             size_t threads, size_t *stride) {
    *stride = apo__scored_interleaved<Body, CatId> ? threads : 1;
    return apo__scored_interleaved<Body, CatId> ? scratch + me : scratch + me * per_thread;
}

/* Thread `me` of `threads` scores rows me, me + threads, ... of the chunk in its window, for
 * every set of the launch. */
template <int Body, int CatId>
static __device__ void apo__scored_rows(const apo__scored_cuda_set *s,
                                        const apo__scored_folds *folds,
                                        const apo__scored_cuda_rows *r, double *scratch,
                                        size_t per_thread, size_t threads) {
    const size_t me = apo__cuda_first_item();
    if (me >= threads)
        return; /* the last block's threads past the scratch */
    size_t stride;
    double *mine = apo__scored_window<Body, CatId>(scratch, me, per_thread, threads, &stride);
    for (size_t i = me; i < r->rows; i += threads)
        apo__scored_row<Body, CatId>(s, folds, r, r->row0 + i, 0, mine, per_thread / s->n_pass,
                                     stride);
}

/* Thread `me` of `threads` takes items me, me + threads, ... of units x rows, unit-major (the
 * threads of a warp score neighbouring rows of one unit), each in the thread's window. */
template <int Body, int CatId>
static __device__ void apo__scored_units(const apo__scored_unit *units, size_t n_units,
                                         const apo__scored_cuda_rows *r, double *scratch,
                                         size_t per_thread, size_t threads) {
    const size_t me = apo__cuda_first_item();
    if (me >= threads)
        return;
    size_t stride;
    double *mine = apo__scored_window<Body, CatId>(scratch, me, per_thread, threads, &stride);
    for (size_t i = me; i < n_units * r->rows; i += threads) {
        const apo__scored_unit *u = &units[i / r->rows];
        apo__scored_row<Body, CatId>(&u->set, &u->folds, r, r->row0 + i % r->rows, u->first_set,
                                     mine, per_thread / u->set.n_pass, stride);
    }
}

/* Two kernels per tile body, one launch's sets sharing a pass and units of several passes (a
 * launch names no template: the SIMT layer's lowering takes plain names). */
#define APO_SCORED_KERNEL(name, body, cat_id)                                                      \
    static __global__ void apo__scored_##name##_kernel(                                            \
        apo__scored_cuda_set s, apo__scored_folds folds, apo__scored_cuda_rows r, double *scratch, \
        size_t per_thread, size_t threads) {                                                       \
        apo__scored_rows<body, cat_id>(&s, &folds, &r, scratch, per_thread, threads);              \
    }                                                                                              \
    static __global__ void apo__scored_##name##_units_kernel(                                      \
        const apo__scored_unit *units, size_t n_units, apo__scored_cuda_rows r, double *scratch,   \
        size_t per_thread, size_t threads) {                                                       \
        apo__scored_units<body, cat_id>(units, n_units, &r, scratch, per_thread, threads);         \
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
    return apo__scored_scratch_doubles(set->n_pass, set->halo, set->tile, set->whole_row, cols);
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

/* Runs LAUNCH(name) for the kernel of tile body `name` that the set's indicator takes (for a
 * catalog indicator, its cat_id; one apo__scored_cuda_valid refused launches nothing). */
#define APO_SCORED_DISPATCH(set, LAUNCH)                                                           \
    do {                                                                                           \
        if ((set)->indicator == APO_SCORED_CUDA_BOLLINGER) {                                       \
            LAUNCH(bollinger);                                                                     \
        } else if ((set)->indicator == APO_SCORED_CUDA_MACD) {                                     \
            LAUNCH(macd);                                                                          \
        } else {                                                                                   \
            switch ((set)->cat_id) {                                                               \
                APO_SCORED_CATALOG_BODIES(APO_SCORED_CASE_##LAUNCH)                                \
            default:                                                                               \
                break;                                                                             \
            }                                                                                      \
        }                                                                                          \
    } while (0)

/* Launches the sets `folds` names, whose scores start at `rows`' (scratch as for
 * apo__cuda_scored_in). */
static int apo__scored_launch(const apo__scored_cuda_set *set, const apo__scored_folds *folds,
                              const apo__scored_cuda_rows *rows, double *scratch, size_t threads,
                              cudaStream_t st) {
    const size_t per_thread = apo__scored_cuda_scratch(set, rows->cols);
    const unsigned int blocks = apo__cuda_blocks(threads);
#define APO_SCORED_LAUNCH_SETS(name)                                                               \
    apo__scored_##name##_kernel<<<blocks, APO_CUDA_BLOCK, 0, st>>>(*set, *folds, *rows, scratch,   \
                                                                   per_thread, threads)
#define APO_SCORED_CASE_APO_SCORED_LAUNCH_SETS(name, body, id)                                     \
    case id:                                                                                       \
        APO_SCORED_LAUNCH_SETS(name);                                                              \
        break;
    APO_SCORED_DISPATCH(set, APO_SCORED_LAUNCH_SETS);
#undef APO_SCORED_CASE_APO_SCORED_LAUNCH_SETS
#undef APO_SCORED_LAUNCH_SETS
    return (int)cudaGetLastError();
}

/* Launches the units (in device memory) over `rows`, with their kernel (the first set's tile
 * body: every unit's), per_thread doubles of scratch a thread. */
static int apo__scored_launch_units(const apo__scored_cuda_set *first,
                                    const apo__scored_unit *units, size_t n_units,
                                    const apo__scored_cuda_rows *rows, double *scratch,
                                    size_t per_thread, size_t threads, cudaStream_t st) {
    const unsigned int blocks = apo__cuda_blocks(threads);
#define APO_SCORED_LAUNCH_UNITS(name)                                                              \
    apo__scored_##name##_units_kernel<<<blocks, APO_CUDA_BLOCK, 0, st>>>(                          \
        units, n_units, *rows, scratch, per_thread, threads)
#define APO_SCORED_CASE_APO_SCORED_LAUNCH_UNITS(name, body, id)                                    \
    case id:                                                                                       \
        APO_SCORED_LAUNCH_UNITS(name);                                                             \
        break;
    APO_SCORED_DISPATCH(first, APO_SCORED_LAUNCH_UNITS);
#undef APO_SCORED_CASE_APO_SCORED_LAUNCH_UNITS
#undef APO_SCORED_LAUNCH_UNITS
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
        apo__scored_folds_of(
            sets, j0, n_sets - j0 < APO_SCORED_CUDA_FOLDS ? n_sets - j0 : APO_SCORED_CUDA_FOLDS,
            &folds);
        apo__scored_cuda_rows part = *rows;
        for (size_t k = 0; k < APO_SCORE_IX_COUNT; k++)
            part.scores[k] = rows->scores[k] + j0 * rows->set_stride;
        const int rc = apo__scored_launch(&sets[0], &folds, &part, scratch, threads, st);
        if (rc != 0)
            return rc;
    }
    return (int)cudaSuccess;
}

/* Stream-ordered scratch of `bytes` a thread for at most `items` threads (fewer when the cap
 * or the memory says so, down to one); the threads it got in *threads. */
static cudaError_t apo__scored_scratch_alloc(size_t bytes, size_t items, cudaStream_t s,
                                             double **scratch, size_t *threads) {
    const size_t most = APO_SCORED_CUDA_SCRATCH_MAX_BYTES / bytes;
    size_t n = items < (size_t)65535 * APO_CUDA_BLOCK ? items : (size_t)65535 * APO_CUDA_BLOCK;
    if (n > most)
        n = most > 0 ? most : 1;
    for (;;) {
        const cudaError_t e = cudaMallocAsync((void **)scratch, n * bytes, s);
        if (e == cudaSuccess)
            break;
        (void)cudaGetLastError(); /* not sticky: try with fewer threads */
        if (n == 1)
            return e;
        n /= 2;
    }
    *threads = n;
    return cudaSuccess;
}

extern "C" int apo__cuda_scored(const apo__scored_cuda_set *sets, size_t n_sets,
                                const apo__scored_cuda_rows *rows, void *stream) {
    if (!apo__scored_cuda_valid(sets, n_sets, rows))
        return (int)cudaErrorInvalidValue;
    if (rows->rows == 0 || rows->cols == 0)
        return (int)cudaSuccess;
    const size_t bytes = apo__scored_cuda_scratch(&sets[0], rows->cols) * sizeof(double);
    const cudaStream_t s = static_cast<cudaStream_t>(stream);
    double *scratch = NULL;
    size_t threads = 0;
    const cudaError_t e = apo__scored_scratch_alloc(bytes, rows->rows, s, &scratch, &threads);
    if (e != cudaSuccess)
        return (int)e;
    const int rc = apo__cuda_scored_in(sets, n_sets, rows, scratch, threads, stream);
    const cudaError_t freed = cudaFreeAsync(scratch, s);
    return rc != 0 ? rc : (int)freed;
}

static void CUDART_CB apo__scored_free_host(void *units) { free(units); }

extern "C" int apo__cuda_scored_mixed(const apo__scored_cuda_set *sets, size_t n_sets,
                                      const unsigned char *pass_starts,
                                      const apo__scored_cuda_rows *rows, void *stream) {
    if (sets == NULL || n_sets == 0 || pass_starts == NULL || rows == NULL ||
        n_sets > APO_SCORED_CUDA_UNITS_MAX)
        return (int)cudaErrorInvalidValue;
    /* The units: each run of sets that share a pass, in folds of APO_SCORED_CUDA_FOLDS. Every
     * run must be one the kernel can run, with the first run's tile body and inputs. */
    apo__scored_unit *units = (apo__scored_unit *)malloc(n_sets * sizeof *units);
    if (units == NULL)
        return (int)cudaErrorMemoryAllocation;
    size_t n_units = 0, per_thread = 0;
    for (size_t a = 0; a < n_sets;) {
        size_t b = a + 1;
        while (b < n_sets && !pass_starts[b])
            b++;
        const apo__scored_cuda_set *p = &sets[a];
        if (!apo__scored_cuda_valid(p, b - a, rows) || p->indicator != sets[0].indicator ||
            p->cat_id != sets[0].cat_id || p->n_in != sets[0].n_in ||
            p->close_in != sets[0].close_in) {
            free(units);
            return (int)cudaErrorInvalidValue;
        }
        const size_t need = apo__scored_cuda_scratch(p, rows->cols);
        per_thread = need > per_thread ? need : per_thread;
        for (size_t j0 = a; j0 < b; j0 += APO_SCORED_CUDA_FOLDS) {
            apo__scored_unit *u = &units[n_units++];
            u->set = *p;
            u->first_set = j0;
            apo__scored_folds_of(sets, j0,
                                 b - j0 < APO_SCORED_CUDA_FOLDS ? b - j0 : APO_SCORED_CUDA_FOLDS,
                                 &u->folds);
        }
        a = b;
    }
    if (rows->rows == 0 || rows->cols == 0) {
        free(units);
        return (int)cudaSuccess;
    }
    const cudaStream_t s = static_cast<cudaStream_t>(stream);
    /* The units go to device memory in stream order; the host copy is freed by the stream
     * after the copy has run (a copy from pageable memory may read it late). */
    apo__scored_unit *dev_units = NULL;
    cudaError_t e = cudaMallocAsync((void **)&dev_units, n_units * sizeof *units, s);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(dev_units, units, n_units * sizeof *units, cudaMemcpyHostToDevice, s);
    if (e != cudaSuccess) {
        (void)cudaStreamSynchronize(s); /* nothing may still read the host copy */
        free(units);
        if (dev_units != NULL)
            (void)cudaFreeAsync(dev_units, s);
        return (int)e;
    }
    if (cudaLaunchHostFunc(s, apo__scored_free_host, units) != cudaSuccess) {
        (void)cudaGetLastError();
        (void)cudaStreamSynchronize(s);
        free(units);
    }
    double *scratch = NULL;
    size_t threads = 0;
    e = apo__scored_scratch_alloc(per_thread * sizeof(double), n_units * rows->rows, s, &scratch,
                                  &threads);
    int rc = (int)e;
    if (e == cudaSuccess) {
        rc = apo__scored_launch_units(&sets[0], dev_units, n_units, rows, scratch, per_thread,
                                      threads, s);
        const cudaError_t freed = cudaFreeAsync(scratch, s);
        rc = rc != 0 ? rc : (int)freed;
    }
    const cudaError_t freed = cudaFreeAsync(dev_units, s);
    return rc != 0 ? rc : (int)freed;
}
