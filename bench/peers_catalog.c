/*
 * peers_catalog.c: the catalog kernels against TA-Lib and Tulip Indicators
 * (peers_catalog.h; docs/perf-log/2026-11-23-catalog-peers.md, "Catalog kernels against TA-Lib and
 * Tulip").
 *
 * Inputs are OHLCV bars made from bench_fill_walk closes (about 100; below). For each size
 * and each row of peer_kernels.c the four contenders run once untimed into outputs of their
 * own, which are compared with TA-Lib's before anything is timed: a table row states how
 * far apportion's and Tulip's outputs are from TA-Lib's, so that a ratio is never read
 * between two different computations without saying so. Then `reps` calls each,
 * interleaved call by call with the order rotating, all into the same outputs, as the
 * bollinger and macd tables do (bench_peers.c).
 *
 * With --fresh-series, repetition r of every contender reads series r mod pool of a pool of
 * distinct walks (pool_size below) instead of replaying one: a peer whose loop branches on
 * the data (price up or down) can otherwise have its branch predictor learn a 1e4-bar
 * series over the repetitions, which no caller computing an indicator on new data sees.
 * Each timed call's inputs are read once, untimed, just before it, so that the caches hold
 * them as they hold the replayed series, and what changes is the predictor's history alone.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "peer_kernels.h"
#include "peers_catalog.h"

/* Tulip Indicators, TA-Lib, apportion on one thread and on all (bench_peers.c's order), and
 * TA-Lib 0.6 where it is at hand (bench_peers.talib06_lib): TALIB is TA-Lib 0.8. */
enum { TULIP, TALIB, APO1, APON, TA06, CONTENDERS };

#define BATCH_ROWS 1000
#define BATCH_COLS 10000
/* The most memory --fresh-series spends on its pool of bars: at 1e4 bars a series is 400 KB
 * and the pool can give every repetition its own series; at 1e6 bars (40 MB a series) it
 * holds 6, each already longer than any predictor's history. */
#define POOL_BYTES (256.0 * 1024 * 1024)

/* Outputs within this of TA-Lib's, relative to the largest |TA-Lib output| of the row, are
 * the same computation up to rounding: the recurrences and windows agree to 1e-12 and
 * better. A different definition differs by far more: Tulip's EMAs seeded with the first
 * sample instead of a mean, by 1e-5 of the price (tema) to 2e-4 (ema); a ratio instead of a
 * percentage (roc) by 1. */
#define SAME_DEFINITION 1e-9
/* The same, for a row whose peers slide running double sums (peer_kernel.running_sums):
 * they lose about mean^2/var ulps of a variance per step, and the loss builds up along the
 * series, to 2.5e-5 of TA-Lib 0.6.0-dev's largest STDDEV(5) at 1e6 bars of these walks.
 * TA-Lib 0.8.1 no longer drifts so (apportion within 1.2e-12 of its STDDEV(5) there:
 * docs/perf-log/2026-11-26-peers-talib-0.8.md); Tulip's sums still do (7e-7 at 1e4 bars). */
#define SAME_DEFINITION_DRIFT 1e-4

static double tolerance(const peer_kernel *k) {
    return k->running_sums ? SAME_DEFINITION_DRIFT : SAME_DEFINITION;
}

/* ---- the bars ------------------------------------------------------------------------- */

/* Bars of rows x cols: the close is bench_fill_walk's price, the others bench_fill_bars';
 * PEER_OTHER is a second, independent close for the pair kernels, PEER_PERIODS mavp's
 * periods (whole numbers in its default range 2 .. 30). */
static int make_bars(double *s[PEER_SERIES], size_t rows, size_t cols) {
    const size_t n = rows * cols;
    for (int i = 0; i < PEER_SERIES; i++) {
        s[i] = malloc(n * sizeof(double));
        if (s[i] == NULL)
            return -1;
    }
    bench_fill_walk(s[PEER_CLOSE], rows, cols, 7);
    bench_fill_walk(s[PEER_OTHER], rows, cols, 8);
    bench_fill_bars(s[PEER_CLOSE], rows, cols, s[PEER_OPEN], s[PEER_HIGH], s[PEER_LOW],
                    s[PEER_VOLUME]);
    for (size_t i = 0; i < n; i++)
        s[PEER_PERIODS][i] = (double)(2 + (i * 7) % 29);
    return 0;
}

