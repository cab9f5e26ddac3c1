/*
 * overhead.c: the per-call overhead of apo_distribute_workload() for bollinger and macd.
 *
 * The public API has no direct entry to the built-in kernels, so this one measurement
 * links the kernels' static library (kernels/dispatch/kernels.h, through kernels_dep): the direct
 * baseline is the kernel's group function (apo__cpu_bollinger_tiles, apo__cpu_macd_tiles)
 * called over every tile of the row, with the tile length the runtime uses
 * (apo_*_tile_len) and the fastest vector path of this CPU, as the runtime runs them: the
 * work the runtime does on one thread. It is compared with
 *   - a runtime whose only device is "cpu:threads=1" (the same serial work, so the
 *     difference of the medians is the runtime's own cost per call: validation, planning,
 *     hand-off, report), and
 *   - the default runtime (all threads), whose difference also contains the OpenMP fork
 *     and join and, for rows of several tiles, the gain from running them in parallel.
 * The three are interleaved call by call so that they see the same cache and clock state.
 * No other part of the bench uses kernels.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "kernels.h"

typedef struct direct_args {
    int is_macd;
    const double *x;
    size_t n, tile;
    double *out[3];
} direct_args;

static void direct_call(const direct_args *a) {
    apo__tile_span spans[64];
    size_t count = 0;
    apo__cpu_isa isa = apo__cpu_isa_best();
    for (size_t begin = 0; begin < a->n; begin += a->tile) {
        spans[count].row = 0;
        spans[count].begin = begin;
        spans[count].end = begin + a->tile < a->n ? begin + a->tile : a->n;
        /* The runtime hands the kernel its tiles in groups too (runtime/devices/host_tiles.c). */
        if (++count == sizeof spans / sizeof spans[0] || spans[count - 1].end == a->n) {
            if (a->is_macd)
                apo__cpu_macd_tiles(a->x, 1, a->n, spans, count, 12, 26, 9, a->out[0], a->out[1],
                                    a->out[2], isa);
            else
                apo__cpu_bollinger_tiles(a->x, 1, a->n, spans, count, 20, 2.0, 2.0, a->out[0],
                                         a->out[1], a->out[2], isa);
            count = 0;
        }
    }
}

int bench_overhead(apo_runtime *rt_serial, apo_runtime *rt_default, const char *kernel, size_t cols,
                   size_t calls, bench_overhead_row *row) {
    const int is_macd = strcmp(kernel, "macd") == 0;
    double *x = malloc(cols * sizeof *x);
    double *bufs[9] = {0};
    double *t_direct = malloc(calls * sizeof(double));
    double *t_serial = malloc(calls * sizeof(double));
    double *t_default = malloc(calls * sizeof(double));
    int rc = -1, ok = x && t_direct && t_serial && t_default;
    for (int i = 0; i < 9 && ok; i++)
        ok = (bufs[i] = calloc(cols, sizeof(double))) != NULL;
    if (!ok) {
        fprintf(stderr, "apo-bench-kernels: overhead %s %zu: out of memory\n", kernel, cols);
        goto done;
    }
    bench_fill_walk(x, 1, cols, 0x0bad5eedu);

    direct_args da = {is_macd,
                      x,
                      cols,
                      is_macd ? apo__macd_tile_len(12, 26, 9) : apo__bollinger_tile_len(20),
                      {bufs[0], bufs[1], bufs[2]}};
    const apo_param p_boll[] = {{"period", 20}, {"nbdev_up", 2}, {"nbdev_dn", 2}};
    const apo_param p_macd[] = {{"fast", 12}, {"slow", 26}, {"signal", 9}};
    const double *in[1] = {x};
    double *const out_serial[3] = {bufs[3], bufs[4], bufs[5]};
    double *const out_default[3] = {bufs[6], bufs[7], bufs[8]};
    apo_workload w = bench_workload(kernel, 1, cols, in, 1);
    w.n_outputs = 3;
    w.params = is_macd ? p_macd : p_boll;
    w.n_params = 3;
    w.seed = 1;

    /* One untimed call of each, so that pages are touched and code is warm. */
    direct_call(&da);
    w.outputs = out_serial;
    if (bench_check(apo_distribute_workload(rt_serial, &w, NULL), "overhead (cpu:threads=1)"))
        goto done;
    w.outputs = out_default;
    if (bench_check(apo_distribute_workload(rt_default, &w, NULL), "overhead (default)"))
        goto done;

    for (size_t c = 0; c < calls; c++) {
        double t0 = bench_now();
        direct_call(&da);
        double t1 = bench_now();
        w.outputs = out_serial;
        apo_status s1 = apo_distribute_workload(rt_serial, &w, NULL);
        double t2 = bench_now();
        w.outputs = out_default;
        apo_status s2 = apo_distribute_workload(rt_default, &w, NULL);
        double t3 = bench_now();
        if (bench_check(s1, "overhead (cpu:threads=1)") || bench_check(s2, "overhead (default)"))
            goto done;
        t_direct[c] = t1 - t0;
        t_serial[c] = t2 - t1;
        t_default[c] = t3 - t2;
    }

    long wrong = 0;
    for (int o = 0; o < 3; o++)
        for (size_t i = 0; i < cols; i++) {
            wrong += memcmp(&bufs[o][i], &bufs[3 + o][i], sizeof(double)) != 0;
            wrong += memcmp(&bufs[o][i], &bufs[6 + o][i], sizeof(double)) != 0;
        }

    row->kernel = is_macd ? "macd" : "bollinger";
    row->cols = cols;
    row->calls = calls;
    row->direct_us = bench_median(t_direct, calls) * 1e6;
    row->serial_us = bench_median(t_serial, calls) * 1e6;
    row->default_us = bench_median(t_default, calls) * 1e6;
    row->over_serial_us = row->serial_us - row->direct_us;
    row->over_default_us = row->default_us - row->direct_us;
    row->wrong = wrong;
    rc = 0;

done:
    free(x);
    for (int i = 0; i < 9; i++)
        free(bufs[i]);
    free(t_direct);
    free(t_serial);
    free(t_default);
    return rc;
}
