/*
 * gpu.c: the GPU section of apo-bench-kernels (declared in bench.h; figures in docs/PERF.md).
 *
 * For every GPU the runtime finds, in one run:
 *   1. apo_cuda_bandwidth_measure(): device-to-device copy, host-to-device, device-to-host
 *      and duplex bandwidths, the ceilings of the rows below;
 *   2. device-resident bollinger and macd (apo_distribute_workload_cuda() with the input and
 *      the outputs in GPU memory) at each --gpu-sizes size: GB/s counting 8 B read and 24 B
 *      written per sample, and that as % of the d2d copy bandwidth (which also counts bytes
 *      read plus bytes written);
 *   3. host-resident end to end (apo_distribute_workload() on host arrays, devices
 *      "cuda:<uuid>"): time against the transfer bound, the time to move 8 B/sample in at
 *      the measured h2d rate and 24 B/sample out at the measured d2h rate with the two
 *      directions overlapped: bound = max(in_bytes / h2d, out_bytes / d2h);
 *   4. "cuda:<uuid>,cpu" with the runtime's own planning (a stored profile, else online
 *      refinement from equal shares: --gpu-warmup calls first) beside "cuda:<uuid>" alone:
 *      median makespans from the reports and their ratio.
 * Every configuration is checked before it is timed: the outputs must be bitwise equal to a
 * run on "cpu" alone (#wrong counts the values that are not). Without a GPU the section is
 * one line saying why. Only the public headers are used (apportion.h, apportion_cuda.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apportion_cuda.h"
#include "bench.h"
#include "gpu.h"

typedef struct bench_gpu_options {
    double sizes[BENCH_GPU_MAX_SIZES]; /* samples of one series */
    size_t n_sizes;
    double max_size;     /* sizes above it are skipped (--max-size, --quick) */
    int reps;            /* timed calls; 0: clamp(2e8 / samples, 3, 100) */
    int warmup;          /* untimed calls of "cuda:N,cpu" before timing */
    const char *kernels; /* --kernels selection; NULL: bollinger and macd */
} bench_gpu_options;

/* Bytes a streaming indicator moves per sample: 8 read, 24 written. */
#define IN_BYTES 8.0
#define OUT_BYTES 24.0

typedef struct gpu_kernel {
    const char *name;
    apo_param params[3];
} gpu_kernel;

static const gpu_kernel gpu_kernels[] = {
    {"bollinger", {{"period", 20}, {"nbdev_up", 2}, {"nbdev_dn", 2}}},
    {"macd", {{"fast", 12}, {"slow", 26}, {"signal", 9}}},
};
#define N_GPU_KERNELS (sizeof gpu_kernels / sizeof gpu_kernels[0])

/* ---- helpers of both GPU sections (gpu.h) ------------------------------------------------ */

double bench_host_available_bytes(void) {
    long avail = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return avail > 0 && page > 0 ? (double)avail * (double)page : INFINITY;
}

int bench_gpu_reps(int reps, double samples) {
    if (reps > 0)
        return reps;
    double r = floor(2e8 / samples + 0.5);
    return r < 3 ? 3 : r > 100 ? 100 : (int)r;
}

/* Only the "cuda:N,cpu" runtime keeps the profiles of the environment (`profiles`): its
 * planning is what the section measures, from a stored profile when there is one. The others
 * neither read nor write profiles. */
apo_status bench_gpu_runtime(const char *devices, apo_use_gpu use_gpu, int profiles,
                             apo_runtime **rt) {
    apo_config c = APO_CONFIG_INIT;
    c.devices = devices;
    c.use_gpu = use_gpu;
    if (!profiles) {
        c.profiles = APO_SWITCH_OFF;
        c.learn = APO_SWITCH_OFF;
    }
    *rt = NULL;
    return apo_runtime_create(&c, rt);
}

int bench_gpu_next(apo_runtime *rt, size_t *i, apo_device_info *info) {
    size_t ndev = 0;
    if (apo_device_count(rt, &ndev) != APO_OK)
        return 0;
    for (; *i < ndev; ++*i) {
        const apo_device_info empty = APO_DEVICE_INFO_INIT;
        *info = empty;
        if (apo_device_get(rt, *i, info) == APO_OK && info->kind == APO_DEVICE_CUDA) {
            ++*i;
            return 1;
        }
    }
    return 0;
}

