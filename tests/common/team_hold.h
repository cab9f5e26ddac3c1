/*
 * Holding a host team's helpers as they wake (base/host_team.h's test hook), as the scheduler
 * holds a thread it has not run yet: team_hold_start() sets the hook; team_hold_release(n)
 * waits until n helpers are held, takes the hook away while they are (so that no thread reads
 * it as it is written) and lets them go. For the tests of the cpu device's threads
 * (test_host_team.c) and of a stream group's helper (test_stream_group.c).
 */
#ifndef APO_TEST_TEAM_HOLD_H
#define APO_TEST_TEAM_HOLD_H

#include <pthread.h>
#include <time.h>

#include "base/host_team.h"

static pthread_mutex_t team_hold_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t team_hold_cond = PTHREAD_COND_INITIALIZER;
static int team_hold_released, team_hold_arrived, team_hold_passed;

/* The hook: a helper waits here until team_hold_release(). */
static void team_hold_hook(int slot) {
    (void)slot;
    pthread_mutex_lock(&team_hold_mutex);
    team_hold_arrived++;
    pthread_cond_broadcast(&team_hold_cond);
    while (!team_hold_released)
        pthread_cond_wait(&team_hold_cond, &team_hold_mutex);
    team_hold_passed++;
    pthread_cond_broadcast(&team_hold_cond);
    pthread_mutex_unlock(&team_hold_mutex);
}

/* Every helper that wakes from now on is held (before the runtime or the group starts them). */
static inline void team_hold_start(void) {
    pthread_mutex_lock(&team_hold_mutex);
    team_hold_released = team_hold_arrived = team_hold_passed = 0;
    pthread_mutex_unlock(&team_hold_mutex);
    apo__host_team_wake_hook = team_hold_hook;
}

/* Waits up to 60 s for n helpers to be held, lets every held one go and returns how many were
 * held; helpers that wake afterwards are not held. */
static inline int team_hold_release(int n) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 60;
    pthread_mutex_lock(&team_hold_mutex);
    while (team_hold_arrived < n &&
           pthread_cond_timedwait(&team_hold_cond, &team_hold_mutex, &until) == 0)
        ;
    pthread_mutex_unlock(&team_hold_mutex);
    apo__host_team_wake_hook = NULL;
    pthread_mutex_lock(&team_hold_mutex);
    team_hold_released = 1;
    pthread_cond_broadcast(&team_hold_cond);
    while (team_hold_passed < team_hold_arrived)
        pthread_cond_wait(&team_hold_cond, &team_hold_mutex);
    const int held = team_hold_arrived;
    pthread_mutex_unlock(&team_hold_mutex);
    return held;
}

#endif
