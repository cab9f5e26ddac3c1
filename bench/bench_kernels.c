/*
 * bench_kernels.c: apo-bench-kernels, the benchmark of the built-in kernels through the
 * public API (docs/PERF.md has the figures and how to read them).
 *
 * For each kernel and each configuration (rows x cols) it
 *   1. checks correctness before timing anything: the workload runs once on the runtime
 *      under test and once on three simulated devices (virtual clock, uneven explicit
 *      ratios, split along time), and every output element that is not bitwise equal
 *      between the two counts as wrong; bollinger is also checked at sampled positions
 *      against a naive two-pass window in long double, macd along whole sampled rows
 *      against the definition evaluated in long double, returns_stats against a two-pass
 *      evaluation in long double;
 *   2. times `reps` calls of apo_distribute_workload() on the runtime under test and
 *      reports the median (and the minimum), samples/s and GB/s, the latter counted as
 *      bytes the kernel must move (bollinger, macd: 8 read + 24 written per sample;
 *      returns_stats: 8 read), and %copy = GB/s over the STREAM copy bandwidth measured
 *      at the start of the same run.
 * Any wrong output makes the program exit 1 at the end. The checks live in kernel_checks.c,
 * the STREAM ceiling in stream.c, the per-call overhead in overhead.c.
 *
 * A sweep section follows (sweeps.c): bollinger over 20 periods and a 3 x 3 x 3 macd grid,
 * each checked bitwise against one call per set before it is timed against those calls.
 *
 * With --scores the program runs only the scored-sweep section (scores.c): scored calls on one
 * cpu thread, CPU nanoseconds per set-bar for lone sets and for sets that share a pass.
 *
 * With GPUs present, a GPU section follows (gpu.c): per GPU its measured bandwidths,
 * device-resident bollinger and macd against the d2d copy bandwidth, host-resident runs
 * against the transfer bound, and "cuda:N,cpu" beside "cuda:N" alone. Without a GPU it is
 * one line saying why.
 *
 * copy3 is a user kernel registered by the bench (out0 = out1 = out2 = x, tiles of 4096
 * like bollinger): the same bytes as bollinger through the same path, so it shows what the
 * runtime path itself can reach on this machine.
 */
#include <math.h>
#include <omp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "gpu.h"
#include "kernel_checks.h"
#include "options.h"
#include "scores.h"
#include "sweeps.h"

#define PROG "apo-bench-kernels"

const char bench_prog[] = PROG;

/* ---- small helpers -------------------------------------------------------------------- */

/* malloc, then first touch in parallel with the static schedule the kernels use. */
static double *alloc_touched(size_t n) {
    double *p = malloc(n * sizeof *p);
    if (p == NULL)
        return NULL;
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < (long long)n; i++)
        p[i] = 0.0;
    return p;
}

static double available_bytes(void) {
    long avail = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return avail > 0 && page > 0 ? (double)avail * (double)page : INFINITY;
}

/* ---- options -------------------------------------------------------------------------- */

typedef struct options {
    double max_size;
    int reps; /* 0: the rule in reps_for() */
    int quick;
    const char *json;
    const char *kernels;
    const char *devices;
    size_t stream_n;
    int stream_reps;
    size_t replicates;
    double boot_max_size;
    double gpu_sizes[BENCH_GPU_MAX_SIZES];
    size_t n_gpu_sizes;
    int gpu_warmup;
    int no_gpu;
    int no_sweeps;
    int sweeps_only;
    int scores;              /* only the scored-sweep section */
    int walk_forward;        /* only the walk-forward section (scores_walk_forward.c) */
    size_t scores_rows;      /* its series */
    size_t scores_bars;      /* and their bars */
    int scores_side;         /* the side of their rules (-1, 0, 1) */
    const char *scores_view; /* their view (compound, log, more; NULL: the plain one) */
    int gpu_catalog;         /* only the GPU catalog section */
    int gpu_sizes_given;
    double gpu_seconds;    /* its time limit (0: none) */
    double gpu_call_limit; /* its limit on one call's predicted seconds */
    size_t gpu_sweep_rows; /* its scored sweeps' series */
    size_t gpu_sweep_bars; /* and their bars */
} options;

/* --gpu-sizes "1e6,1e7,1e8": whole numbers of samples. */
static int parse_gpu_sizes(const char *text, void *options_) {
    options *o = options_;
    o->gpu_sizes_given = 1;
    o->n_gpu_sizes = 0;
    for (const char *p = text;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char item[32];
        double d;
        if (len == 0 || o->n_gpu_sizes == BENCH_GPU_MAX_SIZES ||
            bench_item_copy(item, sizeof item, p, len) != 0 ||
            bench_parse_count(item, 1, 1e10, &d) != 0)
            break;
        o->gpu_sizes[o->n_gpu_sizes++] = d;
        if (comma == NULL)
            return 0;
        p = comma + 1;
    }
    fprintf(stderr,
            PROG ": --gpu-sizes %s: expected at most %d whole numbers from 1 to 1e10, comma "
                 "separated\n",
            text, BENCH_GPU_MAX_SIZES);
    return BENCH_OPT_REPORTED;
}

