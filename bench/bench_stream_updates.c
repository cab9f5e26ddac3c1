/*
 * apo-bench-stream-updates: what one stream update of one new bar per series costs
 * (docs/streaming.md, "Cost"; docs/perf-log/2026-11-23-stream-updates.md, "Stream updates").
 * bollinger, macd and the catalog's recurrences resume each series' running state, so an update
 * should cost its new bar wherever it falls; the first bar of a tile starts the tile's state afresh
 * (the recurrences have taken its warm-up ahead). The bench times updates from the first bar of a
 * tile, from its middle and up to its end, for bollinger(20), macd(12,26,9), rsi(14),
 * stoch(5,3,3), kdj at its defaults, ppo(12,26) at two EMAs, zlema(30), macdfix(9), smi, bbands,
 * stochrsi and macdext at their defaults, adxr(14), mfi(14), obv,
 * correl(30) and beta(5) (their high, low, open and volume by bench_fill_bars; correl's and
 * beta's second series is that high), then, for the first three, one large update against the
 * batch over the same bars.
 *
 *   apo-bench-stream-updates [--series N] [--reps N] [--kernel NAME]
 *
 * Each row: the position in the tile of the first timed bar; the median and minimum wall
 * time of `reps` updates (one bar for every series) made back to back, with the streams'
 * data in the caches, and that median per series; the median of `reps` cold updates, each
 * made after a 64 MiB buffer was written (a live feed's updates come a minute apart, with
 * other work between them), and the median of their thread CPU time (cold_cpu_ms, which
 * time taken by the other processes of a shared machine does not inflate); and the first
 * cold update's time (at position 0: the tile's first bar). --kernel NAME times that
 * kernel's per-bar rows only (no chunk rows), for repeated runs interleaved with another
 * build of the library. The chunk rows: 64 series fed 8 tiles
 * of bars in one update on the calling thread, and a batch call over the same bars on a
 * one-thread runtime, interleaved, medians and their ratio (the target: stream within 3x of
 * the batch); then the same update handed to the default runtime's devices, beside the
 * calling thread and the batch on those devices. Every row says how busy the machine was. Exit
 * status: 0, or 2 on a usage or runtime error.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "options.h"

const char bench_prog[] = "apo-bench-stream-updates";

typedef struct config {
    const char *label;
    const char *kernel;
    apo_param params[3];
    size_t n_params, n_outputs;
} config;

/* The description of a stream of `series` series of the config's kernel. */
static apo_stream_desc desc_of(const config *c, size_t series) {
    apo_stream_desc d = APO_STREAM_DESC_INIT;
    d.kernel = c->kernel;
    d.n_series = series;
    d.params = c->params;
    d.n_params = c->n_params;
    return d;
}

/* The tile length, from a one-series state's header (docs/streaming.md, "The state"). */
static size_t tile_of(apo_runtime *rt, const config *c) {
    apo_stream_desc d = desc_of(c, 1);
    apo_stream *s = NULL;
    unsigned char buf[512];
    size_t len = 0, tile = 0;
    if (apo_stream_create(rt, &d, &s) == APO_OK &&
        apo_stream_save(s, buf, sizeof buf, &len) == APO_OK)
        for (int i = 7; i >= 0; i--)
            tile = tile << 8 | buf[136 + i];
    apo_stream_destroy(s);
    return tile;
}

/* The kernel's inputs over `n` bars, the walk x as the close and bench_fill_bars' open, high,
 * low and volume around it, so that the stochastics' ranges and the flows are not
 * degenerate; any other input (one-input kernels) is the walk itself. The arrays are
 * allocated; 0, or -1 without memory. */
static int inputs_of(apo_runtime *rt, const config *c, const double *x, size_t n,
                     double *ins[APO_MAX_IO], size_t *n_in) {
    apo_kernel_info info = APO_KERNEL_INFO_INIT;
    if (bench_check(apo_kernel_get(rt, c->kernel, &info), "apo_kernel_get"))
        return -1;
    *n_in = info.n_inputs;
    for (size_t i = 0; i < info.n_inputs; i++) {
        const char *name = info.input_names[i];
        double *a = ins[i] = malloc(n * sizeof(double));
        if (a == NULL)
            return -1;
        if (strcmp(name, "open") == 0)
            bench_fill_bars(x, 1, n, a, NULL, NULL, NULL);
        else if (strcmp(name, "high") == 0)
            bench_fill_bars(x, 1, n, NULL, a, NULL, NULL);
        else if (strcmp(name, "low") == 0)
            bench_fill_bars(x, 1, n, NULL, NULL, a, NULL);
        else if (strcmp(name, "volume") == 0)
            bench_fill_bars(x, 1, n, NULL, NULL, NULL, a);
        else if (strcmp(name, "y") == 0) /* correl, beta: a second series, not x again */
            bench_fill_bars(x, 1, n, NULL, a, NULL, NULL);
        else
            memcpy(a, x, n * sizeof(double));
    }
    return 0;
}

