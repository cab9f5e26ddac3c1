/*
 * The host ranges a runtime pinned for its GPUs (apo_cuda_host_register, apportion_cuda.h):
 * one entry per registered range, so that registering a range twice is a no-op, a range
 * overlapping another is refused, and every range can be released at the runtime's end.
 * Plain C without CUDA: the CUDA calls are the caller's (core/cuda_calls.c); this is the
 * bookkeeping, unit-tested without a GPU.
 */
#ifndef APO_RUNTIME_DEVICES_CUDA_PIN_TABLE_H
#define APO_RUNTIME_DEVICES_CUDA_PIN_TABLE_H

#include <stddef.h>

typedef struct apo__pin {
    void *ptr;
    size_t bytes;
} apo__pin;

typedef struct apo__pin_table {
    apo__pin *pins;
    size_t n, cap;
} apo__pin_table;

typedef enum apo__pin_lookup {
    APO_PIN_ABSENT = 0,  /* no entry touches the range */
    APO_PIN_SAME = 1,    /* an entry is exactly this range */
    APO_PIN_OVERLAPS = 2 /* an entry overlaps it without being it */
} apo__pin_lookup;

/* How [ptr, ptr + bytes) stands against the table (bytes > 0). */
apo__pin_lookup apo__pin_find(const apo__pin_table *t, const void *ptr, size_t bytes);

/* Adds the range; 0 when out of memory. The caller checked apo__pin_find() first. */
int apo__pin_add(apo__pin_table *t, void *ptr, size_t bytes);

/* Removes the entry that starts at ptr and returns its size, or 0 when there is none. */
size_t apo__pin_remove(apo__pin_table *t, const void *ptr);

/* Frees the table's storage (its entries must have been released by the caller). */
void apo__pin_table_free(apo__pin_table *t);

#endif