/* ---- the contenders ------------------------------------------------------------------- */

typedef struct job {
    const peer_kernel *k;
    const peer_fns *fns;
    apo_runtime *const *rt;
    size_t rows, cols;
    const double *in[PEER_MAX_IN];         /* rows x cols each, the kernel's inputs */
    double *out[CONTENDERS][PEER_MAX_OUT]; /* rows x cols each, NaN where nothing is written */
    double *ti_spare;                      /* a Tulip output apportion has no use for */
    int *ints[PEER_MAX_OUT];               /* TA-Lib's integer outputs (PEER_TA_ABSTRACT) */
    int convert;                           /* copy them into out[TALIB]: the compared calls */
    int ta_begin;                          /* TA-Lib's outBegIdx */
    int ti_start;                          /* Tulip's first output index; -1: Tulip left out */
    int n_contenders;                      /* TA06 + 1 where TA-Lib 0.6 runs, else TA06 */
    size_t pool;                           /* distinct series in rows x cols blocks of in[]; 0:
                                            * the one series, replayed */
} job;

static int run_apportion(const job *j, int who) {
    apo_workload w = bench_workload(j->k->name, j->rows, j->cols, j->in, (size_t)j->k->n_inputs);
    w.outputs = j->out[who];
    w.n_outputs = (size_t)j->k->n_outputs;
    w.params = j->k->params;
    w.n_params = (size_t)j->k->n_params;
    return bench_check(apo_distribute_workload(j->rt[who - APO1], &w, NULL), j->k->name);
}

/* One contender on every row: the peers row by row, apportion in one call. */
static int run(const job *j, int who) {
    if (who == APO1 || who == APON)
        return run_apportion(j, who);
    if ((who == TULIP && j->ti_start < 0) || (who == TA06 && j->n_contenders <= TA06))
        return 0;
    const peer_kernel *k = j->k;
    for (size_t r = 0; r < j->rows; r++) {
        const double *in[PEER_MAX_IN];
        for (int i = 0; i < k->n_inputs; i++)
            in[i] = j->in[i] + r * j->cols;
        if (who == TALIB || who == TA06) {
            double *out[PEER_MAX_OUT];
            for (int o = 0; o < k->n_outputs; o++)
                out[o] = j->out[who][o] + r * j->cols + j->ta_begin;
            int begin = -1;
            const int rc = k->ta_shape == PEER_TA_ABSTRACT
                               ? peer_call_talib_abstract(j->fns, (int)j->cols, in, out, j->ints,
                                                          j->convert, &begin)
                               : peer_call_talib(k, who == TALIB ? j->fns->ta : j->fns->ta06,
                                                 (int)j->cols, in, out, &begin);
            if (rc != 0 || begin != j->ta_begin) {
                fprintf(stderr, "apo-bench-peers: %s failed\n", k->ta_name);
                return -1;
            }
        } else {
            /* Tulip writes its first value at index 0: shifted to its start. */
            double *out[PEER_MAX_OUT] = {j->ti_spare, j->ti_spare};
            for (int o = 0; o < k->n_outputs; o++)
                out[k->ti_out[o]] = j->out[TULIP][o] + r * j->cols + j->ti_start;
            if (j->fns->ti((int)j->cols, in, k->ti_options, out) != 0) {
                fprintf(stderr, "apo-bench-peers: ti_%s failed\n", k->ti_name);
                return -1;
            }
        }
    }
    return 0;
}

/* ---- agreement with TA-Lib -------------------------------------------------------------- */

typedef struct agreement {
    double apo;     /* worst |apportion - TA-Lib| / max|TA-Lib| over a row and output */
    double tulip;   /* the same for Tulip, where both write; NaN: no Tulip */
    long apo_nan;   /* outputs finite in one of apportion and TA-Lib only */
    long tulip_nan; /* the same for Tulip, from its start on */
    long threads;   /* apportion's outputs on all threads not bitwise those on one */
    double ta06;    /* the same for TA-Lib 0.6 against 0.8; NaN: no TA-Lib 0.6 */
    long ta06_nan;
} agreement;

/* Worst error of `got` against TA-Lib's `ta` over [from, n), relative to the largest
 * |ta| there; counts where one is finite and the other is not into *nan. */
