/*
 * ranks.c: apo-bench-balance --ranks, the multi-rank scenario
 * (docs/perf-log/2026-11-21-ranks-over-mpi.md, section "Ranks over MPI"). Run under mpirun with two
 * ranks or more; every rank runs the same command, ranks above 0 serve (apo_cluster_serve) and rank
 * 0 measures, on one series of bollinger at sizes from 1e4 to 1e8 samples (or --ranks-max), each
 * configuration by explicit ratios on one joined runtime: local   everything on rank 0's own
 * devices (no message); remote  everything on rank 1 (the MPI path: input out, outputs back); split
 * rank 0's devices and every rank, in proportion to the rates measured by local and remote (each
 * other rank taken as fast as rank 1). overhead = remote - local: what the MPI path costs over
 * computing at home, since both ranks run the same devices. split < local is where adding a rank
 * pays off.
 *
 * Correctness first: every call's outputs are compared bitwise (memcmp) with the first local
 * call's; the elements that differ count in #wrong, and any makes the program exit 1.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define RANKS_RUNS 5
#define RANKS_RUNS_LARGE 3 /* at 1e8 samples, where one call takes seconds */

static int serve(apo_runtime *rt) {
    int failed = bench_check(apo_cluster_serve(rt), "apo_cluster_serve");
    apo_runtime_destroy(rt);
    return failed;
}

typedef struct series {
    size_t n;
    const double *in;
    double *out[3];
    double *ref[3];
} series;

/* Median wall time in ms of `runs` calls at `ratios`; counts elements that differ from
 * the reference in *wrong (the reference is taken from the first call when `take_ref`). */
static double time_calls(apo_runtime *rt, series *s, const double *ratios, size_t n_dev, int runs,
                         int take_ref, long *wrong, int *failed) {
    apo_workload w = APO_WORKLOAD_INIT;
    const double *inputs[1] = {s->in};
    w.kernel = "bollinger";
    w.rows = 1;
    w.cols = s->n;
    w.inputs = inputs;
    w.n_inputs = 1;
    w.outputs = s->out;
    w.n_outputs = 3;
    w.split = APO_SPLIT_TIME;
    w.ratios = ratios;
    w.n_ratios = n_dev;
    double ms[RANKS_RUNS];
    for (int r = 0; r < runs; r++) {
        double t0 = bench_now();
        if (bench_check(apo_distribute_workload(rt, &w, NULL), "apo_distribute_workload")) {
            *failed = 1;
            return NAN;
        }
        ms[r] = (bench_now() - t0) * 1e3;
        for (int o = 0; o < 3; o++) {
            if (take_ref && r == 0)
                memcpy(s->ref[o], s->out[o], s->n * sizeof(double));
            for (size_t i = 0; i < s->n; i++)
                *wrong += memcmp(&s->out[o][i], &s->ref[o][i], sizeof(double)) != 0;
        }
    }
    return bench_median(ms, (size_t)runs);
}

int bench_ranks(const char *devices, double max_size) {
    apo_config cfg = APO_CONFIG_INIT;
    cfg.devices = devices;
    cfg.mpi = APO_SWITCH_ON;
    cfg.profiles = APO_SWITCH_OFF;
    cfg.learn = APO_SWITCH_OFF;
    apo_runtime *rt = NULL;
    if (bench_check(apo_runtime_create(&cfg, &rt), "apo_runtime_create"))
        return 1;
    apo_cluster_info info = APO_CLUSTER_INFO_INIT;
    if (bench_check(apo_cluster_info_get(rt, &info), "apo_cluster_info_get")) {
        apo_runtime_destroy(rt);
        return 1;
    }
    if (info.role == APO_CLUSTER_SERVER)
        return serve(rt);
    size_t n_dev = 0;
    apo_device_count(rt, &n_dev);
    size_t n_local = n_dev - info.joined;
    if (info.role != APO_CLUSTER_COORDINATOR || info.joined == 0 || n_local == 0) {
        fprintf(stderr,
                "apo-bench-balance --ranks: needs mpirun with two ranks or more and devices on "
                "rank 0 (role %d, %zu ranks joined, %zu local devices)\n",
                (int)info.role, info.joined, n_local);
        apo_runtime_destroy(rt);
        return 1;
    }
    printf("# apo-bench-balance --ranks (apportion %s): %d ranks on %s, devices per rank \"%s\"\n",
           apo_version(), info.ranks, info.host, devices);
    for (size_t d = 0; d < n_dev; d++) {
        apo_device_info di = APO_DEVICE_INFO_INIT;
        apo_device_get(rt, d, &di);
        printf("#   device %zu: %s\n", d, di.label);
    }
    printf("# bollinger(20, 2, 2), one series, time split; ms = median of %d calls (%d at 1e8)\n",
           RANKS_RUNS, RANKS_RUNS_LARGE);
    printf("%12s %11s %11s %12s %10s %11s %8s %7s\n", "samples", "local_ms", "remote_ms",
           "overhead_ms", "overhead%", "split_ms", "speedup", "#wrong");

    size_t max_n = (size_t)max_size;
    series s = {0};
    double *in = malloc(max_n * sizeof(double));
    int failed = in == NULL;
    for (int o = 0; o < 3 && !failed; o++) {
        s.out[o] = malloc(max_n * sizeof(double));
        s.ref[o] = malloc(max_n * sizeof(double));
        failed |= s.out[o] == NULL || s.ref[o] == NULL;
    }
    long total_wrong = 0;
    if (!failed)
        bench_fill_walk(in, 1, max_n, 0x5eedba1aull);
    s.in = in;
    double ratios[APO_MAX_DEVICES];
    for (double size = 1e4; size <= max_size * 1.0001 && !failed; size *= 10) {
        s.n = (size_t)size;
        int runs = size >= 1e8 ? RANKS_RUNS_LARGE : RANKS_RUNS;
        long wrong = 0;
        for (size_t d = 0; d < n_dev; d++)
            ratios[d] = d < n_local ? 1.0 : 0.0;
        double local = time_calls(rt, &s, ratios, n_dev, runs, 1, &wrong, &failed);
        for (size_t d = 0; d < n_dev; d++)
            ratios[d] = d == n_local ? 1.0 : 0.0;
        double remote = time_calls(rt, &s, ratios, n_dev, runs, 0, &wrong, &failed);
        /* Shares by measured rate: rank 0's devices at 1/local, each rank at 1/remote. */
        for (size_t d = 0; d < n_dev; d++)
            ratios[d] = d < n_local ? 1.0 / local / (double)n_local : 1.0 / remote;
        double split = time_calls(rt, &s, ratios, n_dev, runs, 0, &wrong, &failed);
        total_wrong += wrong;
        printf("%12.0f %11.3f %11.3f %12.3f %9.1f%% %11.3f %8.2f %7ld\n", size, local, remote,
               remote - local, 100.0 * (remote - local) / local, split, local / split, wrong);
        fflush(stdout);
    }
    free(in);
    for (int o = 0; o < 3; o++) {
        free(s.out[o]);
        free(s.ref[o]);
    }
    apo_runtime_destroy(rt);
    if (total_wrong > 0)
        fprintf(stderr,
                "apo-bench-balance --ranks: %ld output elements differ from the local "
                "run\n",
                total_wrong);
    return failed || total_wrong > 0;
}
