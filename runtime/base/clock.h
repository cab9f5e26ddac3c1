/*
 * The monotonic clock every room measures with, and condition variables whose timed waits
 * use it, so that timeouts survive changes of the wall-clock time.
 */
#ifndef APO_RUNTIME_BASE_CLOCK_H
#define APO_RUNTIME_BASE_CLOCK_H

#include <pthread.h>

struct timespec;

/* Monotonic clock in seconds. */
double apo__now(void);

/* A condition variable whose timed waits use the monotonic clock. */
void apo__cond_init_monotonic(pthread_cond_t *cond);

/* The absolute time of such a wait for a time `t` of apo__now(). A time too far ahead
 * for time_t (or not finite) is clamped to about 30,000 years from the clock's origin. */
void apo__monotonic_timespec(double t, struct timespec *ts);

#endif
