/*
 * gpu_catalog.c: the GPU catalog section of apo-bench-kernels (--gpu-catalog; declared in
 * gpu.h; scripts/gpu-check.sh, step bench-catalog; docs/cuda.md, "Checking a GPU").
 *
 * For every GPU the runtime finds, in one run:
 *   1. apo_cuda_bandwidth_measure()'s device-to-device copy, the ceiling of the rows below;
 *   2. scored sweeps on the GPU alone ("cuda:<uuid>"), host-resident: the one form in which a
 *      GPU scores a piece's sets in one launch (a scored group whose outputs stay in GPU memory
 *      runs set by set: docs/cuda.md, "Scored sweeps on a GPU"). Scores bitwise against "cpu"
 *      first, then the median of reps calls (the first call, which pins the staging slots,
 *      untimed) in set-bars per second: sets x series x bars / median. They come before the
 *      resident rows, which can fill the whole --gpu-seconds;
 *   3. a device-resident row for every kernel of the library's own list (apo_kernel_count,
 *      apo_kernel_name, apo_kernel_get: the built-ins and the catalog, not a list of ours)
 *      at each size, one series of that many samples, default parameters: the inputs made
 *      by name (close, open, high, low and volume from bench_fill_walk and bench_fill_bars; x is
 *      the close, y a second walk) and copied to the GPU once, the outputs as the kernel
 *      shapes them (apo_output_shape), run with apo_distribute_workload_cuda() on arrays in
 *      GPU memory. Each row is checked before it is timed: the outputs, copied back, must be
 *      bitwise equal to the same workload on "cpu" alone (#wrong counts the values that are
 *      not). Then the median of reps calls, GB/s = (inputs + outputs) x 8 B x samples /
 *      median, and that as % of the d2d copy (which also counts bytes read plus written);
 * A kernel the GPU cannot take at a size is a row that says why (skipped: reason), not a
 * failure: a reduction (its outputs are not one per sample, so GB/s per sample does not
 * describe it), an input this section cannot make, memory, or a call that a probe at a
 * hundredth of the size predicts to take longer than the call limit (a serial chain per row,
 * obv's and ad's, runs on one GPU thread: 245 to 254 ms for 1e6 samples on an H100,
 * docs/PERF.md). With a time limit, what had no time is listed at the end. Public headers
 * only.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apportion_cuda.h"
#include "bench.h"
#include "gpu.h"

/* The inputs the section makes, by the names kernels give them. x is the close (correl and
 * beta read a pair of series; the close and a second walk are such a pair); the open is
 * bench_fill_bars' (the previous close), which the candle patterns, bop, imi and avgprice read. */
enum { IN_CLOSE, IN_OPEN, IN_HIGH, IN_LOW, IN_VOLUME, IN_Y, N_MADE };
static const char *const made_names[N_MADE] = {"close", "open", "high", "low", "volume", "y"};

/* Outputs a row can have: the most of any per-sample kernel of the library (bollinger, macd). */
#define CAT_MAX_OUT 3

static int made_index(const char *name) {
    if (strcmp(name, "x") == 0)
        return IN_CLOSE;
    for (int i = 0; i < N_MADE; i++)
        if (strcmp(name, made_names[i]) == 0)
            return i;
    return -1;
}

/* A scored sweep: a rule over a grid of up to two parameters, each lo:hi:step. */
typedef struct sweep_case {
    const char *kernel, *rule;
    const char *names[2];
    double lo[2], hi[2], step[2];
    size_t n_grid;
} sweep_case;

/* rsi over 199 periods and macd over 16 x 7: the sweeps of the balance step and of the H100's
 * scored runs (docs/perf-log/2026-11-25-h100-first-run.md). */
static const sweep_case sweep_cases[] = {
    {"rsi", "rsi_zone", {"timeperiod", NULL}, {2, 0}, {200, 0}, {1, 0}, 1},
    {"macd", "macd_cross", {"fast", "slow"}, {5, 26}, {20, 50}, {1, 4}, 2},
};
#define N_SWEEP_CASES (sizeof sweep_cases / sizeof sweep_cases[0])

