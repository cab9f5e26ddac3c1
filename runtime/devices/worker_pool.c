/* The persistent worker pool; see worker_pool.h. */
#include <assert.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "base/error.h"
#include "base/log.h"
#include "catalog/grid.h"
#include "devices/worker_pool.h"

/* Runs tiles [a, b) of the job as one task on its call, or on `piece`, one set's own call,
 * with [pa, pb) the same tiles in that set's grid. Returns 0 when the job stops there. */
static int run_task(apo__device *dev, apo__device_job *job, const apo__call *piece, uint64_t pa,
                    uint64_t pb, uint64_t b, double started) {
    apo__task_time tt = {.started = started};
    apo_status st = dev->ops->run(dev, piece, pa, pb, job->task_base + job->tasks, &tt);
    job->tasks++;
    job->time.h2d_s += tt.h2d_s;
    job->time.kernel_s += tt.kernel_s;
    job->time.d2h_s += tt.d2h_s;
    job->time.touch_s += tt.touch_s;
    job->time.wall_s += tt.wall_s > 0 ? tt.wall_s : tt.touch_s + tt.h2d_s + tt.kernel_s + tt.d2h_s;
    job->time.chunks += tt.chunks > 0 ? tt.chunks : 1;
    job->time.host_copy_s += tt.host_copy_s;
    job->time.busy_s += tt.busy_s;
    if (tt.threads_offered > job->time.threads_offered)
        job->time.threads_offered = tt.threads_offered;
    if (st != APO_OK) {
        job->status = st;
        job->timed_out = st == APO_ERR_DEVICE_LOST && apo__task_abandoned(&dev->guard);
        apo__log(APO_LOG_INFO, APO_SUBSYS_RUN, "%s: task over tiles [%llu, %llu) %s: %s",
                 dev->info.id, (unsigned long long)pa, (unsigned long long)pb,
                 job->timed_out ? "missed its deadline" : "failed", apo_status_name(st));
        return 0;
    }
    job->done_end = b;
    return 1;
}

/* Where the next piece of tiles [a, b) of a sweep lies: the set holding tile a, and the
 * tiles of [a, b) in it, in its own grid. Reads the call, so under the task guard; 0 when
 * the task is no longer wanted. */
static int next_piece(apo__device *dev, const apo__call *call, uint64_t a, uint64_t b,
                      const apo__call **piece, uint64_t *pa, uint64_t *pb, uint64_t *piece_end) {
    if (!apo__task_enter_call(&dev->guard))
        return 0;
    apo__grid_iter it;
    apo__grid_run run;
    apo__grid_iter_init(&it, call, a, b);
    apo__grid_iter_next(&it, &run);
    *piece = run.call;
    *pa = run.first;
    *pb = run.end;
    *piece_end = run.at + (run.end - run.first);
    apo__task_leave_call(&dev->guard);
    return 1;
}

/*
 * Whether tiles [a, b) of a sweep start with pieces that can run as one call
 * (apo__grid_share): if so, fills *shared with the group's call and *piece_end with the
 * tile after its last piece. Each tile of the group still gets the bits of its set alone, so
 * which device groups what does not show in the outputs. Reads the call, so under the task
 * guard; 0 when there is no group or the task is no longer wanted (the caller then goes
 * piece by piece, which finds out).
 */
static int next_shared(apo__device *dev, const apo__call *call, uint64_t a, uint64_t b,
                       apo__call *shared, uint64_t *piece_end) {
    if (dev->ops->runs_shared == APO_RUNS_SHARED_NONE || !apo__task_enter_call(&dev->guard))
        return 0;
    const size_t n =
        apo__grid_share(call, a, b, APO_GRID_SHARE_MAX,
                        dev->ops->runs_shared == APO_RUNS_SHARED_SETS, shared, piece_end);
    apo__task_leave_call(&dev->guard);
    return n > 1;
}

