/*
 * apo-bench-stream-latency: the latency of one bar for every symbol fed to a group of ten
 * indicators in one apo_stream_group_update() call (docs/streaming.md, "Groups"), as a live
 * feed makes it once a bar closes; the target is p99 under 1 ms for 5,000 symbols on the
 * 2-core development machine (docs/perf-log/2026-11-26-stream-latency.md).
 *
 *   apo-bench-stream-latency [--series N,N,...] [--reps N] [--history N] [--cold]
 *                            [--kernels]
 *
 * For each series count (default 2048, 5000 and 50000): ten streams over the same symbols,
 * bollinger(20, 2, 2), macd(12, 26, 9), rsi(14), stoch(5, 3, 3), atr(14), adx(14), cci(14),
 * mfi(14), obv and ema(30), grouped and fed `history` bars (default 64, past every warm-up)
 * in pieces of 8, so that each series' running state is what a live feed leaves; then `reps`
 * updates (default 200) of one bar a symbol (open, high, low, close and volume by name, each
 * once), timed one by one on the calling thread: median, 99th percentile (the
 * ceil(0.99 reps)-th smallest) and largest wall time, in ms; the median and 99th percentile
 * of the calling thread's CPU time, which the other processes of a shared machine do not
 * inflate (a preempted update's wall time does); and that CPU median per symbol and indicator
 * in ns. With --cold, each timed update follows a 64 MiB write, so that none of the streams'
 * data is in the caches (a live feed's bars come seconds to a minute apart, with other work
 * between them). With --kernels, one row more per indicator: the median of the same one-bar
 * update made by apo_stream_update() on that stream alone, which says where the time goes.
 *
 * The calling thread's CPU time leaves out the second thread a large group update is shared
 * with (docs/streaming.md, "Groups", "Cost"): read the wall times for what the update takes.
 *
 * The history stays inside the kernels' first tiles, where each series keeps its bars in a
 * slot of 520 bars of its stream's young pool (docs/streaming.md, "Memory"): the kept windows of a
 * long history, at their bound, would take some 0.8 MB a symbol for these ten (macd alone 139 KB),
 * 40 GB at 50,000 symbols, more than the development machine has; history + reps must stay under
 * 448 bars for the same reason (runs of series move to the slab from 457 bars on:
 * runtime/streaming/stream_room.c, grow_lead). Every row says the machine's load average. Exit
 * status: 0, or 2 on a usage or runtime error.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "options.h"

const char bench_prog[] = "apo-bench-stream-latency";

#define N_IND 10
#define N_NAMES 5
#define PIECE 8
#define EVICT_BYTES ((size_t)64 << 20)

typedef struct indicator {
    const char *label, *kernel;
    apo_param params[3];
    size_t n_params;
} indicator;

static const indicator indicators[N_IND] = {
    {"bollinger(20,2,2)", "bollinger", {{"period", 20}, {"nbdev_up", 2}, {"nbdev_dn", 2}}, 3},
    {"macd(12,26,9)", "macd", {{"fast", 12}, {"slow", 26}, {"signal", 9}}, 3},
    {"rsi(14)", "rsi", {{"timeperiod", 14}}, 1},
    {"stoch(5,3,3)", "stoch", {{"fastk_period", 5}, {"slowk_period", 3}, {"slowd_period", 3}}, 3},
    {"atr(14)", "atr", {{"timeperiod", 14}}, 1},
    {"adx(14)", "adx", {{"timeperiod", 14}}, 1},
    {"cci(14)", "cci", {{"timeperiod", 14}}, 1},
    {"mfi(14)", "mfi", {{"timeperiod", 14}}, 1},
    {"obv", "obv", {{NULL, 0}}, 0},
    {"ema(30)", "ema", {{"timeperiod", 30}}, 1},
};

static const char *const names[N_NAMES] = {"open", "high", "low", "close", "volume"};

/* The ceil(q n)-th smallest of v (sorted here). */
static int cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
static double quantile(double *v, size_t n, double q) {
    qsort(v, n, sizeof *v, cmp_double);
    size_t k = (size_t)ceil(q * (double)n);
    return v[k > 0 ? k - 1 : 0];
}

