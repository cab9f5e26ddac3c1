/*
 * apo-bench-builds: two builds of the library in one process, the same calls, interleaved call by
 * call (A, B, A, B, ...): each kernel at its defaults on one row of OHLCV bars, one thread
 * ("cpu:threads=1"), with the median wall time a call of each build, the median and quartiles
 * of the pairs' ratios B/A, and whether the two builds' outputs are bitwise equal.
 *
 * Why: a change to a kernel is measured against the build before it, and on a shared VM two
 * processes run one after the other may land in different states of the machine (docs/PERF.md,
 * "How to measure": the same binary twice apart by up to two times); a pair of calls a few
 * microseconds apart sees the same machine, so the ratio of each pair is the measure, and its
 * quartiles say how steady it was. Both builds are loaded with dlopen (RTLD_DEEPBIND, so each
 * resolves its own symbols), each with a runtime of its own, learning off unless --learn (a
 * default runtime learns: its models refit after every call, the fixed cost a small call pays).
 *
 *   apo-bench-builds --a OLD/libapportion.so.0.2.0 --b NEW/libapportion.so.0.2.0 \
 *       --kernels atr,rsi --sizes 10000,1000000
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apportion.h"
#include "bench.h"
#include "options.h"

const char bench_prog[] = "apo-bench-builds";

typedef struct builds_options {
    const char *a, *b, *kernels, *sizes;
    int reps;
    int learn; /* 1: both runtimes learn, models in memory only (--learn) */
} builds_options;

static const bench_option builds_rows[] = {
    BENCH_OPTION(builds_options, "--a", "LIB", TEXT, 0, 0, a,
                 "the first build's library (a path to libapportion.so.*)"),
    BENCH_OPTION(builds_options, "--b", "LIB", TEXT, 0, 0, b,
                 "the second build's library; ratios are B/A"),
    BENCH_OPTION(builds_options, "--kernels", "LIST", TEXT, 0, 0, kernels,
                 "kernels, a comma list (default bollinger)"),
    BENCH_OPTION(builds_options, "--sizes", "LIST", TEXT, 0, 0, sizes,
                 "bars of the row, a comma list (default 10000,1000000)"),
    BENCH_OPTION(builds_options, "--reps", "N", INT, 0, 100000, reps,
                 "pairs of calls at each size (default: 2e7 / bars, within 15 and 2001)"),
    BENCH_FLAG(builds_options, "--learn", learn,
               "both runtimes learn, as a default runtime does (models in memory, profiles off); "
               "by default they do not"),
};

static const bench_option_table builds_table = {
    "--a LIB --b LIB [--kernels LIST] [--sizes LIST] [--reps N] [--learn]", builds_rows,
    sizeof builds_rows / sizeof builds_rows[0], 22};

/* One build: its library, its entry points and its runtime. */
typedef struct build {
    void *lib;
    apo_status (*create)(const apo_config *, apo_runtime **);
    void (*destroy)(apo_runtime *);
    apo_status (*kernel_get)(const apo_runtime *, const char *, apo_kernel_info *);
    apo_status (*distribute)(apo_runtime *, const apo_workload *, apo_report *);
    const char *(*last_error)(void);
    apo_runtime *rt;
} build;