typedef struct cat_run {
    const bench_gpu_catalog_options *o;
    apo_runtime *cpu, *alone;
    size_t gi;
    uint64_t gpu_free;
    double d2d_gbps;
    double deadline; /* bench_now() past which nothing starts; INFINITY: none */
    json_t *no_time; /* the rows that had no time */
    long wrong;
    int failed;
    /* Host arrays of the largest size: the made inputs, the cpu's outputs, the GPU's. */
    double *in[N_MADE], *ref[CAT_MAX_OUT], *got[CAT_MAX_OUT];
    /* GPU arrays of the largest size that fits: the made inputs and the outputs. */
    void *din[N_MADE], *dout[CAT_MAX_OUT];
    size_t dev_n;
} cat_run;

static int selected(const char *list, const char *name) {
    return list == NULL || bench_selected(list, "catalog") || bench_selected(list, name);
}

static void poison(double *const *out, size_t n_out, size_t n) {
    const uint64_t bits = 0x7ff4dead0000cafeull;
    for (size_t o = 0; o < n_out; o++)
        for (size_t i = 0; i < n; i++)
            memcpy(&out[o][i], &bits, sizeof bits);
}

static long count_wrong(double *const *a, double *const *b, size_t n_out, size_t n) {
    long wrong = 0;
    for (size_t o = 0; o < n_out; o++)
        for (size_t i = 0; i < n; i++)
            wrong += memcmp(&a[o][i], &b[o][i], sizeof(double)) != 0;
    return wrong;
}

static int out_of_time(cat_run *c, const char *what, size_t n) {
    if (bench_now() < c->deadline)
        return 0;
    printf("%-16s %12zu  skipped: out of time (--gpu-seconds %.0f)\n", what, n, c->o->seconds);
    char buf[96];
    snprintf(buf, sizeof buf, "%s %zu", what, n);
    json_array_append_new(c->no_time, json_string(buf));
    return 1;
}

/* Frees what the run allocated on the host and the GPU. */
static void release(cat_run *c) {
    for (int i = 0; i < N_MADE; i++) {
        free(c->in[i]);
        apo_cuda_free(c->alone, c->gi, c->din[i]);
        c->in[i] = NULL, c->din[i] = NULL;
    }
    for (int o = 0; o < CAT_MAX_OUT; o++) {
        free(c->ref[o]);
        free(c->got[o]);
        apo_cuda_free(c->alone, c->gi, c->dout[o]);
        c->ref[o] = c->got[o] = NULL, c->dout[o] = NULL;
    }
}

/* The made inputs on the host at n_max samples, and on the GPU at the largest size that fits
 * in 80% of its free memory (c->dev_n; 0: none fits). Returns 0, or -1 when the host
 * memory cannot be had. */
static int make_inputs(cat_run *c, size_t n_max) {
    const size_t bytes = n_max * sizeof(double);
    int ok = 1;
    for (int i = 0; i < N_MADE && ok; i++)
        ok = (c->in[i] = malloc(bytes)) != NULL;
    for (int o = 0; o < CAT_MAX_OUT && ok; o++)
        ok = (c->ref[o] = malloc(bytes)) != NULL && (c->got[o] = malloc(bytes)) != NULL;
    if (!ok)
        return -1;
    bench_fill_walk(c->in[IN_CLOSE], 1, n_max, 0x5eed0000u + 1);
    bench_fill_bars(c->in[IN_CLOSE], 1, n_max, c->in[IN_OPEN], c->in[IN_HIGH], c->in[IN_LOW],
                    c->in[IN_VOLUME]);
    bench_fill_walk(c->in[IN_Y], 1, n_max, 0x5eed0000u + 2);
    c->dev_n = 0;
    for (size_t si = 0; si < c->o->n_sizes; si++) {
        const size_t n = (size_t)c->o->sizes[si];
        if (n > c->dev_n && (N_MADE + CAT_MAX_OUT) * 8.0 * (double)n <= 0.8 * (double)c->gpu_free)
            c->dev_n = n;
    }
    if (c->dev_n == 0)
        return 0;
    apo_status st = APO_OK;
    for (int i = 0; i < N_MADE && st == APO_OK; i++) {
        st = apo_cuda_malloc(c->alone, c->gi, c->dev_n * sizeof(double), &c->din[i]);
        if (st == APO_OK)
            st = apo_cuda_memcpy(c->alone, c->gi, c->din[i], c->in[i], c->dev_n * sizeof(double),
                                 APO_COPY_HOST_TO_DEVICE);
    }
    for (int o = 0; o < CAT_MAX_OUT && st == APO_OK; o++)
        st = apo_cuda_malloc(c->alone, c->gi, c->dev_n * sizeof(double), &c->dout[o]);
    if (bench_check(st, "GPU buffers of the catalog section")) {
        c->failed = 1;
        c->dev_n = 0;
    }
    return 0;
}