apo_status bench_gpu_index(apo_runtime *rt, size_t *gi, uint64_t *free_bytes) {
    size_t ndev = 0, i = 0;
    apo_status st = apo_device_count(rt, &ndev);
    if (st != APO_OK)
        return st;
    apo_device_info di = APO_DEVICE_INFO_INIT;
    if (!bench_gpu_next(rt, &i, &di))
        return APO_ERR_NO_DEVICE;
    *gi = i - 1;
    *free_bytes = di.memory_free_bytes;
    return APO_OK;
}

apo_runtime *bench_gpu_probe(size_t *gpus, char *why, size_t size) {
    apo_runtime *probe = NULL;
    *gpus = 0;
    why[0] = '\0';
    apo_status st = bench_gpu_runtime("cuda", APO_USE_GPU_AUTO, 0, &probe);
    if (st == APO_OK)
        st = apo_gpu_count(probe, gpus);
    if (st != APO_OK) {
        snprintf(why, size, "%s: %s", apo_status_name(st), apo_last_error());
    } else if (*gpus == 0) {
        size_t n_warn = 0, off = 0;
        apo_runtime_warning_count(probe, &n_warn);
        for (size_t i = 0; i < n_warn && off < size; i++) {
            const char *msg = NULL;
            /* The warnings that say why no GPU is used. */
            if (apo_runtime_warning(probe, i, &msg) == APO_OK && msg != NULL &&
                strstr(msg, "GPU") != NULL) {
                int w = snprintf(why + off, size - off, "%s%s", off ? "; " : "", msg);
                off = w < 0 ? size : off + (size_t)w;
            }
        }
        if (off == 0)
            snprintf(why, size, "the runtime found no GPU");
    }
    if (st != APO_OK || *gpus == 0) {
        apo_runtime_destroy(probe);
        return NULL;
    }
    return probe;
}

/* The kernel variant the runtime reads (docs/cuda.md, "Staged kernels"); scripts/gpu-check.sh
 * runs the section under each to compare them. */
const char *bench_gpu_variant(void) {
    const char *variant = getenv("APPORTION_CUDA_KERNELS");
    return variant != NULL && strcmp(variant, "simple") == 0 ? "simple" : "staged";
}

static void workload(apo_workload *w, const gpu_kernel *k, size_t n, const double **in,
                     double **out) {
    apo_workload init = APO_WORKLOAD_INIT;
    *w = init;
    w->kernel = k->name;
    w->rows = 1;
    w->cols = n;
    w->inputs = in;
    w->n_inputs = 1;
    w->outputs = out;
    w->n_outputs = 3;
    w->params = k->params;
    w->n_params = 3;
    w->seed = 20261121;
}

static long count_wrong(double *const *a, double *const *b, size_t n) {
    long wrong = 0;
    for (size_t o = 0; o < 3; o++)
        for (size_t i = 0; i < n; i++)
            wrong += memcmp(&a[o][i], &b[o][i], sizeof(double)) != 0;
    return wrong;
}

static void poison(double *const *out, size_t n) {
    const uint64_t bits = 0x7ff4dead0000cafeull;
    for (size_t o = 0; o < 3; o++)
        for (size_t i = 0; i < n; i++)
            memcpy(&out[o][i], &bits, sizeof bits);
}

json_t *bench_gpu_num(double v) { return isfinite(v) ? json_real(v) : json_null(); }

void bench_gpu_set_rate(json_t *row, int reps, double med_ms, double min_ms, double gb_s) {
    json_object_set_new(row, "reps", json_integer(reps));
    json_object_set_new(row, "time_ms_median", bench_gpu_num(med_ms));
    json_object_set_new(row, "time_ms_min", bench_gpu_num(min_ms));
    json_object_set_new(row, "gb_s", bench_gpu_num(gb_s));
}

/* Everything one GPU's rows need. */
typedef struct gpu_run {
    const bench_gpu_options *opt;
    apo_runtime *cpu;   /* "cpu": the reference */
    apo_runtime *alone; /* "cuda:<uuid>" */
    apo_runtime *mixed; /* "cuda:<uuid>,cpu" */
    size_t gi;          /* the GPU's index in `alone` */
    apo_cuda_bandwidth bw;
    uint64_t gpu_free;
    long wrong;
    int failed;
} gpu_run;