#define OPT(...) BENCH_OPTION(options, __VA_ARGS__)
#define FLAG(...) BENCH_FLAG(options, __VA_ARGS__)

static const bench_option option_rows[] = {
    OPT("--max-size", "N", DOUBLE, 1, 1e12, max_size, "largest rows*cols to run (default 1e8)"),
    FLAG("--quick", quick, "only up to 1e6 samples (CI smoke run)"),
    OPT("--reps", "N", INT, 1, 1e6, reps,
        "timed calls per configuration (default: see the rule printed)"),
    OPT("--kernels", "LIST", TEXT, 0, 0, kernels,
        "comma list of bollinger,macd,returns_stats,bootstrap,copy3\n"
        "(default: all); the overhead table runs for bollinger/macd"),
    OPT("--devices", "LIST", TEXT, 0, 0, devices,
        "apo_config.devices of the runtime under test (default: the\n"
        "environment, else auto)"),
    OPT("--replicates", "N", SIZE, 1, 1e6, replicates, "bootstrap replicates per row (default 16)"),
    OPT("--bootstrap-max-size", "N", DOUBLE, 1, 1e12, boot_max_size,
        "largest rows*cols for bootstrap (default 1e7: a 1e8\n"
        "series is 1.6e9 DRAM-bound draws, minutes per call)"),
    OPT("--stream-size", "N", SIZE, 1024, 1e10, stream_n,
        "doubles per STREAM array (default 2^25)"),
    OPT("--stream-reps", "N", INT, 1, 1e4, stream_reps, "STREAM repetitions (default 20)"),
    {"--gpu-sizes", "LIST", BENCH_OPT_CUSTOM, 0, 0, 0,
     "samples of the GPU section's series, comma separated\n"
     "(default 1e6,1e7,1e8; a size that does not fit in GPU\n"
     "memory is skipped)",
     parse_gpu_sizes},
    OPT("--gpu-warmup", "N", INT, 0, 1e4, gpu_warmup,
        "untimed cuda:N,cpu calls before timing, so that online\n"
        "refinement can move the split (default 5)"),
    FLAG("--no-gpu", no_gpu, "leave out the GPU section"),
    FLAG("--no-sweeps", no_sweeps, "leave out the sweep section"),
    FLAG("--sweeps-only", sweeps_only,
         "only the sweep section (no STREAM, kernel tables, overhead\n"
         "or GPU section); --reps sets its rounds (default 5)"),
    FLAG("--scores", scores,
         "only the scored-sweep section: CPU ns per set-bar of scored\n"
         "calls on one cpu thread; --reps sets its rounds (default 7)"),
    OPT("--scores-rows", "N", SIZE, 1, 1e6, scores_rows, "its random walks (default 4)"),
    OPT("--scores-bars", "N", SIZE, 1, 1e9, scores_bars, "their bars (default 100000)"),
    OPT("--scores-side", "N", INT, -1, 1, scores_side,
        "the side of their rules: 1 long-only, -1 short-only,\n"
        "0 both (default 0)"),
    OPT("--scores-view", "NAME", TEXT, 0, 0, scores_view,
        "their view: compound, log or more (default: the plain\n"
        "scores)"),
    FLAG("--gpu-catalog", gpu_catalog,
         "only the GPU catalog section: a device-resident row for every\n"
         "kernel of the library's list (--kernels: names, or catalog)\n"
         "at each --gpu-sizes size (default 1e8), then scored sweeps\n"
         "(rsi rsi_zone, macd macd_cross) on each GPU alone"),
    OPT("--gpu-seconds", "N", DOUBLE, 1, 1e6, gpu_seconds,
        "its time limit: rows not started by then are listed as out\n"
        "of time (default: none)"),
    OPT("--gpu-call-limit", "S", DOUBLE, 1, 1e6, gpu_call_limit,
        "a row whose one call probes at a hundredth and a fiftieth\n"
        "of the size predict above S seconds is left out (default 2)"),
    OPT("--gpu-sweep-rows", "N", SIZE, 0, 1e6, gpu_sweep_rows,
        "the scored sweeps' series (default 500; 0: none)"),
    OPT("--gpu-sweep-bars", "N", SIZE, 201, 1e9, gpu_sweep_bars, "their bars (default 2520)"),
    FLAG("--walk-forward", walk_forward,
         "only the walk-forward section: a 1,000-set scored grid\n"
         "whole and over 10 windows, CPU s per call on one cpu\n"
         "thread over one walk of --scores-bars bars"),
    OPT("--json", "FILE", TEXT, 0, 0, json, "also write every result as JSON"),
};

#undef OPT
#undef FLAG

static const bench_option_table option_table = {"[options]", option_rows,
                                                sizeof option_rows / sizeof option_rows[0], 20};

/* ---- the copy3 user kernel -------------------------------------------------------------- */

static apo_status copy3_cpu(const apo_kernel_call *call, void *user) {
    (void)user;
    size_t off = call->row * call->cols;
    const double *x = call->inputs[0] + off;
    double *a = call->outputs[0] + off, *b = call->outputs[1] + off, *c = call->outputs[2] + off;
    for (size_t t = call->begin; t < call->end; t++) {
        const double v = x[t];
        a[t] = v;
        b[t] = v;
        c[t] = v;
    }
    return APO_OK;
}