/* One kernel's call on one series, on the cpu (w, host arrays) and on the GPU (wd, the
 * section's GPU arrays). The workloads point into the struct: it stays where it is made. */
typedef struct resident_call {
    const char *name;
    size_t n;
    apo_kernel_info info;
    const double *hin[APO_MAX_IO], *din[APO_MAX_IO];
    apo_workload w, wd;
    apo_cuda_placement where;
} resident_call;

/* Makes k's workloads, or says in `why` why the GPU cannot take this kernel at this size here:
 * an input the section cannot make, a reduction, too many outputs, GPU memory. Returns 0 or
 * -1. */
static int resident_prepare(cat_run *c, resident_call *k, char *why, size_t why_size) {
    k->info = (apo_kernel_info)APO_KERNEL_INFO_INIT;
    if (bench_check(apo_kernel_get(c->cpu, k->name, &k->info), k->name)) {
        c->failed = 1;
        snprintf(why, why_size, "apo_kernel_get failed");
        return -1;
    }
    const apo_kernel_info *info = &k->info;
    for (size_t i = 0; i < info->n_inputs; i++) {
        const int m = made_index(info->input_names[i]);
        if (m < 0) {
            snprintf(why, why_size, "no data for its input \"%s\" here", info->input_names[i]);
            return -1;
        }
        k->hin[i] = c->in[m];
        k->din[i] = c->din[m];
    }
    k->w = (apo_workload)APO_WORKLOAD_INIT;
    k->w.kernel = k->name;
    k->w.rows = 1;
    k->w.cols = k->n;
    k->w.inputs = k->hin;
    k->w.n_inputs = info->n_inputs;
    k->w.n_outputs = info->n_outputs;
    k->w.seed = 20261121;
    k->w.learn = APO_SWITCH_OFF;
    for (size_t o = 0; o < info->n_outputs; o++) {
        size_t r = 0, cols = 0;
        if (bench_check(apo_output_shape(c->cpu, &k->w, o, &r, &cols), k->name)) {
            c->failed = 1;
            snprintf(why, why_size, "apo_output_shape failed");
            return -1;
        }
        if (r != 1 || cols != k->n) {
            snprintf(why, why_size,
                     "a reduction (output %s is %zu x %zu, not one value per sample)",
                     info->output_names[o], r, cols);
            return -1;
        }
    }
    if (info->n_outputs > CAT_MAX_OUT) {
        snprintf(why, why_size, "%zu outputs, more than this section keeps (%d)", info->n_outputs,
                 CAT_MAX_OUT);
        return -1;
    }
    if (k->n > c->dev_n) {
        snprintf(why, why_size, "needs %.0f MiB of GPU memory, %.0f MiB free",
                 (N_MADE + CAT_MAX_OUT) * 8.0 * (double)k->n / 1048576.0,
                 (double)c->gpu_free / 1048576.0);
        return -1;
    }
    k->where = (apo_cuda_placement)APO_CUDA_PLACEMENT_INIT;
    k->where.inputs_device = (int)c->gi;
    k->where.outputs_device = (int)c->gi;
    k->wd = k->w;
    k->wd.inputs = k->din;
    k->wd.outputs = (double *const *)c->dout;
    return 0;
}

/* The best of `calls` calls of the row's first `np` samples (a prefix of the longer row), in
 * seconds; INFINITY when one fails. */