/* Host buffers of one size: the input, the cpu reference and the outputs under test. */
typedef struct host_bufs {
    double *x;
    double *ref[3], *got[3];
} host_bufs;

static void free_bufs(host_bufs *b) {
    free(b->x);
    for (int o = 0; o < 3; o++) {
        free(b->ref[o]);
        free(b->got[o]);
    }
    memset(b, 0, sizeof *b);
}

static int alloc_bufs(host_bufs *b, size_t n) {
    memset(b, 0, sizeof *b);
    int ok = (b->x = malloc(n * sizeof(double))) != NULL;
    for (int o = 0; o < 3 && ok; o++)
        ok = (b->ref[o] = malloc(n * sizeof(double))) != NULL &&
             (b->got[o] = malloc(n * sizeof(double))) != NULL;
    if (!ok)
        free_bufs(b);
    return ok ? 0 : -1;
}

/* Device-resident rows: returns the JSON row. */
static json_t *resident_row(gpu_run *g, const gpu_kernel *k, size_t n, host_bufs *b) {
    json_t *row = json_pack("{s:s,s:I}", "kernel", k->name, "samples", (json_int_t)n);
    const double need = (IN_BYTES + OUT_BYTES) * (double)n;
    if (need > 0.8 * (double)g->gpu_free) {
        printf("%-10s %12zu  skipped: needs %.0f MiB of GPU memory, %.0f MiB free\n", k->name, n,
               need / 1048576.0, (double)g->gpu_free / 1048576.0);
        json_object_set_new(row, "skipped", json_string("does not fit in GPU memory"));
        return row;
    }
    void *din = NULL;
    double *dout[3] = {NULL, NULL, NULL};
    double *times = NULL;
    const char *skipped = NULL;
    apo_status st = apo_cuda_malloc(g->alone, g->gi, n * sizeof(double), &din);
    for (int o = 0; o < 3 && st == APO_OK; o++) {
        void *p = NULL;
        st = apo_cuda_malloc(g->alone, g->gi, n * sizeof(double), &p);
        dout[o] = p;
    }
    if (st == APO_OK)
        st = apo_cuda_memcpy(g->alone, g->gi, din, b->x, n * sizeof(double),
                             APO_COPY_HOST_TO_DEVICE);
    if (bench_check(st, "device buffers")) {
        skipped = "device buffers failed";
        goto done;
    }
    const double *in[1] = {din};
    apo_workload w;
    workload(&w, k, n, in, dout);
    apo_cuda_placement where = APO_CUDA_PLACEMENT_INIT;
    where.inputs_device = (int)g->gi;
    where.outputs_device = (int)g->gi;

    /* 1. Correctness: one call (also the warm-up), outputs copied back and compared. */
    poison(b->got, n);
    for (int o = 0; o < 3 && st == APO_OK; o++)
        st = apo_cuda_memcpy(g->alone, g->gi, dout[o], b->got[o], n * sizeof(double),
                             APO_COPY_HOST_TO_DEVICE);
    if (st == APO_OK)
        st = apo_distribute_workload_cuda(g->alone, &w, &where, NULL);
    for (int o = 0; o < 3 && st == APO_OK; o++)
        st = apo_cuda_memcpy(g->alone, g->gi, b->got[o], dout[o], n * sizeof(double),
                             APO_COPY_DEVICE_TO_HOST);
    if (bench_check(st, "device-resident run")) {
        skipped = "call failed";
        goto done;
    }
    long wrong = count_wrong(b->ref, b->got, n);

    /* 2. Timing: the call returns when the outputs are complete on the GPU. */
    const int reps = bench_gpu_reps(g->opt->reps, (double)n);
    times = malloc((size_t)reps * sizeof *times);
    if (times == NULL) {
        skipped = "allocation failed";
        goto done;
    }
    for (int r = 0; r < reps; r++) {
        double t0 = bench_now();
        st = apo_distribute_workload_cuda(g->alone, &w, &where, NULL);
        times[r] = bench_now() - t0;
        if (bench_check(st, "device-resident run")) {
            skipped = "call failed";
            goto done;
        }
    }
    const double min_ms = bench_min(times, (size_t)reps) * 1e3;
    const double med_ms = bench_median(times, (size_t)reps) * 1e3;
    const double gbs = (IN_BYTES + OUT_BYTES) * (double)n / (med_ms * 1e-3) * 1e-9;
    const double pct = gbs / g->bw.d2d_gbps * 100.0;
    printf("%-10s %12zu %5d %13.4f %10.4f %9.2f %9.1f %7ld\n", k->name, n, reps, med_ms, min_ms,
           gbs, pct, wrong);
    fflush(stdout);
    g->wrong += wrong;
    bench_gpu_set_rate(row, reps, med_ms, min_ms, gbs);
    json_object_set_new(row, "pct_d2d", bench_gpu_num(pct));
    json_object_set_new(row, "wrong", json_integer(wrong));
done:
    if (skipped != NULL) {
        g->failed = 1;
        printf("%-10s %12zu  skipped: %s\n", k->name, n, skipped);
        json_object_set_new(row, "skipped", json_string(skipped));
    }
    free(times);
    apo_cuda_free(g->alone, g->gi, din);
    for (int o = 0; o < 3; o++)
        apo_cuda_free(g->alone, g->gi, dout[o]);
    return row;
}

