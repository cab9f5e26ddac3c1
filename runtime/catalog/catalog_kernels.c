/*
 * Descriptors of the indicator catalog (docs/kernels.md, "The catalog"): TA-Lib's names,
 * parameters, defaults and bounds, the inputs by name, and the glue from the runtime's tile
 * calls to the tile bodies of kernels/<room>/ (kernels/dispatch/catalog_dispatch.h). Every
 * descriptor is generated from its row of the catalog's table (kernels/common/catalog_table.h)
 * and uses the same glue: the descriptor's place in the table is its apo__cat_id.
 */
#include <stdio.h>
#include <string.h>

#include "catalog/catalog_kernels.h"
#include "catalog/cuda_views.h"
#include "catalog/kernel.h"
#include "catalog_cuda.h"
#include "catalog_dispatch.h"
#include "cut.h"

static apo__cat_id id_of(const apo__kernel *k);

static apo_status catalog_validate(const apo__kernel *k, const double *params, size_t rows,
                                   size_t cols, char *err, size_t err_size) {
    (void)rows;
    /* A matype's bounds are TA-Lib's: 0 to 8, and TA-Lib 0.8's 0 to 13 for kdj. MAMA (7) reads the
     * whole row, which ma and bbands take (apo__catalog_whole_row_at); mavp evaluates each bar
     * alone, which from the row's first bar would be quadratic; another kernel with a matype takes
     * 7 once its body and its whole-row rule do (docs/kernels/overlap.md, "MAMA, and TA-Lib's
     * matype 7"). */
    const apo__cat_id id = id_of(k);
    for (size_t i = 0; i < k->n_params; i++) {
        const size_t len = strlen(k->params[i].name);
        if (len >= 6 && strcmp(k->params[i].name + len - 6, "matype") == 0 && params[i] == 7 &&
            id != APO_CAT_MA && id != APO_CAT_BBANDS) {
            snprintf(err, err_size,
                     "%s: %s 7 (MAMA) is not taken by %s: MAMA reads the whole series; ma and "
                     "bbands take it, and the kernel mama is MAMA",
                     k->name, k->params[i].name, k->name);
            return APO_ERR_BAD_PARAM;
        }
    }
    /* kama's segments start at multiples of 16 (kama_tile.h), and mavp evaluates each bar
     * alone. */
    if (id_of(k) == APO_CAT_MAVP && params[2] == 6) {
        snprintf(err, err_size, "mavp: matype 6 (KAMA) is not in the catalog's mavp yet");
        return APO_ERR_BAD_PARAM;
    }
    /* An average of a series computed inside the tile (macdext's signal line) is taken as a
     * recurrence or a running window (averages/ma_series.h), which TRIMA and KAMA are not. */
    if (id_of(k) == APO_CAT_MACDEXT && !apo__ma_series_takes((int)params[5], params[4])) {
        snprintf(err, err_size,
                 "macdext: signalmatype %d (%s) is not taken over the macd line at a signalperiod "
                 "above 1; matypes 0 to 4 and 8 are",
                 (int)params[5], (int)params[5] == 5 ? "TRIMA" : "KAMA");
        return APO_ERR_BAD_PARAM;
    }
    /* stochrsi's fastd averages its fastk the same way, and its fastk windows are scanned in a
     * ring of RSI values on the stack. */
    if (id_of(k) == APO_CAT_STOCHRSI && !apo__ma_series_takes((int)params[3], params[2])) {
        snprintf(err, err_size,
                 "stochrsi: fastd_matype %d (%s) is not taken over fastk at a fastd_period "
                 "above 1; matypes 0 to 4 and 8 are",
                 (int)params[3], (int)params[3] == 5 ? "TRIMA" : "KAMA");
        return APO_ERR_BAD_PARAM;
    }
    /* kdj's averages are recurrences over its fastk or ma_series.h's kinds over a computed
     * series (oscillators/kdj_tile.h), which are every kind but MAMA, refused above. The check
     * stays for a kind the body might not take; stoch's and stochf's other kinds are kdj's body
     * (oscillators/stoch_ma.h), stoch's parameters in kdj's order. */
    const int kdj_layout = id == APO_CAT_KDJ || id == APO_CAT_STOCH; /* stoch_ma.h */
    for (size_t i = 1; kdj_layout && i <= 3; i += 2)
        if (!apo__kdj_takes_ma((int)params[i + 1], params[i])) {
            snprintf(err, err_size, "%s: %s %d is not taken at a %s above 1", k->name,
                     k->params[i + 1].name, (int)params[i + 1], k->params[i].name);
            return APO_ERR_BAD_PARAM;
        }
    if (id == APO_CAT_STOCHF && !apo__kdj_takes_ma((int)params[2], params[1])) {
        snprintf(err, err_size, "stochf: fastd_matype %d is not taken at a fastd_period above 1",
                 (int)params[2]);
        return APO_ERR_BAD_PARAM;
    }
    if (id_of(k) == APO_CAT_STOCHRSI && params[1] > (double)apo__stochrsi_fastk_max()) {
        snprintf(err, err_size,
                 "stochrsi: fastk_period %.17g is longer than the %zu RSI values a tile keeps "
                 "for fastk's window (docs/kernels.md, \"stochrsi\")",
                 params[1], apo__stochrsi_fastk_max());
        return APO_ERR_BAD_PARAM;
    }
    const size_t lookback = apo__catalog_lookback(id_of(k), params);
    if (cols <= lookback) {
        snprintf(err, err_size,
                 "%s: the series (cols %zu) is not longer than the lookback %zu of these "
                 "parameters, so no output would be defined",
                 k->name, cols, lookback);
        return APO_ERR_BAD_PARAM;
    }
    return APO_OK;
}