static int build_open(build *b, const char *path, int learn) {
    memset(b, 0, sizeof *b);
    b->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    if (b->lib == NULL) {
        fprintf(stderr, "%s: %s\n", bench_prog, dlerror());
        return -1;
    }
    /* POSIX's way from an object pointer to a function pointer (dlsym's own example). */
    *(void **)&b->create = dlsym(b->lib, "apo_runtime_create");
    *(void **)&b->destroy = dlsym(b->lib, "apo_runtime_destroy");
    *(void **)&b->kernel_get = dlsym(b->lib, "apo_kernel_get");
    *(void **)&b->distribute = dlsym(b->lib, "apo_distribute_workload");
    *(void **)&b->last_error = dlsym(b->lib, "apo_last_error");
    if (b->create == NULL || b->destroy == NULL || b->kernel_get == NULL || b->distribute == NULL ||
        b->last_error == NULL) {
        fprintf(stderr, "%s: %s is not a build of libapportion\n", bench_prog, path);
        return -1;
    }
    apo_config config = APO_CONFIG_INIT;
    config.devices = "cpu:threads=1";
    config.profiles = APO_SWITCH_OFF;
    config.learn = learn ? APO_SWITCH_ON : APO_SWITCH_OFF;
    if (b->create(&config, &b->rt) != APO_OK) {
        fprintf(stderr, "%s: %s: %s\n", bench_prog, path, b->last_error());
        return -1;
    }
    return 0;
}

/* The bars every kernel reads, by input name: the OHLCV of bench_fill_bars, and for a
 * kernel's second series of its own (correl's y, beta's) a second walk. */
typedef struct bars {
    double *open, *high, *low, *close, *volume, *other;
} bars;

static const double *bars_input(const bars *d, const char *name, size_t i) {
    if (strcmp(name, "open") == 0)
        return d->open;
    if (strcmp(name, "high") == 0)
        return d->high;
    if (strcmp(name, "low") == 0)
        return d->low;
    if (strcmp(name, "volume") == 0)
        return d->volume;
    if (strcmp(name, "close") == 0)
        return d->close;
    return i == 0 ? d->close : d->other;
}

/* One kernel at one size: reps pairs of calls, the two builds' outputs compared once. */
static int run_kernel(build *bd, const char *kernel, const bars *d, size_t n, int reps) {
    apo_kernel_info info = APO_KERNEL_INFO_INIT;
    if (bd[0].kernel_get(bd[0].rt, kernel, &info) != APO_OK) {
        fprintf(stderr, "%s: %s: %s\n", bench_prog, kernel, bd[0].last_error());
        return -1;
    }
    const double *in[APO_MAX_IO];
    for (size_t i = 0; i < info.n_inputs; i++)
        in[i] = bars_input(d, info.input_names[i], i);
    double *out[2][APO_MAX_IO] = {{NULL}};
    double *t[2] = {malloc((size_t)reps * sizeof(double)), malloc((size_t)reps * sizeof(double))};
    double *ratio = malloc((size_t)reps * sizeof(double));
    int rc = t[0] != NULL && t[1] != NULL && ratio != NULL ? 0 : -1;
    for (int b = 0; rc == 0 && b < 2; b++)
        for (size_t o = 0; o < info.n_outputs; o++)
            if ((out[b][o] = calloc(n, sizeof(double))) == NULL) /* a reduction writes less */
                rc = -1;
    for (int r = 0; rc == 0 && r < reps; r++) {
        for (int b = 0; rc == 0 && b < 2; b++) {
            apo_workload w = APO_WORKLOAD_INIT;
            w.kernel = kernel;
            w.rows = 1;
            w.cols = n;
            w.inputs = in;
            w.n_inputs = info.n_inputs;
            w.outputs = out[b];
            w.n_outputs = info.n_outputs;
            const double start = bench_now();
            if (bd[b].distribute(bd[b].rt, &w, NULL) != APO_OK) {
                fprintf(stderr, "%s: %s (%c): %s\n", bench_prog, kernel, "AB"[b],
                        bd[b].last_error());
                rc = -1;
            }
            t[b][r] = (bench_now() - start) * 1e6;
        }
        if (rc == 0)
            ratio[r] = t[1][r] / t[0][r];
    }
    if (rc == 0) {
        int same = 1;
        for (size_t o = 0; o < info.n_outputs; o++)
            same &= memcmp(out[0][o], out[1][o], n * sizeof(double)) == 0;
        const double a_us = bench_median(t[0], (size_t)reps),
                     b_us = bench_median(t[1], (size_t)reps);
        const double mid = bench_median(ratio, (size_t)reps); /* sorts ratio: the quartiles */
        printf("%-16s %9zu %5d %11.2f %11.2f %8.3f %8.3f %8.3f  %s\n", kernel, n, reps, a_us, b_us,
               mid, ratio[reps / 4], ratio[3 * reps / 4], same ? "equal" : "DIFFER");
    } else if (t[0] != NULL && t[1] != NULL && ratio != NULL) {
        fprintf(stderr, "%s: %s: out of memory or a call failed\n", bench_prog, kernel);
    }
    for (int b = 0; b < 2; b++)
        for (size_t o = 0; o < info.n_outputs; o++)
            free(out[b][o]);
    free(t[0]);
    free(t[1]);
    free(ratio);
    return rc;
}

