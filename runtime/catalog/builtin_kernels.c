/*
 * Descriptors of the built-in kernels: parameters with their bounds, tile lengths, output
 * shapes, and the glue from the runtime's tile calls to the pure functions in kernels/.
 */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "catalog/catalog_kernels.h"
#include "catalog/cuda_views.h"
#include "catalog/kernel.h"
#include "catalog/nonfinite_outputs.h"
#include "kernels.h"
#include "kernels_cuda.h"

#define APO_PERIOD_MAX 100000
#define APO_MOMENTS_LEN (sizeof(apo__moments) / sizeof(double))

static size_t same_axis_len(const apo__kernel *k, const double *params, size_t cols) {
    (void)k, (void)params;
    return cols;
}

static uint64_t one_unit_work(const apo__kernel *k, const double *params, size_t cols) {
    (void)k, (void)params, (void)cols;
    return 1;
}

static size_t full_output_cols(const apo__kernel *k, const double *params, size_t cols,
                               size_t index) {
    (void)k, (void)params, (void)index;
    return cols;
}

static size_t one_output_col(const apo__kernel *k, const double *params, size_t cols,
                             size_t index) {
    (void)k, (void)params, (void)cols, (void)index;
    return 1;
}

static const double *row_of(const apo__call *call, size_t array, size_t row) {
    return call->inputs[array] + row * call->cols;
}

static double *out_row(const apo__call *call, size_t array, size_t row, size_t out_cols) {
    return call->outputs[array] + row * out_cols;
}

/* Tiles [first, end) of a call as the spans that the kernels' group functions take, in
 * chunks of at most APO_SPAN_CHUNK; calls `body` once per chunk with `spans` and `n`. */
#define APO_SPAN_CHUNK 64
#define FOR_SPAN_CHUNKS(call, first, end, spans, n, body)                                          \
    for (uint64_t g0_ = (first); g0_ < (end); g0_ += APO_SPAN_CHUNK) {                             \
        apo__tile_span spans[APO_SPAN_CHUNK];                                                      \
        size_t n = (size_t)((end)-g0_ < APO_SPAN_CHUNK ? (end)-g0_ : APO_SPAN_CHUNK);              \
        for (size_t i_ = 0; i_ < n; i_++)                                                          \
            apo__tile_range(call, g0_ + i_, &spans[i_].row, &spans[i_].begin, &spans[i_].end);     \
        body;                                                                                      \
    }

/* ---- bollinger(period, nbdev_up, nbdev_dn) ---------------------------------------- */

static apo_status bollinger_validate(const apo__kernel *k, const double *params, size_t rows,
                                     size_t cols, char *err, size_t err_size) {
    (void)k, (void)rows;
    if ((size_t)params[0] > cols) {
        snprintf(err, err_size, "bollinger: period %zu is longer than the series (cols %zu)",
                 (size_t)params[0], cols);
        return APO_ERR_BAD_PARAM;
    }
    return APO_OK;
}

static size_t bollinger_tile(const apo__kernel *k, const double *params) {
    (void)k;
    return apo__bollinger_tile_len((size_t)params[0]);
}

static apo_status bollinger_run(const apo__call *call, size_t row, size_t begin, size_t end,
                                double *partial) {
    (void)partial;
    size_t n = call->cols;
    apo__cpu_bollinger_tile(row_of(call, 0, row), n, begin, end, (size_t)call->params[0],
                            call->params[1], call->params[2], out_row(call, 0, row, n),
                            out_row(call, 1, row, n), out_row(call, 2, row, n));
    return APO_OK;
}

static int bollinger_resume(const apo__call *call, void *state, int fresh, size_t begin,
                            size_t stop) {
    size_t n = call->cols;
    apo__cpu_bollinger_resume(
        row_of(call, 0, 0), begin, stop, (size_t)call->params[0], call->params[1], call->params[2],
        state, fresh, out_row(call, 0, 0, n), out_row(call, 1, 0, n), out_row(call, 2, 0, n));
    return 1;
}

_Static_assert(APO_RESUME_LANES <= APO_BOLLINGER_RESUME_LANES, "a stream's lanes fit bollinger's");

