/*
 * The CUDA device's staging slots, sized to the need (docs/cuda.md, "Staging slots sized to the
 * need"): every slot's device buffer, then its pinned host buffer, allocated by a thread of the
 * GPU's own (the stager) and published one at a time, and grown when a task's bytes ask for it.
 *
 * Why: pinning host memory is slow. cudaMallocHost ran at 0.41 to 0.67 ms per MiB on an H100
 * machine, so the four slots of 128 MiB that every GPU once pinned before its first task cost
 * 211 to 343 ms, which every first task waited for, while a scored sweep's piece moves about
 * 12 MB (docs/perf-log/2026-11-25-h100-first-run.md, "First run on a GPU"; docs/cuda.md). Now:
 *
 * - The stager allocates the device buffers first (cudaMalloc is fast), at their full size, so
 *   that a slot never needs a new device buffer; then it pins the host buffers one slot at a
 *   time at APO_CUDA_SLOT_FIRST_BYTES, publishing each under the lock as it is ready.
 * - A task waits until the slots its bytes fill are published (apo__slots_needed), not for
 *   all of them; a small task that finds none ready copies from pageable memory instead
 *   (apo__stage_from_pageable), and a task that pins nothing of its own waits for the device
 *   buffers only.
 * - A task whose bytes all the slots together cannot hold runs on the present ones and asks
 *   for larger ones (apo__slot_grown_bytes): the stager pins a full set of the new size
 *   beside the old, and the set is swapped in between tasks, by the stager when no task runs
 *   or by the next task when it starts; the stager frees the old set. The grown size is kept
 *   for the runtime's life.
 * - The stager starts when the GPU is opened where the runtime is asked to stage early (the
 *   CLI, whose input read overlaps it: APPORTION_GPU_EARLY_STAGING), and otherwise at the
 *   GPU's first task, so that a library in a process that never uses its GPU pins nothing.
 * - While a call that gives this GPU nothing runs (the cpu alone was faster), the stager starts
 *   no new pin (apo__cuda_hold_staging): pinning beside such a call competes with it for a
 *   core and the memory map, and nothing of that call needs the slots.
 *
 * Threads: every field of apo__cuda_staging but `thread` is read and written under its lock.
 * A slot's buffers are written before the slot is published and only read by a task that saw
 * it published; they are replaced only while no task holds the slots (in_use), so a task
 * reads them without the lock.
 *
 * Failures: an allocation that fails is retried at half the size (the device buffers down to
 * APO_CUDA_SLOT_MIN_BYTES; the first pinned buffer likewise, the others at its size or not at
 * all). When the stager ends without what a task needs, the task allocates it itself, as the
 * first task always did; when that fails too, the task fails and its tiles move.
 *
 * Determinism: none of this changes what is computed, only how many bytes a chunk holds and
 * through which memory they move.
 */
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "devices/cuda/cuda_state.h"
#include "devices/cuda/pipeline_plan.h"

int apo__cuda_staging_init(apo__cuda_state *st) {
    apo__cuda_staging *g = &st->staging;
    if (pthread_mutex_init(&g->m, NULL) != 0)
        return 0;
    if (pthread_cond_init(&g->cv, NULL) != 0) {
        pthread_mutex_destroy(&g->m);
        return 0;
    }
    g->phase = APO_STAGING_NOT_STARTED;
    return 1;
}

/* Frees every slot's device buffer. */
static void free_device_buffers(apo__cuda_state *st) {
    for (int i = 0; i < APO_CUDA_SLOTS; i++) {
        if (st->slots[i].dev != NULL)
            cudaFree(st->slots[i].dev);
        st->slots[i].dev = NULL;
    }
}

static void free_pinned(double **buffers) {
    for (int i = 0; i < APO_CUDA_SLOTS; i++) {
        if (buffers[i] != NULL)
            cudaFreeHost(buffers[i]);
        buffers[i] = NULL;
    }
}