static double prefix_seconds(cat_run *c, const resident_call *k, size_t np, int calls,
                             apo_status *st) {
    apo_workload wp = k->wd;
    wp.cols = np;
    double best = INFINITY;
    *st = APO_OK;
    for (int r = 0; r < calls && *st == APO_OK; r++) {
        const double t0 = bench_now();
        *st = apo_distribute_workload_cuda(c->alone, &wp, &k->where, NULL);
        best = fmin(best, bench_now() - t0);
    }
    return *st == APO_OK ? best : INFINITY;
}

/* The probe: the better of two calls at a hundredth of the size, scaled up; a row predicted
 * over the call limit is left out. Where the scaled figure is over the limit, one call at twice
 * the probe's size says how the time grows: a kernel whose time is its tiles' chains (a wave of
 * tiles, the same at 1e6 and 1e8 samples) barely moves, a serial chain doubles, and the row is
 * predicted on the line through the two (on the H200, stochf was predicted at 2.2 s from its
 * probe and took 29 ms). Returns 0 or -1. */
static int resident_probe(cat_run *c, resident_call *k, json_t *row, char *why, size_t why_size) {
    const size_t np = k->n / 100;
    if (np < 1)
        return 0;
    apo_status st;
    const double best = prefix_seconds(c, k, np, 2, &st);
    double predicted = best * (double)k->n / (double)np;
    double second = NAN;
    if (st == APO_OK && predicted > c->o->call_limit_s && 2 * np <= k->n) {
        second = prefix_seconds(c, k, 2 * np, 1, &st);
        const double slope = fmax(second - best, 0.0) / (double)np;
        predicted = fmax(second, best) + slope * (double)(k->n - 2 * np);
    }
    if (bench_check(st, "device-resident probe")) {
        c->failed = 1;
        snprintf(why, why_size, "the probe at %zu samples failed (%s)", np, apo_status_name(st));
        return -1;
    }
    json_object_set_new(row, "probe_ms", bench_gpu_num(best * 1e3));
    if (!isnan(second))
        json_object_set_new(row, "probe2_ms", bench_gpu_num(second * 1e3));
    if (predicted > c->o->call_limit_s) {
        if (isnan(second))
            snprintf(why, why_size,
                     "one call predicted at %.1f s from %.2f ms at %zu samples (over the call "
                     "limit of %.0f s)",
                     predicted, best * 1e3, np, c->o->call_limit_s);
        else
            snprintf(why, why_size,
                     "one call predicted at %.1f s from %.2f ms at %zu samples and %.2f ms at "
                     "%zu (over the call limit of %.0f s)",
                     predicted, best * 1e3, np, second * 1e3, 2 * np, c->o->call_limit_s);
        return -1;
    }
    return 0;
}

/* Correctness: the cpu's outputs, then the GPU's over poisoned buffers, copied back. Sets
 * *wrong (values not bitwise equal) and *check_s (the GPU call's seconds). Returns 0 or -1. */
static int resident_check(cat_run *c, resident_call *k, long *wrong, double *check_s, char *why,
                          size_t why_size) {
    const size_t n_out = k->info.n_outputs, bytes = k->n * sizeof(double);
    double *ref[CAT_MAX_OUT], *got[CAT_MAX_OUT];
    for (size_t o = 0; o < CAT_MAX_OUT; o++)
        ref[o] = c->ref[o], got[o] = c->got[o];
    k->w.outputs = ref;
    if (bench_check(apo_distribute_workload(c->cpu, &k->w, NULL), "cpu reference")) {
        c->failed = 1;
        snprintf(why, why_size, "the cpu reference failed");
        return -1;
    }
    poison(got, n_out, k->n);
    apo_status st = APO_OK;
    for (size_t o = 0; o < n_out && st == APO_OK; o++)
        st = apo_cuda_memcpy(c->alone, c->gi, c->dout[o], got[o], bytes, APO_COPY_HOST_TO_DEVICE);
    const double t_check = bench_now();
    if (st == APO_OK)
        st = apo_distribute_workload_cuda(c->alone, &k->wd, &k->where, NULL);
    *check_s = bench_now() - t_check;
    for (size_t o = 0; o < n_out && st == APO_OK; o++)
        st = apo_cuda_memcpy(c->alone, c->gi, got[o], c->dout[o], bytes, APO_COPY_DEVICE_TO_HOST);
    if (bench_check(st, "device-resident run")) {
        c->failed = 1;
        snprintf(why, why_size, "call failed (%s)", apo_status_name(st));
        return -1;
    }
    *wrong = count_wrong(ref, got, n_out, k->n);
    return 0;
}

