/*
 * What profiles/ needs of time beyond the RFC 3339 functions of profile_store.h: the
 * latest time a timestamp can hold and the wall clock that stamps a write. Private to
 * profiles/.
 */
#ifndef APO_RUNTIME_PROFILES_TIMESTAMPS_H
#define APO_RUNTIME_PROFILES_TIMESTAMPS_H

/* The largest time apo__timestamp_format writes with a four-digit year (9999-12-31T23:59:59). */
#define APO_TIMESTAMP_LAST 253402300799.0

/* The wall-clock time in Unix seconds, for the `updated_at` of what is written. (Waits use
 * base/clock.h instead: a wall clock can be set back.) */
double apo__wall_clock_now(void);

#endif