static apo_status register_copy3(apo_runtime *rt) {
    apo_kernel_desc d = APO_KERNEL_DESC_INIT;
    d.name = "copy3";
    d.n_inputs = 1;
    d.n_outputs = 3;
    d.halo = 0;
    d.tile = 4096;
    d.cpu = copy3_cpu;
    return apo_kernel_register(rt, &d);
}

/* ---- kernels and configurations --------------------------------------------------------- */

typedef struct kernel_spec {
    const char *name;
    double bytes_per_sample; /* 0: compute-bound, no bandwidth figure */
} kernel_spec;

static const kernel_spec kernel_specs[] = {
    {"bollinger", 32}, {"macd", 32}, {"returns_stats", 8}, {"bootstrap", 0}, {"copy3", 32},
};
#define N_KERNELS (sizeof kernel_specs / sizeof kernel_specs[0])

/* The name of row i, for bench_list_unknown. */
static const char *kernel_spec_name(size_t i) { return kernel_specs[i].name; }

typedef struct shape {
    size_t rows, cols;
} shape;

static const shape shapes[] = {
    {1, 10000},     {1, 100000},   {1, 1000000},  {1, 10000000},
    {1, 100000000}, {1000, 10000}, {100, 100000},
};
#define N_SHAPES (sizeof shapes / sizeof shapes[0])

/* The repetition rule: about 2e8 units of work per configuration (samples; draws for
 * bootstrap), at least 3 and at most 100 timed calls. */
static int reps_for(const options *o, double work) {
    if (o->reps > 0)
        return o->reps;
    double r = floor(2e8 / work + 0.5);
    return r < 3 ? 3 : r > 100 ? 100 : (int)r;
}

typedef struct result {
    const char *kernel;
    size_t rows, cols;
    int reps;
    double median_ms, min_ms;
    double rate; /* samples/s, or draws/s for bootstrap */
    double gbs;  /* NaN: no bandwidth figure */
    double pct;  /* of the copy bandwidth; NaN when gbs is */
    long wrong;
    const char *skipped; /* why it did not run, or NULL */
} result;

/* ---- one configuration ------------------------------------------------------------------ */

typedef struct bench_ctx {
    const options *opt;
    apo_runtime *rt;     /* under test */
    apo_runtime *rt_sim; /* sim:a,sim:b,sim:c on the virtual clock */
    double copy_gbs;     /* STREAM copy, best of N */
    int api_failed;
} bench_ctx;

