/* The table of host ranges a runtime pinned (pin_table.h). */
#include "devices/cuda/pin_table.h"

#include <stdint.h>
#include <stdlib.h>

apo__pin_lookup apo__pin_find(const apo__pin_table *t, const void *ptr, size_t bytes) {
    const uintptr_t lo = (uintptr_t)ptr, hi = lo + bytes;
    for (size_t i = 0; i < t->n; i++) {
        const uintptr_t a = (uintptr_t)t->pins[i].ptr, b = a + t->pins[i].bytes;
        if (a == lo && b == hi)
            return APO_PIN_SAME;
        if (a < hi && lo < b)
            return APO_PIN_OVERLAPS;
    }
    return APO_PIN_ABSENT;
}

int apo__pin_add(apo__pin_table *t, void *ptr, size_t bytes) {
    if (t->n == t->cap) {
        const size_t cap = t->cap == 0 ? 8 : 2 * t->cap;
        apo__pin *grown = realloc(t->pins, cap * sizeof *grown);
        if (grown == NULL)
            return 0;
        t->pins = grown;
        t->cap = cap;
    }
    t->pins[t->n].ptr = ptr;
    t->pins[t->n].bytes = bytes;
    t->n++;
    return 1;
}

size_t apo__pin_remove(apo__pin_table *t, const void *ptr) {
    for (size_t i = 0; i < t->n; i++) {
        if (t->pins[i].ptr != ptr)
            continue;
        const size_t bytes = t->pins[i].bytes;
        t->pins[i] = t->pins[--t->n];
        return bytes;
    }
    return 0;
}

void apo__pin_table_free(apo__pin_table *t) {
    free(t->pins);
    t->pins = NULL;
    t->n = t->cap = 0;
}