/* Several series' pieces, each going on within its tile (kernel.h, resume_lanes). */
static void bollinger_resume_lanes(const apo__call *call, const apo__resume_lanes *lanes, int isa) {
    const double *x[APO_RESUME_LANES];
    double *upper[APO_RESUME_LANES], *middle[APO_RESUME_LANES], *lower[APO_RESUME_LANES];
    for (size_t l = 0; l < lanes->n; l++) {
        x[l] = lanes->in[l][0];
        upper[l] = lanes->out[l][0];
        middle[l] = lanes->out[l][1];
        lower[l] = lanes->out[l][2];
    }
    apo__cpu_bollinger_resume_lanes(x, upper, middle, lower, lanes->state, lanes->stop, lanes->n,
                                    (size_t)call->params[0], call->params[1], call->params[2],
                                    (apo__cpu_isa)isa);
}

static size_t bollinger_resume_size(const apo__kernel *k) {
    (void)k;
    return apo__cpu_bollinger_resume_size();
}

static apo_status bollinger_run_tiles(const apo__call *call, uint64_t first, uint64_t end, int isa,
                                      double *scratch, size_t scratch_len) {
    (void)scratch, (void)scratch_len;
    FOR_SPAN_CHUNKS(call, first, end, spans, n,
                    apo__cpu_bollinger_tiles(call->inputs[0], call->rows, call->cols, spans, n,
                                             (size_t)call->params[0], call->params[1],
                                             call->params[2], call->outputs[0], call->outputs[1],
                                             call->outputs[2], (apo__cpu_isa)isa))
    return APO_OK;
}

/* ---- macd(fastperiod, slowperiod, signalperiod) ---------------------------------- */

/* TA-Lib swaps a fast period longer than the slow one; so does apportion. */
static void macd_periods(const double *params, size_t *fast, size_t *slow, size_t *signal) {
    size_t f = (size_t)params[0], s = (size_t)params[1];
    *fast = f < s ? f : s;
    *slow = f < s ? s : f;
    *signal = (size_t)params[2];
}

static size_t macd_tile(const apo__kernel *k, const double *params) {
    (void)k;
    size_t fast, slow, signal;
    macd_periods(params, &fast, &slow, &signal);
    return apo__macd_tile_len(fast, slow, signal);
}

static apo_status macd_run(const apo__call *call, size_t row, size_t begin, size_t end,
                           double *partial) {
    (void)partial;
    size_t n = call->cols, fast, slow, signal;
    macd_periods(call->params, &fast, &slow, &signal);
    apo__cpu_macd_tile(row_of(call, 0, row), n, begin, end, fast, slow, signal,
                       out_row(call, 0, row, n), out_row(call, 1, row, n),
                       out_row(call, 2, row, n));
    return APO_OK;
}

static int macd_resume(const apo__call *call, void *state, int fresh, size_t begin, size_t stop) {
    size_t n = call->cols, fast, slow, signal;
    macd_periods(call->params, &fast, &slow, &signal);
    return apo__cpu_macd_resume(row_of(call, 0, 0), begin, stop, fast, slow, signal, state, fresh,
                                out_row(call, 0, 0, n), out_row(call, 1, 0, n),
                                out_row(call, 2, 0, n));
}

static size_t macd_resume_size(const apo__kernel *k) {
    (void)k;
    return apo__cpu_macd_resume_size();
}

static size_t macd_resume_hot_size(const apo__kernel *k) {
    (void)k;
    return apo__cpu_macd_resume_hot_size();
}

static apo_status macd_run_tiles(const apo__call *call, uint64_t first, uint64_t end, int isa,
                                 double *scratch, size_t scratch_len) {
    (void)scratch, (void)scratch_len;
    size_t fast, slow, signal;
    macd_periods(call->params, &fast, &slow, &signal);
    FOR_SPAN_CHUNKS(call, first, end, spans, n,
                    apo__cpu_macd_tiles(call->inputs[0], call->rows, call->cols, spans, n, fast,
                                        slow, signal, call->outputs[0], call->outputs[1],
                                        call->outputs[2], (apo__cpu_isa)isa))
    return APO_OK;
}

/* ---- moments partials shared by the reductions ------------------------------------ */

static void moments_merge(const double *a, const double *b, double *out) {
    apo__moments ma, mb, mo;
    memcpy(&ma, a, sizeof ma);
    memcpy(&mb, b, sizeof mb);
    apo__cpu_moments_merge(&ma, &mb, &mo);
    memcpy(out, &mo, sizeof mo);
}

/* ---- returns_stats ----------------------------------------------------------------- */

static size_t returns_stats_tile(const apo__kernel *k, const double *params) {
    (void)k, (void)params;
    return apo__returns_stats_tile_len();
}