static void run_one(bench_ctx *c, const kernel_spec *k, shape sh, result *res) {
    const int is_boot = strcmp(k->name, "bootstrap") == 0;
    const size_t n = sh.rows * sh.cols;
    memset(res, 0, sizeof *res);
    res->kernel = k->name;
    res->rows = sh.rows;
    res->cols = sh.cols;
    res->gbs = res->pct = NAN;

    apo_param params[3];
    size_t n_params = 0;
    if (strcmp(k->name, "bollinger") == 0) {
        params[0] = (apo_param){"period", 20};
        params[1] = (apo_param){"nbdev_up", 2};
        params[2] = (apo_param){"nbdev_dn", 2};
        n_params = 3;
    } else if (strcmp(k->name, "macd") == 0) {
        params[0] = (apo_param){"fast", 12};
        params[1] = (apo_param){"slow", 26};
        params[2] = (apo_param){"signal", 9};
        n_params = 3;
    } else if (is_boot) {
        params[0] = (apo_param){"replicates", (double)c->opt->replicates};
        n_params = 1;
    }

    apo_workload w = bench_workload(k->name, sh.rows, sh.cols, NULL, 1);
    w.params = params;
    w.n_params = n_params;
    w.seed = 20261121;

    apo_kernel_info info = APO_KERNEL_INFO_INIT;
    if (bench_check(apo_kernel_get(c->rt, k->name, &info), "apo_kernel_get")) {
        c->api_failed = 1;
        res->skipped = "kernel not found";
        return;
    }
    size_t n_out = info.n_outputs, len[APO_MAX_IO];
    double need = (double)n * sizeof(double);
    for (size_t o = 0; o < n_out; o++) {
        size_t r, cc;
        if (bench_check(apo_output_shape(c->rt, &w, o, &r, &cc), "apo_output_shape")) {
            c->api_failed = 1;
            res->skipped = "bad workload";
            return;
        }
        len[o] = r * cc;
        need += 2.0 * (double)len[o] * sizeof(double);
    }
    if (need > 0.9 * available_bytes()) {
        res->skipped = "not enough free memory";
        return;
    }

    double *x = alloc_touched(n);
    double *a[APO_MAX_IO] = {0}, *b[APO_MAX_IO] = {0};
    double *times = NULL;
    int ok = x != NULL;
    for (size_t o = 0; o < n_out && ok; o++)
        ok = (a[o] = alloc_touched(len[o])) != NULL && (b[o] = alloc_touched(len[o])) != NULL;
    if (!ok) {
        res->skipped = "allocation failed";
        goto done;
    }
    bench_fill_walk(x, sh.rows, sh.cols, 0x5eed0000u + sh.rows);
    const double *in[1] = {x};
    w.inputs = in;
    w.n_outputs = n_out;

    /* 1. Correctness, before any timing. */
    apo_report rep = APO_REPORT_INIT;
    w.outputs = a;
    if (bench_check(apo_distribute_workload(c->rt, &w, &rep), k->name)) {
        c->api_failed = 1;
        res->skipped = "call failed";
        goto done;
    }
    apo_workload ws = w;
    const double ratios[3] = {0.5, 0.2, 0.3};
    ws.outputs = b;
    ws.ratios = ratios;
    ws.n_ratios = 3;
    ws.split = APO_SPLIT_TIME;
    if (bench_check(apo_distribute_workload(c->rt_sim, &ws, NULL), "sim reference run")) {
        c->api_failed = 1;
        res->skipped = "sim call failed";
        goto done;
    }
    res->wrong = bench_compare_bitwise(a, b, len, n_out);
    if (strcmp(k->name, "bollinger") == 0)
        res->wrong += bench_check_bollinger(x, sh.rows, sh.cols, rep.tile, a);
    else if (strcmp(k->name, "macd") == 0)
        res->wrong += bench_check_macd(x, sh.rows, sh.cols, a);
    else if (strcmp(k->name, "returns_stats") == 0)
        res->wrong += bench_check_returns_stats(x, sh.rows, sh.cols, a);
    else if (strcmp(k->name, "copy3") == 0)
        res->wrong += bench_check_copy3(x, n, a);

    /* 2. Timing: the first call above was the warm-up. */
    double work =
        is_boot ? (double)sh.rows * (double)c->opt->replicates * (double)(sh.cols - 1) : (double)n;
    res->reps = reps_for(c->opt, work);
    times = malloc((size_t)res->reps * sizeof *times);
    if (times == NULL) {
        res->skipped = "allocation failed";
        goto done;
    }
    w.outputs = a;
    for (int r = 0; r < res->reps; r++) {
        double t0 = bench_now();
        apo_status st = apo_distribute_workload(c->rt, &w, NULL);
        times[r] = bench_now() - t0;
        if (bench_check(st, k->name)) {
            c->api_failed = 1;
            res->skipped = "call failed";
            goto done;
        }
    }
    res->min_ms = bench_min(times, (size_t)res->reps) * 1e3;
    res->median_ms = bench_median(times, (size_t)res->reps) * 1e3;
    res->rate = work / (res->median_ms * 1e-3);
    if (k->bytes_per_sample > 0) {
        res->gbs = k->bytes_per_sample * (double)n / (res->median_ms * 1e-3) * 1e-9;
        res->pct = res->gbs / c->copy_gbs * 100.0;
    }

done:
    free(x);
    for (size_t o = 0; o < n_out; o++) {
        free(a[o]);
        free(b[o]);
    }
    free(times);
}

/* ---- output ----------------------------------------------------------------------------- */

static void print_kernel_header(const kernel_spec *k, const options *o) {
    const int is_boot = strcmp(k->name, "bootstrap") == 0;
    /* fputs, not printf("%s"): GCC's -Wformat-overflow cannot see that name is never NULL
     * and fails the sanitizer build under -Werror. */
    fputs("\n# ", stdout);
    fputs(k->name, stdout);
    if (strcmp(k->name, "bollinger") == 0)
        printf(" (period 20, nbdev 2/2): 8 B read + 24 B written per sample\n");
    else if (strcmp(k->name, "macd") == 0)
        printf(" (12/26/9): 8 B read + 24 B written per sample\n");
    else if (strcmp(k->name, "returns_stats") == 0)
        printf(": 8 B read per sample\n");
    else if (is_boot)
        printf(" (%zu replicates per row; draws = rows x replicates x (cols-1)): compute-bound, "
               "no GB/s\n",
               o->replicates);
    else
        printf(" (user kernel out0=out1=out2=x, tiles of 4096: bollinger's bytes through the "
               "same path)\n");
    printf("%-14s %14s %5s %13s %10s %11s %8s %7s %7s\n", "# kernel", "rows x cols", "reps",
           "time_ms(med)", "min_ms", is_boot ? "Mdraws/s" : "Msamples/s", "GB/s", "%copy",
           "#wrong");
}

static void print_result(const result *r) {
    char shape_s[48];
    snprintf(shape_s, sizeof shape_s, "%zu x %zu", r->rows, r->cols);
    if (r->skipped) {
        printf("%-14s %14s  skipped: %s\n", r->kernel, shape_s, r->skipped);
        return;
    }
    char gbs[16] = "-", pct[16] = "-";
    if (!isnan(r->gbs)) {
        snprintf(gbs, sizeof gbs, "%.2f", r->gbs);
        snprintf(pct, sizeof pct, "%.1f", r->pct);
    }
    printf("%-14s %14s %5d %13.4f %10.4f %11.1f %8s %7s %7ld\n", r->kernel, shape_s, r->reps,
           r->median_ms, r->min_ms, r->rate * 1e-6, gbs, pct, r->wrong);
    fflush(stdout);
}

static json_t *json_num_or_null(double v) { return isnan(v) ? json_null() : json_real(v); }

/* ---- main: the steps ---------------------------------------------------------------------- */