/* Feeds `bars` bars to every series, a group of series per update so that the packed arrays
 * stay small (the other series get 0 bars); the inputs from position `at` of each. */
static int advance(apo_stream *s, size_t series, size_t bars, double *const *ins, size_t n_in,
                   size_t at, double *const *out, size_t *n_new) {
    const size_t group = 256;
    const double *in[APO_MAX_IO];
    for (size_t i = 0; i < n_in; i++)
        in[i] = ins[i] + at;
    for (size_t g = 0; g < series; g += group) {
        for (size_t r = 0; r < series; r++)
            n_new[r] = r >= g && r < g + group ? bars : 0;
        if (bench_check(apo_stream_update(s, n_new, in, out), "apo_stream_update"))
            return -1;
    }
    return 0;
}

/* Writes a buffer larger than the machine's caches, so that the next update finds none of
 * the streams' data there: what a live feed meets, whose updates come a minute apart with
 * other work between them. */
#define EVICT_BYTES ((size_t)64 << 20)
static void evict_caches(unsigned char *buf) {
    for (size_t i = 0; i < EVICT_BYTES; i += 64)
        buf[i] = (unsigned char)(buf[i] + 1);
}

static int run(apo_runtime *rt, const config *c, size_t series, size_t reps, unsigned char *evict) {
    size_t tile = tile_of(rt, c);
    if (tile == 0)
        return bench_check(APO_ERR_INTERNAL, "reading the tile length");
    size_t hist = 256 * (2 * tile);
    double *x = malloc(hist * sizeof(double));
    double *ins[APO_MAX_IO] = {0}, *ones[APO_MAX_IO] = {0};
    size_t n_in = 0;
    double *out[3];
    size_t *n_new = malloc(series * sizeof(size_t));
    double *ms = malloc(reps * sizeof(double)), *cold = malloc(reps * sizeof(double));
    double *cold_cpu = malloc(reps * sizeof(double));
    for (int o = 0; o < 3; o++)
        out[o] = malloc((hist > series ? hist : series) * sizeof(double));
    if (!x || !n_new || !ms || !cold || !cold_cpu || !out[0] || !out[1] || !out[2])
        return bench_check(APO_ERR_OUT_OF_MEMORY, "buffers");
    bench_fill_walk(x, 1, hist, 7);
    if (inputs_of(rt, c, x, hist, ins, &n_in) != 0)
        return bench_check(APO_ERR_OUT_OF_MEMORY, "input buffers");
    /* The one new bar of each series, input by input. */
    for (size_t i = 0; i < n_in; i++) {
        if ((ones[i] = malloc(series * sizeof(double))) == NULL)
            return bench_check(APO_ERR_OUT_OF_MEMORY, "input buffers");
        for (size_t r = 0; r < series; r++)
            ones[i][r] = ins[i][r % hist];
    }
    printf("# %s: %zu series x 1 new bar per update, tile %zu bars\n", c->label, series, tile);
    printf("# %-12s %10s %12s %10s %14s %10s %11s %10s\n", "tile_pos", "reps", "median_ms",
           "min_ms", "us_per_series", "cold_ms", "cold_cpu_ms", "first_ms");
    /* First timed bar just after a boundary, in the middle, and 2 reps bars before the end. */
    size_t at[3] = {0, tile / 2, tile - 2 * reps};
    for (int p = 0; p < 3; p++) {
        apo_stream_desc d = desc_of(c, series);
        apo_stream *s = NULL;
        if (bench_check(apo_stream_create(rt, &d, &s), "apo_stream_create"))
            return 2;
        /* The history in pieces of half a tile, as a live feed gets it, so that each series'
         * running state (and macd's next tile, warmed ahead) is what it is in production. A
         * piece of whole tiles would leave no running state behind it. */
        for (size_t fed = 0, want = tile + at[p]; fed < want; fed += tile / 2) {
            size_t piece = want - fed < tile / 2 ? want - fed : tile / 2;
            if (advance(s, series, piece, ins, n_in, fed, out, n_new) != 0)
                return 2;
        }
        const double *in[APO_MAX_IO];
        for (size_t i = 0; i < n_in; i++)
            in[i] = ones[i];
        for (size_t r = 0; r < series; r++)
            n_new[r] = 1;
        /* Cold updates first (the first of them is the bar at tile_pos), each after the
         * caches were flushed, then warm ones back to back. */
        for (size_t i = 0; i < 2 * reps; i++) {
            if (i < reps)
                evict_caches(evict);
            double t0 = bench_now(), c0 = bench_thread_cpu();
            if (bench_check(apo_stream_update(s, n_new, in, out), "apo_stream_update"))
                return 2;
            (i < reps ? cold : ms)[i % reps] = (bench_now() - t0) * 1e3;
            if (i < reps)
                cold_cpu[i] = (bench_thread_cpu() - c0) * 1e3;
        }
        char load[64];
        bench_load_average(load, sizeof load);
        const double first = cold[0], cold_med = bench_median(cold, reps);
        const double cold_cpu_med = bench_median(cold_cpu, reps);
        double min = bench_min(ms, reps), med = bench_median(ms, reps);
        printf("  %-12zu %10zu %12.3f %10.3f %14.3f %10.3f %11.3f %10.3f   # load %s\n", at[p],
               reps, med, min, med * 1e3 / (double)series, cold_med, cold_cpu_med, first, load);
        apo_stream_destroy(s);
    }
    free(x), free(n_new), free(ms), free(cold), free(cold_cpu);
    for (size_t i = 0; i < n_in; i++)
        free(ins[i]), free(ones[i]);
    for (int o = 0; o < 3; o++)
        free(out[o]);
    return 0;
}