void apo__cuda_free_staging(apo__cuda_state *st) {
    apo__cuda_staging *g = &st->staging;
    free_device_buffers(st);
    double *host[APO_CUDA_SLOTS];
    for (int i = 0; i < APO_CUDA_SLOTS; i++) {
        host[i] = st->slots[i].host;
        st->slots[i].host = NULL;
    }
    free_pinned(host);
    free_pinned(g->spare);
    free_pinned(g->retired);
    pthread_cond_destroy(&g->cv);
    pthread_mutex_destroy(&g->m);
}

static void publish(apo__cuda_staging *g) { pthread_cond_broadcast(&g->cv); }

/* Whether the next pin may start: not while a call that gives this GPU nothing runs
 * (apo__cuda_hold_staging), unless a task of this GPU waits for slots. Waits until then, or
 * until closing; returns 0 when closing. */
static int may_pin(apo__cuda_staging *g) {
    pthread_mutex_lock(&g->m);
    while (g->held > 0 && g->waiting == 0 && !g->stop)
        pthread_cond_wait(&g->cv, &g->m);
    const int stop = g->stop;
    pthread_mutex_unlock(&g->m);
    return !stop;
}

void apo__cuda_hold_staging(apo__cuda_state *st, int delta) {
    apo__cuda_staging *g = &st->staging;
    pthread_mutex_lock(&g->m);
    if (delta > 0)
        g->held++;
    else if (g->held > 0)
        g->held--;
    publish(g);
    pthread_mutex_unlock(&g->m);
}

/* Allocates every slot's device buffer at a quarter of the budget, at most
 * APO_CUDA_SLOT_MAX_BYTES, halving after each failure; publishes them. */
static void allocate_device_buffers(apo__cuda_state *st) {
    apo__cuda_staging *g = &st->staging;
    size_t bytes = st->budget_bytes / APO_CUDA_SLOTS;
    if (bytes > APO_CUDA_SLOT_MAX_BYTES)
        bytes = APO_CUDA_SLOT_MAX_BYTES;
    const double t0 = apo__now();
    for (; bytes >= APO_CUDA_SLOT_MIN_BYTES; bytes /= 2) {
        int ok = 1;
        for (int i = 0; i < APO_CUDA_SLOTS && ok; i++)
            ok = cudaMalloc((void **)&st->slots[i].dev, bytes) == cudaSuccess;
        if (ok) {
            apo__log(APO_LOG_INFO, APO_SUBSYS_DEVICE,
                     "%s: staging: device buffers %d x %zu MiB in %.1f ms", g->id, APO_CUDA_SLOTS,
                     bytes >> 20, (apo__now() - t0) * 1e3);
            pthread_mutex_lock(&g->m);
            g->dev_bytes = bytes;
            g->pin_cap = bytes;
            g->dev_ready = 1;
            publish(g);
            pthread_mutex_unlock(&g->m);
            return;
        }
        /* An allocation failure is not sticky: clear it and try smaller. */
        (void)cudaGetLastError();
        free_device_buffers(st);
        apo__log(APO_LOG_INFO, APO_SUBSYS_DEVICE,
                 "%s: cannot allocate %d x %zu MiB of staging; halving", g->id, APO_CUDA_SLOTS,
                 bytes >> 20);
    }
    apo__log(APO_LOG_WARN, APO_SUBSYS_DEVICE,
             "%s: cannot allocate even %d x %zu MiB of staging memory", g->id, APO_CUDA_SLOTS,
             APO_CUDA_SLOT_MIN_BYTES >> 20);
}

/* Pins the host buffers of the slots not yet published, one at a time, publishing each: the
 * first at APO_CUDA_SLOT_FIRST_BYTES (at most the device buffers' size, halved after a
 * failure), the others at its size. Stops early when closing or after a failure (the slots
 * published so far are used). */