static void evict_caches(unsigned char *buf) {
    for (size_t i = 0; i < EVICT_BYTES; i += 64)
        buf[i] = (unsigned char)(buf[i] + 1);
}

/* What one series count needs: the streams, the group, the symbols' bars (bars x symbols
 * per name, bar-major, so that bar t of every symbol is one packed input) and the outputs. */
typedef struct setup {
    size_t series, bars;
    apo_stream *s[N_IND];
    apo_stream_group *g;
    double *in[N_NAMES];
    double *out[N_IND][3];
    double *const *outs[N_IND];
    size_t n_out[N_IND], n_in[N_IND], reads[N_IND][APO_MAX_IO];
    size_t *n_new;
} setup;

static void setup_free(setup *st) {
    apo_stream_group_destroy(st->g);
    for (size_t j = 0; j < N_IND; j++) {
        apo_stream_destroy(st->s[j]);
        for (size_t o = 0; o < 3; o++)
            free(st->out[j][o]);
    }
    for (size_t n = 0; n < N_NAMES; n++)
        free(st->in[n]);
    free(st->n_new);
}

static int setup_make(apo_runtime *rt, setup *st, size_t series, size_t bars) {
    memset(st, 0, sizeof *st);
    st->series = series;
    st->bars = bars;
    double *walk = malloc(series * bars * sizeof(double));
    st->n_new = malloc(series * sizeof(size_t));
    for (size_t n = 0; n < N_NAMES; n++)
        st->in[n] = malloc(series * bars * sizeof(double));
    if (walk == NULL || st->n_new == NULL || !st->in[0] || !st->in[1] || !st->in[2] || !st->in[3] ||
        !st->in[4]) {
        free(walk);
        return bench_check(APO_ERR_OUT_OF_MEMORY, "bars");
    }
    /* bench_fill_walk and bench_fill_bars lay rows out series-major; the updates want
     * bar-major, so each symbol's walk is written as a column. */
    double *row = malloc(bars * 5 * sizeof(double));
    if (row == NULL) {
        free(walk);
        return bench_check(APO_ERR_OUT_OF_MEMORY, "bars");
    }
    bench_fill_walk(walk, series, bars, 17);
    for (size_t r = 0; r < series; r++) {
        const double *x = walk + r * bars;
        bench_fill_bars(x, 1, bars, row, row + bars, row + 2 * bars, row + 4 * bars);
        memcpy(row + 3 * bars, x, bars * sizeof(double));
        for (size_t n = 0; n < N_NAMES; n++)
            for (size_t t = 0; t < bars; t++)
                st->in[n][t * series + r] = row[n * bars + t];
    }
    free(row);
    free(walk);
    for (size_t j = 0; j < N_IND; j++) {
        apo_kernel_info info = APO_KERNEL_INFO_INIT;
        if (bench_check(apo_kernel_get(rt, indicators[j].kernel, &info), "apo_kernel_get"))
            return 2;
        st->n_out[j] = info.n_outputs;
        st->n_in[j] = info.n_inputs;
        for (size_t i = 0; i < info.n_inputs; i++)
            for (size_t n = 0; n < N_NAMES; n++)
                if (strcmp(info.input_names[i], names[n]) == 0)
                    st->reads[j][i] = n;
        for (size_t o = 0; o < info.n_outputs; o++)
            if ((st->out[j][o] = malloc(PIECE * series * sizeof(double))) == NULL)
                return bench_check(APO_ERR_OUT_OF_MEMORY, "outputs");
        st->outs[j] = st->out[j];
        apo_stream_desc d = APO_STREAM_DESC_INIT;
        d.kernel = indicators[j].kernel;
        d.n_series = series;
        d.params = indicators[j].params;
        d.n_params = indicators[j].n_params;
        if (bench_check(apo_stream_create(rt, &d, &st->s[j]), "apo_stream_create"))
            return 2;
    }
    return bench_check(apo_stream_group_create(st->s, N_IND, NULL, &st->g),
                       "apo_stream_group_create");
}