/* Every kernel of the list at size n. */
static int run_size(build *bd, const char *kernels, size_t n, int reps_option) {
    bars d;
    double **rows[] = {&d.open, &d.high, &d.low, &d.close, &d.volume, &d.other};
    int rc = 0;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if ((*rows[i] = malloc(n * sizeof(double))) == NULL)
            rc = -1;
    if (rc == 0) {
        bench_fill_walk(d.close, 1, n, 1);
        bench_fill_walk(d.other, 1, n, 2);
        bench_fill_bars(d.close, 1, n, d.open, d.high, d.low, d.volume);
        const double by_size = 2e7 / (double)n;
        const int reps = reps_option > 0  ? reps_option
                         : by_size < 15   ? 15
                         : by_size > 2001 ? 2001
                                          : (int)by_size | 1;
        char kernel[128];
        size_t len;
        for (const char *p = kernels, *item;
             rc == 0 && (item = bench_list_next(&p, &len)) != NULL;) {
            rc = bench_item_copy(kernel, sizeof kernel, item, len);
            if (rc != 0)
                fprintf(stderr, "%s: kernel name too long: %.*s\n", bench_prog, (int)len, item);
            else
                rc = run_kernel(bd, kernel, &d, n, reps);
        }
    }
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        free(*rows[i]);
    return rc;
}

int main(int argc, char **argv) {
    builds_options o = {NULL, NULL, "bollinger", "10000,1000000", 0, 0};
    if (bench_options_parse(&builds_table, argc, argv, &o) != 0)
        return 2;
    if (o.a == NULL || o.b == NULL) {
        fprintf(stderr, "%s: --a and --b name the two builds' libraries\n", bench_prog);
        bench_options_usage(&builds_table, stderr);
        return 2;
    }
    build bd[2];
    if (build_open(&bd[0], o.a, o.learn) != 0 || build_open(&bd[1], o.b, o.learn) != 0)
        return 1;
    char load[64];
    bench_load_average(load, sizeof load);
    printf("# apo-bench-builds: A %s, B %s; one thread; learning %s; load average %s\n", o.a, o.b,
           o.learn ? "on (--learn, models in memory)" : "off", load);
    printf("# wall us a call, medians; B/A: the median and quartiles of the pairs' ratios (each "
           "pair a call of A then one of B)\n");
    printf("# kernel              bars  reps        A_us        B_us      B/A       q1       q3  "
           "outputs\n");
    int rc = 0;
    char size[64];
    size_t len;
    for (const char *p = o.sizes, *item; rc == 0 && (item = bench_list_next(&p, &len)) != NULL;) {
        double bars_count = 0;
        if (bench_item_copy(size, sizeof size, item, len) != 0 ||
            bench_parse_count(size, 2, 1e9, &bars_count) != 0) {
            fprintf(stderr, "%s: bad size: %.*s\n", bench_prog, (int)len, item);
            rc = 2;
        } else if (run_size(bd, o.kernels, (size_t)bars_count, o.reps) != 0) {
            rc = 1;
        }
    }
    for (int b = 0; b < 2; b++)
        bd[b].destroy(bd[b].rt);
    return rc;
}