static double worst(const double *got, const double *ta, size_t from, size_t n, long *nan) {
    double scale = 0, err = 0;
    for (size_t t = from; t < n; t++)
        if (isfinite(ta[t]) && fabs(ta[t]) > scale)
            scale = fabs(ta[t]);
    if (scale == 0)
        scale = 1;
    for (size_t t = from; t < n; t++) {
        if (isfinite(got[t]) != isfinite(ta[t])) {
            (*nan)++;
            continue;
        }
        if (isfinite(ta[t])) {
            const double e = fabs(got[t] - ta[t]) / scale;
            err = e > err ? e : err;
        }
    }
    return err;
}

static void compare(const job *j, agreement *a) {
    memset(a, 0, sizeof *a);
    a->tulip = j->ti_start < 0 ? NAN : 0;
    a->ta06 = j->n_contenders <= TA06 ? NAN : 0;
    const size_t n = j->cols;
    for (size_t r = 0; r < j->rows; r++)
        for (int o = 0; o < j->k->n_outputs; o++) {
            const double *ta = j->out[TALIB][o] + r * n;
            /* From index 0: apportion's NaN lead must be TA-Lib's lookback. */
            const double e = worst(j->out[APO1][o] + r * n, ta, 0, n, &a->apo_nan);
            a->apo = e > a->apo ? e : a->apo;
            if (j->ti_start >= 0) {
                /* Where both write: Tulip's lead is its own. */
                const size_t from = (size_t)(j->ti_start > j->ta_begin ? j->ti_start : j->ta_begin);
                const double et = worst(j->out[TULIP][o] + r * n, ta, from, n, &a->tulip_nan);
                a->tulip = et > a->tulip ? et : a->tulip;
            }
            if (j->n_contenders > TA06) {
                const double e6 = worst(j->out[TA06][o] + r * n, ta, 0, n, &a->ta06_nan);
                a->ta06 = e6 > a->ta06 ? e6 : a->ta06;
            }
            for (size_t t = 0; t < n; t++)
                a->threads += memcmp(&j->out[APO1][o][r * n + t], &j->out[APON][o][r * n + t],
                                     sizeof(double)) != 0;
        }
}

/* ---- one kernel at one size ------------------------------------------------------------ */

typedef struct row {
    int reps;
    double ms[CONTENDERS];     /* wall clock */
    double cpu_ms[CONTENDERS]; /* the calling thread's CPU time: all but APON */
    agreement agree;
} row;

/* Where TA-Lib writes its first value for this kernel and size: one call on the first row
 * into outputs that are then cleared. */
static int probe_talib(job *j) {
    double *out[PEER_MAX_OUT];
    for (int o = 0; o < j->k->n_outputs; o++)
        out[o] = j->out[TALIB][o];
    const double *in[PEER_MAX_IN];
    for (int i = 0; i < j->k->n_inputs; i++)
        in[i] = j->in[i];
    if (j->k->ta_shape == PEER_TA_ABSTRACT)
        return peer_call_talib_abstract(j->fns, (int)j->cols, in, out, j->ints, 1, &j->ta_begin);
    return peer_call_talib(j->k, j->fns->ta, (int)j->cols, in, out, &j->ta_begin);
}

/* Reads every input of `j` once, so that a timed call finds its series in the caches as the
 * replayed one is. The sum is kept, so that the loads are not optimised away. */
static volatile double warm_sink;
static void warm_inputs(const job *j) {
    double sum = 0;
    for (int i = 0; i < j->k->n_inputs; i++)
        for (size_t t = 0; t < j->rows * j->cols; t += 8)
            sum += j->in[i][t];
    warm_sink = sum;
}