/* Runs `w` on rt `reps` times, after `warmup` calls; the medians of the wall time and of the
 * report's makespan. Returns 0, or -1 when a call failed. */
static int time_calls(apo_runtime *rt, const apo_workload *w, int warmup, int reps, double *med_ms,
                      double *min_ms, double *makespan_ms, apo_report *last) {
    double *t = malloc(2 * (size_t)reps * sizeof *t);
    if (t == NULL)
        return -1;
    for (int i = 0; i < warmup; i++)
        if (bench_check(apo_distribute_workload(rt, w, NULL), "warm-up call")) {
            free(t);
            return -1;
        }
    for (int r = 0; r < reps; r++) {
        apo_report rep = APO_REPORT_INIT;
        double t0 = bench_now();
        apo_status st = apo_distribute_workload(rt, w, &rep);
        t[r] = bench_now() - t0;
        t[reps + r] = rep.makespan_ms;
        if (bench_check(st, "timed call")) {
            free(t);
            return -1;
        }
        *last = rep;
    }
    *min_ms = bench_min(t, (size_t)reps) * 1e3;
    *med_ms = bench_median(t, (size_t)reps) * 1e3;
    *makespan_ms = bench_median(t + reps, (size_t)reps);
    free(t);
    return 0;
}

/* Host-resident on the GPU alone, against the transfer bound. Sets *alone_makespan. */
static json_t *host_row(gpu_run *g, const gpu_kernel *k, size_t n, host_bufs *b,
                        double *alone_makespan) {
    json_t *row = json_pack("{s:s,s:I}", "kernel", k->name, "samples", (json_int_t)n);
    *alone_makespan = NAN;
    const double *in[1] = {b->x};
    apo_workload w;
    workload(&w, k, n, in, b->got);
    poison(b->got, n);
    apo_report rep = APO_REPORT_INIT;
    if (bench_check(apo_distribute_workload(g->alone, &w, &rep), "host-resident run")) {
        g->failed = 1;
        printf("%-10s %12zu  skipped: call failed\n", k->name, n);
        json_object_set_new(row, "skipped", json_string("call failed"));
        return row;
    }
    const long wrong = count_wrong(b->ref, b->got, n);
    const int reps = bench_gpu_reps(g->opt->reps, (double)n);
    double med_ms, min_ms, makespan;
    if (time_calls(g->alone, &w, 0, reps, &med_ms, &min_ms, &makespan, &rep) != 0) {
        g->failed = 1;
        json_object_set_new(row, "skipped", json_string("call failed"));
        return row;
    }
    *alone_makespan = makespan;
    const double bound_ms = fmax(IN_BYTES * (double)n / (g->bw.h2d_gbps * 1e9),
                                 OUT_BYTES * (double)n / (g->bw.d2h_gbps * 1e9)) *
                            1e3;
    const double gbs = (IN_BYTES + OUT_BYTES) * (double)n / (med_ms * 1e-3) * 1e-9;
    const double pct = bound_ms / med_ms * 100.0;
    const apo_device_report *d = NULL;
    for (size_t i = 0; i < rep.n_devices; i++)
        if (rep.devices[i].kind == APO_DEVICE_CUDA)
            d = &rep.devices[i];
    const double overlap =
        d != NULL && d->wall_ms > 0 ? (d->h2d_ms + d->kernel_ms + d->d2h_ms) / d->wall_ms : NAN;
    const unsigned long long chunks = d != NULL ? (unsigned long long)d->chunks : 0ull;
    printf("%-10s %12zu %5d %13.4f %10.4f %9.2f %9.4f %9.1f %7.2f %6llu %7ld\n", k->name, n, reps,
           med_ms, min_ms, gbs, bound_ms, pct, overlap, chunks, wrong);
    fflush(stdout);
    g->wrong += wrong;
    bench_gpu_set_rate(row, reps, med_ms, min_ms, gbs);
    json_object_set_new(row, "bound_ms", bench_gpu_num(bound_ms));
    json_object_set_new(row, "pct_bound", bench_gpu_num(pct));
    json_object_set_new(row, "overlap", bench_gpu_num(overlap));
    json_object_set_new(row, "chunks", json_integer((json_int_t)chunks));
    json_object_set_new(row, "wrong", json_integer(wrong));
    return row;
}