/* Everything one run holds, and what it gives the JSON file at the end. */
typedef struct bench_run {
    bench_ctx ctx;
    apo_runtime *rt_serial; /* cpu:threads=1, the overhead table's */
    char host[256], model[256], load_start[64], load_end[64];
    long cpus;
    json_t *jdev, *jstream, *jres, *jover, *jtargets, *jgpu, *jsweeps, *jscores, *jgpucat;
    result *results;
    size_t n_results;
    long total_wrong;
    double worst_over;
} bench_run;

/* Reads the options; every --kernels name must be known, except in the GPU catalog section,
 * which checks its names against the library's own list. Returns 0, or the exit status 2. */
static int read_options(int argc, char **argv, options *o) {
    if (bench_options_parse(&option_table, argc, argv, o) != 0)
        return 2;
    if (o->quick && o->max_size > 1e6)
        o->max_size = 1e6;
    size_t len;
    const char *unknown =
        bench_list_unknown(o->gpu_catalog ? NULL : o->kernels, kernel_spec_name, N_KERNELS, &len);
    if (unknown != NULL) {
        fprintf(stderr, PROG ": unknown kernel \"%.*s\" in --kernels\n", (int)len, unknown);
        return 2;
    }
    return 0;
}

/* The runtime under test, the simulated one of the checks and the serial one of the overhead
 * table. A bench measures; it must not leave models or simulated devices in the user's
 * profile, so every runtime here keeps its models in memory. Returns 0 or -1. */
static int open_runtimes(bench_run *b, const options *o) {
    apo_config cfg = APO_CONFIG_INIT;
    cfg.devices = o->devices;
    cfg.profiles = APO_SWITCH_OFF;
    apo_config cfg_sim = APO_CONFIG_INIT;
    cfg_sim.devices = "sim:a,sim:b,sim:c";
    cfg_sim.sim_clock = APO_SIM_CLOCK_VIRTUAL;
    cfg_sim.profiles = APO_SWITCH_OFF;
    apo_config cfg_serial = APO_CONFIG_INIT;
    cfg_serial.devices = "cpu:threads=1";
    cfg_serial.profiles = APO_SWITCH_OFF;
    if (bench_check(apo_runtime_create(&cfg, &b->ctx.rt), "apo_runtime_create") ||
        bench_check(apo_runtime_create(&cfg_sim, &b->ctx.rt_sim), "apo_runtime_create (sim)") ||
        bench_check(apo_runtime_create(&cfg_serial, &b->rt_serial),
                    "apo_runtime_create (serial)") ||
        bench_check(register_copy3(b->ctx.rt), "register copy3") ||
        bench_check(register_copy3(b->ctx.rt_sim), "register copy3 (sim)"))
        return -1;
    return 0;
}

/* The CPU's model name from /proc/cpuinfo, "unknown" where it has none. */
static void read_cpu_model(char *model, size_t size) {
    snprintf(model, size, "unknown");
    FILE *ci = fopen("/proc/cpuinfo", "r");
    if (ci == NULL)
        return;
    char line[512];
    while (fgets(line, sizeof line, ci) != NULL)
        if (strncmp(line, "model name", 10) == 0) {
            const char *colon = strchr(line, ':');
            if (colon != NULL) {
                snprintf(model, size, "%s", colon + 2);
                model[strcspn(model, "\n")] = '\0';
            }
            break;
        }
    fclose(ci);
}

/* The header: the machine, its load, the devices under test and their warnings. */
static void print_header(bench_run *b, const options *o) {
    snprintf(b->host, sizeof b->host, "?");
    gethostname(b->host, sizeof b->host - 1);
    read_cpu_model(b->model, sizeof b->model);
    b->cpus = sysconf(_SC_NPROCESSORS_ONLN);
    printf("# " PROG " (apportion %s)\n", apo_version());
    bench_load_average(b->load_start, sizeof b->load_start);
    printf("# host %s, cpu \"%s\", %ld online cpus, %d OpenMP threads, load average %s\n", b->host,
           b->model, b->cpus, omp_get_max_threads(), b->load_start);
    size_t ndev = 0;
    apo_device_count(b->ctx.rt, &ndev);
    printf("# runtime under test: devices \"%s\":", o->devices ? o->devices : "(default)");
    for (size_t i = 0; i < ndev; i++) {
        apo_device_info di = APO_DEVICE_INFO_INIT;
        if (apo_device_get(b->ctx.rt, i, &di) == APO_OK) {
            printf("%s %s", i ? "," : "", di.label);
            json_array_append_new(b->jdev, json_string(di.label));
        }
    }
    printf("\n");
    size_t nwarn = 0;
    apo_runtime_warning_count(b->ctx.rt, &nwarn);
    for (size_t i = 0; i < nwarn; i++) {
        const char *msg;
        if (apo_runtime_warning(b->ctx.rt, i, &msg) == APO_OK)
            printf("# runtime warning: %s\n", msg);
    }
}