static int measure(job *j, const peers_catalog_options *o, row *res) {
    const size_t n = j->rows * j->cols;
    int rc = 0;
    if (j->fns->ta06 == NULL)
        j->n_contenders = TA06;
    for (int w = 0; w < j->n_contenders && rc == 0; w++)
        for (int k = 0; k < j->k->n_outputs && rc == 0; k++)
            if ((j->out[w][k] = malloc(n * sizeof(double))) == NULL)
                rc = -1;
    j->ti_spare = malloc(j->cols * sizeof(double));
    for (int k = 0; k < j->k->n_outputs && rc == 0; k++)
        if ((j->ints[k] = malloc(j->cols * sizeof(int))) == NULL)
            rc = -1;
    const int reps = bench_peers_reps(o->reps, n);
    double *times = malloc((size_t)reps * CONTENDERS * 2 * sizeof *times);
    double *cpu = times + (size_t)reps * CONTENDERS;
    if (rc != 0 || j->ti_spare == NULL || times == NULL) {
        fprintf(stderr, "apo-bench-peers: %s %zu x %zu: out of memory\n", j->k->name, j->rows,
                j->cols);
        rc = -1;
        goto done;
    }
    if (probe_talib(j) != 0) {
        fprintf(stderr, "apo-bench-peers: %s failed\n", j->k->ta_name);
        rc = -1;
        goto done;
    }
    j->ti_start = j->fns->ti == NULL ? -1 : j->fns->ti_start(j->k->ti_options);
    if (j->ti_start >= (int)j->cols)
        j->ti_start = -1;
    for (int w = 0; w < j->n_contenders; w++)
        for (int k = 0; k < j->k->n_outputs; k++)
            for (size_t i = 0; i < n; i++)
                j->out[w][k][i] = NAN;
    /* Untimed first calls: their outputs are the ones compared. */
    j->convert = 1;
    for (int w = 0; w < j->n_contenders && rc == 0; w++)
        rc = run(j, w);
    if (rc != 0)
        goto done;
    compare(j, &res->agree);
    /* Timed calls all write the same output arrays (bench_peers.c says why); TA-Lib's integer
     * outputs stay ints, as TA-Lib gives them. */
    job shared = *j;
    shared.convert = 0;
    for (int w = 1; w < j->n_contenders; w++)
        for (int k = 0; k < j->k->n_outputs; k++)
            shared.out[w][k] = j->out[0][k];
    for (int r = 0; r < reps && rc == 0; r++)
        for (int c = 0; c < j->n_contenders && rc == 0; c++) {
            const int w = (r + c) % j->n_contenders;
            if (j->pool > 0) {
                const size_t block = (size_t)r % j->pool * j->rows * j->cols;
                for (int i = 0; i < j->k->n_inputs; i++)
                    shared.in[i] = j->in[i] + block;
                warm_inputs(&shared);
            }
            /* CPU time of the calling thread (bench_thread_cpu): the peers and apportion on
             * one thread ("cpu:threads=1" runs its tiles on the calling thread) do all their
             * work on it. apoN's other thread is not counted: it has no CPU column. */
            const double c0 = bench_thread_cpu(), t0 = bench_now();
            rc = run(&shared, w);
            times[w * reps + r] = bench_now() - t0;
            cpu[w * reps + r] = bench_thread_cpu() - c0;
        }
    res->reps = reps;
    for (int w = 0; w < CONTENDERS; w++) {
        const int none = (j->ti_start < 0 && w == TULIP) || w >= j->n_contenders;
        res->ms[w] = none ? NAN : bench_median(times + w * reps, (size_t)reps) * 1e3;
        res->cpu_ms[w] = none || w == APON ? NAN : bench_median(cpu + w * reps, (size_t)reps) * 1e3;
    }
done:
    free(times);
    free(j->ti_spare);
    for (int k = 0; k < PEER_MAX_OUT; k++) {
        free(j->ints[k]);
        j->ints[k] = NULL;
    }
    for (int w = 0; w < CONTENDERS; w++)
        for (int k = 0; k < PEER_MAX_OUT; k++) {
            free(j->out[w][k]);
            j->out[w][k] = NULL;
        }
    return rc;
}

/* ---- the tables ------------------------------------------------------------------------ */

static void print_header(size_t rows, size_t cols, size_t pool, double period, int ta06) {
    if (period > 0)
        printf("\n# catalog kernels, %zu x %zu, timeperiod %.0f (--period), other parameters "
               "TA-Lib's defaults",
               rows, cols, period);
    else
        printf("\n# catalog kernels, %zu x %zu, TA-Lib's default parameters", rows, cols);
    if (pool > 0)
        printf("; repetition r reads series r mod %zu of %zu distinct ones (--fresh-series; "
               "d_apo, d_tulip on the first)",
               pool, pool);
    printf("\n");
    printf("# %-15s %4s %9s %9s %9s %9s %10s %10s %10s %10s | %9s %9s %9s %10s %10s | %9s "
           "%9s\n",
           "kernel", "reps", "tulip_ms", "talib_ms", "apo1_ms", "apoN_ms", "talib/apo1",
           "talib/apoN", "tulip/apo1", "tulip/apoN", "tulip_cpu", "talib_cpu", "apo1_cpu",
           "talib/apo1", "tulip/apo1", "d_apo", "d_tulip");
    if (ta06)
        printf("# %-15s %4s %9s %10s %9s %10s %9s\n", "(TA-Lib 0.6)", "", "ta06_ms", "ta06/apo1",
               "ta06_cpu", "ta06/apo1", "d_ta06");
}

