/*
 * apo-bench-peers: apportion's bollinger and macd against Tulip Indicators and TA-Lib, the C
 * libraries users already run, in one run (docs/PERF.md, "bollinger and macd against TA-Lib
 * and Tulip Indicators"); then every catalog kernel that TA-Lib has (peers_catalog.c, from the
 * rows of peer_kernels.c; docs/PERF.md, "Catalog kernels against TA-Lib and Tulip").
 *
 * The peers come from their PyPI packages (peers.c: `pip download` into a cache folder
 * outside the repository; TA-Lib 0.8's wheel library loaded as it is, Tulip built from
 * tulipy's sdist with -O3); without python3-venv or PyPI the program says why and exits 77,
 * the skip status. Each library's
 * own C function is called directly on one series; apportion goes through
 * apo_distribute_workload() on two runtimes, one thread ("cpu:threads=1") and all threads
 * ("cpu"), with the vector path its cpu device names. For each size the four contenders
 * run once untimed, each into outputs of its own (which are checked), then `reps` times
 * interleaved call by call, the order rotating from one repetition to the next, all into
 * the same outputs; the tables give each median and the ratios peer / apportion (above 1:
 * apportion is faster), in wall-clock time and, for the contenders that work on the calling
 * thread alone (not apoN), in that thread's CPU time, which other jobs on the machine do not
 * stretch (bench_thread_cpu).
 *
 * Accuracy, per library, against long-double references: bollinger against an exact
 * two-pass evaluation of every window (the sd relative error, the sd taken from the band
 * width, and the band error relative to |middle| + 2 sd, docs/kernels.md's measure); macd
 * against a long-double run of the library's own recurrence (TA-Lib's definition, which
 * apportion adopts, for both of them; Tulip's own seeding and, for 12/26, its fixed rates
 * 0.15 and 0.075, for Tulip), relative to the largest |price|.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "options.h"
#include "peers.h"
#include "peers_catalog.h"

const char bench_prog[] = "apo-bench-peers";

#define SKIP_STATUS 77
#define PERIOD 20
#define NBDEV 2.0
#define FAST 12
#define SLOW 26
#define SIGNAL 9

/* Tulip Indicators, TA-Lib, apportion on one thread and on all. */
enum { TULIP, TALIB, APO1, APON, CONTENDERS };

typedef struct options {
    double max_size;
    int reps; /* 0: the rule */
    int rebuild;
    int no_batch;     /* --no-batch: the 1000 x 10000 batch left out */
    int fresh_series; /* 0: one series replayed; else the largest pool of distinct series */
    int learn;        /* 1: the runtimes refine their models after every call (--learn) */
    double period;    /* 0: TA-Lib's defaults; else the catalog rows' timeperiod (--period) */
    const char *cache;
    const char *kernels; /* comma list; NULL: bollinger, macd and every catalog row */
} options;

#define OPT(...) BENCH_OPTION(options, __VA_ARGS__)
#define FLAG(...) BENCH_FLAG(options, __VA_ARGS__)

static const bench_option option_rows[] = {
    OPT("--max-size", "N", DOUBLE, 1e4, 1e9, max_size,
        "largest series, from 1e4 by tens (default 1e7); the catalog\n"
        "kernels run at 1e4 and 1e6 where they are within it"),
    FLAG("--no-batch", no_batch, "leave out the 1000 x 10000 batch"),
    OPT("--kernels", "LIST", TEXT, 0, 0, kernels,
        "comma list among bollinger, macd and the catalog kernels that\n"
        "TA-Lib has (sma, rsi, atr, ...; catalog: all of those;\n"
        "default: everything)"),
    OPT("--reps", "N", INT, 1, 1000, reps,
        "timed calls per contender and size (default: the rule printed)"),
    OPT("--fresh-series", "N", INT, 1, 1000, fresh_series,
        "catalog kernels only: each repetition reads the next of a pool\n"
        "of up to N distinct series (at most 256 MiB of bars), the same\n"
        "for every contender, so that no branch predictor learns the\n"
        "series by replay (default: one series, replayed)"),
    FLAG("--learn", learn,
         "apportion's runtimes refine their models after every call, as\n"
         "a default runtime does (in memory: no profile is read or\n"
         "written); the default measures with learning off"),
    OPT("--period", "N", DOUBLE, 2, 100000, period,
        "catalog kernels only: the kernels that take a timeperiod run\n"
        "at N in all three libraries (2 to 100000), the others are\n"
        "left out (default: TA-Lib's default parameters)"),
    OPT("--cache", "DIR", TEXT, 0, 0, cache,
        "where the peers are fetched and built (default\n"
        "$XDG_CACHE_HOME/apportion-peers, else ~/.cache/apportion-peers)"),
    FLAG("--rebuild", rebuild, "build Tulip again (TA-Lib comes built, in its wheel)"),
};

