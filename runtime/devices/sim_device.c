/*
 * The sim device: computes with the CPU implementation (one thread) for its results, and
 * takes `latency + elements / rate` for a call (docs/env.md, "Device lists"). On the wall clock it
 * waits the modelled time out, so it can stand beside real devices; on the virtual clock it only
 * reports it, so balancing can be tested fast and without noise.
 *
 * Faults it can inject, each counted by the task number over the runtime's life (so that
 * a run can be repeated exactly):
 * - fail_after=N: every task from the Nth on fails before computing anything;
 * - hang_after=N: every task from the Nth on blocks, touching nothing, until the runtime
 *   abandons it at its deadline (or destroys the runtime), then returns without writing;
 * - flaky=P (seed=S): each task fails with probability P, decided by a counter-based draw
 *   keyed by (seed, device name, task number), so neither thread timing nor the order of
 *   the device list changes which tasks fail. A failing task first computes a drawn
 *   number of its tiles (possibly none) and then fails, so that failover also meets tiles
 *   written by a device that did not finish.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/c_number.h"
#include "catalog/call_span.h"
#include "devices/device.h"
#include "devices/device_list.h"
#include "devices/host_memory.h"
#include "devices/host_tiles.h"
#include "devices/replay.h"
#include "devices/sim_device.h"
#include "splitmix64.h"

/* A sim device cuts its share into up to this many tasks, so that a failure loses part of
 * the share and the failover path has finished tiles to keep. */
#define APO_SIM_TASKS_PER_RUN 4

/* FNV-1a of the device id: the draw is keyed by the device's name, not its position. */
static uint64_t name_key(const char *id) {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (const unsigned char *p = (const unsigned char *)id; *p != '\0'; p++)
        h = (h ^ *p) * 0x100000001b3ULL;
    return h;
}

/* The draw of task `task_no`: two independent 64-bit words, for whether it fails and for
 * how far it gets first. */
static void flaky_draw(const apo__device *dev, uint64_t task_no, uint64_t *fails, uint64_t *point) {
    /* SplitMix64's finaliser of the three keys: every output bit depends on every input bit,
     * so the hash of a counter is a usable draw. */
    uint64_t h =
        apo__splitmix64_mix(dev->info.sim_seed ^ apo__splitmix64_mix(name_key(dev->info.id) ^
                                                                     apo__splitmix64_mix(task_no)));
    *fails = h;
    *point = apo__splitmix64_mix(h ^ APO__SPLITMIX64_GAMMA);
}

/* Whether task `task_no` fails, and if so how many of its `tiles` tiles it computes first. */
static int flaky_fails(const apo__device *dev, uint64_t task_no, uint64_t tiles,
                       uint64_t *computed) {
    if (!(dev->info.sim_flaky > 0))
        return 0;
    uint64_t fails, point;
    flaky_draw(dev, task_no, &fails, &point);
    /* 53 bits give a uniform double in [0, 1); flaky=1 therefore always fails. */
    double u = (double)(fails >> 11) * 0x1.0p-53;
    if (!(u < dev->info.sim_flaky))
        return 0;
    *computed = point % tiles;
    return 1;
}