/* A time in ms, or "-" where Tulip has no function. */
static void print_ms(double ms) {
    if (isnan(ms))
        printf(" %9s", "-");
    else
        printf(" %9.3f", ms);
}

/* A ratio, or "-" where Tulip has no function; a Tulip ratio whose outputs are not TA-Lib's
 * computation is marked with '*'. */
static void print_ratio(double peer_ms, double apo_ms, int differs) {
    if (isnan(peer_ms))
        printf(" %10s", "-");
    else
        printf(" %9.2f%c", peer_ms / apo_ms, differs ? '*' : ' ');
}

static void print_row(const peer_kernel *k, const row *r) {
    const agreement *a = &r->agree;
    const int tulip_differs = !(a->tulip <= tolerance(k)) || a->tulip_nan > 0;
    printf("%-17s %4d", k->name, r->reps);
    for (int w = TULIP; w <= APON; w++)
        print_ms(r->ms[w]);
    print_ratio(r->ms[TALIB], r->ms[APO1], 0);
    print_ratio(r->ms[TALIB], r->ms[APON], 0);
    print_ratio(r->ms[TULIP], r->ms[APO1], tulip_differs);
    print_ratio(r->ms[TULIP], r->ms[APON], tulip_differs);
    printf(" |");
    print_ms(r->cpu_ms[TULIP]);
    print_ms(r->cpu_ms[TALIB]);
    print_ms(r->cpu_ms[APO1]);
    print_ratio(r->cpu_ms[TALIB], r->cpu_ms[APO1], 0);
    print_ratio(r->cpu_ms[TULIP], r->cpu_ms[APO1], tulip_differs);
    printf(" |");
    printf(" %9.2e", a->apo);
    if (isnan(a->tulip))
        printf(" %9s", "-");
    else
        printf(" %9.2e", a->tulip);
    if (a->apo_nan > 0 || a->apo > tolerance(k))
        printf("  APPORTION DIFFERS FROM TA-LIB (%ld NaN mismatches)", a->apo_nan);
    if (a->tulip_nan > 0)
        printf("  (tulip: %ld NaN mismatches)", a->tulip_nan);
    if (a->threads > 0)
        printf("  %ld OUTPUTS DIFFER BETWEEN 1 AND ALL THREADS", a->threads);
    printf("\n");
    /* TA-Lib 0.6 on a line of its own below, so that the main table keeps its columns; d_ta06
     * is its distance from TA-Lib 0.8, the measure of d_apo. */
    if (!isnan(a->ta06)) {
        printf("%-17s %4s", "  (TA-Lib 0.6)", "");
        print_ms(r->ms[TA06]);
        print_ratio(r->ms[TA06], r->ms[APO1], 0);
        print_ms(r->cpu_ms[TA06]);
        print_ratio(r->cpu_ms[TA06], r->cpu_ms[APO1], 0);
        printf(" %9.2e%s\n", a->ta06, a->ta06_nan > 0 ? "  (NaN mismatches)" : "");
    }
    fflush(stdout);
}

/* The rows made from the runtime's list (peer_generate), for the run. */
#define MAX_MADE 512
static peer_kernel made[MAX_MADE];
static peer_ta_name made_names[MAX_MADE];
static size_t n_made;

/* Row i of the section: the written rows, then the made ones. */
static const peer_kernel *row_at(size_t i) {
    return i < peer_kernel_count ? &peer_kernels[i] : &made[i - peer_kernel_count];
}

int peers_catalog_has(apo_runtime *rt, const char *name) {
    for (size_t i = 0; i < peer_kernel_count; i++)
        if (strcmp(peer_kernels[i].name, name) == 0)
            return 1;
    /* bollinger and macd have tables of their own (bench_peers.c). */
    apo_kernel_info info = APO_KERNEL_INFO_INIT;
    return apo_kernel_get(rt, name, &info) == APO_OK && strcmp(name, "bollinger") != 0 &&
           strcmp(name, "macd") != 0;
}

