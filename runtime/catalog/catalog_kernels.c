/*
 * Descriptors of the indicator catalog (docs/kernels.md, "The catalog"): TA-Lib's names,
 * parameters, defaults and bounds, the inputs by name, and the glue from the runtime's tile
 * calls to the tile bodies of kernels/<room>/ (kernels/common/catalog.h). Every catalog
 * kernel uses the same glue: the descriptor's place in the table is its apo__cat_id.
 */
#include <stdio.h>
#include <string.h>

#include "catalog.h"
#include "catalog/catalog_kernels.h"
#include "catalog/cuda_views.h"
#include "catalog/kernel.h"
#include "catalog_cuda.h"

#define APO_PERIOD_MAX 100000

static apo__cat_id id_of(const apo__kernel *k);

static apo_status catalog_validate(const apo__kernel *k, const double *params, size_t rows,
                                   size_t cols, char *err, size_t err_size) {
    (void)rows;
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

/* Row `row` of the call as a body sees it. */
static void catalog_io(const apo__call *call, size_t row, apo__cat_io *io) {
    const apo__kernel *k = call->kernel;
    memset(io, 0, sizeof *io);
    for (size_t i = 0; i < k->n_inputs; i++)
        io->in[i] = call->inputs[i] + row * call->cols;
    for (size_t o = 0; o < k->n_outputs; o++)
        io->out[o] = call->outputs[o] + row * call->cols;
    for (size_t p = 0; p < k->n_params && p < APO_CAT_MAX_PAR; p++)
        io->p[p] = call->params[p];
    io->h = apo__catalog_halo(id_of(k), io->p);
    io->tile = apo__catalog_tile_len(id_of(k), io->p);
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

static size_t catalog_resume_size(const apo__kernel *k) {
    return apo__catalog_resume_size(id_of(k));
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
 * CPUs measured faster there (Zen 4, Zen 5), else the widest. */
static int catalog_path(const apo__call *call, int widest) {
    return apo__catalog_path(id_of(call->kernel), widest);
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
        int rc = 0;
        switch (apo__catalog_family(id)) {
        case APO_CAT_AVERAGES:
            rc = apo__cuda_averages((int)id, &views[v], &base, stream);
            break;
        case APO_CAT_OSCILLATORS:
            rc = apo__cuda_oscillators((int)id, &views[v], &base, stream);
            break;
        case APO_CAT_STATISTICS:
            rc = apo__cuda_statistics((int)id, &views[v], &base, stream);
            break;
        case APO_CAT_TREND:
            rc = apo__cuda_trend((int)id, &views[v], &base, stream);
            break;
        case APO_CAT_VOLUME:
            rc = apo__cuda_volume((int)id, &views[v], &base, stream);
            break;
        }
        if (rc != 0)
            return rc;
    }
    return 0;
}
#else
#define catalog_cuda NULL
#endif

static const apo__cuda_impl catalog_cuda_impl1 = {1, catalog_halo, 0, catalog_cuda};
static const apo__cuda_impl catalog_cuda_impl2 = {2, catalog_halo, 0, catalog_cuda};
/* obv and ad: every tile reads its row from the first sample (catalog.h), so a GPU or
 * another rank is sent whole input rows. */
static const apo__cuda_impl catalog_cuda_whole_row = {1, catalog_halo, 1, catalog_cuda};

/* The fields every catalog descriptor shares; CATALOG_GLUE adds the CUDA implementation of
 * a kernel of one output. */
#define CATALOG_GLUE_CPU                                                                           \
    .builtin = 1, .validate = catalog_validate, .axis_len = catalog_axis_len,                      \
    .tile_len = catalog_tile, .unit_work = catalog_unit_work, .output_cols = catalog_output_cols,  \
    .run_tile = catalog_run, .run_tiles = catalog_run_tiles, .path = catalog_path,                 \
    .resume_tile = catalog_resume, .resume_size = catalog_resume_size
#define CATALOG_GLUE CATALOG_GLUE_CPU, .cuda = &catalog_cuda_impl1
/* obv and ad also stream by carrying their sum (kernel.h, resume_carries). */
#define CATALOG_GLUE_WHOLE_ROW                                                                     \
    CATALOG_GLUE_CPU, .cuda = &catalog_cuda_whole_row, .row_groups = 1, .resume_carries = 1

#define PERIOD(def, min)                                                                           \
    { "timeperiod", def, min, APO_PERIOD_MAX, 1 }
#define ONE_CLOSE .n_inputs = 1, .input_names = {"close"}
#define HLC .n_inputs = 3, .input_names = {"high", "low", "close"}
#define XY .n_inputs = 2, .input_names = {"x", "y"}
#define HLCV .n_inputs = 4, .input_names = {"high", "low", "close", "volume"}
#define WILDER_HALO "timeperiod + the steps Wilder's average takes to forget its seed (to 2^-64)"

/* In apo__cat_id order (kernels/common/catalog.h). */
static const apo__kernel catalog_kernels[APO_CAT_COUNT] = {
    [APO_CAT_SMA] = {.name = "sma",
                     ONE_CLOSE,
                     .n_outputs = 1,
                     .output_names = {"sma"},
                     .n_params = 1,
                     .params = {PERIOD(30, 2)},
                     .halo_rule = "timeperiod - 1",
                     CATALOG_GLUE},
    [APO_CAT_EMA] = {.name = "ema",
                     ONE_CLOSE,
                     .n_outputs = 1,
                     .output_names = {"ema"},
                     .n_params = 1,
                     .params = {PERIOD(30, 2)},
                     .halo_rule = "(timeperiod - 1) + the steps the EMA takes to forget its "
                                  "seed (to 2^-64)",
                     CATALOG_GLUE},
    [APO_CAT_WMA] = {.name = "wma",
                     ONE_CLOSE,
                     .n_outputs = 1,
                     .output_names = {"wma"},
                     .n_params = 1,
                     .params = {PERIOD(30, 2)},
                     .halo_rule = "timeperiod - 1",
                     CATALOG_GLUE},
    [APO_CAT_DEMA] =
        {.name = "dema",
         ONE_CLOSE,
         .n_outputs = 1,
         .output_names = {"dema"},
         .n_params = 1,
         .params = {PERIOD(30, 2)},
         .halo_rule =
             "2 (timeperiod - 1) + 3 times the steps an EMA takes to forget its seed (to 2^-64)",
         CATALOG_GLUE},
    [APO_CAT_TEMA] =
        {.name = "tema",
         ONE_CLOSE,
         .n_outputs = 1,
         .output_names = {"tema"},
         .n_params = 1,
         .params = {PERIOD(30, 2)},
         .halo_rule =
             "3 (timeperiod - 1) + 4 times the steps an EMA takes to forget its seed (to 2^-64)",
         CATALOG_GLUE},
    [APO_CAT_MOM] = {.name = "mom",
                     ONE_CLOSE,
                     .n_outputs = 1,
                     .output_names = {"mom"},
                     .n_params = 1,
                     .params = {PERIOD(10, 1)},
                     .halo_rule = "timeperiod",
                     CATALOG_GLUE},
    [APO_CAT_ROC] = {.name = "roc",
                     ONE_CLOSE,
                     .n_outputs = 1,
                     .output_names = {"roc"},
                     .n_params = 1,
                     .params = {PERIOD(10, 1)},
                     .halo_rule = "timeperiod",
                     CATALOG_GLUE},
    [APO_CAT_RSI] =
        {.name = "rsi",
         ONE_CLOSE,
         .n_outputs = 1,
         .output_names = {"rsi"},
         .n_params = 1,
         .params = {PERIOD(14, 2)},
         .halo_rule = "timeperiod + the steps Wilder's average takes to forget its seed (to 2^-64)",
         CATALOG_GLUE},
    [APO_CAT_CMO] =
        {.name = "cmo",
         ONE_CLOSE,
         .n_outputs = 1,
         .output_names = {"cmo"},
         .n_params = 1,
         .params = {PERIOD(14, 2)},
         .halo_rule = "timeperiod + the steps Wilder's average takes to forget its seed (to 2^-64)",
         CATALOG_GLUE},
    [APO_CAT_WILLR] = {.name = "willr",
                       HLC,
                       .n_outputs = 1,
                       .output_names = {"willr"},
                       .n_params = 1,
                       .params = {PERIOD(14, 2)},
                       .halo_rule = "timeperiod - 1",
                       CATALOG_GLUE},
    [APO_CAT_CCI] = {.name = "cci",
                     HLC,
                     .n_outputs = 1,
                     .output_names = {"cci"},
                     .n_params = 1,
                     .params = {PERIOD(14, 2)},
                     .halo_rule = "timeperiod - 1",
                     CATALOG_GLUE},
    [APO_CAT_STOCHF] = {.name = "stochf",
                        HLC,
                        .n_outputs = 2,
                        .output_names = {"fastk", "fastd"},
                        .n_params = 3,
                        .params = {{"fastk_period", 5, 1, APO_PERIOD_MAX, 1},
                                   {"fastd_period", 3, 1, APO_PERIOD_MAX, 1},
                                   {"fastd_matype", 0, 0, 0, 1}},
                        .halo_rule = "(fastk_period - 1) + (fastd_period - 1)",
                        .cuda = &catalog_cuda_impl2,
                        CATALOG_GLUE_CPU},
    [APO_CAT_STOCH] = {.name = "stoch",
                       HLC,
                       .n_outputs = 2,
                       .output_names = {"slowk", "slowd"},
                       .n_params = 5,
                       .params = {{"fastk_period", 5, 1, APO_PERIOD_MAX, 1},
                                  {"slowk_period", 3, 1, APO_PERIOD_MAX, 1},
                                  {"slowk_matype", 0, 0, 0, 1},
                                  {"slowd_period", 3, 1, APO_PERIOD_MAX, 1},
                                  {"slowd_matype", 0, 0, 0, 1}},
                       .halo_rule = "(fastk_period - 1) + (slowk_period - 1) + (slowd_period - 1)",
                       .cuda = &catalog_cuda_impl2,
                       CATALOG_GLUE_CPU},
    [APO_CAT_STDDEV] = {.name = "stddev",
                        ONE_CLOSE,
                        .n_outputs = 1,
                        .output_names = {"stddev"},
                        .n_params = 2,
                        .params = {PERIOD(5, 2), {"nbdev", 1, -1e300, 1e300, 0}},
                        .halo_rule = "as var's",
                        CATALOG_GLUE},
    [APO_CAT_VAR] =
        {.name = "var",
         ONE_CLOSE,
         .n_outputs = 1,
         .output_names = {"var"},
         .n_params = 2,
         .params = {PERIOD(5, 1), {"nbdev", 1, -1e300, 1e300, 0}},
         .halo_rule =
             "timeperiod - 1, and 31 more from 33 to 159, 63 more from 160 to 1024 (a tile "
             "reaches back to its block's first window)",
         CATALOG_GLUE},
    [APO_CAT_MAX] = {.name = "max",
                     ONE_CLOSE,
                     .n_outputs = 1,
                     .output_names = {"max"},
                     .n_params = 1,
                     .params = {PERIOD(30, 2)},
                     .halo_rule = "timeperiod - 1",
                     CATALOG_GLUE},
    [APO_CAT_MIN] = {.name = "min",
                     ONE_CLOSE,
                     .n_outputs = 1,
                     .output_names = {"min"},
                     .n_params = 1,
                     .params = {PERIOD(30, 2)},
                     .halo_rule = "timeperiod - 1",
                     CATALOG_GLUE},
    [APO_CAT_LINEARREG] = {.name = "linearreg",
                           ONE_CLOSE,
                           .n_outputs = 1,
                           .output_names = {"linearreg"},
                           .n_params = 1,
                           .params = {PERIOD(14, 2)},
                           .halo_rule = "timeperiod - 1",
                           CATALOG_GLUE},
    [APO_CAT_LINEARREG_SLOPE] = {.name = "linearreg_slope",
                                 ONE_CLOSE,
                                 .n_outputs = 1,
                                 .output_names = {"linearreg_slope"},
                                 .n_params = 1,
                                 .params = {PERIOD(14, 2)},
                                 .halo_rule = "timeperiod - 1",
                                 CATALOG_GLUE},
    [APO_CAT_CORREL] =
        {.name = "correl",
         XY,
         .n_outputs = 1,
         .output_names = {"correl"},
         .n_params = 1,
         .params = {PERIOD(30, 1)},
         .halo_rule =
             "timeperiod - 1, and 15 more from 1 to 47, 31 from 48 to 159, 63 from 160 to 1024 "
             "(a tile reaches back to its block's first window)",
         CATALOG_GLUE},
    [APO_CAT_BETA] =
        {.name = "beta",
         XY,
         .n_outputs = 1,
         .output_names = {"beta"},
         .n_params = 1,
         .params = {PERIOD(5, 1)},
         .halo_rule =
             "timeperiod (the returns need the sample before the window), and 63 more from 33 "
             "to 512 (a tile reaches back to its block's first window)",
         CATALOG_GLUE},
    [APO_CAT_TRANGE] = {.name = "trange",
                        HLC,
                        .n_outputs = 1,
                        .output_names = {"trange"},
                        .n_params = 0,
                        .halo_rule = "1: the close before",
                        CATALOG_GLUE},
    [APO_CAT_ATR] = {.name = "atr",
                     HLC,
                     .n_outputs = 1,
                     .output_names = {"atr"},
                     .n_params = 1,
                     .params = {PERIOD(14, 1)},
                     .halo_rule = "timeperiod + the steps Wilder's average takes to forget its "
                                  "seed (to 2^-64)",
                     CATALOG_GLUE},
    [APO_CAT_NATR] = {.name = "natr",
                      HLC,
                      .n_outputs = 1,
                      .output_names = {"natr"},
                      .n_params = 1,
                      .params = {PERIOD(14, 1)},
                      .halo_rule = "timeperiod + the steps Wilder's average takes to forget "
                                   "its seed (to 2^-64)",
                      CATALOG_GLUE},
    [APO_CAT_AROON] = {.name = "aroon",
                       .n_inputs = 2,
                       .input_names = {"high", "low"},
                       .n_outputs = 2,
                       .output_names = {"aroondown", "aroonup"},
                       .n_params = 1,
                       .params = {PERIOD(14, 2)},
                       .halo_rule = "timeperiod",
                       .cuda = &catalog_cuda_impl2,
                       CATALOG_GLUE_CPU},
    /* catalog2's kernels */
    [APO_CAT_ZSCORE] = {.name = "zscore",
                        ONE_CLOSE,
                        .n_outputs = 1,
                        .output_names = {"zscore"},
                        .n_params = 1,
                        .params = {PERIOD(20, 2)},
                        .halo_rule = "timeperiod - 1",
                        CATALOG_GLUE},
    [APO_CAT_PLUS_DI] = {.name = "plus_di",
                         HLC,
                         .n_outputs = 1,
                         .output_names = {"plus_di"},
                         .n_params = 1,
                         .params = {PERIOD(14, 1)},
                         .halo_rule = WILDER_HALO,
                         CATALOG_GLUE},
    [APO_CAT_MINUS_DI] = {.name = "minus_di",
                          HLC,
                          .n_outputs = 1,
                          .output_names = {"minus_di"},
                          .n_params = 1,
                          .params = {PERIOD(14, 1)},
                          .halo_rule = WILDER_HALO,
                          CATALOG_GLUE},
    [APO_CAT_ADX] = {.name = "adx",
                     HLC,
                     .n_outputs = 1,
                     .output_names = {"adx"},
                     .n_params = 1,
                     .params = {PERIOD(14, 2)},
                     .halo_rule = "2 timeperiod - 1 + twice the steps Wilder's average takes to "
                                  "forget its seed (to 2^-64): the DIs', then ADX's",
                     CATALOG_GLUE},
    [APO_CAT_MFI] = {.name = "mfi",
                     HLCV,
                     .n_outputs = 1,
                     .output_names = {"mfi"},
                     .n_params = 1,
                     .params = {PERIOD(14, 2)},
                     .halo_rule = "timeperiod: the flows of timeperiod bars and the bar before",
                     CATALOG_GLUE},
    [APO_CAT_VWAP] = {.name = "vwap",
                      HLCV,
                      .n_outputs = 1,
                      .output_names = {"vwap"},
                      .n_params = 1,
                      .params = {PERIOD(14, 1)},
                      .halo_rule = "timeperiod - 1",
                      CATALOG_GLUE},
    [APO_CAT_KAMA] = {.name = "kama",
                      ONE_CLOSE,
                      .n_outputs = 1,
                      .output_names = {"kama"},
                      .n_params = 1,
                      .params = {PERIOD(30, 2)},
                      .halo_rule = "timeperiod + the steps KAMA's slowest rate (2/31)^2 takes to "
                                   "forget its seed (to 2^-64)",
                      CATALOG_GLUE},
    [APO_CAT_ADOSC] = {.name = "adosc",
                       HLCV,
                       .n_outputs = 1,
                       .output_names = {"adosc"},
                       .n_params = 2,
                       .params = {{"fastperiod", 3, 2, APO_PERIOD_MAX, 1},
                                  {"slowperiod", 10, 2, APO_PERIOD_MAX, 1}},
                       .halo_rule = "max(fastperiod, slowperiod) - 1 + the steps the slower EMA "
                                    "takes to forget its seed (to 2^-64); AD restarts at 0 "
                                    "there, which ADOSC does not see",
                       CATALOG_GLUE},
    [APO_CAT_OBV] = {.name = "obv",
                     .n_inputs = 2,
                     .input_names = {"close", "volume"},
                     .n_outputs = 1,
                     .output_names = {"obv"},
                     .n_params = 0,
                     .halo_rule = "the whole row: a running sum from the first bar, which every "
                                  "tile re-runs",
                     CATALOG_GLUE_WHOLE_ROW},
    [APO_CAT_AD] = {.name = "ad",
                    HLCV,
                    .n_outputs = 1,
                    .output_names = {"ad"},
                    .n_params = 0,
                    .halo_rule = "the whole row: a running sum from the first bar, which every "
                                 "tile re-runs",
                    CATALOG_GLUE_WHOLE_ROW},
};

static apo__cat_id id_of(const apo__kernel *k) { return (apo__cat_id)(k - catalog_kernels); }

size_t apo__catalog_kernel_count(void) { return APO_CAT_COUNT; }

const apo__kernel *apo__catalog_kernel(size_t index) { return &catalog_kernels[index]; }

int apo__catalog_id_of(const apo__kernel *k) {
    for (size_t i = 0; i < APO_CAT_COUNT; i++)
        if (k == &catalog_kernels[i])
            return (int)i;
    return -1;
}