/* The STREAM ceiling that %copy divides by, measured first. Returns 0 or -1. */
static int run_stream(bench_run *b, const options *o) {
    printf("# correctness: each configuration first runs on sim:a,sim:b,sim:c (virtual clock, "
           "ratios 0.5/0.2/0.3, split by time);\n"
           "#   #wrong = outputs not bitwise equal + reference mismatches "
           "(bollinger: sampled positions, naive long double two-pass, rel > 1e-10)\n");
    printf("# timing: median (and min) of reps calls of apo_distribute_workload(); reps = "
           "clamp(2e8 / work, 3, 100)%s, work = samples (draws for bootstrap)\n",
           o->reps > 0 ? " (overridden by --reps)" : "");
    bench_stream_result st[BENCH_STREAM_N];
    fflush(stdout);
    if (bench_stream(o->stream_n, o->stream_reps, st) != 0) {
        fprintf(stderr, PROG ": the STREAM arrays (%zu doubles) could not be allocated\n",
                o->stream_n);
        return -1;
    }
    printf("# STREAM ceiling: %zu doubles per array (%.0f MiB), %d reps, all %d threads; "
           "bytes counted as STREAM does\n",
           o->stream_n, (double)o->stream_n * 8 / 1048576.0, o->stream_reps, omp_get_max_threads());
    for (int i = 0; i < BENCH_STREAM_N; i++) {
        printf("#   %-5s (%2.0f B/elem)  best %7.2f GB/s  median %7.2f GB/s  (%.3f / %.3f ms)\n",
               st[i].name, st[i].bytes_per_elem, st[i].best_gbs, st[i].median_gbs, st[i].best_ms,
               st[i].median_ms);
        json_object_set_new(b->jstream, st[i].name,
                            json_pack("{s:f,s:f,s:f,s:f,s:f}", "bytes_per_elem",
                                      st[i].bytes_per_elem, "best_gbs", st[i].best_gbs,
                                      "median_gbs", st[i].median_gbs, "best_ms", st[i].best_ms,
                                      "median_ms", st[i].median_ms));
    }
    printf("# %%copy = GB/s / STREAM copy best (%.2f GB/s) * 100; GB/s from the median time\n",
           st[BENCH_STREAM_COPY].best_gbs);
    printf("# max size %.0f samples%s\n", o->max_size, o->quick ? " (--quick)" : "");
    fflush(stdout);
    b->ctx.copy_gbs = st[BENCH_STREAM_COPY].best_gbs;
    return 0;
}

static json_t *result_json(const result *r, const options *o) {
    const int is_boot = strcmp(r->kernel, "bootstrap") == 0;
    json_t *j = json_pack(
        "{s:s,s:I,s:I,s:I,s:o,s:o,s:o,s:o,s:o,s:I}", "kernel", r->kernel, "rows",
        (json_int_t)r->rows, "cols", (json_int_t)r->cols, "reps", (json_int_t)r->reps,
        "time_ms_median", json_num_or_null(r->skipped ? NAN : r->median_ms), "time_ms_min",
        json_num_or_null(r->skipped ? NAN : r->min_ms), is_boot ? "draws_per_s" : "samples_per_s",
        json_num_or_null(r->skipped ? NAN : r->rate), "gb_s", json_num_or_null(r->gbs), "pct_copy",
        json_num_or_null(r->pct), "wrong", (json_int_t)r->wrong);
    if (r->skipped)
        json_object_set_new(j, "skipped", json_string(r->skipped));
    if (is_boot)
        json_object_set_new(j, "replicates", json_integer((json_int_t)o->replicates));
    return j;
}

/* One table per kernel: a row per shape up to --max-size. Returns 0 or -1. */
static int run_kernel_tables(bench_run *b, const options *o) {
    b->results = calloc(N_KERNELS * N_SHAPES, sizeof *b->results);
    if (b->results == NULL)
        return -1;
    for (size_t ki = 0; ki < N_KERNELS; ki++) {
        const kernel_spec *k = &kernel_specs[ki];
        if (!bench_selected(o->kernels, k->name))
            continue;
        print_kernel_header(k, o);
        for (size_t si = 0; si < N_SHAPES; si++) {
            const double samples = (double)shapes[si].rows * (double)shapes[si].cols;
            if (samples > o->max_size)
                continue;
            result *r = &b->results[b->n_results++];
            if (strcmp(k->name, "bootstrap") == 0 && samples > o->boot_max_size) {
                memset(r, 0, sizeof *r);
                r->kernel = k->name;
                r->rows = shapes[si].rows;
                r->cols = shapes[si].cols;
                r->gbs = r->pct = NAN;
                r->skipped = "over --bootstrap-max-size (default 1e7)";
            } else {
                run_one(&b->ctx, k, shapes[si], r);
            }
            print_result(r);
            b->total_wrong += r->wrong;
            json_array_append_new(b->jres, result_json(r, o));
        }
    }
    return 0;
}

static json_t *overhead_json(const bench_overhead_row *row) {
    return json_pack("{s:s,s:I,s:I,s:f,s:f,s:f,s:f,s:f,s:I}", "kernel", row->kernel, "cols",
                     (json_int_t)row->cols, "calls", (json_int_t)row->calls, "direct_us",
                     row->direct_us, "cpu1_us", row->serial_us, "default_us", row->default_us,
                     "overhead_cpu1_us", row->over_serial_us, "overhead_default_us",
                     row->over_default_us, "wrong", (json_int_t)row->wrong);
}

