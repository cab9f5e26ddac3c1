/*
 * Whether a profile just measured can be trusted (docs/cli/profile.md, "apportion profile"): a
 * machine busy with other work when profiling began gives models of that moment, and a
 * fixed cost per call that no idle host has says the same after the fact. Each check takes
 * what it judges as arguments (the load average is read by the caller, getloadavg()), so
 * that tests give it any load without making one. Depends on libc only.
 */
#ifndef APO_CLI_PROFILE_CHECKS_H
#define APO_CLI_PROFILE_CHECKS_H

#include <stddef.h>

/* A host device's fixed time per call above this many milliseconds is not the device's: an
 * idle host starts a call in microseconds (waking its worker threads), so tens of
 * milliseconds are time spent waiting for cores that other work held. */
#define CLI_PLAUSIBLE_HOST_LATENCY_MS 5.0

/* Writes a warning into buf (returns 1) when the 1-minute load average `load1`, read before
 * profiling begins, is at least the number of online CPUs `cpus`: other work held every
 * core, so the times measured are those of a shared machine. Returns 0 (buf empty) when it
 * is lower, or when either is unknown (load1 not finite or negative, cpus < 1). */
int cli_load_warning(double load1, long cpus, char *buf, size_t size);

/* Writes a warning into buf (returns 1) when host device `id` (a "cpu" device; simulated
 * devices are modelled and not judged, `simulated` != 0) has a fitted fixed time per call
 * above CLI_PLAUSIBLE_HOST_LATENCY_MS; 0 (buf empty) otherwise. */
int cli_latency_warning(const char *id, int simulated, double latency_ms, char *buf, size_t size);

#endif