#undef OPT
#undef FLAG

static const bench_option_table option_table = {"[options]", option_rows,
                                                sizeof option_rows / sizeof option_rows[0], 17};

/* Every name of --kernels must be one the bench runs: a typo would otherwise time nothing.
 * Checked once the runtime is up, since the catalog's rows come from its list of kernels. */
static int check_kernels(apo_runtime *rt, const char *list) {
    char name[64];
    for (const char *p = list; *p != '\0';) {
        size_t n = strcspn(p, ",");
        snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name ? n : sizeof name - 1), p);
        if (strcmp(name, "bollinger") != 0 && strcmp(name, "macd") != 0 &&
            strcmp(name, "catalog") != 0 && !peers_catalog_has(rt, name)) {
            fprintf(stderr, "apo-bench-peers: --kernels: no kernel %s here\n", name);
            return -1;
        }
        p += n + (p[n] == ',');
    }
    return 0;
}

/* ---- the contenders --------------------------------------------------------------------- */

/* One configuration: rows x cols of prices and each contender's three outputs, laid out as
 * apportion writes them (NaN where a library writes nothing). */
typedef struct config {
    size_t rows, cols;
    const double *x;
    double *out[CONTENDERS][3];
} config;

typedef struct context {
    const bench_peers *peers;
    apo_runtime *rt[2]; /* one thread, all threads */
} context;

/* Both benched kernels take one input, three parameters and write three outputs: apportion
 * runs all rows in one call on the contender's runtime (one thread or all). */
static int run_apportion(const context *c, const config *g, int who, const char *kernel,
                         const apo_param params[3]) {
    const double *in[1] = {g->x};
    apo_workload w = bench_workload(kernel, g->rows, g->cols, in, 1);
    w.outputs = g->out[who];
    w.n_outputs = 3;
    w.params = params;
    w.n_params = 3;
    return bench_check(apo_distribute_workload(c->rt[who - APO1], &w, NULL), kernel);
}

static int run_bollinger(const context *c, const config *g, int who) {
    const size_t n = g->cols;
    for (size_t r = 0; r < g->rows; r++) {
        const double *x = g->x + r * n;
        double *u = g->out[who][0] + r * n, *m = g->out[who][1] + r * n,
               *l = g->out[who][2] + r * n;
        if (who == TULIP) {
            /* Tulip writes window PERIOD-1 on at index 0, lower band first. */
            const double opt[2] = {PERIOD, NBDEV};
            const double *in[1] = {x};
            double *const out[3] = {l + PERIOD - 1, m + PERIOD - 1, u + PERIOD - 1};
            if (c->peers->ti_bbands((int)n, in, opt, out) != 0)
                return -1;
        } else if (who == TALIB) {
            int begin = 0, count = 0;
            if (c->peers->ta_bbands(0, (int)n - 1, x, PERIOD, NBDEV, NBDEV, 0, &begin, &count,
                                    u + PERIOD - 1, m + PERIOD - 1, l + PERIOD - 1) != 0 ||
                begin != PERIOD - 1)
                return -1;
        }
    }
    if (who == APO1 || who == APON) {
        const apo_param params[] = {{"period", PERIOD}, {"nbdev_up", NBDEV}, {"nbdev_dn", NBDEV}};
        return run_apportion(c, g, who, "bollinger", params);
    }
    return 0;
}

