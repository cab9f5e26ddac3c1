/*
 * Arrays prepared before the library's timed call (see host_arrays.h and docs/cli/run.md,
 * "Memory").
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS and MADV_HUGEPAGE beside POSIX */
#include "host_arrays.h"

#include <errno.h>
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* The size of a transparent huge page on x86-64 and of the usual arm64 one: arrays at least
 * this large are mapped on their own, aligned to it, so that every part of them can be one. */
#define HUGE_PAGE_BYTES ((size_t)2 << 20)

/* Bytes between two stores of the fault-in pass: the smallest page size of the hosts the
 * tool runs on (a huge page takes 512 stores, of which the first faults it in). */
#define TOUCH_STRIDE ((size_t)4096)

/* A zeroed mapping of at least `bytes`, aligned to HUGE_PAGE_BYTES, with huge pages asked
 * for; NULL when the system has none to give. */
static void *map_aligned(size_t bytes, size_t *map_bytes) {
    const size_t len = (bytes + HUGE_PAGE_BYTES - 1) / HUGE_PAGE_BYTES * HUGE_PAGE_BYTES;
    const size_t over = len + HUGE_PAGE_BYTES;
    unsigned char *m = mmap(NULL, over, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    /* The slack before the aligned start and after its end goes back at once. */
    const uintptr_t start =
        ((uintptr_t)m + HUGE_PAGE_BYTES - 1) & ~(uintptr_t)(HUGE_PAGE_BYTES - 1);
    const size_t head = (size_t)(start - (uintptr_t)m);
    const size_t tail = over - head - len;
    if (head > 0)
        munmap(m, head);
    if (tail > 0)
        munmap((unsigned char *)start + len, tail);
#ifdef MADV_HUGEPAGE
    /* Refused where the kernel has no transparent huge pages, or has them off: the array
     * then has ordinary pages, which the fault-in pass maps all the same. */
    (void)madvise((void *)start, len, MADV_HUGEPAGE);
#endif
    *map_bytes = len;
    return (void *)start;
}

int cli_host_array_alloc(cli_host_array *a, size_t count) {
    memset(a, 0, sizeof *a);
    if (count == 0 || count > (SIZE_MAX - 2 * HUGE_PAGE_BYTES) / sizeof(double)) {
        errno = ENOMEM;
        return -1;
    }
    const size_t bytes = count * sizeof(double);
    if (bytes >= HUGE_PAGE_BYTES)
        a->map = map_aligned(bytes, &a->map_bytes);
    /* Small arrays, and large ones when mmap() refuses, come from the heap. */
    a->data = a->map != NULL ? (double *)a->map : calloc(count, sizeof(double));
    if (a->data == NULL)
        return -1;
    a->count = count;
    return 0;
}

void cli_host_arrays_fault_in(cli_host_array *const *arrays, size_t n) {
#pragma omp parallel
    {
        const size_t t = (size_t)omp_get_thread_num(), threads = (size_t)omp_get_num_threads();
        for (size_t i = 0; i < n; i++) {
            if (arrays[i]->data == NULL)
                continue;
            volatile unsigned char *base = (volatile unsigned char *)arrays[i]->data;
            const size_t pages =
                (arrays[i]->count * sizeof(double) + TOUCH_STRIDE - 1) / TOUCH_STRIDE;
            /* Thread t takes the t-th stretch of every array, as a static schedule of the
             * library's tiles would: on a NUMA host the page lands near the thread that
             * writes it. The arrays are zero, so storing zero changes no value. */
            const size_t lo = pages * t / threads, hi = pages * (t + 1) / threads;
            for (size_t p = lo; p < hi; p++)
                base[p * TOUCH_STRIDE] = 0;
        }
    }
}

void cli_host_array_free(cli_host_array *a) {
    if (a->map != NULL)
        munmap(a->map, a->map_bytes);
    else
        free(a->data);
    memset(a, 0, sizeof *a);
}