static void pin_first_slots(apo__cuda_state *st) {
    apo__cuda_staging *g = &st->staging;
    pthread_mutex_lock(&g->m);
    unsigned next = g->published;
    size_t bytes = next > 0 ? g->host_bytes : APO_CUDA_SLOT_FIRST_BYTES;
    if (bytes > g->dev_bytes)
        bytes = g->dev_bytes;
    pthread_mutex_unlock(&g->m);
    for (; next < APO_CUDA_SLOTS && may_pin(g); next++) {
        const double t0 = apo__now();
        double *host = NULL;
        while (cudaMallocHost((void **)&host, bytes) != cudaSuccess) {
            (void)cudaGetLastError();
            host = NULL;
            if (next > 0 || bytes / 2 < APO_CUDA_SLOT_MIN_BYTES)
                break;
            bytes /= 2;
        }
        if (host == NULL) {
            apo__log(APO_LOG_WARN, APO_SUBSYS_DEVICE,
                     "%s: cannot pin slot %u's %zu MiB of staging; %u slot(s) pinned", g->id, next,
                     bytes >> 20, next);
            return;
        }
        apo__log(APO_LOG_INFO, APO_SUBSYS_DEVICE, "%s: staging: slot %u pinned, %zu MiB in %.1f ms",
                 g->id, next, bytes >> 20, (apo__now() - t0) * 1e3);
        pthread_mutex_lock(&g->m);
        st->slots[next].host = host;
        g->host_bytes = bytes;
        g->published = next + 1;
        publish(g);
        pthread_mutex_unlock(&g->m);
    }
}

/* The device buffers, then the first pinned slots: what the stager does first, and what a
 * task does itself when the stager could not. */
static void stage_first(apo__cuda_state *st) {
    apo__cuda_staging *g = &st->staging;
    pthread_mutex_lock(&g->m);
    const int have_dev = g->dev_ready;
    pthread_mutex_unlock(&g->m);
    if (!have_dev)
        allocate_device_buffers(st);
    pthread_mutex_lock(&g->m);
    const int pin = g->dev_ready && g->published < APO_CUDA_SLOTS;
    pthread_mutex_unlock(&g->m);
    if (pin)
        pin_first_slots(st);
}

/* Swaps the grown buffers in for the slots' present ones, which go to `retired` for the
 * stager to free; under the lock, while no task holds the slots. */
static void swap_in_spare(apo__cuda_state *st) {
    apo__cuda_staging *g = &st->staging;
    for (int i = 0; i < APO_CUDA_SLOTS; i++) {
        g->retired[i] = st->slots[i].host;
        st->slots[i].host = g->spare[i];
        g->spare[i] = NULL;
    }
    g->published = APO_CUDA_SLOTS;
    g->host_bytes = g->spare_bytes;
    g->spare_ready = 0;
    if (g->grow_to <= g->host_bytes)
        g->grow_to = 0;
    apo__log(APO_LOG_INFO, APO_SUBSYS_DEVICE, "%s: staging: slots of %zu MiB swapped in", g->id,
             g->host_bytes >> 20);
    publish(g);
}

/* Pins a full set of slots of `bytes` beside the present ones, for swap_in_spare; under the
 * lock, which it lets go while it pins. A failure keeps the present size for good. */
static void grow(apo__cuda_state *st, size_t bytes) {
    apo__cuda_staging *g = &st->staging;
    pthread_mutex_unlock(&g->m);
    const double t0 = apo__now();
    double *host[APO_CUDA_SLOTS] = {NULL};
    int ok = 1;
    for (int i = 0; i < APO_CUDA_SLOTS && ok; i++) {
        ok = may_pin(g) && cudaMallocHost((void **)&host[i], bytes) == cudaSuccess;
        if (!ok) {
            (void)cudaGetLastError();
            host[i] = NULL;
        }
    }
    if (ok)
        apo__log(APO_LOG_INFO, APO_SUBSYS_DEVICE,
                 "%s: staging: %d slots of %zu MiB pinned in %.1f ms, to swap in", g->id,
                 APO_CUDA_SLOTS, bytes >> 20, (apo__now() - t0) * 1e3);
    else
        free_pinned(host);
    pthread_mutex_lock(&g->m);
    if (ok) {
        memcpy(g->spare, host, sizeof host);
        g->spare_bytes = bytes;
        g->spare_ready = 1;
    } else {
        if (!g->stop)
            apo__log(APO_LOG_WARN, APO_SUBSYS_DEVICE,
                     "%s: cannot pin %d slots of %zu MiB of staging; keeping %zu MiB", g->id,
                     APO_CUDA_SLOTS, bytes >> 20, g->host_bytes >> 20);
        g->pin_cap = g->host_bytes;
        g->grow_to = 0;
    }
}