static int run_macd(const context *c, const config *g, int who) {
    const size_t n = g->cols;
    for (size_t r = 0; r < g->rows; r++) {
        const double *x = g->x + r * n;
        double *o0 = g->out[who][0] + r * n, *o1 = g->out[who][1] + r * n,
               *o2 = g->out[who][2] + r * n;
        if (who == TULIP) {
            /* Tulip's macd starts at index SLOW-1. */
            const double opt[3] = {FAST, SLOW, SIGNAL};
            const double *in[1] = {x};
            double *const out[3] = {o0 + SLOW - 1, o1 + SLOW - 1, o2 + SLOW - 1};
            if (c->peers->ti_macd((int)n, in, opt, out) != 0)
                return -1;
        } else if (who == TALIB) {
            const int first = SLOW - 1 + SIGNAL - 1;
            int begin = 0, count = 0;
            if (c->peers->ta_macd(0, (int)n - 1, x, FAST, SLOW, SIGNAL, &begin, &count, o0 + first,
                                  o1 + first, o2 + first) != 0 ||
                begin != first)
                return -1;
        }
    }
    if (who == APO1 || who == APON) {
        const apo_param params[] = {{"fast", FAST}, {"slow", SLOW}, {"signal", SIGNAL}};
        return run_apportion(c, g, who, "macd", params);
    }
    return 0;
}

/* ---- accuracy ---------------------------------------------------------------------------- */

/* Worst errors of a contender against the reference. */
typedef struct errors {
    double sd;   /* bollinger: relative error of the sd from the band width */
    double band; /* bollinger: band error relative to |middle| + 2 sd; macd: error / max|x| */
    int bad;     /* an output that is not finite where the reference is */
} errors;

/* Every window of every row against an exact two-pass evaluation in long double. */
static void bollinger_errors(const config *g, errors e[CONTENDERS]) {
    memset(e, 0, CONTENDERS * sizeof *e);
    for (size_t r = 0; r < g->rows; r++) {
        const double *x = g->x + r * g->cols;
        for (size_t t = PERIOD - 1; t < g->cols; t++) {
            long double sum = 0, ss = 0;
            for (size_t k = t + 1 - PERIOD; k <= t; k++)
                sum += x[k];
            const long double mean = sum / PERIOD;
            for (size_t k = t + 1 - PERIOD; k <= t; k++)
                ss += (x[k] - mean) * (x[k] - mean);
            const long double sd = sqrtl(ss / PERIOD);
            const long double ref[3] = {mean + NBDEV * sd, mean, mean - NBDEV * sd};
            const long double scale = fabsl(mean) + 2 * sd;
            for (int c = 0; c < CONTENDERS; c++) {
                const size_t i = r * g->cols + t;
                const long double up = g->out[c][0][i], lo = g->out[c][2][i];
                if (!isfinite(g->out[c][0][i]) || !isfinite(g->out[c][1][i]) ||
                    !isfinite(g->out[c][2][i])) {
                    e[c].bad = 1;
                    continue;
                }
                const double sd_err =
                    sd > 0 ? (double)(fabsl((up - lo) / (2 * NBDEV) - sd) / sd) : 0.0;
                e[c].sd = sd_err > e[c].sd ? sd_err : e[c].sd;
                for (int k = 0; k < 3; k++) {
                    const double be = (double)(fabsl(g->out[c][k][i] - ref[k]) / scale);
                    e[c].band = be > e[c].band ? be : e[c].band;
                }
            }
        }
    }
}

/* A long-double run of a macd recurrence on one row: TA-Lib's (seeds are plain means, the
 * fast one over the `fast` samples ending at the slow seed, the signal over the first
 * `signal` macd values; outputs from (slow-1)+(signal-1)) or Tulip's (both EMAs start at
 * x[0], the signal at the first macd value; outputs from slow-1; for 12/26 its rates are
 * 0.15 and 0.075). Writes NaN where the library writes nothing. */