/* One update of CHUNK_TILES tiles of bars to each of CHUNK_SERIES series against one batch
 * call over the same bars, interleaved. With `devices` 0: the stream on the calling thread
 * (device_bars SIZE_MAX) against the batch on `rt` run as `serial` (one thread, as the
 * stream runs). With `devices` 1: the stream handing the update to rt's devices
 * (device_bars 2^20, docs/streaming.md "Large updates on the devices"), the same stream on
 * the calling thread, and the batch on the same devices. */
#define CHUNK_SERIES 64
#define CHUNK_TILES 8

static int chunk_vs_batch(apo_runtime *rt, const config *c, size_t reps, int devices) {
    const size_t tile = tile_of(rt, c), rows = CHUNK_SERIES, cols = CHUNK_TILES * tile;
    double *x = malloc(rows * cols * sizeof(double)), *out[3] = {NULL, NULL, NULL};
    double *ms_stream = malloc(reps * sizeof(double)), *ms_batch = malloc(reps * sizeof(double));
    double *ms_thread = malloc(reps * sizeof(double));
    size_t *n_new = malloc(rows * sizeof(size_t));
    for (int o = 0; o < 3; o++)
        out[o] = malloc(rows * cols * sizeof(double));
    int rc = 0;
    if (tile == 0 || !x || !ms_stream || !ms_batch || !ms_thread || !n_new || !out[0] || !out[1] ||
        !out[2]) {
        rc = bench_check(APO_ERR_OUT_OF_MEMORY, "chunk buffers");
        goto done;
    }
    bench_fill_walk(x, rows, cols, 11);
    for (size_t r = 0; r < rows; r++)
        n_new[r] = cols;
    const double *in[] = {x};
    apo_workload w = bench_workload(c->kernel, rows, cols, in, 1);
    w.outputs = out;
    w.n_outputs = c->n_outputs;
    w.params = c->params;
    w.n_params = c->n_params;
    for (size_t i = 0; i < reps && rc == 0; i++) {
        /* On the devices (when asked), then on the calling thread. */
        for (int on_devices = devices; on_devices >= 0 && rc == 0; on_devices--) {
            apo_stream_desc d = desc_of(c, rows);
            /* 2^20 named, not 0: the default keeps updates on the calling thread where the
             * cpu is the only device, and these rows time the hand-over itself. */
            d.device_bars = on_devices ? (size_t)1 << 20 : SIZE_MAX;
            apo_stream *s = NULL;
            if (bench_check(apo_stream_create(rt, &d, &s), "apo_stream_create")) {
                rc = 2;
                break;
            }
            double t0 = bench_now();
            rc = bench_check(apo_stream_update(s, n_new, in, out), "apo_stream_update");
            (on_devices ? ms_stream : ms_thread)[i] = (bench_now() - t0) * 1e3;
            apo_stream_destroy(s);
        }
        double t0 = bench_now();
        if (rc == 0)
            rc = bench_check(apo_distribute_workload(rt, &w, NULL), "apo_distribute_workload");
        ms_batch[i] = (bench_now() - t0) * 1e3;
    }
    if (rc == 0) {
        const double th = bench_median(ms_thread, reps), ba = bench_median(ms_batch, reps);
        char load[64];
        bench_load_average(load, sizeof load);
        if (!devices) {
            printf("# %s: one update of %zu series x %zu bars on the calling thread against "
                   "the batch over them (cpu:threads=1)\n",
                   c->label, rows, cols);
            printf("# %-12s %10s %12s %12s %14s\n", "chunk", "reps", "stream_ms", "batch_ms",
                   "stream/batch");
            printf("  %-12s %10zu %12.3f %12.3f %14.2f   # load %s\n", "8 tiles", reps, th, ba,
                   th / ba, load);
        } else {
            const double dv = bench_median(ms_stream, reps);
            printf("# %s: one update of %zu series x %zu bars handed to the devices, on the "
                   "calling thread, and the batch over them (default devices)\n",
                   c->label, rows, cols);
            printf("# %-12s %10s %12s %12s %12s %14s %14s\n", "chunk", "reps", "devices_ms",
                   "thread_ms", "batch_ms", "devices/batch", "thread/devices");
            printf("  %-12s %10zu %12.3f %12.3f %12.3f %14.2f %14.2f   # load %s\n", "8 tiles",
                   reps, dv, th, ba, dv / ba, th / dv, load);
        }
    }
done:
    free(x), free(ms_stream), free(ms_batch), free(ms_thread), free(n_new);
    for (int o = 0; o < 3; o++)
        free(out[o]);
    return rc == 0 ? 0 : 2;
}