/* Timing: the call returns when the outputs are complete on the GPU. The reps of the rule,
 * fewer where the checked call says they would pass three call limits together. Prints the row
 * and fills its JSON. Returns 0 or -1. */
static int resident_time(cat_run *c, resident_call *k, long wrong, double check_s, json_t *row,
                         char *why, size_t why_size) {
    const double limit3 = 3.0 * c->o->call_limit_s;
    int reps = bench_gpu_reps(c->o->reps, (double)k->n);
    if (c->o->reps == 0 && check_s * reps > limit3)
        reps = check_s > limit3 ? 1 : (int)(limit3 / check_s);
    double *times = malloc((size_t)reps * sizeof *times);
    if (times == NULL) {
        snprintf(why, why_size, "allocation failed");
        return -1;
    }
    for (int r = 0; r < reps; r++) {
        const double t0 = bench_now();
        apo_status st = apo_distribute_workload_cuda(c->alone, &k->wd, &k->where, NULL);
        times[r] = bench_now() - t0;
        if (bench_check(st, "device-resident run")) {
            c->failed = 1;
            snprintf(why, why_size, "call failed (%s)", apo_status_name(st));
            free(times);
            return -1;
        }
    }
    const double med_ms = bench_median(times, (size_t)reps) * 1e3;
    const double min_ms = bench_min(times, (size_t)reps) * 1e3;
    free(times);
    const size_t n_in = k->info.n_inputs, n_out = k->info.n_outputs;
    const double gbs = (double)(n_in + n_out) * 8.0 * (double)k->n / (med_ms * 1e-3) * 1e-9;
    const double pct = gbs / c->d2d_gbps * 100.0;
    printf("%-16s %12zu %3zu %3zu %5d %13.4f %10.4f %9.2f %7.1f %7ld\n", k->name, k->n, n_in, n_out,
           reps, med_ms, min_ms, gbs, pct, wrong);
    fflush(stdout);
    c->wrong += wrong;
    json_object_set_new(row, "inputs", json_integer((json_int_t)n_in));
    json_object_set_new(row, "outputs", json_integer((json_int_t)n_out));
    bench_gpu_set_rate(row, reps, med_ms, min_ms, gbs);
    json_object_set_new(row, "pct_d2d", bench_gpu_num(pct));
    json_object_set_new(row, "wrong", json_integer(wrong));
    return 0;
}

/* One device-resident row: kernel `name` on one series of n samples, checked, then timed; or
 * a row that says why it was skipped. */
static json_t *resident_row(cat_run *c, const char *name, size_t n) {
    json_t *row = json_pack("{s:s,s:I}", "kernel", name, "samples", (json_int_t)n);
    char why[160] = "";
    resident_call k = {.name = name, .n = n};
    long wrong = 0;
    double check_s = 0.0;
    if (resident_prepare(c, &k, why, sizeof why) != 0 ||
        resident_probe(c, &k, row, why, sizeof why) != 0 ||
        resident_check(c, &k, &wrong, &check_s, why, sizeof why) != 0 ||
        resident_time(c, &k, wrong, check_s, row, why, sizeof why) != 0) {
        printf("%-16s %12zu  skipped: %s\n", name, n, why);
        fflush(stdout);
        json_object_set_new(row, "skipped", json_string(why));
    }
    return row;
}