void apo__device_job_run(apo__device *dev, apo__device_job *job, double now) {
    uint64_t tiles = job->end - job->first;
    uint64_t tasks = dev->ops->task_count(dev, tiles);
    if (tasks == 0)
        tasks = 1;
    memset(&job->time, 0, sizeof job->time);
    job->status = APO_OK;
    job->done_end = job->first;
    job->tasks = 0;
    job->timed_out = 0;
    /* Whether the call is a sweep: the job's call is alive while it is wanted. */
    int sweep = 0;
    if (apo__task_enter_call_at(&dev->guard, now)) {
        sweep = job->call != NULL && job->call->grid != NULL;
        apo__task_leave_call(&dev->guard);
    }
    int first_check = 1; /* the first task's check uses `now` too */
    for (uint64_t t = 0; t < tasks; t++) {
        /* Task t takes tiles [first + t*tiles/tasks, first + (t+1)*tiles/tasks). */
        uint64_t a = job->first + t * tiles / tasks;
        uint64_t b = job->first + (t + 1) * tiles / tasks;
        /* A sweep's task runs set by set, each piece on its set's own call, so that every
         * tile is computed as in a call of its set alone. */
        while (a < b) {
            /* A late job starts no further task: its remaining tiles go elsewhere. */
            const int late = first_check ? apo__task_abandoned_at(&dev->guard, now)
                                         : apo__task_abandoned(&dev->guard);
            /* The first task starts at `now` too; a later one reads the clock itself. */
            const double started = first_check ? now : 0;
            first_check = 0;
            if (late) {
                job->status = APO_ERR_DEVICE_LOST;
                job->timed_out = 1;
                return;
            }
            const apo__call *piece = job->call;
            uint64_t pa = a, pb = b, piece_end = b;
            /* Pieces that share a pass run as one call, on the first piece's tiles. */
            apo__call shared;
            if (sweep && next_shared(dev, job->call, a, b, &shared, &piece_end)) {
                if (!run_task(dev, job, &shared, 0, shared.tiles, piece_end, started))
                    return;
                a = piece_end;
                continue;
            }
            if (sweep && !next_piece(dev, job->call, a, b, &piece, &pa, &pb, &piece_end)) {
                job->status = APO_ERR_DEVICE_LOST;
                job->timed_out = 1;
                return;
            }
            if (!run_task(dev, job, piece, pa, pb, piece_end, started))
                return;
            a = piece_end;
        }
    }
}

static void *worker_main(void *arg) {
    apo__worker *w = arg;
    apo__pool *pool = w->pool;
    uint64_t seen = 0;
    pthread_mutex_lock(&pool->mutex);
    for (;;) {
        while (!pool->stopping && pool->generation == seen)
            pthread_cond_wait(&pool->work, &pool->mutex);
        if (pool->stopping)
            break;
        seen = pool->generation;
        if (!w->busy)
            continue;
        pthread_mutex_unlock(&pool->mutex);
        apo__device_job_run(w->dev, &w->job, apo__task_clock(&w->dev->guard));
        pthread_mutex_lock(&pool->mutex);
        w->busy = 0;
        /* An abandoned job was already counted off by the caller, who has moved on. */
        if (!w->abandoned && --pool->pending == 0)
            pthread_cond_broadcast(&pool->done);
    }
    w->exited = 1;
    pthread_cond_broadcast(&pool->done);
    pthread_mutex_unlock(&pool->mutex);
    return NULL;
}

apo_status apo__pool_start(apo__pool *pool, apo__device *devs, size_t n) {
    memset(pool, 0, sizeof *pool);
    if (pthread_mutex_init(&pool->mutex, NULL) != 0)
        return apo__fail(APO_ERR_INTERNAL, "cannot initialise the worker pool's mutex");
    pthread_cond_init(&pool->work, NULL);
    apo__cond_init_monotonic(&pool->done);
    pool->devices = devs;
    for (size_t i = 0; i < n; i++)
        apo__task_guard_init(&devs[i].guard);
    pool->n_devices = n;
    for (size_t i = 0; i < n; i++) {
        apo__worker *w = &pool->workers[i];
        w->pool = pool;
        w->dev = &devs[i];
        w->index = i;
        if (pthread_create(&w->thread, NULL, worker_main, w) != 0) {
            apo__pool_stop(pool);
            return apo__fail(APO_ERR_OUT_OF_MEMORY, "cannot start the worker thread of device %s",
                             devs[i].info.id);
        }
        w->started = 1;
        pool->n = i + 1;
    }
    return APO_OK;
}

/* The earliest deadline among the jobs still running, or 0. Called with the mutex held. */
static double next_deadline(const apo__pool *pool, apo__device_job *const *jobs,
                            const double *deadlines) {
    double next = 0;
    for (size_t i = 0; i < pool->n; i++) {
        const apo__worker *w = &pool->workers[i];
        if (jobs[i] == NULL || !w->busy || w->abandoned || deadlines[i] <= 0)
            continue;
        if (next == 0 || deadlines[i] < next)
            next = deadlines[i];
    }
    return next;
}

