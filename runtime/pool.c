/* The persistent worker pool; see pool.h. */
#include <string.h>

#include "error.h"
#include "log.h"
#include "pool.h"

void apo__device_job_run(apo__device *dev, apo__device_job *job) {
    uint64_t tiles = job->end - job->first;
    uint64_t tasks = dev->ops->task_count(dev, tiles);
    if (tasks == 0)
        tasks = 1;
    memset(&job->time, 0, sizeof job->time);
    job->status = APO_OK;
    job->done_end = job->first;
    job->tasks = 0;
    for (uint64_t t = 0; t < tasks; t++) {
        /* Task t takes tiles [first + t*tiles/tasks, first + (t+1)*tiles/tasks). */
        uint64_t a = job->first + t * tiles / tasks;
        uint64_t b = job->first + (t + 1) * tiles / tasks;
        if (a == b)
            continue;
        apo__task_time tt = {0, 0, 0, 0, 0};
        apo_status st = dev->ops->run(dev, job->call, a, b, job->task_base + job->tasks, &tt);
        job->tasks++;
        job->time.h2d_s += tt.h2d_s;
        job->time.kernel_s += tt.kernel_s;
        job->time.d2h_s += tt.d2h_s;
        job->time.wall_s += tt.wall_s > 0 ? tt.wall_s : tt.h2d_s + tt.kernel_s + tt.d2h_s;
        job->time.chunks += tt.chunks > 0 ? tt.chunks : 1;
        if (st != APO_OK) {
            job->status = st;
            apo__log(APO_LOG_INFO, APO_SUBSYS_RUN, "%s: task over tiles [%llu, %llu) failed: %s",
                     dev->info.id, (unsigned long long)a, (unsigned long long)b,
                     apo_status_name(st));
            return;
        }
        job->done_end = b;
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
        apo__device_job *job = pool->jobs[w->index];
        if (job == NULL)
            continue;
        pthread_mutex_unlock(&pool->mutex);
        apo__device_job_run(w->dev, job);
        pthread_mutex_lock(&pool->mutex);
        if (--pool->pending == 0)
            pthread_cond_signal(&pool->done);
    }
    pthread_mutex_unlock(&pool->mutex);
    return NULL;
}

apo_status apo__pool_start(apo__pool *pool, apo__device *devs, size_t n) {
    memset(pool, 0, sizeof *pool);
    if (pthread_mutex_init(&pool->mutex, NULL) != 0)
        return apo__fail(APO_ERR_INTERNAL, "cannot initialise the worker pool's mutex");
    pthread_cond_init(&pool->work, NULL);
    pthread_cond_init(&pool->done, NULL);
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

void apo__pool_run(apo__pool *pool, apo__device_job *const *jobs) {
    pthread_mutex_lock(&pool->mutex);
    pool->pending = 0;
    for (size_t i = 0; i < pool->n; i++) {
        pool->jobs[i] = jobs[i];
        if (jobs[i] != NULL)
            pool->pending++;
    }
    if (pool->pending > 0) {
        pool->generation++;
        pthread_cond_broadcast(&pool->work);
        while (pool->pending > 0)
            pthread_cond_wait(&pool->done, &pool->mutex);
    }
    pthread_mutex_unlock(&pool->mutex);
}

void apo__pool_stop(apo__pool *pool) {
    pthread_mutex_lock(&pool->mutex);
    pool->stopping = 1;
    pthread_cond_broadcast(&pool->work);
    pthread_mutex_unlock(&pool->mutex);
    for (size_t i = 0; i < pool->n; i++)
        if (pool->workers[i].started)
            pthread_join(pool->workers[i].thread, NULL);
    pool->n = 0;
    pthread_cond_destroy(&pool->work);
    pthread_cond_destroy(&pool->done);
    pthread_mutex_destroy(&pool->mutex);
}