static apo_status sim_run(apo__device *dev, const apo__call *call, uint64_t first, uint64_t end,
                          uint64_t task_index, apo__task_time *time) {
    uint64_t task_no = ++dev->tasks_run;
    time->h2d_s = time->d2h_s = time->kernel_s = time->touch_s = 0;
    if (dev->info.sim_fail_after != 0 && task_no >= dev->info.sim_fail_after)
        return APO_ERR_DEVICE_LOST;
    if (dev->info.sim_hang_after != 0 && task_no >= dev->info.sim_hang_after) {
        apo__task_wait_until_abandoned(&dev->guard);
        return APO_ERR_DEVICE_LOST;
    }
    uint64_t computed = 0;
    if (flaky_fails(dev, task_no, end - first, &computed)) {
        apo_status st = apo__run_tiles_on_host(dev, call, first, first + computed, 1,
                                               apo__task_clock(&dev->guard), NULL);
        return st == APO_OK ? APO_ERR_DEVICE_LOST : st;
    }

    double t0 = apo__now();
    apo__host_run_times run;
    apo_status st = apo__run_tiles_on_host(dev, call, first, end, 1, t0, &run);
    const double touch_s = run.touch_s;
    if (st != APO_OK)
        return st;
    if (!apo__task_enter_call(&dev->guard))
        return APO_ERR_DEVICE_LOST;
    uint64_t elements = apo__tiles_elements(call, first, end);
    apo__task_leave_call(&dev->guard);

    /* The latency is paid once per call: on the call's first task. */
    if (task_index == 0)
        dev->calls_run++;
    double modelled;
    if (dev->replay != NULL) {
        /* The phase's modelled time (replay.c, set before the phase began) in proportion to
         * the task's part of the device's elements in it. */
        const double part = dev->replay_phase_elements > 0
                                ? (double)elements / (double)dev->replay_phase_elements
                                : 1.0;
        modelled = dev->replay_phase_s * part;
    } else {
        int slow = dev->info.sim_slow_after != 0 && dev->calls_run >= dev->info.sim_slow_after;
        double rate = slow ? dev->info.sim_slow_rate : dev->info.sim_rate;
        modelled = (task_index == 0 ? dev->info.sim_latency_s : 0.0) + (double)elements / rate;
    }
    /* A cold start: the runtime's first call with work on it is slower (docs/env.md,
     * "cold"), as a process's first call is on real devices. */
    if (dev->calls_run == 1)
        modelled *= dev->sim_cold;
    if (!dev->virtual_clock) {
        /* The wait touches nothing of the call, and ends early when the task is abandoned:
         * its tiles are then redone elsewhere. */
        /* The first touch comes before the modelled time, as the cpu device's comes before
         * its tiles: what a model learns of a sim device (its time less the first touch) is
         * then its rate, whatever the caller's buffers. */
        if (apo__task_sleep_until(&dev->guard, t0 + touch_s + modelled))
            return APO_ERR_DEVICE_LOST;
        modelled = apo__now() - t0;
        time->touch_s = touch_s < modelled ? touch_s : modelled;
    }
    /* On the virtual clock every time is modelled: the real first touch is not reported. */
    time->kernel_s = modelled - time->touch_s;
    return APO_OK;
}

static uint64_t sim_task_count(const apo__device *dev, uint64_t tiles) {
    (void)dev;
    return tiles < APO_SIM_TASKS_PER_RUN ? tiles : APO_SIM_TASKS_PER_RUN;
}

static void sim_close(apo__device *dev) {
    apo__host_tiles_release(dev);
    free(dev->replay_staging);
    dev->replay_staging = NULL;
}

static const apo__backend_ops sim_ops = {sim_run, sim_task_count, sim_close, APO_RUNS_SHARED_NONE};

/* Appends ",NAME=V" with V the shortest text that reads back to `v`, with '.' whatever
 * LC_NUMERIC says: the key must be the same text in every process. */
static size_t put_real(char *buf, size_t size, size_t used, const char *name, double v) {
    char num[40];
    apo__format_shortest(num, sizeof num, v);
    int n = snprintf(buf + used, size - used, "%s%s=%s", used ? "," : "", name, num);
    return n < 0 || used + (size_t)n >= size ? size - 1 : used + (size_t)n;
}

static size_t put_count(char *buf, size_t size, size_t used, const char *name, uint64_t v) {
    int n = snprintf(buf + used, size - used, ",%s=%llu", name, (unsigned long long)v);
    return n < 0 || used + (size_t)n >= size ? size - 1 : used + (size_t)n;
}

/* The configuration key: every option that changes what the device measures (the fault
 * options too: a device that fails or slows down learns another model), those left at
 * their default omitted. A key too long for the field is cut and ends in a hash of the
 * whole, so that two configurations never share a key. */
