/* The host's memory, which the cpu and sim devices report as theirs. */
#include <unistd.h>

#include "devices/device.h"
#include "devices/host_memory.h"

void apo__host_memory(uint64_t *total_bytes, uint64_t *free_bytes) {
    long pages = sysconf(_SC_PHYS_PAGES);
    long avail = sysconf(_SC_AVPHYS_PAGES);
    long page = sysconf(_SC_PAGESIZE);
    *total_bytes = (pages > 0 && page > 0) ? (uint64_t)pages * (uint64_t)page : 0;
    *free_bytes = (avail > 0 && page > 0) ? (uint64_t)avail * (uint64_t)page : 0;
}