/* maxindex, minindex and minmaxindex replay TA-Lib's tracking from the row's first window, and
 * a stream carries the tracker with the last samples its scans read (transforms/index_tile.h):
 * a bounded state, so a bounded period. */
static apo_status catalog_stream_check(const apo__kernel *k, const double *params, char *err,
                                       size_t err_size) {
    const apo__cat_id id = id_of(k);
    const int tracks =
        id == APO_CAT_MAXINDEX || id == APO_CAT_MININDEX || id == APO_CAT_MINMAXINDEX;
    if (tracks && params[0] > APO_INDEX_STREAM_PERIOD_MAX) {
        snprintf(err, err_size,
                 "%s: a stream keeps the last %d samples for its scans, so it takes timeperiod up "
                 "to %d (%g asked); a batch call takes any",
                 k->name, APO_INDEX_STREAM_PERIOD_MAX - 1, APO_INDEX_STREAM_PERIOD_MAX, params[0]);
        return APO_ERR_BAD_PARAM;
    }
    return APO_OK;
}

static size_t catalog_axis_len(const apo__kernel *k, const double *params, size_t cols) {
    (void)k, (void)params;
    return cols;
}

static uint64_t catalog_unit_work(const apo__kernel *k, const double *params, size_t cols) {
    (void)k, (void)params, (void)cols;
    return 1;
}

static size_t catalog_output_cols(const apo__kernel *k, const double *params, size_t cols,
                                  size_t index) {
    (void)k, (void)params, (void)index;
    return cols;
}

static size_t catalog_tile(const apo__kernel *k, const double *params) {
    return apo__catalog_tile_len(id_of(k), params);
}

static size_t catalog_halo(const apo__kernel *k, const double *params) {
    return apo__catalog_halo(id_of(k), params);
}

/* The parameters, halo and tile of the call's io (catalog_io). */
static void catalog_io_params(const apo__call *call, apo__cat_io *io) {
    const apo__kernel *k = call->kernel;
    for (size_t p = 0; p < APO_CAT_MAX_PAR; p++)
        io->p[p] = p < k->n_params ? call->params[p] : 0.0;
    /* A stream's call gives both (kernel.h, known_tile), the values the same functions
     * gave it at the same parameters. */
    io->h = call->known_tile != 0 ? call->known_halo : apo__catalog_halo(id_of(k), io->p);
    io->tile = call->known_tile != 0 ? call->known_tile : apo__catalog_tile_len(id_of(k), io->p);
}

