/* The monotonic clock; see clock.h. */
#include <math.h>
#include <time.h>

#include "base/clock.h"

/* Far enough to mean "never" for any wait, small enough for a 32-bit-safe cast. */
#define APO_CLOCK_FAR_S 1e12

double apo__now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void apo__cond_init_monotonic(pthread_cond_t *cond) {
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(cond, &attr);
    pthread_condattr_destroy(&attr);
}

void apo__monotonic_timespec(double t, struct timespec *ts) {
    /* A deadline computed from an absurd model (a rate of 1e-20) must not overflow the
     * cast to time_t, which is undefined behaviour. */
    if (!(t > 0))
        t = 0;
    if (!(t < APO_CLOCK_FAR_S))
        t = APO_CLOCK_FAR_S;
    double whole = floor(t);
    ts->tv_sec = (time_t)whole;
    ts->tv_nsec = (long)((t - whole) * 1e9);
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}