/* The group update of bar t of every symbol: bar-major storage makes bar t of every symbol
 * one packed input, as a feed hands it over. */
static apo_status group_bar(setup *st, size_t t) {
    apo_named_input in[N_NAMES];
    for (size_t n = 0; n < N_NAMES; n++)
        in[n] = (apo_named_input){names[n], st->in[n] + t * st->series};
    return apo_stream_group_update(st->g, st->n_new, in, N_NAMES, st->outs);
}

/* Bar t of every symbol fed to stream j alone. */
static apo_status lone_bar(setup *st, size_t j, size_t t) {
    const double *in[APO_MAX_IO];
    for (size_t i = 0; i < st->n_in[j]; i++)
        in[i] = st->in[st->reads[j][i]] + t * st->series;
    return apo_stream_update(st->s[j], st->n_new, in, st->outs[j]);
}

static int run(apo_runtime *rt, size_t series, size_t reps, size_t history, int cold,
               int per_kernel, unsigned char *evict) {
    setup st;
    /* With --kernels every stream takes `reps` bars more, alone. */
    const size_t bars = history + reps * (per_kernel ? 2 : 1);
    int rc = setup_make(rt, &st, series, bars);
    double *ms = malloc(reps * sizeof(double)), *cpu = malloc(reps * sizeof(double));
    if (rc == 0 && (ms == NULL || cpu == NULL))
        rc = bench_check(APO_ERR_OUT_OF_MEMORY, "timings");
    for (size_t r = 0; r < series && rc == 0; r++)
        st.n_new[r] = 1;
    /* The history, a bar per update: the running states a live feed leaves. */
    for (size_t t = 0; t < history && rc == 0; t++)
        rc = bench_check(group_bar(&st, t), "apo_stream_group_update (history)");
    size_t t = history;
    for (size_t i = 0; i < reps && rc == 0; i++, t++) {
        if (cold)
            evict_caches(evict);
        double t0 = bench_now(), c0 = bench_thread_cpu();
        rc = bench_check(group_bar(&st, t), "apo_stream_group_update");
        ms[i] = (bench_now() - t0) * 1e3;
        cpu[i] = (bench_thread_cpu() - c0) * 1e3;
    }
    if (rc == 0) {
        char load[64];
        bench_load_average(load, sizeof load);
        const double med = quantile(ms, reps, 0.5), p99 = quantile(ms, reps, 0.99);
        const double cmed = quantile(cpu, reps, 0.5), cp99 = quantile(cpu, reps, 0.99);
        printf("  %-10zu %-8s %6zu %10.3f %10.3f %10.3f %10.3f %10.3f %12.1f   # load %s\n", series,
               cold ? "cold" : "warm", reps, med, p99, ms[reps - 1], cmed, cp99,
               cmed * 1e6 / (double)(series * N_IND), load);
    }
    for (size_t j = 0; j < N_IND && per_kernel && rc == 0; j++) {
        for (size_t i = 0; i < reps && rc == 0; i++) {
            if (cold)
                evict_caches(evict);
            double t0 = bench_now(), c0 = bench_thread_cpu();
            rc = bench_check(lone_bar(&st, j, t + i), "apo_stream_update");
            ms[i] = (bench_now() - t0) * 1e3;
            cpu[i] = (bench_thread_cpu() - c0) * 1e3;
        }
        if (rc == 0)
            printf("    %-20s %6zu %10.3f %10.3f %10s %10.3f %10.3f   (alone)\n",
                   indicators[j].label, reps, quantile(ms, reps, 0.5), quantile(ms, reps, 0.99), "",
                   quantile(cpu, reps, 0.5), quantile(cpu, reps, 0.99));
    }
    free(ms), free(cpu);
    setup_free(&st);
    return rc == 0 ? 0 : 2;
}

/* Reads the count at *p of a --series list and moves *p past it and its comma. Returns 0, or
 * -1 when *p does not start with a count of 1 to APO_STREAM_MAX_SERIES ended by ',' or the end. */
