/*
 * The task guard: how the runtime gives up on a device's task without letting it touch
 * the call afterwards (task_guard.h has the protocol). The flag and the access count are
 * sequentially consistent atomics, so the hot path (one enter and one leave per tile) takes
 * no lock; the mutex and condition variable only serve the slow paths, waking a blocked task
 * and the runtime that waits for the last access to end.
 */
#include <time.h>

#include "base/clock.h"
#include "devices/task_guard.h"

void apo__task_guard_init(apo__task_guard *g) {
    atomic_init(&g->abandoned, 0);
    atomic_init(&g->inside, 0);
    g->deadline = 0;
    pthread_mutex_init(&g->mutex, NULL);
    apo__cond_init_monotonic(&g->wake);
    g->ready = 1;
}

void apo__task_guard_destroy(apo__task_guard *g) {
    if (!g->ready)
        return;
    pthread_cond_destroy(&g->wake);
    pthread_mutex_destroy(&g->mutex);
    g->ready = 0;
}

void apo__task_arm(apo__task_guard *g, double deadline) {
    g->deadline = deadline;
    atomic_store(&g->abandoned, 0);
}

static int past_deadline_at(const apo__task_guard *g, double now) {
    return g->deadline > 0 && now > g->deadline;
}

static int past_deadline(const apo__task_guard *g) {
    return g->deadline > 0 && past_deadline_at(g, apo__now());
}

/* Wakes whoever waits on the guard: a blocked task, or the runtime draining accesses. */
static void wake_all(apo__task_guard *g) {
    pthread_mutex_lock(&g->mutex);
    pthread_cond_broadcast(&g->wake);
    pthread_mutex_unlock(&g->mutex);
}

void apo__task_leave_call(apo__task_guard *g) {
    /* The last access of an abandoned task ends: the runtime may be waiting for it. */
    if (atomic_fetch_sub(&g->inside, 1) == 1 && atomic_load(&g->abandoned))
        wake_all(g);
}

int apo__task_enter_call_at(apo__task_guard *g, double now) {
    /* A late task stops by itself, at a point where it holds no access: that is how a
     * device running on the caller's thread (which nobody watches) keeps its deadline. */
    if (past_deadline_at(g, now))
        atomic_store(&g->abandoned, 1);
    atomic_fetch_add(&g->inside, 1);
    if (atomic_load(&g->abandoned)) {
        apo__task_leave_call(g);
        return 0;
    }
    return 1;
}

int apo__task_enter_call(apo__task_guard *g) {
    /* The clock is read only when there is a deadline to keep. */
    return apo__task_enter_call_at(g, apo__task_clock(g));
}

int apo__task_abandoned(const apo__task_guard *g) {
    return atomic_load(&g->abandoned) || past_deadline(g);
}

int apo__task_abandoned_at(const apo__task_guard *g, double now) {
    return atomic_load(&g->abandoned) || past_deadline_at(g, now);
}

double apo__task_clock(const apo__task_guard *g) { return g->deadline > 0 ? apo__now() : 0; }

void apo__task_cancel(apo__task_guard *g) {
    atomic_store(&g->abandoned, 1);
    wake_all(g);
}

void apo__task_abandon(apo__task_guard *g) {
    atomic_store(&g->abandoned, 1);
    pthread_mutex_lock(&g->mutex);
    pthread_cond_broadcast(&g->wake);
    /* An access that began before the flag was set may still be writing. Its leave takes
     * the mutex to wake us, so checking under the mutex cannot miss it. */
    while (atomic_load(&g->inside) > 0)
        pthread_cond_wait(&g->wake, &g->mutex);
    pthread_mutex_unlock(&g->mutex);
}

void apo__task_wait_until_abandoned(apo__task_guard *g) {
    pthread_mutex_lock(&g->mutex);
    while (!atomic_load(&g->abandoned))
        pthread_cond_wait(&g->wake, &g->mutex);
    pthread_mutex_unlock(&g->mutex);
}

int apo__task_sleep_until(apo__task_guard *g, double until) {
    struct timespec ts;
    apo__monotonic_timespec(until, &ts);
    pthread_mutex_lock(&g->mutex);
    /* Timeouts, wake-ups and spurious returns all come back to the same two checks. */
    while (!atomic_load(&g->abandoned) && apo__now() < until)
        pthread_cond_timedwait(&g->wake, &g->mutex, &ts);
    int abandoned = atomic_load(&g->abandoned);
    pthread_mutex_unlock(&g->mutex);
    return abandoned;
}