static void macd_reference(const double *x, size_t n, int tulip, long double *m, long double *s) {
    const long double kg = 2.0L / (SIGNAL + 1);
    long double kf = 2.0L / (FAST + 1), ks = 2.0L / (SLOW + 1);
    for (size_t t = 0; t < n; t++)
        m[t] = s[t] = NAN;
    if (tulip) {
        if (FAST == 12 && SLOW == 26) {
            kf = 0.15L;
            ks = 0.075L;
        }
        long double ef = x[0], es = x[0], eg = 0;
        for (size_t t = 1; t < n; t++) {
            ef = (x[t] - ef) * kf + ef;
            es = (x[t] - es) * ks + es;
            const long double out = ef - es;
            if (t == SLOW - 1)
                eg = out;
            if (t >= SLOW - 1) {
                eg = (out - eg) * kg + eg;
                m[t] = out;
                s[t] = eg;
            }
        }
        return;
    }
    long double ss = 0, sf = 0;
    for (size_t t = 0; t < SLOW; t++) {
        ss += x[t];
        if (t >= SLOW - FAST)
            sf += x[t];
    }
    long double es = ss / SLOW, ef = sf / FAST, sum_m = ef - es;
    long double line[SIGNAL];
    line[0] = ef - es;
    size_t t = SLOW - 1;
    for (size_t k = 1; k < SIGNAL; k++) {
        t++;
        ef = (x[t] - ef) * kf + ef;
        es = (x[t] - es) * ks + es;
        line[k] = ef - es;
        sum_m += line[k];
    }
    long double eg = sum_m / SIGNAL;
    m[t] = ef - es;
    s[t] = eg;
    for (t++; t < n; t++) {
        ef = (x[t] - ef) * kf + ef;
        es = (x[t] - es) * ks + es;
        eg = ((ef - es) - eg) * kg + eg;
        m[t] = ef - es;
        s[t] = eg;
    }
}

static void macd_errors(const config *g, errors e[CONTENDERS]) {
    memset(e, 0, CONTENDERS * sizeof *e);
    long double *m = malloc(g->cols * sizeof *m), *s = malloc(g->cols * sizeof *s);
    if (m == NULL || s == NULL) {
        for (int c = 0; c < CONTENDERS; c++)
            e[c].bad = 1;
        free(m);
        free(s);
        return;
    }
    for (size_t r = 0; r < g->rows; r++) {
        const double *x = g->x + r * g->cols;
        double scale = 0;
        for (size_t t = 0; t < g->cols; t++)
            scale = fabs(x[t]) > scale ? fabs(x[t]) : scale;
        for (int tulip = 1; tulip >= 0; tulip--) {
            macd_reference(x, g->cols, tulip, m, s);
            for (int c = 0; c < CONTENDERS; c++) {
                if ((c == TULIP) != tulip)
                    continue;
                for (size_t t = 0; t < g->cols; t++) {
                    if (isnan((double)m[t]))
                        continue;
                    const size_t i = r * g->cols + t;
                    const long double ref[3] = {m[t], s[t], m[t] - s[t]};
                    for (int k = 0; k < 3; k++) {
                        if (!isfinite(g->out[c][k][i])) {
                            e[c].bad = 1;
                            continue;
                        }
                        const double err = (double)(fabsl(g->out[c][k][i] - ref[k]) / scale);
                        e[c].band = err > e[c].band ? err : e[c].band;
                    }
                }
            }
        }
    }
    free(m);
    free(s);
}

/* ---- one kernel ---------------------------------------------------------------------------- */

typedef int (*run_fn)(const context *c, const config *g, int who);

/* The medians of one configuration, and the contenders' errors. */
typedef struct result {
    size_t rows, cols;
    int reps;
    double ms[CONTENDERS];
    double cpu_ms[CONTENDERS]; /* the calling thread's CPU time: TULIP, TALIB, APO1 only */
    errors err[CONTENDERS];
} result;