static apo_status returns_stats_run(const apo__call *call, size_t row, size_t begin, size_t end,
                                    double *partial) {
    apo__moments m;
    apo__cpu_returns_stats_tile(row_of(call, 0, row), call->cols, begin, end, &m);
    memcpy(partial, &m, sizeof m);
    return APO_OK;
}

/* The partials of consecutive tiles are consecutive apo__moments (five doubles, no padding). */
static apo_status returns_stats_run_tiles(const apo__call *call, uint64_t first, uint64_t end,
                                          int isa, double *scratch, size_t scratch_len) {
    FOR_SPAN_CHUNKS(call, first, end, spans, n, {
        apo__moments parts[APO_SPAN_CHUNK];
        apo__cpu_returns_stats_tiles(call->inputs[0], call->rows, call->cols, spans, n, parts,
                                     scratch, scratch_len, (apo__cpu_isa)isa);
        memcpy(call->partials + g0_ * APO_MOMENTS_LEN, parts, n * sizeof parts[0]);
    })
    return APO_OK;
}

static size_t returns_stats_scratch(const apo__call *call, int isa) {
    (void)call;
    return apo__returns_stats_scratch_len((apo__cpu_isa)isa);
}

static void returns_stats_finalize(const apo__call *call, size_t row, const double *root) {
    apo__moments m;
    memcpy(&m, root, sizeof m);
    apo__returns_stats_finalize(&m, &call->outputs[0][row], &call->outputs[1][row],
                                &call->outputs[2][row], &call->outputs[3][row],
                                &call->outputs[4][row]);
}

/* ---- bootstrap(replicates) ---------------------------------------------------------- */

static apo_status bootstrap_validate(const apo__kernel *k, const double *params, size_t rows,
                                     size_t cols, char *err, size_t err_size) {
    (void)k, (void)params;
    if (cols < 2) {
        snprintf(err, err_size, "bootstrap needs at least 2 samples per row (one return), got %zu",
                 cols);
        return APO_ERR_BAD_PARAM;
    }
    /* The generator's counter holds the row in 32 bits (kernels/reductions/bootstrap.c). */
    if (rows > UINT32_MAX) {
        snprintf(err, err_size, "bootstrap supports at most %u rows, got %zu", UINT32_MAX, rows);
        return APO_ERR_BAD_PARAM;
    }
    return APO_OK;
}

static size_t bootstrap_axis_len(const apo__kernel *k, const double *params, size_t cols) {
    (void)k, (void)cols;
    return (size_t)params[0];
}

static size_t bootstrap_tile(const apo__kernel *k, const double *params) {
    (void)k, (void)params;
    return apo__bootstrap_tile_len();
}

/* Each replicate draws cols-1 returns, so its work is cols-1 elements. */
static uint64_t bootstrap_unit_work(const apo__kernel *k, const double *params, size_t cols) {
    (void)k, (void)params;
    return cols - 1;
}

static size_t bootstrap_output_cols(const apo__kernel *k, const double *params, size_t cols,
                                    size_t index) {
    (void)k, (void)cols;
    return index == 0 ? (size_t)params[0] : 1;
}

static apo_status bootstrap_run(const apo__call *call, size_t row, size_t begin, size_t end,
                                double *partial) {
    size_t b = (size_t)call->params[0];
    double *means = out_row(call, 0, row, b);
    apo__cpu_bootstrap_tile(row_of(call, 0, row), call->cols, call->seed, row, begin, end, means);
    apo__moments m;
    apo__cpu_bootstrap_tile_moments(means, begin, end, &m);
    memcpy(partial, &m, sizeof m);
    return APO_OK;
}

static void bootstrap_finalize(const apo__call *call, size_t row, const double *root) {
    apo__moments m;
    memcpy(&m, root, sizeof m);
    apo__bootstrap_finalize(&m, &call->outputs[1][row], &call->outputs[2][row]);
}

/* ---- CUDA implementations ------------------------------------------------------------ */

/* The launchers of kernels/<room>/<name>.cu take row-uniform views; a chunk may start and end
 * inside rows, so each launch covers up to three views (cuda_views.h). */

static size_t bollinger_halo(const apo__kernel *k, const double *params) {
    (void)k;
    return (size_t)params[0] - 1;
}