/* TA-Lib's abstract interface in the loaded TA-Lib 0.8. */
static void *find_talib(void *ctx, const char *name) {
    void *fn = NULL;
    return bench_peers_find(ctx, BENCH_PEER_LIB_TALIB, name, &fn) == 0 ? fn : NULL;
}

/* How many distinct series --fresh-series gives a single series of `cols` bars: as many as
 * asked, no more than the repetitions can use or POOL_BYTES holds; 0 where the series is
 * replayed (no --fresh-series, or a batch, whose rows are distinct series already). */
static size_t pool_size(const peers_catalog_options *o, size_t rows, size_t cols) {
    if (o->fresh_series <= 0 || rows != 1)
        return 0;
    const double fits = POOL_BYTES / ((double)PEER_SERIES * sizeof(double) * (double)cols);
    size_t pool = (size_t)o->fresh_series;
    const size_t reps = (size_t)bench_peers_reps(o->reps, cols);
    pool = pool < reps ? pool : reps;
    pool = (double)pool < fits ? pool : (size_t)fits;
    return pool > 0 ? pool : 1;
}

/* Row k with its timeperiod at `period` (--period) in *at: apportion's and TA-Lib's
 * parameter, and Tulip's option where that is Tulip's only one (else Tulip is left out, its
 * other options being another computation). Returns -1 for a row without a timeperiod. */
static int at_period(const peer_kernel *k, double period, peer_kernel *at) {
    *at = *k;
    for (int i = 0; i < at->n_params; i++) {
        if (strcmp(at->params[i].name, "timeperiod") != 0)
            continue;
        at->params[i].value = period;
        if (at->ti_n_options == 1)
            at->ti_options[0] = period;
        else
            at->ti_name = NULL;
        return 0;
    }
    return -1;
}

/* Every kernel of the size: returns 0, -1 on a failure, 1 when apportion's outputs are not
 * TA-Lib's computation or differ between thread counts (the table says which). */
static int run_size(const bench_peers *p, const talib_abstract *ta, apo_runtime *const rt[2],
                    const peers_catalog_options *o, size_t rows, size_t cols) {
    double *bars[PEER_SERIES] = {NULL};
    const size_t pool = pool_size(o, rows, cols);
    /* The pool is `pool` rows of the same walks: its first is the replayed series. */
    if (make_bars(bars, pool > 0 ? pool : rows, cols) != 0) {
        fprintf(stderr, "apo-bench-peers: %zu x %zu: out of memory\n", rows, cols);
        for (int i = 0; i < PEER_SERIES; i++)
            free(bars[i]);
        return -1;
    }
    print_header(rows, cols, pool, o->period, p->talib06_lib != NULL);
    int rc = 0;
    for (size_t i = 0; i < peer_kernel_count + n_made && rc >= 0; i++) {
        const peer_kernel *k = row_at(i);
        if (!bench_selected(o->kernels, k->name) && !bench_selected(o->kernels, "catalog"))
            continue;
        peer_kernel at;
        if (o->period > 0) {
            if (at_period(k, o->period, &at) != 0)
                continue;
            k = &at;
        }
        peer_fns fns;
        char why[160];
        if (peer_resolve(p, ta, k, &fns, why, sizeof why) != 0) {
            printf("%-17s skipped: %s\n", k->name, why);
            continue;
        }
        job j = {.k = k,
                 .fns = &fns,
                 .rt = rt,
                 .rows = rows,
                 .cols = cols,
                 .pool = pool,
                 .n_contenders = CONTENDERS};
        for (int in = 0; in < k->n_inputs; in++)
            j.in[in] = bars[k->inputs[in]];
        row res = {0};
        const int measured = measure(&j, o, &res);
        peer_release(&fns);
        if (measured != 0) {
            rc = -1;
            break;
        }
        print_row(k, &res);
        if (res.agree.apo_nan > 0 || res.agree.apo > tolerance(k) || res.agree.threads > 0)
            rc = 1;
    }
    for (int i = 0; i < PEER_SERIES; i++)
        free(bars[i]);
    return rc;
}