/* Per-call overhead of bollinger and macd (see overhead.c for what the direct baseline is). */
static void run_overhead(bench_run *b, const options *o) {
    const int over_b = bench_selected(o->kernels, "bollinger"),
              over_m = bench_selected(o->kernels, "macd");
    if (!over_b && !over_m)
        return;
    printf("\n# per-call overhead, rows = 1: median over `calls` calls, interleaved; direct = "
           "apo_*_tile() over every tile, serially (kernels.h)\n");
    printf("#   over(cpu1) = cpu:threads=1 runtime - direct (same serial work); "
           "over(default) = default runtime - direct\n");
    printf("%-10s %8s %6s %11s %11s %11s %12s %14s %7s\n", "# kernel", "cols", "calls", "direct_us",
           "cpu1_us", "default_us", "over(cpu1)", "over(default)", "#wrong");
    const size_t sizes[] = {1000, 10000, 100000};
    for (int kk = 0; kk < 2; kk++) {
        if (!(kk == 0 ? over_b : over_m))
            continue;
        for (size_t i = 0; i < 3; i++) {
            double calls_d = floor(2e7 / (double)sizes[i]);
            size_t calls = calls_d > 2000 ? 2000 : calls_d < 200 ? 200 : (size_t)calls_d;
            bench_overhead_row row;
            if (bench_overhead(b->rt_serial, b->ctx.rt, kk == 0 ? "bollinger" : "macd", sizes[i],
                               calls, &row) != 0) {
                b->ctx.api_failed = 1;
                continue;
            }
            printf("%-10s %8zu %6zu %11.2f %11.2f %11.2f %12.2f %14.2f %7ld\n", row.kernel,
                   row.cols, row.calls, row.direct_us, row.serial_us, row.default_us,
                   row.over_serial_us, row.over_default_us, row.wrong);
            fflush(stdout);
            b->total_wrong += row.wrong;
            b->worst_over = row.over_serial_us > b->worst_over ? row.over_serial_us : b->worst_over;
            json_array_append_new(b->jover, overhead_json(&row));
        }
    }
}

/* The sweep section, then the GPU section: GPUs of this machine, whatever --devices says for
 * the tables above. */
static void run_sweeps_and_gpu(bench_run *b, const options *o) {
    int failed = 0;
    if (!o->no_sweeps)
        b->jsweeps = bench_sweeps(b->ctx.rt, o->devices ? o->devices : "(default)", b->ctx.rt_sim,
                                  o->reps, o->max_size, o->kernels, &b->total_wrong, &failed);
    if (!o->sweeps_only && !o->no_gpu &&
        (bench_selected(o->kernels, "bollinger") || bench_selected(o->kernels, "macd")))
        b->jgpu = bench_gpu(o->gpu_sizes, o->n_gpu_sizes, o->max_size, o->reps, o->gpu_warmup,
                            o->kernels, &b->total_wrong, &failed);
    if (failed)
        b->ctx.api_failed = 1;
}

/* Targets of the CPU-kernels issue: reported, not asserted. */
static void print_targets(bench_run *b, const options *o) {
    if (!o->sweeps_only)
        printf("\n# targets (this machine): bollinger and macd at 1 x 1000000 and 1000 x 10000 >= "
               "70%% "
               "of copy; overhead(cpu1) <= 10 us\n");
    for (size_t i = 0; i < b->n_results; i++) {
        const result *r = &b->results[i];
        int is_target =
            (strcmp(r->kernel, "bollinger") == 0 || strcmp(r->kernel, "macd") == 0) &&
            ((r->rows == 1 && r->cols == 1000000) || (r->rows == 1000 && r->cols == 10000));
        if (!is_target || r->skipped)
            continue;
        int met = r->pct >= 70.0;
        printf("#   %-9s %4zu x %-8zu %6.1f%% of copy: %s\n", r->kernel, r->rows, r->cols, r->pct,
               met ? "met" : "MISSED");
        json_array_append_new(b->jtargets,
                              json_pack("{s:s,s:I,s:I,s:f,s:b}", "kernel", r->kernel, "rows",
                                        (json_int_t)r->rows, "cols", (json_int_t)r->cols,
                                        "pct_copy", r->pct, "met", met));
    }
    if (isfinite(b->worst_over))
        printf("#   overhead  worst over(cpu1) %.2f us: %s\n", b->worst_over,
               b->worst_over <= 10.0 ? "met" : "MISSED");
}

/* The GPU catalog section alone (gpu_catalog.c): its own sizes, 1e8 unless given. */
static void run_gpu_catalog(bench_run *b, const options *o) {
    static const double catalog_size = 1e8;
    bench_gpu_catalog_options co = {
        .sizes = o->gpu_sizes_given ? o->gpu_sizes : &catalog_size,
        .n_sizes = o->gpu_sizes_given ? o->n_gpu_sizes : 1,
        .reps = o->reps,
        .kernels = o->kernels,
        .seconds = o->gpu_seconds,
        .call_limit_s = o->gpu_call_limit,
        .sweep_rows = o->gpu_sweep_rows,
        .sweep_bars = o->gpu_sweep_bars,
    };
    int failed = 0;
    b->jgpucat = bench_gpu_catalog(&co, &b->total_wrong, &failed);
    if (failed)
        b->ctx.api_failed = 1;
}

