/*
 * apo-bench-busy: the cpu device on a machine busy with other work
 * (docs/perf-log/2026-11-23-busy-machine.md, "The cpu device on a busy machine"). Each round times
 * bollinger over one series on the default cpu device (all its threads) and on a one-thread cpu
 * device in pairs of calls made back to back, which of the two goes first drawn for each pair, and
 * prints both medians, their ratio, and the median of the pairs' own ratios; the target is a pairs'
 * median of at most 1.3 in every round. The pairs' median is the one judged because, under a load
 * that leaves the bench either a whole core or half of one, each call's time is one of two values
 * about 2x apart, and a round's median of either side lands on either value whatever the device
 * does (docs/perf-log/2026-11-23-busy-machine.md, "Medians that flip between two modes"). The load
 * is the caller's to start (scripts/busy-bench.sh starts two niced compile loops); every row says
 * how busy the machine was.
 *
 *   apo-bench-busy [--rounds N] [--calls N] [--size N]
 *
 * The outputs are checked against the one-thread device's, bit for bit, before anything is
 * timed. Exit status: 0 when every round met the target, 1 when one did not, 2 on a usage or
 * runtime error.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "options.h"

const char bench_prog[] = "apo-bench-busy";

typedef struct side {
    apo_runtime *rt;
    double *out[3];
} side;

static int open_side(side *s, const char *devices, size_t n) {
    if (bench_check(bench_runtime(devices, &s->rt), devices))
        return -1;
    for (int o = 0; o < 3; o++) {
        s->out[o] = calloc(n, sizeof(double));
        if (s->out[o] == NULL)
            return -1;
    }
    return 0;
}

static void close_side(side *s) {
    for (int o = 0; o < 3; o++)
        free(s->out[o]);
    apo_runtime_destroy(s->rt);
}

/* A 64-bit xorshift step: which side of a pair goes first, the same sequence every run. */
static uint64_t next_draw(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* One call; its wall time in ms, or a negative value on failure. *offered gets the
 * threads the device offered its tiles to (1: it kept its helpers out, docs/scheduling.md). */
static double call_ms(side *s, const double *x, size_t n, int *offered) {
    const double *in[1] = {x};
    apo_workload w = bench_workload("bollinger", 1, n, in, 1);
    w.outputs = s->out;
    w.n_outputs = 3;
    apo_report report = APO_REPORT_INIT;
    double t0 = bench_now();
    if (bench_check(apo_distribute_workload(s->rt, &w, &report), "bollinger"))
        return -1;
    double ms = (bench_now() - t0) * 1e3;
    *offered = report.devices[0].threads_offered;
    return ms;
}

typedef struct options {
    double rounds, calls, size;
} options;

#define OPT(...) BENCH_OPTION(options, __VA_ARGS__)

static const bench_option option_rows[] = {
    OPT("--rounds", "N", DOUBLE, 1, 1e9, rounds, "rounds, each a line (default 10)"),
    OPT("--calls", "N", DOUBLE, 1, 1e9, calls, "pairs of calls per round (default 21)"),
    OPT("--size", "N", DOUBLE, 1, 1e9, size, "bars of the series (default 1e6)"),
};

#undef OPT

static const bench_option_table option_table = {"[--rounds N] [--calls N] [--size N]", option_rows,
                                                sizeof option_rows / sizeof option_rows[0], 16};

int main(int argc, char **argv) {
    options opt = {.rounds = 10, .calls = 21, .size = 1e6};
    if (bench_options_parse(&option_table, argc, argv, &opt) != 0)
        return 2;
    double rounds = opt.rounds, calls = opt.calls, size = opt.size;
    size_t n = (size_t)size;
    double *x = malloc(n * sizeof *x);
    double *ms_default = malloc((size_t)calls * sizeof(double));
    double *ms_one = malloc((size_t)calls * sizeof(double));
    double *pair_ratio = malloc((size_t)calls * sizeof(double));
    side dflt = {0}, one = {0};
    int status = 2;
    if (x == NULL || ms_default == NULL || ms_one == NULL || pair_ratio == NULL)
        goto done;
    bench_fill_walk(x, 1, n, 7);
    if (open_side(&dflt, "cpu", n) != 0 || open_side(&one, "cpu:threads=1", n) != 0)
        goto done;
    /* Correctness first: the same bits on both devices. */
    int offered;
    if (call_ms(&dflt, x, n, &offered) < 0 || call_ms(&one, x, n, &offered) < 0)
        goto done;
    for (int o = 0; o < 3; o++)
        if (memcmp(dflt.out[o], one.out[o], n * sizeof(double)) != 0) {
            fprintf(stderr, "%s: output %d differs between the devices\n", bench_prog, o);
            goto done;
        }
    apo_device_info info = APO_DEVICE_INFO_INIT;
    if (bench_check(apo_device_get(dflt.rt, 0, &info), "device"))
        goto done;
    printf("# bollinger over %zu bars, %s against cpu (1 thread), %d pairs of calls per round, "
           "back to back, the first of each pair drawn; medians\n",
           n, info.label, (int)calls);
    printf("# ratio: default_ms / 1thread_ms; pairs: the median of each pair's own ratio (the "
           "target's figure)\n"
           "# alone: the default device's calls of the round that its calling thread computed\n"
           "#   alone, its helpers kept out after a call that waited for a preempted one\n");
    printf("%-6s %12s %12s %8s %8s %6s  %s\n", "round", "default_ms", "1thread_ms", "ratio",
           "pairs", "alone", "load");
    status = 0;
    double worst = 0;
    uint64_t draw = 0x9e3779b97f4a7c15u;
    for (int r = 0; r < (int)rounds; r++) {
        int alone = 0;
        for (int c = 0; c < (int)calls; c++) {
            /* A fixed order would let a periodic load (a scheduler's slices) favour one side. */
            int offered_default;
            if (next_draw(&draw) & 1) {
                ms_default[c] = call_ms(&dflt, x, n, &offered_default);
                ms_one[c] = call_ms(&one, x, n, &offered);
            } else {
                ms_one[c] = call_ms(&one, x, n, &offered);
                ms_default[c] = call_ms(&dflt, x, n, &offered_default);
            }
            alone += offered_default == 1;
            if (ms_default[c] < 0 || ms_one[c] < 0) {
                status = 2;
                goto done;
            }
            pair_ratio[c] = ms_default[c] / ms_one[c];
        }
        double a = bench_median(ms_default, (size_t)calls);
        double b = bench_median(ms_one, (size_t)calls);
        double pairs = bench_median(pair_ratio, (size_t)calls);
        char load[64];
        bench_load_average(load, sizeof load);
        printf("%-6d %12.3f %12.3f %8.2f %8.2f %6d  %s\n", r, a, b, a / b, pairs, alone, load);
        fflush(stdout);
        worst = pairs > worst ? pairs : worst;
        if (pairs > 1.3)
            status = 1;
    }
    printf("# worst round: pairs' median %.2fx the one-thread time (target: at most 1.3x) -> %s\n",
           worst, status == 0 ? "met" : "MISSED");
done:
    if (dflt.rt != NULL)
        close_side(&dflt);
    if (one.rt != NULL)
        close_side(&one);
    free(x);
    free(ms_default);
    free(ms_one);
    free(pair_ratio);
    return status;
}