/* Frees the swapped-out buffers; under the lock, which it lets go meanwhile. */
static void free_retired(apo__cuda_staging *g) {
    double *old[APO_CUDA_SLOTS];
    memcpy(old, g->retired, sizeof old);
    memset(g->retired, 0, sizeof g->retired);
    pthread_mutex_unlock(&g->m);
    free_pinned(old);
    pthread_mutex_lock(&g->m);
}

static int has_retired(const apo__cuda_staging *g) {
    for (int i = 0; i < APO_CUDA_SLOTS; i++)
        if (g->retired[i] != NULL)
            return 1;
    return 0;
}

static void *stager_main(void *arg) {
    apo__cuda_state *st = arg;
    apo__cuda_staging *g = &st->staging;
    if (cudaSetDevice(st->ordinal) == cudaSuccess)
        stage_first(st);
    (void)cudaGetLastError();
    pthread_mutex_lock(&g->m);
    /* Without device buffers, or without a pinned slot, the thread has nothing to grow: a task
     * then allocates what it needs itself. */
    g->phase = g->dev_ready && g->published > 0 ? APO_STAGING_IDLE : APO_STAGING_ENDED;
    publish(g);
    while (g->phase == APO_STAGING_IDLE && !g->stop) {
        if (has_retired(g)) {
            free_retired(g);
        } else if (g->spare_ready && !g->in_use) {
            swap_in_spare(st);
        } else if (!g->spare_ready && g->grow_to > g->host_bytes) {
            grow(st, g->grow_to);
        } else {
            pthread_cond_wait(&g->cv, &g->m);
        }
    }
    g->phase = APO_STAGING_ENDED;
    publish(g);
    pthread_mutex_unlock(&g->m);
    (void)cudaGetLastError();
    return NULL;
}

void apo__cuda_start_staging(apo__cuda_state *st, const char *id) {
    apo__cuda_staging *g = &st->staging;
    pthread_mutex_lock(&g->m);
    if (g->phase == APO_STAGING_NOT_STARTED) {
        snprintf(g->id, sizeof g->id, "%s", id);
        g->thread_started = pthread_create(&g->thread, NULL, stager_main, st) == 0;
        g->phase = g->thread_started ? APO_STAGING_PINNING : APO_STAGING_ENDED;
    }
    pthread_mutex_unlock(&g->m);
}

/* Joins the stager once it has ended or been told to stop. */
static void join_stager(apo__cuda_staging *g) {
    pthread_mutex_lock(&g->m);
    const int started = g->thread_started;
    g->thread_started = 0;
    pthread_mutex_unlock(&g->m);
    if (started)
        (void)pthread_join(g->thread, NULL);
}

void apo__cuda_stop_staging(apo__cuda_state *st) {
    apo__cuda_staging *g = &st->staging;
    pthread_mutex_lock(&g->m);
    g->stop = 1;
    publish(g);
    pthread_mutex_unlock(&g->m);
    join_stager(g);
}

/* Whether what the slots hold now lets a task start: the device buffers, and, for a task
 * that stages through pinned memory, the slots it needs, or the pageable copies while none
 * is ready. `*pageable` says which. */
static int ready_for(const apo__cuda_staging *g, size_t task_bytes, int pinned, int *pageable) {
    *pageable = 0;
    if (!g->dev_ready)
        return 0;
    if (!pinned)
        return 1;
    if (g->published > 0 && g->published >= apo__slots_needed(task_bytes, g->host_bytes))
        return 1;
    *pageable = apo__stage_from_pageable(task_bytes, g->published);
    return *pageable;
}

/* Whether the task can run on what the slots hold when nothing more will come: the device
 * buffers and, for a pinned task, at least one pinned slot (or the pageable copies). */
static int enough_for(const apo__cuda_staging *g, size_t task_bytes, int pinned, int *pageable) {
    if (ready_for(g, task_bytes, pinned, pageable))
        return 1;
    return g->dev_ready && g->published > 0;
}

/* Asks the stager for slots that hold a task of `task_bytes`, when the present ones do not
 * and none larger is asked for or pinned already; under the lock. Returns the size asked for,
 * 0 when none was. */
