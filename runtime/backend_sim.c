/*
 * The sim device: computes with the CPU implementation (one thread) for its results, and
 * takes `latency + elements / rate` for a call, per SPEC. On the wall clock it waits the
 * modelled time out, so it can stand beside real devices; on the virtual clock it only
 * reports it, so balancing can be tested fast and without noise. fail_after=N makes
 * every task from the Nth on (counted over the runtime's life) fail.
 */
#include <errno.h>
#include <stdio.h>
#include <time.h>

#include "device.h"
#include "device_spec.h"

/* A sim device cuts its share into up to this many tasks, so that a failure loses part of
 * the share and the failover path has finished tiles to keep. */
#define APO_SIM_TASKS_PER_RUN 4

static void sleep_until(double deadline) {
    for (;;) {
        double left = deadline - apo__now();
        if (left <= 0)
            return;
        struct timespec ts = {(time_t)left, (long)((left - (double)(time_t)left) * 1e9)};
        if (nanosleep(&ts, NULL) == 0 || errno != EINTR)
            return;
    }
}

static apo_status sim_run(apo__device *dev, const apo__call *call, uint64_t first, uint64_t end,
                          uint64_t task_index, apo__task_time *time) {
    uint64_t task_no = ++dev->tasks_run;
    time->h2d_s = time->d2h_s = time->kernel_s = 0;
    if (dev->info.sim_fail_after != 0 && task_no >= dev->info.sim_fail_after)
        return APO_ERR_DEVICE_LOST;

    double t0 = apo__now();
    apo_status st = apo__run_tiles_on_host(call, first, end, 1);
    if (st != APO_OK)
        return st;

    uint64_t elements = 0;
    for (uint64_t g = first; g < end; g++) {
        size_t row, begin, stop;
        apo__tile_range(call, g, &row, &begin, &stop);
        elements += (uint64_t)(stop - begin) * call->unit_work;
    }
    /* The latency is paid once per call: on the call's first task. */
    if (task_index == 0)
        dev->calls_run++;
    int slow = dev->info.sim_slow_after != 0 && dev->calls_run >= dev->info.sim_slow_after;
    double rate = slow ? dev->info.sim_slow_rate : dev->info.sim_rate;
    double modelled = (task_index == 0 ? dev->info.sim_latency_s : 0.0) + (double)elements / rate;
    if (!dev->virtual_clock) {
        sleep_until(t0 + modelled);
        modelled = apo__now() - t0;
    }
    time->kernel_s = modelled;
    return APO_OK;
}

static uint64_t sim_task_count(const apo__device *dev, uint64_t tiles) {
    (void)dev;
    return tiles < APO_SIM_TASKS_PER_RUN ? tiles : APO_SIM_TASKS_PER_RUN;
}

static void sim_close(apo__device *dev) { (void)dev; }

static const apo__backend_ops sim_ops = {sim_run, sim_task_count, sim_close};

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
    snprintf(dev->info.id, sizeof dev->info.id, "sim:%s", spec->sim_name);
    snprintf(dev->info.label, sizeof dev->info.label, "sim:%s (simulated, %.3g elem/s, %.3g ms%s)",
             spec->sim_name, spec->sim_rate, spec->sim_latency_s * 1e3,
             virtual_clock ? ", virtual clock" : "");
    apo__host_memory(&dev->info.memory_total_bytes, &dev->info.memory_free_bytes);
    return APO_OK;
}
