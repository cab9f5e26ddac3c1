/* The host's memory, which the cpu and sim devices report as theirs (host_memory.c). */
#ifndef APO_RUNTIME_DEVICES_HOST_MEMORY_H
#define APO_RUNTIME_DEVICES_HOST_MEMORY_H

#include <stdint.h>

void apo__host_memory(uint64_t *total_bytes, uint64_t *free_bytes);

#endif