/* "cuda:<uuid>,cpu" with the runtime's planning beside the GPU alone. */
static json_t *mixed_row(gpu_run *g, const gpu_kernel *k, size_t n, host_bufs *b,
                         double alone_makespan) {
    json_t *row = json_pack("{s:s,s:I}", "kernel", k->name, "samples", (json_int_t)n);
    const double *in[1] = {b->x};
    apo_workload w;
    workload(&w, k, n, in, b->got);
    const int reps = bench_gpu_reps(g->opt->reps, (double)n);
    double med_ms, min_ms, makespan;
    apo_report rep = APO_REPORT_INIT;
    /* The warm-up calls let online refinement move the split off equal shares. */
    poison(b->got, n);
    if (time_calls(g->mixed, &w, g->opt->warmup, 1, &med_ms, &min_ms, &makespan, &rep) != 0) {
        g->failed = 1;
        json_object_set_new(row, "skipped", json_string("call failed"));
        return row;
    }
    long wrong = count_wrong(b->ref, b->got, n);
    poison(b->got, n);
    if (time_calls(g->mixed, &w, 0, reps, &med_ms, &min_ms, &makespan, &rep) != 0) {
        g->failed = 1;
        json_object_set_new(row, "skipped", json_string("call failed"));
        return row;
    }
    /* The split may have moved during the timed calls; the bits may not. */
    wrong += count_wrong(b->ref, b->got, n);
    double cpu_share = NAN;
    for (size_t i = 0; i < rep.n_devices; i++)
        if (rep.devices[i].kind == APO_DEVICE_CPU)
            cpu_share = (double)rep.devices[i].elements / (double)rep.elements;
    const double ratio = makespan / alone_makespan;
    printf("%-10s %12zu %5d %13.4f %13.4f %7.3f %9.3f  %-8s %7ld\n", k->name, n, reps,
           alone_makespan, makespan, ratio, cpu_share, apo_ratio_source_name(rep.ratio_source),
           wrong);
    fflush(stdout);
    g->wrong += wrong;
    json_object_set_new(row, "reps", json_integer(reps));
    json_object_set_new(row, "warmup_calls", json_integer(g->opt->warmup));
    json_object_set_new(row, "alone_makespan_ms_median", bench_gpu_num(alone_makespan));
    json_object_set_new(row, "mixed_makespan_ms_median", bench_gpu_num(makespan));
    json_object_set_new(row, "ratio", bench_gpu_num(ratio));
    json_object_set_new(row, "cpu_elements_share", bench_gpu_num(cpu_share));
    json_object_set_new(row, "ratio_source", json_string(apo_ratio_source_name(rep.ratio_source)));
    json_object_set_new(row, "wrong", json_integer(wrong));
    return row;
}

