/*
 * The arrays `apportion run` hands to the library for it to write (the outputs), prepared
 * before the timed call: a device's time includes the first touch of the caller's pages it
 * writes (docs/scheduling.md, "What a device's time includes"), so a tool that passed fresh
 * arrays would have the kernel pay its page faults, and online refinement would take them
 * for the device's speed. Here they are mapped with transparent huge pages where the kernel
 * allows (one fault per 2 MiB instead of per 4 KiB) and faulted in by every thread, before
 * the call (docs/cli/run.md, "Memory").
 *
 * Depends on libc, POSIX (mmap, madvise where Linux has it) and OpenMP.
 */
#ifndef APO_CLI_HOST_ARRAYS_H
#define APO_CLI_HOST_ARRAYS_H

#include <stddef.h>

typedef struct cli_host_array {
    double *data; /* NULL until allocated */
    size_t count; /* doubles */
    void *map;    /* the mapping to unmap (NULL: data came from malloc) */
    size_t map_bytes;
} cli_host_array;

/* Allocates `count` (> 0) doubles, zeroed, not yet faulted in. Returns 0, or -1 when there
 * is no memory (errno set). */
int cli_host_array_alloc(cli_host_array *a, size_t count);

/* Writes into every page of the n arrays with the process's OpenMP threads, each thread a
 * stretch of every array (the stretch the library's static schedule gives it), so that the
 * library's call finds them mapped and writable. The values stay zero. */
void cli_host_arrays_fault_in(cli_host_array *const *arrays, size_t n);

/* Frees the array; safe on one never allocated (zeroed) or already freed. */
void cli_host_array_free(cli_host_array *a);

#endif /* APO_CLI_HOST_ARRAYS_H */
