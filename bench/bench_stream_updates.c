/*
 * apo-bench-stream-updates: what one stream update of one new bar per series costs
 * (docs/streaming.md, "Cost"; docs/PERF.md, "Stream updates"). An update re-runs the
 * kernel's tile function from the current tile's start to the new bar, so its cost grows
 * with the bars already in the tile: the bench times updates just after a tile boundary, in
 * the middle of a tile and at its end, for bollinger(20) and macd(12,26,9).
 *
 *   apo-bench-stream-updates [--series N] [--reps N]
 *
 * Each row: the position in the tile of the first timed bar, the median and minimum wall
 * time of `reps` updates (one bar for every series), and that median per series. Every row
 * says how busy the machine was. Exit status: 0, or 2 on a usage or runtime error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

const char bench_prog[] = "apo-bench-stream-updates";

typedef struct config {
    const char *label;
    const char *kernel;
    apo_param params[3];
} config;

/* The tile length, from a one-series state's header (docs/streaming.md, "The state"). */
static size_t tile_of(apo_runtime *rt, const config *c) {
    apo_stream_desc d = APO_STREAM_DESC_INIT;
    d.kernel = c->kernel;
    d.n_series = 1;
    d.params = c->params;
    d.n_params = 3;
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

/* Feeds `bars` bars to every series, a group of series per update so that the packed arrays
 * stay small (the other series get 0 bars). */
static int advance(apo_stream *s, size_t series, size_t bars, const double *x, double *const *out,
                   size_t *n_new) {
    const size_t group = 256;
    const double *in[] = {x};
    for (size_t g = 0; g < series; g += group) {
        for (size_t r = 0; r < series; r++)
            n_new[r] = r >= g && r < g + group ? bars : 0;
        if (bench_check(apo_stream_update(s, n_new, in, out), "apo_stream_update"))
            return -1;
    }
    return 0;
}

static int run(apo_runtime *rt, const config *c, size_t series, size_t reps) {
    size_t tile = tile_of(rt, c);
    if (tile == 0)
        return bench_check(APO_ERR_INTERNAL, "reading the tile length");
    size_t hist = 256 * (2 * tile);
    double *x = malloc(hist * sizeof(double)), *ones = malloc(series * sizeof(double));
    double *out[3];
    size_t *n_new = malloc(series * sizeof(size_t));
    double *ms = malloc(reps * sizeof(double));
    for (int o = 0; o < 3; o++)
        out[o] = malloc((hist > series ? hist : series) * sizeof(double));
    if (!x || !ones || !n_new || !ms || !out[0] || !out[1] || !out[2])
        return bench_check(APO_ERR_OUT_OF_MEMORY, "buffers");
    bench_fill_walk(x, 1, hist, 7);
    for (size_t r = 0; r < series; r++)
        ones[r] = x[r % hist];
    printf("# %s: %zu series x 1 new bar per update, tile %zu bars\n", c->label, series, tile);
    printf("# %-12s %10s %12s %10s %14s\n", "tile_pos", "reps", "median_ms", "min_ms",
           "us_per_series");
    /* First timed bar just after a boundary, in the middle, and reps bars before the end. */
    size_t at[3] = {0, tile / 2, tile - reps};
    for (int p = 0; p < 3; p++) {
        apo_stream_desc d = APO_STREAM_DESC_INIT;
        d.kernel = c->kernel;
        d.n_series = series;
        d.params = c->params;
        d.n_params = 3;
        apo_stream *s = NULL;
        if (bench_check(apo_stream_create(rt, &d, &s), "apo_stream_create") ||
            advance(s, series, tile + at[p], x, out, n_new) != 0)
            return 2;
        const double *in[] = {ones};
        for (size_t r = 0; r < series; r++)
            n_new[r] = 1;
        for (size_t i = 0; i < reps; i++) {
            double t0 = bench_now();
            if (bench_check(apo_stream_update(s, n_new, in, out), "apo_stream_update"))
                return 2;
            ms[i] = (bench_now() - t0) * 1e3;
        }
        double min = bench_min(ms, reps), med = bench_median(ms, reps);
        char load[64];
        bench_load_average(load, sizeof load);
        printf("  %-12zu %10zu %12.3f %10.3f %14.3f   # load %s\n", at[p], reps, med, min,
               med * 1e3 / (double)series, load);
        apo_stream_destroy(s);
    }
    free(x), free(ones), free(n_new), free(ms);
    for (int o = 0; o < 3; o++)
        free(out[o]);
    return 0;
}

int main(int argc, char **argv) {
    double series = 5000, reps = 21;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--series") == 0 && i + 1 < argc &&
            bench_parse_count(argv[++i], 1, 1 << 20, &series) == 0)
            continue;
        if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc &&
            bench_parse_count(argv[++i], 1, 1000, &reps) == 0)
            continue;
        fprintf(stderr, "usage: %s [--series N] [--reps N]\n", bench_prog);
        return 2;
    }
    apo_config cfg = APO_CONFIG_INIT;
    cfg.profiles = APO_SWITCH_OFF;
    cfg.learn = APO_SWITCH_OFF;
    apo_runtime *rt = NULL;
    if (bench_check(apo_runtime_create(&cfg, &rt), "apo_runtime_create"))
        return 2;
    char load[64];
    bench_load_average(load, sizeof load);
    printf("# %s (apportion %s), load average %s; updates run on the calling thread\n", bench_prog,
           apo_version(), load);
    const config configs[] = {
        {"bollinger(20, 2, 2)", "bollinger", {{"period", 20}, {"nbdev_up", 2}, {"nbdev_dn", 2}}},
        {"macd(12, 26, 9)", "macd", {{"fast", 12}, {"slow", 26}, {"signal", 9}}},
    };
    int rc = 0;
    for (size_t k = 0; k < 2 && rc == 0; k++)
        rc = run(rt, &configs[k], (size_t)series, (size_t)reps);
    apo_runtime_destroy(rt);
    return rc == 0 ? 0 : 2;
}