static json_t *one_gpu(const bench_gpu_options *o, apo_runtime *cpu, const apo_device_info *info,
                       long *wrong, int *failed) {
    json_t *jg = json_pack("{s:s,s:s}", "id", info->id, "label", info->label);
    json_t *jres = json_array(), *jhost = json_array(), *jmixed = json_array();
    gpu_run g;
    memset(&g, 0, sizeof g);
    g.opt = o;
    g.cpu = cpu;
    char spec[APO_ID_MAX + 16];
    snprintf(spec, sizeof spec, "cuda:%s", info->id);
    apo_status st = bench_gpu_runtime(spec, APO_USE_GPU_YES, 0, &g.alone);
    if (!bench_check(st, spec)) {
        snprintf(spec, sizeof spec, "cuda:%s,cpu", info->id);
        st = bench_gpu_runtime(spec, APO_USE_GPU_YES, 1, &g.mixed);
        bench_check(st, spec);
    }
    if (st == APO_OK)
        st = bench_gpu_index(g.alone, &g.gi, &g.gpu_free);
    apo_cuda_bandwidth bw = APO_CUDA_BANDWIDTH_INIT;
    if (st == APO_OK)
        st = apo_cuda_bandwidth_measure(g.alone, g.gi, 0, &bw);
    if (bench_check(st, "GPU set-up and bandwidth")) {
        printf("# %s: skipped: set-up failed (%s)\n", info->label, apo_status_name(st));
        json_object_set_new(jg, "skipped", json_string(apo_status_name(st)));
        *failed = 1;
        goto out;
    }
    g.bw = bw;
    printf("\n# GPU %s (%s), %llu MiB free\n", info->label, info->id,
           (unsigned long long)(g.gpu_free >> 20));
    printf(
        "#   bandwidth (%zu MiB buffers, median): d2d %.1f GB/s (read + written), h2d %.1f GB/s, "
        "d2h %.1f GB/s, duplex %.1f GB/s\n",
        bw.bytes >> 20, bw.d2d_gbps, bw.h2d_gbps, bw.d2h_gbps, bw.duplex_gbps);
    json_object_set_new(
        jg, "bandwidth",
        json_pack("{s:I,s:o,s:o,s:o,s:o}", "bytes", (json_int_t)bw.bytes, "d2d_gbps",
                  bench_gpu_num(bw.d2d_gbps), "h2d_gbps", bench_gpu_num(bw.h2d_gbps), "d2h_gbps",
                  bench_gpu_num(bw.d2h_gbps), "duplex_gbps", bench_gpu_num(bw.duplex_gbps)));

    /* Table by table, kernel by kernel, size by size: the input and the cpu reference, then
     * the row. The mixed table compares with the host-resident makespans of table 1. */
    double alone_ms[N_GPU_KERNELS][BENCH_GPU_MAX_SIZES];
    for (size_t ki = 0; ki < N_GPU_KERNELS; ki++)
        for (size_t si = 0; si < BENCH_GPU_MAX_SIZES; si++)
            alone_ms[ki][si] = NAN;
    for (int table = 0; table < 3; table++) {
        if (table == 0)
            printf("# device-resident (apo_distribute_workload_cuda, arrays in GPU memory): "
                   "8 B read + 24 B written per sample; %%d2d = GB/s / d2d copy %.1f GB/s\n"
                   "%-10s %12s %5s %13s %10s %9s %9s %7s\n",
                   bw.d2d_gbps, "# kernel", "samples", "reps", "time_ms(med)", "min_ms", "GB/s",
                   "%d2d", "#wrong");
        else if (table == 1)
            printf("# host-resident end to end on %s alone: bound = max(8 B/sample / h2d, "
                   "24 B/sample / d2h); %%bound = bound / time; overlap = (h2d + kernel + d2h) "
                   "/ wall of the last call\n"
                   "%-10s %12s %5s %13s %10s %9s %9s %9s %7s %6s %7s\n",
                   info->label, "# kernel", "samples", "reps", "time_ms(med)", "min_ms", "GB/s",
                   "bound_ms", "%bound", "overlap", "chunks", "#wrong");
        else
            printf("# cuda,cpu with the runtime's planning (%d warm-up calls first, no explicit "
                   "ratios) beside the GPU alone: median makespans from the reports\n"
                   "%-10s %12s %5s %13s %13s %7s %9s  %-8s %7s\n",
                   o->warmup, "# kernel", "samples", "reps", "alone_ms", "gpu+cpu_ms", "ratio",
                   "cpu_share", "ratios", "#wrong");
        for (size_t ki = 0; ki < N_GPU_KERNELS; ki++) {
            const gpu_kernel *k = &gpu_kernels[ki];
            if (!bench_selected(o->kernels, k->name))
                continue;
            for (size_t si = 0; si < o->n_sizes && si < BENCH_GPU_MAX_SIZES; si++) {
                const size_t n = (size_t)o->sizes[si];
                if (o->sizes[si] > o->max_size) {
                    printf("%-10s %12zu  skipped: over --max-size %.0f\n", k->name, n, o->max_size);
                    continue;
                }
                /* Input, reference, outputs, and for the mixed runs nothing more. */
                if (7.0 * 8.0 * (double)n > 0.9 * bench_host_available_bytes()) {
                    printf("%-10s %12zu  skipped: not enough free host memory\n", k->name, n);
                    continue;
                }
                host_bufs b;
                if (alloc_bufs(&b, n) != 0) {
                    printf("%-10s %12zu  skipped: allocation failed\n", k->name, n);
                    continue;
                }
                bench_fill_walk(b.x, 1, n, 0x5eed0000u + 1);
                const double *in[1] = {b.x};
                apo_workload w;
                workload(&w, k, n, in, b.ref);
                if (bench_check(apo_distribute_workload(cpu, &w, NULL), "cpu reference")) {
                    *failed = 1;
                    free_bufs(&b);
                    continue;
                }
                if (table == 0)
                    json_array_append_new(jres, resident_row(&g, k, n, &b));
                else if (table == 1)
                    json_array_append_new(jhost, host_row(&g, k, n, &b, &alone_ms[ki][si]));
                else
                    json_array_append_new(jmixed, mixed_row(&g, k, n, &b, alone_ms[ki][si]));
                free_bufs(&b);
            }
        }
    }
    *wrong += g.wrong;
    *failed |= g.failed;
out:
    json_object_set_new(jg, "device_resident", jres);
    json_object_set_new(jg, "host_resident", jhost);
    json_object_set_new(jg, "gpu_and_cpu", jmixed);
    apo_runtime_destroy(g.alone);
    apo_runtime_destroy(g.mixed);
    return jg;
}

