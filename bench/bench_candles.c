/*
 * bench_candles.c: apo-bench-candles, TA-Lib's 61 candlestick patterns against TA-Lib 0.8.1 (the
 * library of the PyPI wheel ta-lib 0.8.2, which peers.c fetches and loads as apo-bench-peers
 * does) on one thread (docs/kernels/candles.md, "Candlestick patterns"; docs/perf-log/).
 *
 * A driver of its own rather than rows of peer_kernels.c: TA-Lib's patterns read four inputs,
 * some take a penetration, and all write integers, which apo-bench-peers' row shapes do not
 * describe. The bars are bench_fill_bars' (the open the previous close) around a bench_fill_walk
 * close. For each size and pattern both run once untimed and their outputs are compared bar for
 * bar (TA-Lib's integer against the catalog's double); then `reps` calls each, interleaved call
 * by call with the order alternating, timed on the thread's CPU clock (a call does all its work
 * on the calling thread: apportion on "cpu:threads=1") and on the wall clock. A line gives the
 * medians and their ratio apportion / TA-Lib (below 1: apportion is faster).
 *
 * Usage: apo-bench-candles [--cache DIR] [--sizes N,N] [--reps R] [--only name,name]
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "options.h"
#include "peers.h"

const char bench_prog[] = "apo-bench-candles";

/* TA-Lib's TA_CDL* (ta_func.h): four prices, then the penetration for seven of them. */
typedef int (*ta_cdl_fn)(int start, int end, const double *open, const double *high,
                         const double *low, const double *close, int *out_begin, int *out_count,
                         int *out);
typedef int (*ta_cdl_pen_fn)(int start, int end, const double *open, const double *high,
                             const double *low, const double *close, double penetration,
                             int *out_begin, int *out_count, int *out);

/* The patterns that take a penetration, with TA-Lib's default (the catalog's too). */
static double penetration_of(const char *name) {
    static const struct {
        const char *name;
        double value;
    } pens[] = {{"cdlabandonedbaby", 0.3}, {"cdldarkcloudcover", 0.5}, {"cdleveningdojistar", 0.3},
                {"cdleveningstar", 0.3},   {"cdlmathold", 0.5},        {"cdlmorningdojistar", 0.3},
                {"cdlmorningstar", 0.3}};
    for (size_t i = 0; i < sizeof pens / sizeof pens[0]; i++)
        if (strcmp(pens[i].name, name) == 0)
            return pens[i].value;
    return -1.0;
}

typedef struct pattern {
    const char *name;
    double penetration; /* -1: none */
    void *fn;           /* ta_cdl_fn or ta_cdl_pen_fn */
} pattern;

typedef struct bars {
    size_t n;
    const double *in[4]; /* open, high, low, close */
    int *ta_out;
    double *apo_out;
} bars;

static int call_talib(const pattern *p, const bars *b) {
    int begin = 0, count = 0, rc;
    const int end = (int)b->n - 1;
    if (p->penetration >= 0.0) {
        ta_cdl_pen_fn f;
        memcpy(&f, &p->fn, sizeof f);
        rc = f(0, end, b->in[0], b->in[1], b->in[2], b->in[3], p->penetration, &begin, &count,
               b->ta_out);
    } else {
        ta_cdl_fn f;
        memcpy(&f, &p->fn, sizeof f);
        rc = f(0, end, b->in[0], b->in[1], b->in[2], b->in[3], &begin, &count, b->ta_out);
    }
    return rc == 0 ? begin : -1;
}

static int call_apo(apo_runtime *rt, const pattern *p, const bars *b) {
    apo_workload w = APO_WORKLOAD_INIT;
    double *out[1] = {b->apo_out};
    w.kernel = p->name;
    w.rows = 1;
    w.cols = b->n;
    w.inputs = b->in;
    w.n_inputs = 4;
    w.outputs = out;
    w.n_outputs = 1;
    return bench_check(apo_distribute_workload(rt, &w, NULL), p->name);
}