/* Row `row` of the call as a body sees it. Every field is stored once, the unused ones as
 * NULL and 0: a stream's one-bar update builds this for every series, and the memset it
 * replaces ran as `rep stos`, whose start-up took as long as ema's own step (a fifth of a
 * one-bar ema update, perf). */
static void catalog_io(const apo__call *call, size_t row, apo__cat_io *io) {
    const apo__kernel *k = call->kernel;
    for (size_t i = 0; i < APO_CAT_MAX_IN; i++)
        io->in[i] = i < k->n_inputs ? call->inputs[i] + row * call->cols : NULL;
    for (size_t o = 0; o < APO_CAT_MAX_OUT; o++)
        io->out[o] = o < k->n_outputs ? call->outputs[o] + row * call->cols : NULL;
    catalog_io_params(call, io);
}

static apo_status catalog_run(const apo__call *call, size_t row, size_t begin, size_t end,
                              double *partial) {
    (void)partial;
    apo__cat_io io;
    catalog_io(call, row, &io);
    apo__cpu_catalog_tile(id_of(call->kernel), &io, begin, end);
    return APO_OK;
}

/* A stream's piece of a tile of a kernel that can resume (kernel.h, resume_tile; the
 * catalog's recurrences, apo__catalog_resume_size): row 0 of the call, going on from
 * `state`. */
static int catalog_resume(const apo__call *call, void *state, int fresh, size_t begin,
                          size_t stop) {
    apo__cat_io io;
    catalog_io(call, 0, &io);
    apo__cpu_catalog_resume(id_of(call->kernel), &io, state, fresh, begin, stop);
    return 1;
}

_Static_assert(APO_RESUME_LANES <= APO_CAT_RESUME_LANES, "a stream's lanes fit the catalog's");

/* Several series' pieces, each going on within its tile (kernel.h, resume_lanes): each lane's
 * io is the call's parameters with the lane's views. */
static void catalog_resume_lanes(const apo__call *call, const apo__resume_lanes *lanes, int isa) {
    const apo__kernel *k = call->kernel;
    apo__cat_io io[APO_RESUME_LANES];
    catalog_io_params(call, &io[0]);
    for (size_t l = 0; l < lanes->n; l++) {
        io[l] = io[0];
        for (size_t i = 0; i < APO_CAT_MAX_IN; i++)
            io[l].in[i] = i < k->n_inputs ? lanes->in[l][i] : NULL;
        for (size_t o = 0; o < APO_CAT_MAX_OUT; o++)
            io[l].out[o] = o < k->n_outputs ? lanes->out[l][o] : NULL;
    }
    apo__cpu_catalog_resume_lanes(id_of(k), io, lanes->state, lanes->tile, lanes->stop, lanes->n,
                                  isa);
}

static size_t catalog_resume_size(const apo__kernel *k) {
    return apo__catalog_resume_size(id_of(k));
}

static size_t catalog_resume_hot_size(const apo__kernel *k) {
    return apo__catalog_resume_hot_size(id_of(k));
}

/* Every catalog kernel's group function (kernel.h, run_tiles): the host hands a kernel its
 * tiles a group at a time, so the runtime's work around each unit (its clock readings, the
 * first-touch pass's mincore) is paid once per group instead of once per tile, which is most
 * of a cheap kernel's cost beyond its loop. The group's tiles of one row share one view of
 * the row (catalog_io, whose halo takes libm's log). Each tile is then its own body call,
 * with its bits; where one call over consecutive tiles gives each its bits
 * (apo__catalog_tiles_join: the whole-row sums obv and ad, whose group is a row, kernel.h
 * row_groups, and the per-position kernels, whose bits at t do not depend on the tile holding
 * t; ema, whose body cuts the union at the grid, catalog_io's io.tile) consecutive tiles are
 * one call over their union, which writes the same bits, passes over a whole-row sum's
 * prefix once and lets ema run its tiles' chains side by side (ema_tile.h). The other
 * kernels' tiles of a row go together to apo__cpu_catalog_tiles_on: the Wilder recurrences
 * (rsi, cmo, atr, natr, plus_di, minus_di, adx) run them side by side in vector lanes, one tile
 * per lane, since one tile's chain is serial; the rest, one by one, with the bodies' own loops
 * in the lanes. */