static size_t macd_halo(const apo__kernel *k, const double *params) {
    (void)k;
    size_t fast, slow, signal;
    macd_periods(params, &fast, &slow, &signal);
    return apo__macd_warmup(fast, slow, signal);
}

static size_t returns_stats_halo(const apo__kernel *k, const double *params) {
    (void)k, (void)params;
    return 1;
}

static size_t no_halo(const apo__kernel *k, const double *params) {
    (void)k, (void)params;
    return 0;
}

#ifdef APO_HAVE_CUDA
/* Launches one row-uniform view of a chunk; returns the CUDA error of the launch. */
typedef int (*view_launcher)(const apo__call *call, const apo__cuda_view *view, void *stream);

/* Launches every view of the chunk in tile order, stopping at the first failure. */
static int launch_views(const apo__call *call, const apo__cuda_chunk *chunk, void *stream,
                        view_launcher launch) {
    apo__cuda_view views[3];
    size_t n = apo__cuda_views(call, chunk, views);
    for (size_t i = 0; i < n; i++) {
        int rc = launch(call, &views[i], stream);
        if (rc != 0)
            return rc;
    }
    return 0;
}

static int bollinger_view(const apo__call *call, const apo__cuda_view *v, void *stream) {
    return apo__cuda_bollinger(v, (size_t)call->params[0], call->params[1], call->params[2],
                               stream);
}

static int macd_view(const apo__call *call, const apo__cuda_view *v, void *stream) {
    size_t fast, slow, signal;
    macd_periods(call->params, &fast, &slow, &signal);
    return apo__cuda_macd(v, fast, slow, signal, stream);
}

static int returns_stats_view(const apo__call *call, const apo__cuda_view *v, void *stream) {
    (void)call;
    return apo__cuda_returns_stats(v, stream);
}

static int bootstrap_view(const apo__call *call, const apo__cuda_view *v, void *stream) {
    return apo__cuda_bootstrap(v, call->seed, stream);
}

static int bollinger_cuda(const apo__call *call, const apo__cuda_chunk *chunk, void *stream) {
    return launch_views(call, chunk, stream, bollinger_view);
}

static int macd_cuda(const apo__call *call, const apo__cuda_chunk *chunk, void *stream) {
    return launch_views(call, chunk, stream, macd_view);
}

static int returns_stats_cuda(const apo__call *call, const apo__cuda_chunk *chunk, void *stream) {
    return launch_views(call, chunk, stream, returns_stats_view);
}

static int bootstrap_cuda(const apo__call *call, const apo__cuda_chunk *chunk, void *stream) {
    return launch_views(call, chunk, stream, bootstrap_view);
}

#else
/* Without the backend the descriptions stay (the halos) but nothing can launch. */
#define bollinger_cuda NULL
#define macd_cuda NULL
#define returns_stats_cuda NULL
#define bootstrap_cuda NULL
#endif

static const apo__cuda_impl bollinger_cuda_impl = {3, bollinger_halo, 0, bollinger_cuda, NULL, 0};
static const apo__cuda_impl macd_cuda_impl = {3, macd_halo, 0, macd_cuda, NULL, 0};
static const apo__cuda_impl returns_stats_cuda_impl = {
    0, returns_stats_halo, 0, returns_stats_cuda, NULL, 0};
static const apo__cuda_impl bootstrap_cuda_impl = {1, no_halo, 1, bootstrap_cuda, NULL, 0};

/* ---- the table ---------------------------------------------------------------------- */

