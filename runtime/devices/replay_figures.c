/*
 * The figures replayed devices follow (replay.h): one row per measured device. The next run
 * on a GPU replaces a row's figures with what it measured, or adds a row for a new machine
 * (docs/scheduling.md, "A replayed H100", says which figure comes from which measurement).
 *
 * h100 and h100-host: the H100 machines (one NVIDIA H100 80GB HBM3, 132 SMs, PCIe 5; 16 cores
 * of an Intel Xeon with AVX-512). Measured on the second one (2026-11-26,
 * docs/perf-log/2026-11-26-h100-second-run.md: apo-bench-host, the gpu-check bench, balance
 * and bench-catalog steps) unless the first run is named (2026-11-25,
 * docs/perf-log/2026-11-25-h100-first-run.md):
 * - PCIe pinned: h2d 55.3, d2h 55.2, both ways 95.3 GB/s (measured);
 * - pinning by cudaMallocHost: 0.41 to 0.67 ms per MiB (the first run: 4 x 128 MiB in 211 to
 *   343 ms, measured): 0.5;
 * - staging copies: 34.0 GB/s with 8 threads, 4.25 per thread (measured);
 * - host memory: the cpu alone moved bollinger 1e8's 3.2 GB in 25.1 ms, about 127 GB/s, and
 *   the GPU alone its 9.6 GB of staging traffic (three bytes per byte staged) in 86.2 ms,
 *   111 GB/s, held back by its 8 staging threads: the bus is at least the cpu's (derived);
 * - staged bollinger: 24,415 tiles of 4,096 steps in 2.94 ms device-resident, flat from 1e6
 *   to 1e8 samples: one wave of up to 32 x 7 x 132 tiles, 0.72 us a step (derived);
 * - staged macd: 6,104 tiles of 16,384 + 811 steps in 8.0 ms: 0.47 us a step, waves of
 *   32 x 9 x 132 (derived);
 * - scored calls: the rsi sweep of 199 sets x 500 series x 2,520 bars in 32.9 ms warm, four
 *   pieces of about 25,000 chains each; every series of a launch runs at once up to the
 *   launch's scratch (apo__scored_gpu_chains: 26,630 windows of 2,520 bars), so a bar of the
 *   chain takes about 3.3 us (derived; 3.6 us from the first run's 9 ms a piece);
 * - the cpu: bollinger 1e8 in 25.1 ms on 16 threads, 2.49e8 samples per second and thread;
 *   the rsi sweep in 216 ms on 16 threads (one process, its first call), 7.3e7 set-bars per
 *   second and thread (measured).
 * Kernels without a row of their own take bollinger's figures: not measured.
 */
#include <stddef.h>
#include <string.h>

#include "devices/replay.h"

static const apo__replay_speed h100_speeds[] = {
    {"bollinger", 0.72e-6, 32.0 * 7 * 132, 0},
    {"macd", 0.47e-6, 32.0 * 9 * 132, 0},
    {"scored", 3.3e-6, 0, 0},
    {"*", 0.72e-6, 32.0 * 7 * 132, 0},
    {NULL, 0, 0, 0},
};

static const apo__replay_speed h100_host_speeds[] = {
    {"bollinger", 0, 0, 2.49e8},
    {"scored", 0, 0, 7.3e7},
    {"*", 0, 0, 2.49e8},
    {NULL, 0, 0, 0},
};

/* h200 and h200-host: an H200 machine of 2026-11-26 (one NVIDIA H200, 16 cores of an Intel
 * Xeon with AVX-512), docs/perf-log/2026-11-26-h200.md "The H200 machine": measured there, by
 * apo-bench-host, the gpu-check balance step and APPORTION_DEBUG's staging lines:
 * - host memory: the cpu alone moved bollinger 1e8's 3.2 GB in 32.8 ms, the GPU alone its
 *   9.6 GB of staging traffic in 126.6 ms: about 100 GB/s, the bus (derived);
 * - staging copies: 33.0 GB/s with 8 threads, 4.1 per thread (measured);
 * - pinning: 4 x 128 MiB by cudaMallocHost in 157 to 249 ms, 0.35 ms per MiB (measured);
 * - the cpu: bollinger at 0.461 ms per million samples on 8 threads (profiled: 2.7e8 samples
 *   per second and thread); the rsi sweep's warm pieces in about 58 ms on 16 threads (6.7e7
 *   set-bars per second and thread);
 * - scored calls on the GPU: the warm pieces of 26,500 series in about 8.2 ms, all at once:
 *   3.25 us a bar (derived; the piece's time stayed at 25 ms from half of it to four fifths
 *   on the cuda,cpu pair, docs/perf-log/2026-11-26-h200-second-visit.md);
 * - PCIe pinned: h2d 55.4, d2h 55.3, both ways 100.5 GB/s (apo-bench-kernels, a second
 *   machine of the same kind, measured);
 * - staged bollinger 1e8 device-resident in 3.02 ms, macd in 8.33 ms (the same run): the
 *   H100's steps scaled by 3.02 / 3.1 and 8.33 / 8.2, 0.71 and 0.49 us (derived). */