/* One scored sweep on the GPU alone, host-resident. */
static json_t *sweep_row(cat_run *c, const sweep_case *s) {
    const size_t rows = c->o->sweep_rows, bars = c->o->sweep_bars;
    char label[64];
    snprintf(label, sizeof label, "%s %s", s->kernel, s->rule);
    json_t *row = json_pack("{s:s,s:s,s:I,s:I}", "kernel", s->kernel, "rule", s->rule, "series",
                            (json_int_t)rows, "bars", (json_int_t)bars);
    char why[128] = "";
    double values[2][256];
    apo_sweep_param grid[2];
    size_t sets = 1;
    for (size_t g = 0; g < s->n_grid; g++) {
        size_t k = 0;
        for (double v = s->lo[g]; v <= s->hi[g] && k < 256; v += s->step[g])
            values[g][k++] = v;
        grid[g].name = s->names[g];
        grid[g].values = values[g];
        grid[g].n_values = k;
        sets *= k;
    }
    double *x = malloc(rows * bars * sizeof *x);
    double *mem = malloc(2 * APO_N_SCORES * sets * rows * sizeof *mem);
    double *times = NULL;
    if (x == NULL || mem == NULL) {
        snprintf(why, sizeof why, "allocation failed");
        goto done;
    }
    bench_fill_walk(x, rows, bars, 0x5eed0000u + 3);
    double *ref[APO_N_SCORES], *got[APO_N_SCORES];
    for (size_t k = 0; k < APO_N_SCORES; k++) {
        ref[k] = mem + k * sets * rows;
        got[k] = mem + (APO_N_SCORES + k) * sets * rows;
    }
    const double *in[1] = {x};
    apo_sweep sw = APO_SWEEP_INIT;
    sw.grid = grid;
    sw.n_grid = s->n_grid;
    apo_workload w = bench_workload(s->kernel, rows, bars, in, 1);
    w.score = s->rule;
    w.n_outputs = APO_N_SCORES;
    w.sweep = &sw;
    w.learn = APO_SWITCH_OFF;
    w.outputs = ref;
    if (bench_check(apo_distribute_workload(c->cpu, &w, NULL), "scored sweep on cpu")) {
        c->failed = 1;
        snprintf(why, sizeof why, "the cpu reference failed");
        goto done;
    }
    w.outputs = got;
    poison(got, APO_N_SCORES, sets * rows);
    /* The first call pins the staging slots: checked, not timed. */
    apo_report rep = APO_REPORT_INIT;
    if (bench_check(apo_distribute_workload(c->alone, &w, &rep), "scored sweep on the GPU")) {
        c->failed = 1;
        snprintf(why, sizeof why, "call failed");
        goto done;
    }
    const long wrong = count_wrong(ref, got, APO_N_SCORES, sets * rows);
    const double first_ms = rep.makespan_ms;
    const int reps = c->o->reps > 0 ? c->o->reps : 5;
    times = malloc((size_t)reps * sizeof *times);
    if (times == NULL) {
        snprintf(why, sizeof why, "allocation failed");
        goto done;
    }
    for (int r = 0; r < reps; r++) {
        const double t0 = bench_now();
        apo_status st = apo_distribute_workload(c->alone, &w, NULL);
        times[r] = bench_now() - t0;
        if (bench_check(st, "scored sweep on the GPU")) {
            c->failed = 1;
            snprintf(why, sizeof why, "call failed");
            goto done;
        }
    }
    const double med_ms = bench_median(times, (size_t)reps) * 1e3;
    const double min_ms = bench_min(times, (size_t)reps) * 1e3;
    const double set_bars = (double)sets * (double)rows * (double)bars;
    const double rate = set_bars / (med_ms * 1e-3);
    printf("%-20s %5zu %7zu %6zu %5d %11.3f %13.4f %10.4f %12.4g %7ld\n", label, sets, rows, bars,
           reps, first_ms, med_ms, min_ms, rate, wrong);
    fflush(stdout);
    c->wrong += wrong;
    json_object_set_new(row, "sets", json_integer((json_int_t)sets));
    json_object_set_new(row, "reps", json_integer(reps));
    json_object_set_new(row, "first_makespan_ms", bench_gpu_num(first_ms));
    json_object_set_new(row, "time_ms_median", bench_gpu_num(med_ms));
    json_object_set_new(row, "time_ms_min", bench_gpu_num(min_ms));
    json_object_set_new(row, "set_bars_per_s", bench_gpu_num(rate));
    json_object_set_new(row, "wrong", json_integer(wrong));
done:
    if (why[0] != '\0') {
        printf("%-20s  skipped: %s\n", label, why);
        json_object_set_new(row, "skipped", json_string(why));
    }
    free(times);
    free(mem);
    free(x);
    return row;
}