static const apo__kernel builtin_kernels[] = {
    {
        .name = "bollinger",
        .builtin = 1,
        .n_inputs = 1,
        .input_names = {"close"},
        .n_outputs = 3,
        .n_params = 3,
        .output_names = {"upper", "middle", "lower"},
        .params = {{"period", 20, 2, APO_PERIOD_MAX, 1},
                   {"nbdev_up", 2, -1e300, 1e300, 0},
                   {"nbdev_dn", 2, -1e300, 1e300, 0}},
        .halo_rule = "period - 1",
        .validate = bollinger_validate,
        .axis_len = same_axis_len,
        .tile_len = bollinger_tile,
        .unit_work = one_unit_work,
        .output_cols = full_output_cols,
        .run_tile = bollinger_run,
        .run_tiles = bollinger_run_tiles,
        .resume_tile = bollinger_resume,
        .resume_lanes = bollinger_resume_lanes,
        .resume_size = bollinger_resume_size,
        .count_nonfinite = apo__bollinger_nonfinite,
        .cuda = &bollinger_cuda_impl,
    },
    {
        .name = "macd",
        .builtin = 1,
        .n_inputs = 1,
        .input_names = {"close"},
        .n_outputs = 3,
        .n_params = 3,
        .output_names = {"macd", "signal", "hist"},
        /* TA-Lib's names; the names macd had before answer too (params.c, aliases). */
        .params = {{"fastperiod", 12, 2, APO_PERIOD_MAX, 1},
                   {"slowperiod", 26, 2, APO_PERIOD_MAX, 1},
                   {"signalperiod", 9, 1, APO_PERIOD_MAX, 1}},
        .halo_rule = "(max(fastperiod, slowperiod) - 1) + (signalperiod - 1) + the steps each EMA "
                     "takes to forget its start",
        .axis_len = same_axis_len,
        .tile_len = macd_tile,
        .unit_work = one_unit_work,
        .output_cols = full_output_cols,
        .run_tile = macd_run,
        .run_tiles = macd_run_tiles,
        .resume_tile = macd_resume,
        .resume_size = macd_resume_size,
        .resume_hot_size = macd_resume_hot_size,
        .resume_reads = APO_RESUME_READS_NEW_ONLY,
        .count_nonfinite = apo__macd_nonfinite,
        .cuda = &macd_cuda_impl,
    },
    {
        .name = "returns_stats",
        .builtin = 1,
        .n_inputs = 1,
        .input_names = {"close"},
        .n_outputs = 5,
        .n_params = 0,
        .output_names = {"count", "mean", "variance", "min", "max"},
        .halo_rule = "1: a return needs the sample before it",
        .axis_len = same_axis_len,
        .tile_len = returns_stats_tile,
        .unit_work = one_unit_work,
        .output_cols = one_output_col,
        .run_tile = returns_stats_run,
        .run_tiles = returns_stats_run_tiles,
        .tiles_scratch = returns_stats_scratch,
        .partial_len = APO_MOMENTS_LEN,
        .merge = moments_merge,
        .finalize = returns_stats_finalize,
        .cuda = &returns_stats_cuda_impl,
    },
    {
        .name = "bootstrap",
        .builtin = 1,
        .n_inputs = 1,
        .input_names = {"close"},
        .n_outputs = 3,
        .n_params = 1,
        .output_names = {"means", "mean", "stderr"},
        .params = {{"replicates", 1000, 1, (double)UINT32_MAX, 1}},
        .halo_rule = "the whole row: a draw may pick any sample",
        .validate = bootstrap_validate,
        .axis_len = bootstrap_axis_len,
        .tile_len = bootstrap_tile,
        .unit_work = bootstrap_unit_work,
        .output_cols = bootstrap_output_cols,
        .run_tile = bootstrap_run,
        .partial_len = APO_MOMENTS_LEN,
        .merge = moments_merge,
        .finalize = bootstrap_finalize,
        .cuda = &bootstrap_cuda_impl,
    },
};

#define APO_FIRST_FOUR (sizeof builtin_kernels / sizeof builtin_kernels[0])

/* The four above, then the indicator catalog (catalog_kernels.c). */
size_t apo__builtin_kernel_count(void) { return APO_FIRST_FOUR + apo__catalog_kernel_count(); }

const apo__kernel *apo__builtin_kernel(size_t index) {
    return index < APO_FIRST_FOUR ? &builtin_kernels[index]
                                  : apo__catalog_kernel(index - APO_FIRST_FOUR);
}

/* The built-in found last. A program calls the same kernel over and over, and the scan
 * compared its name with every kernel listed before it: for a catalog kernel some 40 ns, a
 * twentieth of a small call. Any thread may read or replace it; it only ever points into
 * the library's static tables, and names are unique, so a stale entry is merely a miss. */
static _Atomic(const apo__kernel *) last_named;

const apo__kernel *apo__builtin_kernel_named(const char *name) {
    const apo__kernel *last = atomic_load_explicit(&last_named, memory_order_acquire);
    if (last != NULL && apo__kernel_name_equal(last->name, name))
        return last;
    for (size_t i = 0; i < apo__builtin_kernel_count(); i++) {
        const apo__kernel *k = apo__builtin_kernel(i);
        if (apo__kernel_name_equal(k->name, name)) {
            atomic_store_explicit(&last_named, k, memory_order_release);
            return k;
        }
    }
    return NULL;
}