static const apo__replay_speed h200_speeds[] = {
    {"bollinger", 0.71e-6, 32.0 * 7 * 132, 0},
    {"macd", 0.49e-6, 32.0 * 9 * 132, 0},
    {"scored", 3.25e-6, 0, 0},
    {"*", 0.71e-6, 32.0 * 7 * 132, 0},
    {NULL, 0, 0, 0},
};

static const apo__replay_speed h200_host_speeds[] = {
    {"bollinger", 0, 0, 2.7e8},
    {"scored", 0, 0, 6.7e7},
    {"*", 0, 0, 2.7e8},
    {NULL, 0, 0, 0},
};

#define H200_MACHINE "h200-2026-11-26"
#define H200_SOURCE "docs/perf-log/2026-11-26-h200.md, \"The H200 machine\" (2026-11-26)"
#define H200_BUS (100e9)

#define H100_MACHINE "h100-2026-11-26"
#define H100_SOURCE                                                                                \
    "docs/perf-log/2026-11-26-h100-second-run.md, \"The H100 machine, second run\" (2026-11-26)"
#define H100_BUS (127e9)

static const apo__replay_row rows[] = {
    {
        .name = "h100",
        .machine = H100_MACHINE,
        .source = H100_SOURCE,
        .role = APO_REPLAY_GPU,
        .bus_bytes_s = H100_BUS,
        .latency_s = 50e-6,
        .sms = 132,
        .staging_threads = 8,
        .copy_bytes_s_thread = 4.25e9,
        .h2d_bytes_s = 55.3e9,
        .d2h_bytes_s = 55.2e9,
        .both_bytes_s = 95.3e9,
        .launch_s = 10e-6,
        .pin_s_per_mib = 0.5e-3,
        .speeds = h100_speeds,
    },
    {
        .name = "h100-host",
        .machine = H100_MACHINE,
        .source = H100_SOURCE,
        .role = APO_REPLAY_HOST,
        .bus_bytes_s = H100_BUS,
        .latency_s = 20e-6,
        .cores = 16,
        .speeds = h100_host_speeds,
    },
    {
        .name = "h200",
        .machine = H200_MACHINE,
        .source = H200_SOURCE,
        .role = APO_REPLAY_GPU,
        .bus_bytes_s = H200_BUS,
        .latency_s = 50e-6,
        .sms = 132,
        .staging_threads = 8,
        .copy_bytes_s_thread = 4.1e9,
        .h2d_bytes_s = 55.4e9,
        .d2h_bytes_s = 55.3e9,
        .both_bytes_s = 100.5e9,
        .launch_s = 10e-6,
        .pin_s_per_mib = 0.35e-3,
        .speeds = h200_speeds,
    },
    {
        .name = "h200-host",
        .machine = H200_MACHINE,
        .source = H200_SOURCE,
        .role = APO_REPLAY_HOST,
        .bus_bytes_s = H200_BUS,
        .latency_s = 20e-6,
        .cores = 16,
        .speeds = h200_host_speeds,
    },
};

const apo__replay_row *apo__replay_rows(size_t *n) {
    *n = sizeof rows / sizeof rows[0];
    return rows;
}

const apo__replay_row *apo__replay_find(const char *name) {
    size_t n;
    const apo__replay_row *rows = apo__replay_rows(&n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(rows[i].name, name) == 0)
            return &rows[i];
    return NULL;
}

const char *apo__replay_names(void) {
    static char names[256];
    if (names[0] == '\0') {
        size_t n, used = 0;
        const apo__replay_row *rows = apo__replay_rows(&n);
        for (size_t i = 0; i < n && used < sizeof names; i++) {
            size_t len = strlen(rows[i].name);
            if (used + len + 3 > sizeof names)
                break;
            if (used > 0) {
                memcpy(names + used, ", ", 2);
                used += 2;
            }
            memcpy(names + used, rows[i].name, len + 1);
            used += len;
        }
    }
    return names;
}