typedef struct options {
    double series, reps;
    const char *kernel; /* --kernel: that kernel's per-bar rows alone */
} options;

#define OPT(...) BENCH_OPTION(options, __VA_ARGS__)

static const bench_option option_rows[] = {
    OPT("--series", "N", DOUBLE, 1, 1 << 20, series, "series of each stream (default 5000)"),
    OPT("--reps", "N", DOUBLE, 1, 1000, reps, "updates of each row, their median (default 21)"),
    OPT("--kernel", "NAME", TEXT, 0, 0, kernel,
        "that kernel's per-bar rows alone, no chunk rows: bollinger,\n"
        "macd, rsi, stoch, kdj, ppo, zlema, macdfix, smi, bbands,\n"
        "stochrsi, macdext, adxr, mfi, obv, correl or beta\n"
        "(default: all)"),
};

#undef OPT

static const bench_option_table option_table = {"[--series N] [--reps N] [--kernel NAME]",
                                                option_rows,
                                                sizeof option_rows / sizeof option_rows[0], 17};

int main(int argc, char **argv) {
    options opt = {.series = 5000, .reps = 21, .kernel = NULL};
    if (bench_options_parse(&option_table, argc, argv, &opt) != 0)
        return 2;
    const double series = opt.series, reps = opt.reps;
    const char *only = opt.kernel;
    apo_runtime *rt = NULL;
    if (bench_check(bench_runtime(NULL, &rt), "apo_runtime_create"))
        return 2;
    /* The stream runs on the calling thread; its batch counterpart on one thread too. */
    apo_runtime *serial = NULL;
    if (bench_check(bench_runtime("cpu:threads=1", &serial),
                    "apo_runtime_create (cpu:threads=1)")) {
        apo_runtime_destroy(rt);
        return 2;
    }
    char load[64];
    bench_load_average(load, sizeof load);
    printf("# %s (apportion %s), load average %s; updates run on the calling thread\n", bench_prog,
           apo_version(), load);
    const config configs[] = {
        {"bollinger(20, 2, 2)",
         "bollinger",
         {{"period", 20}, {"nbdev_up", 2}, {"nbdev_dn", 2}},
         3,
         3},
        {"macd(12, 26, 9)", "macd", {{"fast", 12}, {"slow", 26}, {"signal", 9}}, 3, 3},
        /* A catalog recurrence that resumes (docs/streaming.md, "Cost"). */
        {"rsi(14)", "rsi", {{"timeperiod", 14}}, 1, 1},
        /* Kernels of several inputs that resume too: the stochastics (the position alone),
         * mfi (a slide whose ring a resumed run fills again) and the running sum obv, which
         * carries across tiles. Per-bar rows only: the chunk rows feed one input. */
        {"stoch(5, 3, 3)",
         "stoch",
         {{"fastk_period", 5}, {"slowk_period", 3}, {"slowd_period", 3}},
         3,
         2},
        /* kdj's two averages, Wilder's at its defaults, carried (kdj_stream.h). */
        {"kdj(9, 3, 13, 3, 13)", "kdj", {{NULL, 0}}, 0, 3},
        /* Recurrences whose updates re-ran their tile from its warm-up until 2026-12-07: ppo's
         * two EMAs (its default matype) and zlema's, carried since (apo_stream.h,
         * zlema_tile.h). */
        {"ppo(12, 26, EMA)", "ppo", {{NULL, 0}}, 0, 1},
        {"zlema(30)", "zlema", {{NULL, 0}}, 0, 1},
        /* Carried since 2026-12-08 (macdfix_tile.h, smi_tile.h): macdfix's three EMAs after
         * macd's seeding; smi's four stages, its update scanning one window. */
        {"macdfix(9)", "macdfix", {{NULL, 0}}, 0, 3},
        {"smi(13, 2, 25, 9)", "smi", {{NULL, 0}}, 0, 2},
        /* bbands at its defaults (matype 0): bollinger's cursor, its own state (OWN,
         * bbands_stream.h), since 2026-12-08. */
        {"bbands(20, 2, 2, SMA)", "bbands", {{NULL, 0}}, 0, 3},
        /* stochrsi at its defaults: its tile's loop state, its own (OWN, stochrsi_tile.h). */
        {"stochrsi(14, 5, 3, SMA)", "stochrsi", {{NULL, 0}}, 0, 2},
        /* macdext at its defaults (three SMAs) and adxr(14), their own states too. */
        {"macdext(12, 26, 9, SMA)", "macdext", {{NULL, 0}}, 0, 3},
        {"adxr(14)", "adxr", {{NULL, 0}}, 0, 1},
        {"mfi(14)", "mfi", {{"timeperiod", 14}}, 1, 1},
        {"obv", "obv", {{NULL, 0}}, 0, 1},
        /* The pair windows, whose state (five double-double sums) is their own. */
        {"correl(30)", "correl", {{"timeperiod", 30}}, 1, 1},
        {"beta(5)", "beta", {{"timeperiod", 5}}, 1, 1},
    };
    int rc = 0;
    const size_t n_configs = sizeof configs / sizeof configs[0];
    unsigned char *evict = calloc(EVICT_BYTES, 1);
    if (evict == NULL)
        rc = bench_check(APO_ERR_OUT_OF_MEMORY, "the buffer that flushes the caches");
    /* The first three are the ones the chunk rows time (one input each). */
    const size_t n_chunked = 3;
    size_t matched = 0;
    for (size_t k = 0; k < n_configs && rc == 0; k++) {
        if (only != NULL && strcmp(only, configs[k].kernel) != 0)
            continue;
        matched++;
        rc = run(rt, &configs[k], (size_t)series, (size_t)reps, evict);
    }
    if (only != NULL && matched == 0) {
        fprintf(stderr, "%s: --kernel %s is not one of the kernels this bench times\n", bench_prog,
                only);
        rc = 2;
    }
    for (size_t k = 0; k < n_chunked && rc == 0 && only == NULL; k++)
        rc = chunk_vs_batch(serial, &configs[k], (size_t)reps, 0);
    for (size_t k = 0; k < n_chunked && rc == 0 && only == NULL; k++)
        rc = chunk_vs_batch(rt, &configs[k], (size_t)reps, 1);
    free(evict);
    apo_runtime_destroy(serial);
    apo_runtime_destroy(rt);
    return rc == 0 ? 0 : 2;
}