static apo_status catalog_run_tiles(const apo__call *call, uint64_t first, uint64_t end, int isa,
                                    double *scratch, size_t scratch_len) {
    (void)scratch, (void)scratch_len;
    const apo__cat_id id = id_of(call->kernel);
    const int join = apo__catalog_tiles_join(id);
    for (uint64_t g = first; g < end;) {
        /* The row's remaining tiles in [g, end): the row ends at a multiple of tiles_per_row. */
        const uint64_t row_end = (g / call->tiles_per_row + 1) * call->tiles_per_row;
        const uint64_t last = (end < row_end ? end : row_end) - 1;
        size_t row, begin, stop;
        apo__tile_range(call, g, &row, &begin, &stop);
        apo__cat_io io;
        catalog_io(call, row, &io);
        if (join) {
            size_t row_last, begin_last;
            apo__tile_range(call, last, &row_last, &begin_last, &stop);
            apo__cpu_catalog_tile_on(id, &io, begin, stop, isa);
        } else {
            /* The row's tiles a batch at a time, for the recurrences' lanes. */
            apo__tile_span spans[16];
            for (uint64_t t = g; t <= last;) {
                size_t n = 0;
                for (; t <= last && n < sizeof spans / sizeof spans[0]; t++, n++) {
                    apo__tile_range(call, t, &row, &begin, &stop);
                    spans[n] = (apo__tile_span){row, begin, stop};
                }
                apo__cpu_catalog_tiles_on(id, &io, spans, n, isa);
            }
        }
        g = last + 1;
    }
    return APO_OK;
}

/* The path the kernel runs fastest on (apo__catalog_path): avx2 for some kernels on the AMD
 * CPUs measured faster there (Zen 4, Zen 5), and on Intel and Zen 4 for the rounds of lanes of
 * rows of a few tiles (apo__catalog_round_path), else the widest. */
static int catalog_path(const apo__call *call, int widest) {
    const apo__cat_id id = id_of(call->kernel);
    return apo__catalog_round_path(id, call->tiles_per_row, apo__catalog_path(id, widest));
}

#ifdef APO_HAVE_CUDA
/* Launches every row-uniform view of the chunk (cuda_views.h) in tile order with the
 * family's launcher, stopping at the first failure. */
static int catalog_cuda(const apo__call *call, const apo__cuda_chunk *chunk, void *stream) {
    const apo__kernel *k = call->kernel;
    const apo__cat_id id = id_of(k);
    apo__cat_io base;
    memset(&base, 0, sizeof base);
    for (size_t i = 0; i < k->n_inputs; i++)
        base.in[i] = chunk->in[i];
    for (size_t o = 0; o < k->n_outputs; o++)
        base.out[o] = chunk->out[o];
    for (size_t p = 0; p < k->n_params && p < APO_CAT_MAX_PAR; p++)
        base.p[p] = call->params[p];
    base.h = apo__catalog_halo(id, base.p);
    apo__cuda_view views[3];
    const size_t n = apo__cuda_views(call, chunk, views);
    for (size_t v = 0; v < n; v++) {
        /* A recurrence with a cut takes the cut launch where it pays (docs/cuda.md, "Lone
         * tiles cut into pieces"), else its family's thread a tile. */
        int rc = apo__catalog_gpu_cuts(id)
                     ? apo__cuda_catalog_cut((int)id, &views[v], &base, stream, NULL)
                     : APO_CUDA_NOT_CUT;
        if (rc != APO_CUDA_NOT_CUT) {
            if (rc != 0)
                return rc;
            continue;
        }
        rc = 0;
        switch (apo__catalog_family(id)) {
#define CATALOG_LAUNCHER(room, ID)                                                                 \
    case APO_CAT_##ID:                                                                             \
        rc = apo__cuda_##room((int)id, &views[v], &base, stream);                                  \
        break;
            APO_CATALOG_ROOMS(CATALOG_LAUNCHER)
#undef CATALOG_LAUNCHER
        }
        if (rc != 0)
            return rc;
    }
    return 0;
}
#else
#define catalog_cuda NULL
#endif

