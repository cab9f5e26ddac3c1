/* Facts about the host that several backends need: its memory and a monotonic clock. */
#include <math.h>
#include <time.h>
#include <unistd.h>

#include "devices/device.h"

void apo__host_memory(uint64_t *total_bytes, uint64_t *free_bytes) {
    long pages = sysconf(_SC_PHYS_PAGES);
    long avail = sysconf(_SC_AVPHYS_PAGES);
    long page = sysconf(_SC_PAGESIZE);
    *total_bytes = (pages > 0 && page > 0) ? (uint64_t)pages * (uint64_t)page : 0;
    *free_bytes = (avail > 0 && page > 0) ? (uint64_t)avail * (uint64_t)page : 0;
}

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
    double whole = floor(t);
    ts->tv_sec = (time_t)whole;
    ts->tv_nsec = (long)((t - whole) * 1e9);
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}
