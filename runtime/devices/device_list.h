/*
 * The device list grammar of APPORTION_DEVICES and apo_config.devices (docs/env.md):
 *   auto | cuda | cuda:N | cuda:GPU-<uuid prefix> | cpu | cpu:threads=N |
 *   sim:NAME[:rate=ELEMENTS_PER_S][:latency=DURATION][:fail_after=N]
 *           [:slow_after=N:slow_rate=ELEMENTS_PER_S][:flaky=P][:seed=N][:hang_after=N]
 *           [:replay=ROW][:cold=FACTOR]
 * separated by commas. Parsing is pure (no device is touched), so it can be tested and
 * fuzzed alone.
 */
#ifndef APO_RUNTIME_DEVICES_DEVICE_LIST_H
#define APO_RUNTIME_DEVICES_DEVICE_LIST_H

#include <stddef.h>
#include <stdint.h>

#include "apportion.h"

#define APO_SIM_NAME_MAX 48
#define APO_SIM_DEFAULT_RATE 1e8

typedef enum apo__spec_kind {
    APO_SPEC_AUTO,
    APO_SPEC_CUDA_ALL,
    APO_SPEC_CUDA_ORDINAL,
    APO_SPEC_CUDA_UUID,
    APO_SPEC_CPU,
    APO_SPEC_SIM
} apo__spec_kind;

typedef struct apo__device_spec {
    apo__spec_kind kind;
    int ordinal;                       /* CUDA_ORDINAL */
    char uuid_prefix[APO_ID_MAX];      /* CUDA_UUID, lower-case hex after "GPU-" */
    int threads;                       /* CPU: 0 unless threads= was given */
    char sim_name[APO_SIM_NAME_MAX];   /* SIM */
    double sim_rate;                   /* SIM: elements per second */
    double sim_latency_s;              /* SIM */
    uint64_t sim_fail_after;           /* SIM: 0 = never */
    uint64_t sim_slow_after;           /* SIM: from its Nth call with work on, 0 = never */
    double sim_slow_rate;              /* SIM: the rate from then on */
    double sim_flaky;                  /* SIM: probability in [0, 1] that a task fails */
    uint64_t sim_seed;                 /* SIM: keys the flaky draws (default 0) */
    uint64_t sim_hang_after;           /* SIM: from its Nth task on it never answers, 0 = never */
    char sim_replay[APO_SIM_NAME_MAX]; /* SIM: the measured device it replays (devices/replay.h),
                                          "" for none */
    double sim_cold;                   /* SIM: its first call with work takes this many times
                                          its modelled time (a cold start), 1 = none */
} apo__device_spec;

/* Parses `text` into at most `max` specs. On failure returns APO_ERR_BAD_DEVICE_SPEC and
 * writes into `err` a message naming the item (1-based), its text and the reason. */
apo_status apo__parse_device_list(const char *text, apo__device_spec *specs, size_t max,
                                  size_t *count, char *err, size_t err_size);

#endif