static int measure(const context *c, const options *o, run_fn run, int is_bollinger, size_t rows,
                   size_t cols, uint64_t seed, result *res) {
    const size_t n = rows * cols;
    config g = {rows, cols, NULL, {{NULL}}};
    double *x = malloc(n * sizeof *x);
    int rc = x == NULL ? -1 : 0;
    for (int w = 0; w < CONTENDERS && rc == 0; w++)
        for (int k = 0; k < 3 && rc == 0; k++) {
            g.out[w][k] = malloc(n * sizeof(double));
            if (g.out[w][k] == NULL)
                rc = -1;
            else
                for (size_t i = 0; i < n; i++)
                    g.out[w][k][i] = NAN;
        }
    const int reps = bench_peers_reps(o->reps, n);
    double *times = malloc((size_t)reps * CONTENDERS * sizeof *times);
    double *cpu = malloc((size_t)reps * CONTENDERS * sizeof *cpu);
    if (rc != 0 || times == NULL || cpu == NULL) {
        fprintf(stderr, "apo-bench-peers: %zu x %zu: out of memory\n", rows, cols);
        rc = -1;
        goto done;
    }
    bench_fill_walk(x, rows, cols, seed);
    g.x = x;
    /* Untimed first calls: their outputs are the ones checked. */
    for (int w = 0; w < CONTENDERS && rc == 0; w++)
        rc = run(c, &g, w);
    if (rc != 0) {
        fprintf(stderr, "apo-bench-peers: a first call failed\n");
        goto done;
    }
    if (is_bollinger)
        bollinger_errors(&g, res->err);
    else
        macd_errors(&g, res->err);
    /* Timed calls all write the same output arrays: four sets of them would only measure
     * how the contenders evict each other's outputs from the caches. */
    config shared = g;
    for (int w = 1; w < CONTENDERS; w++)
        for (int k = 0; k < 3; k++)
            shared.out[w][k] = g.out[0][k];
    for (int r = 0; r < reps && rc == 0; r++) {
        for (int k = 0; k < CONTENDERS && rc == 0; k++) {
            const int w = (r + k) % CONTENDERS;
            /* And the calling thread's CPU time (bench_thread_cpu), which the load does not
             * stretch: the peers and apo1 do all their work on this thread. apoN's other
             * thread is not counted: it has no CPU column. */
            const double c0 = bench_thread_cpu(), t0 = bench_now();
            rc = run(c, &shared, w);
            times[w * reps + r] = bench_now() - t0;
            cpu[w * reps + r] = bench_thread_cpu() - c0;
        }
    }
    res->rows = rows;
    res->cols = cols;
    res->reps = reps;
    for (int w = 0; w < CONTENDERS; w++) {
        res->ms[w] = bench_median(times + w * reps, (size_t)reps) * 1e3;
        res->cpu_ms[w] = w == APON ? NAN : bench_median(cpu + w * reps, (size_t)reps) * 1e3;
    }
done:
    free(times);
    free(cpu);
    for (int w = 0; w < CONTENDERS; w++)
        for (int k = 0; k < 3; k++)
            free(g.out[w][k]);
    free(x);
    return rc;
}

static void print_table(const char *title, int is_bollinger, const result *res, size_t n_res) {
    printf("\n# %s\n", title);
    printf("# %-14s %4s %10s %10s %10s %10s %11s %11s %11s %11s | %9s %9s %9s %10s %10s\n",
           "rows x cols", "reps", "tulip_ms", "talib_ms", "apo1_ms", "apoN_ms", "tulip/apo1",
           "tulip/apoN", "talib/apo1", "talib/apoN", "tulip_cpu", "talib_cpu", "apo1_cpu",
           "tulip/apo1", "talib/apo1");
    for (size_t i = 0; i < n_res; i++) {
        const result *r = &res[i];
        char shape[32];
        snprintf(shape, sizeof shape, "%zu x %zu", r->rows, r->cols);
        printf("%-16s %4d %10.3f %10.3f %10.3f %10.3f %11.2f %11.2f %11.2f %11.2f | %9.4f %9.4f "
               "%9.4f %10.3f %10.3f\n",
               shape, r->reps, r->ms[TULIP], r->ms[TALIB], r->ms[APO1], r->ms[APON],
               r->ms[TULIP] / r->ms[APO1], r->ms[TULIP] / r->ms[APON], r->ms[TALIB] / r->ms[APO1],
               r->ms[TALIB] / r->ms[APON], r->cpu_ms[TULIP], r->cpu_ms[TALIB], r->cpu_ms[APO1],
               r->cpu_ms[TULIP] / r->cpu_ms[APO1], r->cpu_ms[TALIB] / r->cpu_ms[APO1]);
    }
    if (is_bollinger)
        printf("# accuracy, worst over every window: sd relative error (sd from the band width) | "
               "band error relative to |middle| + 2 sd\n"
               "# %-14s %11s %11s %11s | %11s %11s %11s\n",
               "rows x cols", "tulip", "talib", "apportion", "tulip", "talib", "apportion");
    else
        printf("# accuracy, worst over every output: error relative to max|price|, against the "
               "library's own definition in long double\n"
               "# %-14s %11s %11s %11s\n",
               "rows x cols", "tulip", "talib", "apportion");
    for (size_t i = 0; i < n_res; i++) {
        const result *r = &res[i];
        char shape[32];
        snprintf(shape, sizeof shape, "%zu x %zu", r->rows, r->cols);
        /* apo1 and apoN give the same bits; the worse of the two is shown. */
        const errors *a = r->err[APO1].band >= r->err[APON].band ? &r->err[APO1] : &r->err[APON];
        if (is_bollinger)
            printf("%-16s %11.2e %11.2e %11.2e | %11.2e %11.2e %11.2e%s\n", shape, r->err[TULIP].sd,
                   r->err[TALIB].sd, a->sd, r->err[TULIP].band, r->err[TALIB].band, a->band,
                   r->err[TULIP].bad || r->err[TALIB].bad || a->bad ? "  (non-finite outputs)"
                                                                    : "");
        else
            printf("%-16s %11.2e %11.2e %11.2e%s\n", shape, r->err[TULIP].band, r->err[TALIB].band,
                   a->band,
                   r->err[TULIP].bad || r->err[TALIB].bad || a->bad ? "  (non-finite outputs)"
                                                                    : "");
    }
}