json_t *bench_gpu(const double *sizes, size_t n_sizes, double max_size, int reps, int warmup,
                  const char *kernels, long *wrong, int *failed) {
    bench_gpu_options opt;
    memset(&opt, 0, sizeof opt);
    opt.n_sizes = n_sizes < BENCH_GPU_MAX_SIZES ? n_sizes : BENCH_GPU_MAX_SIZES;
    for (size_t i = 0; i < opt.n_sizes; i++)
        opt.sizes[i] = sizes[i];
    opt.max_size = max_size;
    opt.reps = reps;
    opt.warmup = warmup;
    opt.kernels = kernels;
    const bench_gpu_options *o = &opt;
    json_t *j = json_object();
    apo_runtime *cpu = NULL;
    char why[1024] = "";
    size_t gpus = 0;
    apo_runtime *probe = bench_gpu_probe(&gpus, why, sizeof why);
    if (probe == NULL) {
        printf("\n# GPU section: skipped: no usable GPU (%s)\n", why);
        json_object_set_new(j, "skipped", json_string(why));
        return j;
    }
    if (bench_check(bench_gpu_runtime("cpu", APO_USE_GPU_NO, 0, &cpu), "cpu reference runtime")) {
        *failed = 1;
        json_object_set_new(j, "skipped", json_string("the cpu reference runtime failed"));
        apo_runtime_destroy(probe);
        return j;
    }
    const char *variant = bench_gpu_variant();
    printf("\n# GPU section: %zu GPU(s); CUDA kernels: %s (APPORTION_CUDA_KERNELS); correctness "
           "first: outputs bitwise against \"cpu\" alone (#wrong)\n",
           gpus, variant);
    json_object_set_new(j, "cuda_kernels", json_string(variant));
    json_t *devs = json_array();
    apo_device_info info = APO_DEVICE_INFO_INIT;
    for (size_t i = 0; bench_gpu_next(probe, &i, &info);)
        json_array_append_new(devs, one_gpu(o, cpu, &info, wrong, failed));
    json_object_set_new(j, "gpus", devs);
    apo_runtime_destroy(cpu);
    apo_runtime_destroy(probe);
    return j;
}