/* Bars where the two differ (TA-Lib's output i is bar begin + i). */
static size_t mismatches(const bars *b, int begin) {
    size_t bad = 0;
    for (size_t t = (size_t)begin; t < b->n; t++)
        if (b->apo_out[t] != (double)b->ta_out[t - (size_t)begin])
            bad++;
    return bad;
}

typedef struct timing {
    double cpu, wall;
} timing;

static void time_one(apo_runtime *rt, const pattern *p, const bars *b, int talib, timing *t) {
    const double c0 = bench_thread_cpu(), w0 = bench_now();
    if (talib)
        call_talib(p, b);
    else
        call_apo(rt, p, b);
    t->cpu = bench_thread_cpu() - c0;
    t->wall = bench_now() - w0;
}

static int bench_pattern(apo_runtime *rt, const pattern *p, const bars *b, int reps,
                         double *ratio_out) {
    const int begin = call_talib(p, b);
    if (begin < 0 || call_apo(rt, p, b) != 0) {
        fprintf(stderr, "%s: %s failed\n", bench_prog, p->name);
        return -1;
    }
    const size_t bad = mismatches(b, begin);
    double *v = malloc(4 * (size_t)reps * sizeof(double));
    if (v == NULL)
        return -1;
    double *ta_cpu = v, *apo_cpu = v + reps, *ta_wall = v + 2 * reps, *apo_wall = v + 3 * reps;
    for (int r = 0; r < reps; r++) {
        timing ta, apo;
        if (r % 2 == 0) {
            time_one(rt, p, b, 1, &ta);
            time_one(rt, p, b, 0, &apo);
        } else {
            time_one(rt, p, b, 0, &apo);
            time_one(rt, p, b, 1, &ta);
        }
        ta_cpu[r] = ta.cpu, apo_cpu[r] = apo.cpu, ta_wall[r] = ta.wall, apo_wall[r] = apo.wall;
    }
    const double tc = bench_median(ta_cpu, (size_t)reps), ac = bench_median(apo_cpu, (size_t)reps);
    const double tw = bench_median(ta_wall, (size_t)reps);
    const double aw = bench_median(apo_wall, (size_t)reps);
    *ratio_out = ac / tc;
    printf("%-20s %8zu %4d %10.4f %10.4f %6.2f %10.4f %10.4f %6.2f %6zu\n", p->name, b->n, reps,
           tc * 1e3, ac * 1e3, ac / tc, tw * 1e3, aw * 1e3, aw / tw, bad);
    free(v);
    return 0;
}

static int cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct options {
    const char *cache, *only;
    size_t sizes[8];
    int n_sizes, reps;
} options;

/* --sizes: up to 8 counts of bars, 100 to 1e8 each, separated by commas. */
static int read_sizes(const char *text, void *options_) {
    options *o = options_;
    o->n_sizes = 0;
    size_t len;
    for (const char *p = text, *item; (item = bench_list_next(&p, &len)) != NULL;) {
        char count[32];
        double x;
        if (o->n_sizes == 8 || bench_item_copy(count, sizeof count, item, len) != 0 ||
            bench_parse_count(count, 100, 1e8, &x) != 0)
            return BENCH_OPT_BAD;
        o->sizes[o->n_sizes++] = (size_t)x;
    }
    return o->n_sizes > 0 ? 0 : BENCH_OPT_BAD;
}

#define OPT(...) BENCH_OPTION(options, __VA_ARGS__)

static const bench_option option_rows[] = {
    OPT("--cache", "DIR", TEXT, 0, 0, cache,
        "where the peers are fetched and kept (default\n"
        "$XDG_CACHE_HOME/apportion-peers, else ~/.cache/apportion-peers)"),
    {"--sizes", "N,N", BENCH_OPT_CUSTOM, 0, 0, 0,
     "bars of each table, up to 8 counts of 100 to 1e8 (default 1e4,1e6)", read_sizes},
    OPT("--reps", "R", INT, 0, 1e6, reps,
        "calls of each side per pattern (default, or 0: 1e8 / bars,\n"
        "within 5 to 41)"),
    OPT("--only", "a,b", TEXT, 0, 0, only, "these patterns alone, a comma list (cdldoji,...)"),
};

#undef OPT