/* The targets, read off the tables (reported, not asserted). */
static void print_targets(const result *boll, const result *macd, size_t n_res) {
    printf("\n# targets: bollinger apo1 >= tulip and apoN >= 1.5 x tulip, macd apoN >= 3 x "
           "tulip, at 1 x 1000000 and 1000 x 10000\n");
    for (size_t i = 0; i < n_res; i++) {
        const int wanted = (boll[i].rows == 1 && boll[i].cols == 1000000) ||
                           (boll[i].rows == 1000 && boll[i].cols == 10000);
        if (!wanted)
            continue;
        const double b1 = boll[i].ms[TULIP] / boll[i].ms[APO1];
        const double bn = boll[i].ms[TULIP] / boll[i].ms[APON];
        const double mn = macd[i].ms[TULIP] / macd[i].ms[APON];
        printf("#   %4zu x %-8zu bollinger 1 thread %.2fx tulip: %s; all threads %.2fx: %s; "
               "macd all threads %.2fx: %s\n",
               boll[i].rows, boll[i].cols, b1, b1 >= 1.0 ? "met" : "MISSED", bn,
               bn >= 1.5 ? "met" : "MISSED", mn, mn >= 3.0 ? "met" : "MISSED");
    }
}

static apo_runtime *runtime_on(const char *devices, int learn) {
    apo_config config = APO_CONFIG_INIT;
    config.devices = devices;
    /* Neither read nor write the user's profiles. A runtime that learns (--learn) keeps
     * its models in memory; one that does not skips the bookkeeping that feeds them, which
     * is what a call costs at least. */
    config.profiles = APO_SWITCH_OFF;
    config.learn = learn ? APO_SWITCH_ON : APO_SWITCH_OFF;
    apo_runtime *rt = NULL;
    if (bench_check(apo_runtime_create(&config, &rt), "apo_runtime_create"))
        return NULL;
    return rt;
}

static void cpu_label(apo_runtime *rt, char *out, size_t size) {
    apo_device_info info = APO_DEVICE_INFO_INIT;
    snprintf(out, size, "?");
    if (apo_device_get(rt, 0, &info) == APO_OK)
        snprintf(out, size, "%s", info.label);
}