static void sim_config(apo_device_info *info, int virtual_clock, const char *replay, double cold) {
    char key[512];
    size_t used = put_real(key, sizeof key, 0, "rate", info->sim_rate);
    used = put_real(key, sizeof key, used, "latency", info->sim_latency_s);
    if (info->sim_slow_after != 0) {
        used = put_count(key, sizeof key, used, "slow_after", info->sim_slow_after);
        used = put_real(key, sizeof key, used, "slow_rate", info->sim_slow_rate);
    }
    if (info->sim_fail_after != 0)
        used = put_count(key, sizeof key, used, "fail_after", info->sim_fail_after);
    if (info->sim_hang_after != 0)
        used = put_count(key, sizeof key, used, "hang_after", info->sim_hang_after);
    if (info->sim_flaky > 0) {
        used = put_real(key, sizeof key, used, "flaky", info->sim_flaky);
        used = put_count(key, sizeof key, used, "seed", info->sim_seed);
    }
    if (replay != NULL)
        used += (size_t)snprintf(key + used, sizeof key - used, ",replay=%s", replay);
    if (cold > 1 && used < sizeof key)
        used = put_real(key, sizeof key, used, "cold", cold);
    if (virtual_clock && used < sizeof key)
        snprintf(key + used, sizeof key - used, ",clock=virtual");
    if (strlen(key) < sizeof info->config)
        snprintf(info->config, sizeof info->config, "%s", key);
    else
        snprintf(info->config, sizeof info->config, "%.*s#%016llx", (int)sizeof info->config - 18,
                 key, (unsigned long long)name_key(key));
}

apo_status apo__sim_device_open(apo__device *dev, const apo__device_spec *spec, int virtual_clock) {
    dev->ops = &sim_ops;
    dev->virtual_clock = virtual_clock;
    dev->info.kind = APO_DEVICE_SIM;
    dev->info.threads = 1;
    dev->info.sim_rate = spec->sim_rate;
    dev->info.sim_latency_s = spec->sim_latency_s;
    dev->info.sim_fail_after = spec->sim_fail_after;
    dev->info.sim_slow_after = spec->sim_slow_after;
    dev->info.sim_slow_rate = spec->sim_slow_rate;
    dev->info.sim_flaky = spec->sim_flaky;
    dev->info.sim_seed = spec->sim_seed;
    dev->info.sim_hang_after = spec->sim_hang_after;
    dev->sim_cold = spec->sim_cold >= 1 ? spec->sim_cold : 1;
    snprintf(dev->info.id, sizeof dev->info.id, "sim:%s", spec->sim_name);
    snprintf(dev->info.label, sizeof dev->info.label, "sim:%s (simulated, %.3g elem/s, %.3g ms%s)",
             spec->sim_name, spec->sim_rate, spec->sim_latency_s * 1e3,
             virtual_clock ? ", virtual clock" : "");
    if (spec->sim_replay[0] != '\0') {
        const apo__replay_row *row = apo__replay_find(spec->sim_replay);
        dev->replay = row;
        if (row->role == APO_REPLAY_GPU) {
            dev->replay_staging = calloc(1, sizeof *dev->replay_staging);
            if (dev->replay_staging == NULL)
                return APO_ERR_OUT_OF_MEMORY;
        }
        /* A replayed GPU drives its copies with its staging threads; a replayed host has
         * every core alone and what those leave beside GPUs (core/runtime.c). */
        dev->info.threads = row->role == APO_REPLAY_GPU ? row->staging_threads : row->cores;
        dev->threads_alone = dev->info.threads;
        snprintf(dev->info.label, sizeof dev->info.label, "sim:%s (simulated, replays %s%s)",
                 spec->sim_name, row->name, virtual_clock ? ", virtual clock" : "");
    }
    sim_config(&dev->info, virtual_clock, dev->replay != NULL ? dev->replay->name : NULL,
               dev->sim_cold);
    apo__host_memory(&dev->info.memory_total_bytes, &dev->info.memory_free_bytes);
    return APO_OK;
}