void apo__pool_run(apo__pool *pool, apo__device_job *const *jobs, const double *deadlines) {
    static const double no_deadlines[APO_MAX_DEVICES];
    if (deadlines == NULL)
        deadlines = no_deadlines;
    double started = apo__now();
    pthread_mutex_lock(&pool->mutex);
    pool->pending = 0;
    for (size_t i = 0; i < pool->n; i++) {
        apo__worker *w = &pool->workers[i];
        if (jobs[i] == NULL)
            continue;
        assert(!w->abandoned && !w->busy);
        w->job = *jobs[i];
        apo__task_arm(&w->dev->guard, deadlines[i]);
        w->busy = 1;
        pool->pending++;
    }
    if (pool->pending > 0) {
        pool->generation++;
        pthread_cond_broadcast(&pool->work);
    }
    while (pool->pending > 0) {
        double next = next_deadline(pool, jobs, deadlines);
        if (next == 0) {
            pthread_cond_wait(&pool->done, &pool->mutex);
        } else {
            struct timespec ts;
            apo__monotonic_timespec(next, &ts);
            pthread_cond_timedwait(&pool->done, &pool->mutex, &ts);
        }
        double now = apo__now();
        for (size_t i = 0; i < pool->n; i++) {
            apo__worker *w = &pool->workers[i];
            if (jobs[i] == NULL || !w->busy || w->abandoned || deadlines[i] <= 0 ||
                now < deadlines[i])
                continue;
            w->abandoned = 1;
            pool->pending--;
            /* Waiting for the task's last access may take a tile's time: let the other
             * workers report meanwhile. */
            pthread_mutex_unlock(&pool->mutex);
            apo__task_abandon(&w->dev->guard);
            pthread_mutex_lock(&pool->mutex);
        }
    }
    double ended = apo__now();
    for (size_t i = 0; i < pool->n; i++) {
        apo__worker *w = &pool->workers[i];
        if (jobs[i] == NULL)
            continue;
        if (!w->abandoned) {
            *jobs[i] = w->job;
            continue;
        }
        /* Whatever it did is discarded: its tiles are redone, so its progress, which it
         * may still be updating, is not read. */
        apo__device_job *job = jobs[i];
        memset(&job->time, 0, sizeof job->time);
        job->status = APO_ERR_DEVICE_LOST;
        job->timed_out = 1;
        job->done_end = job->first;
        job->tasks = 0;
        job->time.wall_s = ended - started;
    }
    pthread_mutex_unlock(&pool->mutex);
}

size_t apo__pool_stop(apo__pool *pool) {
    pthread_mutex_lock(&pool->mutex);
    pool->stopping = 1;
    pthread_cond_broadcast(&pool->work);
    pthread_mutex_unlock(&pool->mutex);
    /* A sim task blocked in a hang, or sleeping out its modelled time, wakes on this. */
    for (size_t i = 0; i < pool->n; i++)
        if (pool->workers[i].abandoned)
            apo__task_cancel(&pool->workers[i].dev->guard);

    double give_up = apo__now() + APO_POOL_STOP_GRACE_S;
    struct timespec ts;
    apo__monotonic_timespec(give_up, &ts);
    pthread_mutex_lock(&pool->mutex);
    for (;;) {
        size_t running = 0;
        for (size_t i = 0; i < pool->n; i++)
            running += pool->workers[i].started && !pool->workers[i].exited;
        if (running == 0 || apo__now() >= give_up)
            break;
        pthread_cond_timedwait(&pool->done, &pool->mutex, &ts);
    }
    size_t stuck = 0;
    for (size_t i = 0; i < pool->n; i++) {
        apo__worker *w = &pool->workers[i];
        if (!w->started || w->exited)
            continue;
        w->stuck = 1;
        stuck++;
        pthread_detach(w->thread);
        apo__log(APO_LOG_WARN, APO_SUBSYS_RUN,
                 "%s: its worker is still inside a task abandoned at its deadline %.1f s after "
                 "the runtime was destroyed; the thread is detached and the runtime's memory is "
                 "left allocated for it",
                 w->dev->info.id, APO_POOL_STOP_GRACE_S);
    }
    pthread_mutex_unlock(&pool->mutex);
    for (size_t i = 0; i < pool->n; i++) {
        apo__worker *w = &pool->workers[i];
        if (w->started && !w->stuck)
            pthread_join(w->thread, NULL);
    }
    if (stuck > 0)
        return stuck; /* the detached threads still use the mutex, the conditions and guards */
    for (size_t i = 0; i < pool->n_devices; i++)
        apo__task_guard_destroy(&pool->devices[i].guard);
    pool->n = 0;
    pthread_cond_destroy(&pool->work);
    pthread_cond_destroy(&pool->done);
    pthread_mutex_destroy(&pool->mutex);
    return 0;
}