/* Whole input rows at these parameters though not at others: ma and bbands at matype 7
 * (catalog_dispatch.h, apo__catalog_whole_row_at). */
static int catalog_whole_row_at(const apo__kernel *k, const double *params) {
    return apo__catalog_whole_row_at(id_of(k), params);
}

/* Each kernel's CUDA implementation: its outputs, and for obv and ad (APO_CAT_T_WHOLE_ROW)
 * whole input rows, since every tile reads its row from the first sample (catalog.h): a GPU
 * or another rank is sent whole rows; so is a call of ma or bbands at matype 7
 * (catalog_whole_row_at). Wherever a catalog kernel reads whole rows, a GPU runs each row as
 * one serial chain (catalog_launch.h), so the planner keeps it off GPUs beside a cpu
 * (whole_row_serial; docs/scheduling.md, "One serial chain per row"). */
#define CATALOG_CUDA_IMPL(ID, name, room, inputs, outputs, params, lookback, halo, stream, traits, \
                          rule)                                                                    \
    static const apo__cuda_impl catalog_cuda_##name = {APO_CAT_COUNT_OF outputs,                   \
                                                       catalog_halo,                               \
                                                       ((traits)&APO_CAT_T_WHOLE_ROW) != 0,        \
                                                       catalog_cuda,                               \
                                                       catalog_whole_row_at,                       \
                                                       1};
APO_CATALOG(CATALOG_CUDA_IMPL)
#undef CATALOG_CUDA_IMPL

/* The kernels whose streams take their one-bar pieces side by side (kernel.h, resume_lanes):
 * stoch (kernels/oscillators/stoch_stream_lanes.h), rsi and cmo (rsi_stream_lanes.h), cci
 * (cci_stream_lanes.h), mfi (kernels/volume/mfi_stream_lanes.h), atr and natr
 * (kernels/trend/atr_stream_lanes.h), ema (kernels/averages/ema_stream_lanes.h), adx, dx, plus_di
 * and minus_di (kernels/trend/dmi_stream_lanes.h). Handed to the
 * others, whose pieces would each run alone, the batches cost a group update of 5,000 symbols x
 * 10 indicators 3 to 8% (docs/perf-log/2026-12-05-xeon-stream-cache-sets.md). */