static const bench_option_table option_table = {
    "[--cache DIR] [--sizes N,N] [--reps R] [--only a,b]", option_rows,
    sizeof option_rows / sizeof option_rows[0], 16};

/* The catalog's patterns (its kernels named cdl*) and TA-Lib's function for each. */
static size_t find_patterns(apo_runtime *rt, const bench_peers *peers, const char *only,
                            pattern *out, size_t max) {
    size_t count = 0, n = 0;
    if (apo_kernel_count(rt, &count) != APO_OK)
        return 0;
    for (size_t i = 0; i < count && n < max; i++) {
        const char *name = NULL;
        if (apo_kernel_name(rt, i, &name) != APO_OK || strncmp(name, "cdl", 3) != 0 ||
            (only != NULL && !bench_selected(only, name)))
            continue;
        char ta[64] = "TA_";
        for (size_t k = 0; name[k] != '\0' && k + 4 < sizeof ta; k++)
            ta[3 + k] = (char)toupper((unsigned char)name[k]), ta[4 + k] = '\0';
        pattern p = {name, penetration_of(name), NULL};
        if (bench_peers_find(peers, BENCH_PEER_LIB_TALIB, ta, &p.fn) != 0) {
            printf("# %s: no %s in TA-Lib, left out\n", name, ta);
            continue;
        }
        out[n++] = p;
    }
    return n;
}

int main(int argc, char **argv) {
    options o = {.sizes = {10000, 1000000}, .n_sizes = 2};
    if (bench_options_parse(&option_table, argc, argv, &o) != 0)
        return 2;
    char load[64];
    bench_load_average(load, sizeof load);
    bench_peers peers;
    char why[512];
    if (bench_peers_load(o.cache, 0, &peers, why, sizeof why) != 0) {
        printf("# skipped: %s\n", why);
        return 77;
    }
    apo_runtime *rt = NULL;
    if (bench_check(bench_runtime("cpu:threads=1", &rt), "apo_runtime_create"))
        return 1;
    pattern pats[128];
    const size_t n_pats = find_patterns(rt, &peers, o.only, pats, 128);
    printf("# %s (apportion %s) against TA-Lib %s, one thread; load average %s\n", bench_prog,
           apo_version(), peers.talib_version, load);
    printf("# ms: medians of interleaved calls; ratio apportion / TA-Lib (cpu: the thread's "
           "CPU clock, wall: the wall clock); differ: bars whose outputs differ\n");
    printf("%-20s %8s %4s %10s %10s %6s %10s %10s %6s %6s\n", "pattern", "bars", "reps",
           "talib_cpu", "apo_cpu", "ratio", "talib_wall", "apo_wall", "ratio", "differ");
    int rc = 0;
    for (int s = 0; s < o.n_sizes; s++) {
        const size_t n = o.sizes[s];
        double *prices = malloc(4 * n * sizeof(double));
        bars b = {n, {NULL}, malloc(n * sizeof(int)), malloc(n * sizeof(double))};
        double *ratios = malloc((n_pats + 1) * sizeof(double));
        if (prices == NULL || b.ta_out == NULL || b.apo_out == NULL || ratios == NULL)
            return 1;
        double *open = prices, *high = prices + n, *low = prices + 2 * n, *close = prices + 3 * n;
        bench_fill_walk(close, 1, n, 7);
        bench_fill_bars(close, 1, n, open, high, low, NULL);
        b.in[0] = open, b.in[1] = high, b.in[2] = low, b.in[3] = close;
        const int reps = bench_peers_reps(o.reps, n);
        for (size_t i = 0; i < n_pats; i++)
            if (bench_pattern(rt, &pats[i], &b, reps, &ratios[i]) != 0)
                rc = 1;
        if (n_pats > 0) {
            qsort(ratios, n_pats, sizeof(double), cmp_double);
            printf("# %zu bars: cpu ratio apportion / TA-Lib median %.2f, min %.2f, max %.2f\n", n,
                   ratios[n_pats / 2], ratios[0], ratios[n_pats - 1]);
        }
        free(prices), free(b.ta_out), free(b.apo_out), free(ratios);
    }
    apo_runtime_destroy(rt);
    return rc;
}
