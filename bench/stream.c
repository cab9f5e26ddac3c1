/*
 * stream.c: the memory-bandwidth ceiling of the machine, measured in the same run as the
 * kernels, after John McCalpin's STREAM: copy a[i] = b[i] (16 bytes counted per element)
 * and triad a[i] = b[i] + s*c[i] (24 bytes), plus fan3 a[i] = d[i] = e[i] = b[i] (32 bytes:
 * one read and three writes, the access pattern of bollinger and macd). Bytes are counted
 * as STREAM counts them: the write-allocate read of a cached store is not counted.
 *
 * Every loop runs over all OpenMP threads with schedule(static), and the arrays are
 * first-touched in parallel with the same schedule, so each thread's pages are its own.
 * The three loops are interleaved within each repetition, as STREAM does. The bench is
 * built with -fno-tree-loop-distribute-patterns (bench/meson.build) so that the compiler
 * keeps these loops and does not turn them into memcpy calls, whose non-temporal stores
 * would measure something else than the loops the kernels run.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"

static void stats(double *times, int reps, double bytes, bench_stream_result *r) {
    r->best_ms = bench_min(times, (size_t)reps) * 1e3;
    r->median_ms = bench_median(times, (size_t)reps) * 1e3;
    r->best_gbs = bytes / (r->best_ms * 1e-3) * 1e-9;
    r->median_gbs = bytes / (r->median_ms * 1e-3) * 1e-9;
}

int bench_stream(size_t n, int reps, bench_stream_result out[BENCH_STREAM_N]) {
    if (reps < 1)
        reps = 1;
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    double *d = malloc(n * sizeof *d), *e = malloc(n * sizeof *e);
    double *t_copy = malloc((size_t)reps * sizeof *t_copy);
    double *t_triad = malloc((size_t)reps * sizeof *t_triad);
    double *t_fan3 = malloc((size_t)reps * sizeof *t_fan3);
    int rc = -1;
    if (!a || !b || !c || !d || !e || !t_copy || !t_triad || !t_fan3)
        goto done;

    const long long nn = (long long)n;
    const double s = 3.0;
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < nn; i++) {
        a[i] = 2.0;
        b[i] = 1.0 + (double)(i & 1023) * 0x1p-10;
        c[i] = 0.5;
        d[i] = 0.0;
        e[i] = 0.0;
    }

    /* Repetition 0 is the warm-up and is not timed, as in STREAM. */
    for (int k = -1; k < reps; k++) {
        double t0 = bench_now();
#pragma omp parallel for schedule(static)
        for (long long i = 0; i < nn; i++)
            a[i] = b[i];
        double t1 = bench_now();
#pragma omp parallel for schedule(static)
        for (long long i = 0; i < nn; i++)
            a[i] = b[i] + s * c[i];
        double t2 = bench_now();
#pragma omp parallel for schedule(static)
        for (long long i = 0; i < nn; i++) {
            const double v = b[i];
            a[i] = v;
            d[i] = v;
            e[i] = v;
        }
        double t3 = bench_now();
        if (k >= 0) {
            t_copy[k] = t1 - t0;
            t_triad[k] = t2 - t1;
            t_fan3[k] = t3 - t2;
        }
    }

    /* The last loop leaves a = d = e = b; check a sample, so that the stores are used and
     * a miscompiled loop cannot pass for a fast one. */
    size_t bad = 0;
    for (size_t i = 0; i < n; i += 4099)
        bad += a[i] != b[i] || d[i] != b[i] || e[i] != b[i];
    if (bad != 0) {
        fprintf(stderr, "apo-bench-kernels: stream validation failed at %zu sampled positions\n",
                bad);
        goto done;
    }

    out[BENCH_STREAM_COPY] = (bench_stream_result){.name = "copy", .bytes_per_elem = 16};
    out[BENCH_STREAM_TRIAD] = (bench_stream_result){.name = "triad", .bytes_per_elem = 24};
    out[BENCH_STREAM_FAN3] = (bench_stream_result){.name = "fan3", .bytes_per_elem = 32};
    stats(t_copy, reps, 16.0 * (double)n, &out[BENCH_STREAM_COPY]);
    stats(t_triad, reps, 24.0 * (double)n, &out[BENCH_STREAM_TRIAD]);
    stats(t_fan3, reps, 32.0 * (double)n, &out[BENCH_STREAM_FAN3]);
    rc = 0;

done:
    free(a);
    free(b);
    free(c);
    free(d);
    free(e);
    free(t_copy);
    free(t_triad);
    free(t_fan3);
    return rc;
}