/* The sections the options ask for. Returns 0, or -1 when one could not run at all. */
static int run_sections(bench_run *b, const options *o) {
    int failed = 0;
    if (o->walk_forward) {
        b->jscores = bench_walk_forward(o->scores_bars, o->reps, &b->total_wrong, &failed);
    } else if (o->scores) {
        b->jscores = bench_scores(o->scores_rows, o->scores_bars, o->scores_side, o->scores_view,
                                  o->reps, &b->total_wrong, &failed);
    } else if (o->gpu_catalog) {
        run_gpu_catalog(b, o);
    } else {
        /* The STREAM ceiling, the tables and the overhead are the kernels' alone. */
        if (!o->sweeps_only) {
            if (run_stream(b, o) != 0 || run_kernel_tables(b, o) != 0)
                return -1;
            run_overhead(b, o);
        }
        run_sweeps_and_gpu(b, o);
        print_targets(b, o);
    }
    if (failed)
        b->ctx.api_failed = 1;
    return 0;
}

/* Hands `*j` to the root under `key` (null when the section did not run). */
static void set_taken(json_t *root, const char *key, json_t **j) {
    json_object_set_new(root, key, *j != NULL ? *j : json_null());
    *j = NULL;
}

/* --json: every figure of the run, as the tables printed them. Returns 0 or -1. */
static int write_json(bench_run *b, const options *o) {
    json_t *root = json_object();
    json_object_set_new(root, "program", json_string(PROG));
    json_object_set_new(root, "library_version", json_string(apo_version()));
    json_object_set_new(root, "host", json_string(b->host));
    json_object_set_new(root, "cpu_model", json_string(b->model));
    json_object_set_new(root, "online_cpus", json_integer(b->cpus));
    json_object_set_new(root, "omp_threads", json_integer(omp_get_max_threads()));
    json_object_set_new(root, "load_average_start", json_string(b->load_start));
    json_object_set_new(root, "load_average_end", json_string(b->load_end));
    set_taken(root, "devices", &b->jdev);
    json_object_set_new(root, "stream_elems", json_integer((json_int_t)o->stream_n));
    set_taken(root, "stream", &b->jstream);
    set_taken(root, "results", &b->jres);
    set_taken(root, "overhead", &b->jover);
    set_taken(root, "targets", &b->jtargets);
    set_taken(root, "gpu", &b->jgpu);
    set_taken(root, "sweeps", &b->jsweeps);
    set_taken(root, "scores", &b->jscores);
    set_taken(root, "gpu_catalog", &b->jgpucat);
    json_object_set_new(root, "total_wrong", json_integer(b->total_wrong));
    int st = json_dump_file(root, o->json, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
    json_decref(root);
    if (st != 0)
        fprintf(stderr, PROG ": cannot write %s\n", o->json);
    return st != 0 ? -1 : 0;
}

/* The last lines, the JSON file, and the exit status: 1 on any wrong output or failure. */
static int finish(bench_run *b, const options *o) {
    printf("# total #wrong: %ld\n", b->total_wrong);
    bench_load_average(b->load_end, sizeof b->load_end);
    printf("# load average at the end: %s\n", b->load_end);
    int exit_code = 0;
    if (o->json != NULL && write_json(b, o) != 0)
        exit_code = 1;
    return b->total_wrong != 0 || b->ctx.api_failed ? 1 : exit_code;
}

static void close_run(bench_run *b) {
    json_t *js[] = {b->jdev, b->jstream, b->jres,    b->jover,  b->jtargets,
                    b->jgpu, b->jsweeps, b->jscores, b->jgpucat};
    for (size_t i = 0; i < sizeof js / sizeof js[0]; i++)
        json_decref(js[i]);
    free(b->results);
    apo_runtime_destroy(b->ctx.rt);
    apo_runtime_destroy(b->ctx.rt_sim);
    apo_runtime_destroy(b->rt_serial);
}

int main(int argc, char **argv) {
    options opt = {.max_size = 1e8,
                   .stream_n = (size_t)1 << 25,
                   .stream_reps = 20,
                   .replicates = 16,
                   .boot_max_size = 1e7,
                   .gpu_sizes = {1e6, 1e7, 1e8},
                   .n_gpu_sizes = 3,
                   .gpu_warmup = 5,
                   .scores_rows = 4,
                   .scores_bars = 100000,
                   .gpu_call_limit = 2,
                   .gpu_sweep_rows = 500,
                   .gpu_sweep_bars = 2520};
    int st = read_options(argc, argv, &opt);
    if (st != 0)
        return st;
    bench_run b = {.ctx = {.opt = &opt, .copy_gbs = NAN},
                   .jdev = json_array(),
                   .jstream = json_object(),
                   .jres = json_array(),
                   .jover = json_array(),
                   .jtargets = json_array(),
                   .worst_over = -INFINITY};
    int exit_code = 1;
    if (open_runtimes(&b, &opt) == 0) {
        print_header(&b, &opt);
        if (run_sections(&b, &opt) == 0)
            exit_code = finish(&b, &opt);
    }
    close_run(&b);
    return exit_code;
}
