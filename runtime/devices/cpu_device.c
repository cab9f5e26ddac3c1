/*
 * The cpu device: the host's cores. Its tasks run on its own worker thread (or on the
 * caller's when it is the only device with work), which computes tiles beside the device's
 * helper threads (host_team.h); they persist between calls. The thread count is OpenMP's
 * default unless set: OMP_NUM_THREADS and the CPU affinity keep their meaning.
 *
 * A task missing its deadline stops at the next tile boundary (apo__run_tiles_on_host
 * checks the task guard before every tile, or group of tiles for the kernels that compute
 * several at once). A tile already running cannot be interrupted: the runtime waits for it
 * to finish before it hands the tiles to another device, so the late tile's writes land
 * before anyone else's and never after the call returned.
 */
#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "devices/cpu_device.h"
#include "devices/device.h"
#include "devices/host_memory.h"
#include "devices/host_tiles.h"
#include "kernels.h"

static apo_status cpu_run(apo__device *dev, const apo__call *call, uint64_t first, uint64_t end,
                          uint64_t task_index, apo__task_time *time) {
    (void)task_index;
    /* The job's reading, where it gives one, was taken just before this task began: a
     * one-thread call's deadline checks and times start from it, one clock reading of some
     * 25 ns fewer a call (docs/scheduling.md, "A call whose times nobody reads"). */
    const double t0 = time->started > 0 ? time->started : apo__now();
    apo__host_run_times run;
    /* The plan may give this call every core (device.h, call_threads). */
    const int threads = dev->call_threads > 0 ? dev->call_threads : dev->info.threads;
    apo_status st = apo__run_tiles_on_host(dev, call, first, end, threads, t0, &run);
    time->h2d_s = 0;
    time->d2h_s = 0;
    time->threads_offered = run.threads_offered;
    /* A run whose times nobody reads took no reading at its end (host_tiles.h). */
    const double total_s = run.timed ? run.ended - t0 : 0;
    time->touch_s = run.touch_s < total_s ? run.touch_s : total_s;
    time->kernel_s = total_s - time->touch_s;
    return st;
}

/* The cpu device does not fail on its own, so one task keeps its threads busiest. */
static uint64_t cpu_task_count(const apo__device *dev, uint64_t tiles) {
    (void)dev, (void)tiles;
    return 1;
}

static void cpu_close(apo__device *dev) { apo__host_tiles_release(dev); }

static const apo__backend_ops cpu_ops = {cpu_run, cpu_task_count, cpu_close, APO_RUNS_SHARED_PASS};

/* The CPU's model name from /proc/cpuinfo ("" where it has none, as on most ARM kernels):
 * a model stored on one CPU says nothing about another in the same home folder's file. */
static void cpu_model_name(char *out, size_t size) {
    out[0] = '\0';
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f == NULL)
        return;
    char line[256];
    while (fgets(line, sizeof line, f) != NULL) {
        const char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) != 0 || colon == NULL)
            continue;
        const char *v = colon + 1;
        while (*v == ' ' || *v == '\t')
            v++;
        snprintf(out, size, "%.*s", (int)strcspn(v, "\n"), v);
        /* Printable ASCII only: the key is stored as JSON text, which must be UTF-8. */
        for (char *c = out; *c != '\0'; c++)
            if (*c < 0x20 || *c > 0x7e)
                *c = '?';
        break;
    }
    fclose(f);
}

apo_status apo__cpu_device_open(apo__device *dev, int threads, int isa) {
    if (threads <= 0)
        threads = omp_get_max_threads();
    dev->ops = &cpu_ops;
    dev->cpu_isa = isa;
    dev->info.kind = APO_DEVICE_CPU;
    dev->info.threads = threads;
    /* Every core when it runs alone: share_host_threads() (core/runtime.c) lowers only the
     * count it keeps beside GPUs. */
    if (dev->threads_alone < threads)
        dev->threads_alone = threads;
    snprintf(dev->info.id, sizeof dev->info.id, "cpu");
    /* The label names the vector path, so that `apportion devices` and the benchmarks'
     * headers say which one ran (docs/kernels-vector-paths.md, "Vector paths"). */
    snprintf(dev->info.label, sizeof dev->info.label, "cpu (%d thread%s, %s)", threads,
             threads == 1 ? "" : "s", apo__cpu_isa_name((apo__cpu_isa)isa));
    /* The thread count and the vector path set its speed as much as the chip does. */
    char model[APO_LABEL_MAX];
    cpu_model_name(model, sizeof model);
    snprintf(dev->info.config, sizeof dev->info.config, "threads=%d,isa=%s%s%.90s", threads,
             apo__cpu_isa_name((apo__cpu_isa)isa), model[0] != '\0' ? ",model=" : "", model);
    apo__host_memory(&dev->info.memory_total_bytes, &dev->info.memory_free_bytes);
    return APO_OK;
}