#define CATALOG_HAS_LANES_stoch ~,
#define CATALOG_HAS_LANES_rsi ~,
#define CATALOG_HAS_LANES_cmo ~,
#define CATALOG_HAS_LANES_cci ~,
#define CATALOG_HAS_LANES_mfi ~,
#define CATALOG_HAS_LANES_atr ~,
#define CATALOG_HAS_LANES_natr ~,
#define CATALOG_HAS_LANES_ema ~,
#define CATALOG_HAS_LANES_adx ~,
#define CATALOG_HAS_LANES_dx ~,
#define CATALOG_HAS_LANES_plus_di ~,
#define CATALOG_HAS_LANES_minus_di ~,
#define CATALOG_RESUME_LANES(name)                                                                 \
    APO__CAT_SECOND_OF((CATALOG_HAS_LANES_##name catalog_resume_lanes, NULL, ~))

/* The glue every catalog descriptor shares; the whole-row sums (obv, ad) are also handed
 * whole rows in a group (kernel.h, row_groups) and stream by carrying their sum
 * (resume_carries). */
#define CATALOG_GLUE(traits, name)                                                                 \
    .builtin = 1, .validate = catalog_validate, .axis_len = catalog_axis_len,                      \
    .tile_len = catalog_tile, .unit_work = catalog_unit_work, .output_cols = catalog_output_cols,  \
    .run_tile = catalog_run, .run_tiles = catalog_run_tiles, .path = catalog_path,                 \
    .resume_tile = catalog_resume, .resume_size = catalog_resume_size,                             \
    .resume_hot_size = catalog_resume_hot_size, .resume_lanes = CATALOG_RESUME_LANES(name),        \
    .cuda = &catalog_cuda_##name, .row_groups = ((traits)&APO_CAT_T_WHOLE_ROW) != 0,               \
    .resume_carries = ((traits)&APO_CAT_T_WHOLE_ROW) != 0, .stream_check = catalog_stream_check

/* A row's inputs and outputs, counted and listed, are checked against each other. */
#define CATALOG_COUNTS_AGREE(ID, name, room, inputs, outputs, ...)                                 \
    _Static_assert(sizeof((const char *[])APO_CAT_LIST_OF inputs) / sizeof(const char *) ==        \
                       APO_CAT_COUNT_OF inputs,                                                    \
                   #name ": its inputs' count");                                                   \
    _Static_assert(sizeof((const char *[])APO_CAT_LIST_OF outputs) / sizeof(const char *) ==       \
                       APO_CAT_COUNT_OF outputs,                                                   \
                   #name ": its outputs' count");                                                  \
    _Static_assert(APO_CAT_COUNT_OF inputs <= APO_CAT_MAX_IN &&                                    \
                       APO_CAT_COUNT_OF outputs <= APO_CAT_MAX_OUT,                                \
                   #name ": more inputs or outputs than apo__cat_io holds");
APO_CATALOG(CATALOG_COUNTS_AGREE)
#undef CATALOG_COUNTS_AGREE

/* What a stream's resumed piece of a kernel reads of its kept bars (kernel.h, resume_reads),
 * from its row: READS_WINDOW among its traits, every bar of its window; a recurrence's halo
 * (EMA, WILDER, ADOSC, TSI: the steps its averages take to forget their seeds), its new bars
 * and the one before, which share their lines; any other, the bar its window lets go. */
#define CATALOG_NEW_ONLY_EMA(m) ~,
#define CATALOG_NEW_ONLY_WILDER(m) ~,
#define CATALOG_NEW_ONLY_ADOSC ~,
#define CATALOG_NEW_ONLY_TSI ~,
#define CATALOG_RESUME_READS(halo, traits)                                                         \
    (((traits)&APO_CAT_T_READS_WINDOW) != 0                                                        \
         ? APO_RESUME_READS_WINDOW                                                                 \
         : APO__CAT_SECOND_OF(                                                                     \
               (CATALOG_NEW_ONLY_##halo APO_RESUME_READS_NEW_ONLY, APO_RESUME_READS_EDGE, ~)))

#define CATALOG_DESCRIPTOR(ID, name_, room, inputs, outputs, params_, lookback, halo, stream,      \
                           traits, rule)                                                           \
    [APO_CAT_##ID] = {.name = #name_,                                                              \
                      .n_inputs = APO_CAT_COUNT_OF inputs,                                         \
                      .input_names = APO_CAT_LIST_OF inputs,                                       \
                      .n_outputs = APO_CAT_COUNT_OF outputs,                                       \
                      .output_names = APO_CAT_LIST_OF outputs,                                     \
                      .n_params = APO_CAT_COUNT_OF params_,                                        \
                      .params = APO_CAT_LIST_OF params_,                                           \
                      .halo_rule = rule,                                                           \
                      .resume_reads = CATALOG_RESUME_READS(halo, traits),                          \
                      CATALOG_GLUE(traits, name_)},

/* In apo__cat_id order (kernels/common/catalog_table.h). */
static const apo__kernel catalog_kernels[APO_CAT_COUNT] = {APO_CATALOG(CATALOG_DESCRIPTOR)};
#undef CATALOG_DESCRIPTOR

static apo__cat_id id_of(const apo__kernel *k) { return (apo__cat_id)(k - catalog_kernels); }

size_t apo__catalog_kernel_count(void) { return APO_CAT_COUNT; }

const apo__kernel *apo__catalog_kernel(size_t index) { return &catalog_kernels[index]; }

int apo__catalog_id_of(const apo__kernel *k) {
    for (size_t i = 0; i < APO_CAT_COUNT; i++)
        if (k == &catalog_kernels[i])
            return (int)i;
    return -1;
}