static json_t *one_gpu(cat_run *c, const apo_device_info *info, const char *const *names,
                       size_t n_names) {
    json_t *jg = json_pack("{s:s,s:s}", "id", info->id, "label", info->label);
    json_t *jres = json_array(), *jsweeps = json_array();
    char spec[APO_ID_MAX + 16];
    snprintf(spec, sizeof spec, "cuda:%s", info->id);
    apo_status st = bench_gpu_runtime(spec, APO_USE_GPU_YES, 0, &c->alone);
    if (st == APO_OK)
        st = bench_gpu_index(c->alone, &c->gi, &c->gpu_free);
    apo_cuda_bandwidth bw = APO_CUDA_BANDWIDTH_INIT;
    if (st == APO_OK)
        st = apo_cuda_bandwidth_measure(c->alone, c->gi, 0, &bw);
    if (bench_check(st, "GPU set-up and bandwidth")) {
        printf("# %s: skipped: set-up failed (%s)\n", info->label, apo_status_name(st));
        json_object_set_new(jg, "skipped", json_string(apo_status_name(st)));
        c->failed = 1;
        goto out;
    }
    c->d2d_gbps = bw.d2d_gbps;
    json_object_set_new(jg, "d2d_gbps", bench_gpu_num(bw.d2d_gbps));
    printf("\n# GPU %s (%s), %llu MiB free; d2d copy %.1f GB/s (read + written, %zu MiB "
           "buffers, median)\n",
           info->label, info->id, (unsigned long long)(c->gpu_free >> 20), bw.d2d_gbps,
           bw.bytes >> 20);

    /* The scored sweeps first: two cases, a second or two, where the resident rows of every
     * kernel can fill the whole --gpu-seconds. */
    if (c->o->sweep_rows > 0) {
        printf("# scored sweeps on %s alone, host-resident (a scored group whose outputs stay on "
               "a GPU runs set by set): scores bitwise against cpu, the first call (pinning) "
               "untimed; set-bars/s = sets x series x bars / median\n"
               "%-20s %5s %7s %6s %5s %11s %13s %10s %12s %7s\n",
               info->label, "# sweep", "sets", "series", "bars", "reps", "first_ms", "time_ms(med)",
               "min_ms", "set-bars/s", "#wrong");
        for (size_t s = 0; s < N_SWEEP_CASES; s++)
            if (!out_of_time(c, sweep_cases[s].kernel, c->o->sweep_rows * c->o->sweep_bars))
                json_array_append_new(jsweeps, sweep_row(c, &sweep_cases[s]));
    }
    size_t n_max = 0;
    for (size_t si = 0; si < c->o->n_sizes; si++)
        if ((size_t)c->o->sizes[si] > n_max)
            n_max = (size_t)c->o->sizes[si];
    if ((N_MADE + 2 * CAT_MAX_OUT) * 8.0 * (double)n_max > 0.9 * bench_host_available_bytes() ||
        make_inputs(c, n_max) != 0) {
        printf("# device-resident catalog: skipped: not enough free host memory for %zu "
               "samples\n",
               n_max);
        json_object_set_new(jg, "skipped", json_string("not enough free host memory"));
        goto out;
    }
    printf("# device-resident, every kernel of the library's list (apo_kernel_count), default "
           "parameters, one series: GB/s = (inputs + outputs) x 8 B x samples / median; "
           "%%d2d = GB/s / d2d copy\n"
           "%-16s %12s %3s %3s %5s %13s %10s %9s %7s %7s\n",
           "# kernel", "samples", "in", "out", "reps", "time_ms(med)", "min_ms", "GB/s", "%d2d",
           "#wrong");
    for (size_t si = 0; si < c->o->n_sizes; si++)
        for (size_t k = 0; k < n_names; k++)
            if (!out_of_time(c, names[k], (size_t)c->o->sizes[si]))
                json_array_append_new(jres, resident_row(c, names[k], (size_t)c->o->sizes[si]));
out:
    json_object_set_new(jg, "device_resident", jres);
    json_object_set_new(jg, "scored_sweeps", jsweeps);
    release(c);
    apo_runtime_destroy(c->alone);
    c->alone = NULL;
    return jg;
}