static size_t ask_growth(apo__cuda_staging *g, size_t task_bytes) {
    if (g->published == 0)
        return 0;
    const size_t want = apo__slot_grown_bytes(task_bytes, g->host_bytes, g->pin_cap);
    if (want <= g->host_bytes || want <= g->grow_to || (g->spare_ready && want <= g->spare_bytes))
        return 0;
    g->grow_to = want;
    publish(g);
    return want;
}

void apo__cuda_ask_staging_growth(apo__cuda_state *st, size_t task_bytes) {
    apo__cuda_staging *g = &st->staging;
    pthread_mutex_lock(&g->m);
    (void)ask_growth(g, task_bytes);
    pthread_mutex_unlock(&g->m);
}

/* Whether the stager still pins: the first slots, or larger ones when asked. */
static int stager_alive(const apo__cuda_staging *g) {
    return g->phase == APO_STAGING_PINNING || g->phase == APO_STAGING_IDLE;
}

int apo__cuda_take_staging(apo__cuda_state *st, const char *id, size_t task_bytes, int pinned,
                           apo__staging_grant *grant) {
    apo__cuda_staging *g = &st->staging;
    apo__cuda_start_staging(st, id);
    const double t0 = apo__now();
    pthread_mutex_lock(&g->m);
    g->waiting++;
    publish(g);
    if (g->spare_ready)
        swap_in_spare(st);
    grant->ready = g->published;
    int pageable = 0;
    while (!ready_for(g, task_bytes, pinned, &pageable) && g->phase == APO_STAGING_PINNING)
        pthread_cond_wait(&g->cv, &g->m);
    if (!enough_for(g, task_bytes, pinned, &pageable)) {
        /* The stager has ended without it: allocate here, as the first task always could. */
        pthread_mutex_unlock(&g->m);
        join_stager(g);
        stage_first(st);
        (void)cudaGetLastError();
        pthread_mutex_lock(&g->m);
        if (!enough_for(g, task_bytes, pinned, &pageable)) {
            g->waiting--;
            pthread_mutex_unlock(&g->m);
            return 0;
        }
    }
    /* A task the present slots would cut into far more chunks than the pipeline needs waits
     * for larger ones (apo__stage_waits_for_growth), while the stager can still pin them. */
    if (pinned && !pageable && stager_alive(g) &&
        apo__stage_waits_for_growth(task_bytes, g->host_bytes, g->pin_cap) &&
        ask_growth(g, task_bytes) + g->grow_to > 0) {
        while (!g->spare_ready && g->grow_to > g->host_bytes && stager_alive(g))
            pthread_cond_wait(&g->cv, &g->m);
        if (g->spare_ready)
            swap_in_spare(st);
    }
    const int staged = pinned && !pageable;
    grant->pageable = pageable;
    grant->slots = staged ? g->published : APO_CUDA_SLOTS;
    grant->slot_doubles = (staged ? g->host_bytes : g->dev_bytes) / sizeof(double);
    grant->dev_doubles = g->dev_bytes / sizeof(double);
    grant->waited_s = apo__now() - t0;
    const size_t asked = staged ? ask_growth(g, task_bytes) : 0;
    g->in_use = 1;
    g->waiting--;
    const size_t host_bytes = g->host_bytes;
    pthread_mutex_unlock(&g->m);
    if (pageable || asked != 0 || grant->ready < grant->slots)
        apo__log(APO_LOG_INFO, APO_SUBSYS_DEVICE,
                 "%s: a task of %.1f MiB: %s; %u pinned slot(s) of %zu MiB ready at its start, "
                 "waited %.1f ms%s",
                 id, (double)task_bytes / 1048576.0,
                 pageable ? "copied from pageable memory" : "staged through pinned slots",
                 grant->ready, host_bytes >> 20, grant->waited_s * 1e3,
                 asked != 0 ? ", slots asked to grow" : "");
    return 1;
}

void apo__cuda_release_staging(apo__cuda_state *st) {
    apo__cuda_staging *g = &st->staging;
    pthread_mutex_lock(&g->m);
    g->in_use = 0;
    publish(g);
    pthread_mutex_unlock(&g->m);
}