static int next_series(const char **p, size_t *n) {
    char *end = NULL;
    unsigned long long v = strtoull(*p, &end, 10);
    if (end == *p || v < 1 || v > APO_STREAM_MAX_SERIES || (*end != ',' && *end != '\0'))
        return -1;
    *n = (size_t)v;
    *p = *end == ',' ? end + 1 : end;
    return 0;
}

typedef struct options {
    double reps, history;
    const char *series; /* the comma list, checked whole by read_series */
    int cold, kernels;
} options;

/* --series: every count is checked before anything runs. */
static int read_series(const char *text, void *options_) {
    size_t n;
    for (const char *p = text; *p != '\0';)
        if (next_series(&p, &n) != 0)
            return BENCH_OPT_BAD;
    ((options *)options_)->series = text;
    return 0;
}

#define OPT(...) BENCH_OPTION(options, __VA_ARGS__)
#define FLAG(...) BENCH_FLAG(options, __VA_ARGS__)

static const bench_option option_rows[] = {
    {"--series", "N,N,...", BENCH_OPT_CUSTOM, 0, 0, 0,
     "symbols of each run, a comma list (default 2048,5000,50000)", read_series},
    OPT("--reps", "N", DOUBLE, 1, 100000, reps, "timed updates of each run (default 200)"),
    OPT("--history", "N", DOUBLE, 0, 100000, history,
        "bars fed before the timed updates (default 64); history + reps\n"
        "(twice reps with --kernels) past 447 bars only with --series 2048"),
    FLAG("--cold", cold, "each timed update after a 64 MiB write (no data in the caches)"),
    FLAG("--kernels", kernels, "a row more per indicator: the same update on its stream alone"),
};

#undef OPT
#undef FLAG

static const bench_option_table option_table = {
    "[--series N,N,...] [--reps N] [--history N] [--cold] [--kernels]", option_rows,
    sizeof option_rows / sizeof option_rows[0], 22};

int main(int argc, char **argv) {
    options opt = {.reps = 200, .history = 64, .series = "2048,5000,50000"};
    if (bench_options_parse(&option_table, argc, argv, &opt) != 0)
        return 2;
    const double reps = opt.reps, history = opt.history;
    const char *list = opt.series;
    const int cold = opt.cold, per_kernel = opt.kernels;
    /* A window past 512 bars (some from 457 on) moves to its bound in the stream's slab (above):
     * some 0.8 MB a symbol, which 50,000 symbols would not find on the development machine. */
    if (history + reps * (per_kernel ? 2 : 1) >= 448 && strcmp(list, "2048") != 0) {
        fprintf(stderr,
                "%s: history + reps (twice reps with --kernels) past 447 bars only with "
                "--series 2048 (the kept windows' memory)\n",
                bench_prog);
        return 2;
    }
    apo_runtime *rt = NULL;
    if (bench_check(bench_runtime("cpu", &rt), "apo_runtime_create"))
        return 2;
    unsigned char *evict = cold ? calloc(EVICT_BYTES, 1) : NULL;
    if (cold && evict == NULL)
        return bench_check(APO_ERR_OUT_OF_MEMORY, "the buffer that flushes the caches");
    char load[64];
    bench_load_average(load, sizeof load);
    printf("# %s (apportion %s), load average %s; one bar a symbol for %d indicators in one "
           "group update on the calling thread (cpu device), history %.0f bars\n",
           bench_prog, apo_version(), load, N_IND, history);
    printf("# %-10s %-8s %6s %10s %10s %10s %10s %10s %12s\n", "symbols", "caches", "reps",
           "median_ms", "p99_ms", "max_ms", "cpu_med_ms", "cpu_p99_ms", "cpu_ns_s_i");
    int rc = 0;
    size_t n;
    /* read_series has checked the list. */
    for (const char *p = list; rc == 0 && *p != '\0' && next_series(&p, &n) == 0;)
        rc = run(rt, n, (size_t)reps, (size_t)history, cold, per_kernel, evict);
    free(evict);
    apo_runtime_destroy(rt);
    return rc;
}
