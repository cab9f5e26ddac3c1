/*
 * Whether a profile just measured can be trusted (profile_checks.h).
 */
#include "profile_checks.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* What to do about either warning, said once in each. */
#define WHAT_TO_DO                                                                                 \
    "profile again when the machine is quiet (apportion profile), or fix the shares by hand "      \
    "(apportion set-ratios)"

int cli_load_warning(double load1, long cpus, char *buf, size_t size) {
    buf[0] = '\0';
    if (!isfinite(load1) || load1 < 0 || cpus < 1 || load1 < (double)cpus)
        return 0;
    snprintf(buf, size,
             "the load average is %.2f on %ld CPU(s) as profiling begins: other work holds "
             "every core, so the models measured now are those of a busy machine and will give "
             "poor shares once it is quiet; " WHAT_TO_DO,
             load1, cpus);
    return 1;
}

int cli_latency_warning(const char *id, int simulated, double latency_ms, char *buf, size_t size) {
    buf[0] = '\0';
    if (id == NULL || simulated || strncmp(id, "cpu", 3) != 0 || !isfinite(latency_ms) ||
        latency_ms <= CLI_PLAUSIBLE_HOST_LATENCY_MS)
        return 0;
    snprintf(buf, size,
             "%s was measured with a fixed cost of %.1f ms a call, which an idle host does not "
             "have (it starts a call in well under %.0f ms): the machine was busy while it was "
             "measured, and the model fitted is not this device's; " WHAT_TO_DO,
             id, latency_ms, CLI_PLAUSIBLE_HOST_LATENCY_MS);
    return 1;
}