static int has_row(const char *name) {
    for (size_t i = 0; i < peer_kernel_count + n_made; i++)
        if (strcmp(row_at(i)->name, name) == 0)
            return 1;
    return 0;
}

/* The kernels of this build that no table of the bench compares, so that a kernel added to
 * the catalog without a row here shows. */
static void print_uncompared(apo_runtime *rt) {
    size_t count = 0;
    const char *name = NULL;
    printf("# kernels without a peer here (not in TA-Lib, or not indicators):");
    if (apo_kernel_count(rt, &count) == APO_OK)
        for (size_t i = 0; i < count; i++)
            if (apo_kernel_name(rt, i, &name) == APO_OK && !has_row(name) &&
                strcmp(name, "bollinger") != 0 && strcmp(name, "macd") != 0)
                printf(" %s", name);
    printf("\n");
}

int peers_catalog_run(const bench_peers *p, apo_runtime *const rt[2],
                      const peers_catalog_options *o) {
    char drifting[256] = "";
    for (size_t i = 0; i < peer_kernel_count; i++)
        if (peer_kernels[i].running_sums) {
            const size_t used = strlen(drifting);
            snprintf(drifting + used, sizeof drifting - used, "%s%s", used > 0 ? ", " : "",
                     peer_kernels[i].name);
        }
    printf(
        "\n# catalog kernels: every one TA-Lib has, with TA-Lib's defaults, on OHLCV bars (close "
        "from bench_fill_walk, open the previous close, high/low widened by up to 5e-4, "
        "volume uniform in [1000, 10000); correl and beta against a second walk)\n"
        "# d_apo, d_tulip: worst |output - TA-Lib's| / max|TA-Lib's output| over each row "
        "and output (Tulip where both write); above %.0e (%.0e for %s, whose peers' running "
        "sums drift), or a NaN where TA-Lib has a value, is another computation: '*' marks "
        "such a Tulip ratio\n"
        "# after '|': medians of the calling thread's CPU time (ms) of the same calls, and "
        "their ratios: on a loaded machine the wall clock penalises the longer call\n",
        SAME_DEFINITION, SAME_DEFINITION_DRIFT, drifting);
    /* The rows past peer_kernels.c's: every other catalog kernel that TA-Lib 0.8 has. */
    talib_abstract ta;
    char why[160];
    const int have_ta = talib_abstract_load(&ta, find_talib, (void *)p, why, sizeof why) == 0;
    if (!have_ta)
        printf("# only the rows of peer_kernels.c: %s\n", why);
    n_made = peer_generate(rt[0], have_ta ? &ta : NULL, made, made_names, MAX_MADE);
    printf("# %zu kernels: %zu with a row of their own (TA-Lib called directly), %zu made from "
           "the catalog's list (TA-Lib through its abstract interface, TA_CallFunc)\n",
           peer_kernel_count + n_made, peer_kernel_count, n_made);
    print_uncompared(rt[0]);
    int worst_rc = 0;
    const size_t sizes[] = {10000, 1000000};
    for (size_t s = 0; s < 2 && worst_rc >= 0; s++) {
        if ((double)sizes[s] > o->max_size)
            continue;
        /* A window as long as the series leaves TA-Lib no output at all (it refuses the
         * call), so there is nothing to time or compare. */
        if (o->period >= (double)sizes[s]) {
            printf("\n# catalog kernels, 1 x %zu: left out, --period %.0f is not shorter than "
                   "the series\n",
                   sizes[s], o->period);
            continue;
        }
        const int rc = run_size(p, have_ta ? &ta : NULL, rt, o, 1, sizes[s]);
        worst_rc = rc < 0 ? rc : rc > worst_rc ? rc : worst_rc;
    }
    if (o->batch && worst_rc >= 0 && o->period >= (double)BATCH_COLS)
        printf("\n# catalog kernels, %d x %d: left out, --period %.0f is not shorter than the "
               "series\n",
               (int)BATCH_ROWS, (int)BATCH_COLS, o->period);
    else if (o->batch && worst_rc >= 0) {
        const int rc = run_size(p, have_ta ? &ta : NULL, rt, o, BATCH_ROWS, BATCH_COLS);
        worst_rc = rc < 0 ? rc : rc > worst_rc ? rc : worst_rc;
    }
    return worst_rc == 0 ? 0 : -1;
}