int main(int argc, char **argv) {
    options o = {.max_size = 1e7};
    if (bench_options_parse(&option_table, argc, argv, &o) != 0)
        return 2;
    char load[64], host[128] = "?", when[64] = "?";
    bench_load_average(load, sizeof load);
    gethostname(host, sizeof host);
    time_t now = time(NULL);
    strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    printf("# apo-bench-peers (apportion %s), %s\n", apo_version(), when);
    printf("# host %s, %ld online cpus, load average %s\n", host, sysconf(_SC_NPROCESSORS_ONLN),
           load);

    bench_peers peers;
    char why[512];
    if (bench_peers_load(o.cache, o.rebuild, &peers, why, sizeof why) != 0) {
        printf("# skipped: %s\n", why);
        return SKIP_STATUS;
    }
    context c = {&peers, {runtime_on("cpu:threads=1", o.learn), runtime_on("cpu", o.learn)}};
    if (c.rt[0] == NULL || c.rt[1] == NULL)
        return 1;
    if (o.kernels != NULL && check_kernels(c.rt[0], o.kernels) != 0)
        return 2;
    char l1[APO_LABEL_MAX], ln[APO_LABEL_MAX];
    cpu_label(c.rt[0], l1, sizeof l1);
    cpu_label(c.rt[1], ln, sizeof ln);
    printf("# apportion: apo1 = \"cpu:threads=1\": %s; apoN = \"cpu\": %s; learning %s\n", l1, ln,
           o.learn ? "on (--learn, models in memory)" : "off (a default runtime learns: --learn)");
    printf("# peers: Tulip Indicators %s (PyPI %s, built with %s %s -fPIC), TA-Lib %s (the "
           "shared library of the PyPI wheel %s, as its maintainers built it), in %s\n",
           peers.tulip_version, BENCH_PEER_TULIPY, peers.cc, peers.flags, peers.talib_version,
           BENCH_PEER_TALIB, peers.dir);
    if (peers.talib06_lib != NULL)
        printf("# and TA-Lib %s (the npm build an older cache holds, libtalib.so): catalog "
               "tables only, on a line below each kernel's\n",
               peers.talib06_version);
    else
        printf("# no TA-Lib 0.6 in the cache (an npm build of it, libtalib.so): every talib "
               "column is TA-Lib %s\n",
               peers.talib_version);
    printf("# input: bench_fill_walk prices (about 100), one series per size, or rows of 10000\n"
           "# timing: wall-clock median of reps calls per contender, the four interleaved call "
           "by call with the order rotating, all writing the same output arrays; reps = "
           "clamp(1e8 / samples, 5, 41); after '|': medians of the calling thread's CPU time "
           "(ms) of the same calls (not apoN's, on two threads), which the load does not "
           "stretch, and their ratios\n"
           "# ratios: peer median / apportion median (above 1: apportion is faster)\n");
    fflush(stdout);

    result boll[8] = {{0}}, macd[8] = {{0}};
    size_t n_res = 0;
    int rc = 0;
    const int do_boll = bench_selected(o.kernels, "bollinger"),
              do_macd = bench_selected(o.kernels, "macd");
    for (double size = 1e4; size <= o.max_size && rc == 0 && n_res < 7; size *= 10) {
        if (do_boll)
            rc = measure(&c, &o, run_bollinger, 1, 1, (size_t)size, 7, &boll[n_res]);
        if (rc == 0 && do_macd)
            rc = measure(&c, &o, run_macd, 0, 1, (size_t)size, 7, &macd[n_res]);
        n_res += rc == 0;
    }
    if (!o.no_batch && rc == 0) {
        if (do_boll)
            rc = measure(&c, &o, run_bollinger, 1, 1000, 10000, 11, &boll[n_res]);
        if (rc == 0 && do_macd)
            rc = measure(&c, &o, run_macd, 0, 1000, 10000, 11, &macd[n_res]);
        n_res += rc == 0;
    }
    if (do_boll)
        print_table("bollinger(20, 2, 2)", 1, boll, n_res);
    if (do_macd)
        print_table("macd(12, 26, 9)", 0, macd, n_res);
    if (do_boll && do_macd)
        print_targets(boll, macd, n_res);
    if (rc == 0) {
        const peers_catalog_options co = {o.kernels, o.max_size,     !o.no_batch,
                                          o.reps,    o.fresh_series, o.period};
        rc = peers_catalog_run(&peers, c.rt, &co);
    }
    bench_load_average(load, sizeof load);
    printf("# load average at the end: %s\n", load);
    apo_runtime_destroy(c.rt[0]);
    apo_runtime_destroy(c.rt[1]);
    return rc == 0 ? 0 : 1;
}