json_t *bench_gpu_catalog(const bench_gpu_catalog_options *o, long *wrong, int *failed) {
    json_t *j = json_object();
    char why[1024] = "";
    size_t gpus = 0, count = 0;
    const char **names = NULL;
    cat_run c;
    memset(&c, 0, sizeof c);
    c.o = o;
    c.deadline = o->seconds > 0 ? bench_now() + o->seconds : INFINITY;
    if (bench_check(bench_gpu_runtime("cpu", APO_USE_GPU_NO, 0, &c.cpu), "cpu runtime") ||
        bench_check(apo_kernel_count(c.cpu, &count), "apo_kernel_count") ||
        (names = calloc(count + 1, sizeof *names)) == NULL) {
        *failed = 1;
        json_object_set_new(j, "skipped", json_string("the cpu reference runtime failed"));
        goto out;
    }
    /* The library's list, in its order (built-ins first); every name of --kernels must be
     * in it, or "catalog". */
    size_t n_names = 0;
    for (size_t i = 0; i < count; i++) {
        const char *name = NULL;
        if (apo_kernel_name(c.cpu, i, &name) == APO_OK && selected(o->kernels, name))
            names[n_names++] = name;
    }
    int unknown = 0;
    size_t len;
    for (const char *p = o->kernels, *item; (item = bench_list_next(&p, &len)) != NULL;) {
        char name[APO_NAME_MAX] = "";
        apo_kernel_info info = APO_KERNEL_INFO_INIT;
        snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1), item);
        if (strcmp(name, "catalog") != 0 && apo_kernel_get(c.cpu, name, &info) != APO_OK) {
            fprintf(stderr, "%s: --kernels: no kernel \"%s\" in this library\n", bench_prog, name);
            unknown = 1;
        }
    }
    if (unknown) {
        *failed = 1;
        json_object_set_new(j, "skipped", json_string("a name of --kernels is no kernel's"));
        goto out;
    }
    apo_runtime *probe = bench_gpu_probe(&gpus, why, sizeof why);
    if (probe == NULL) {
        printf("\n# GPU catalog section: skipped: no usable GPU (%s)\n", why);
        json_object_set_new(j, "skipped", json_string(why));
        goto out;
    }
    const char *variant = bench_gpu_variant();
    printf("\n# GPU catalog section: %zu GPU(s), %zu kernels; CUDA kernels: %s "
           "(APPORTION_CUDA_KERNELS); correctness first: outputs bitwise against \"cpu\" alone "
           "(#wrong); rows predicted over %.0f s a call are left out%s\n",
           gpus, n_names, variant, o->call_limit_s,
           o->seconds > 0 ? "; what has no time within --gpu-seconds is listed" : "");
    json_object_set_new(j, "cuda_kernels", json_string(variant));
    json_object_set_new(j, "call_limit_s", bench_gpu_num(o->call_limit_s));
    c.no_time = json_array();
    json_t *devs = json_array();
    apo_device_info info = APO_DEVICE_INFO_INIT;
    for (size_t i = 0; bench_gpu_next(probe, &i, &info);)
        json_array_append_new(devs, one_gpu(&c, &info, names, n_names));
    json_object_set_new(j, "gpus", devs);
    if (json_array_size(c.no_time) > 0) {
        printf("# no time for (--gpu-seconds %.0f):", o->seconds);
        for (size_t i = 0; i < json_array_size(c.no_time); i++)
            printf("%s %s", i ? "," : "", json_string_value(json_array_get(c.no_time, i)));
        printf("\n");
    }
    json_object_set_new(j, "no_time", c.no_time);
    apo_runtime_destroy(probe);
    *wrong += c.wrong;
    *failed |= c.failed;
out:
    free(names);
    apo_runtime_destroy(c.cpu);
    return j;
}
