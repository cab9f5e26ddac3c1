/* Pinned staging sized to the need; see staging_policy.h. */
#include "devices/staging_policy.h"

unsigned apo__slots_needed(size_t task_bytes, size_t slot_bytes) {
    if (slot_bytes == 0)
        return APO_CUDA_SLOTS;
    const size_t n = task_bytes / slot_bytes + (task_bytes % slot_bytes != 0);
    return n < 1 ? 1u : n > APO_CUDA_SLOTS ? APO_CUDA_SLOTS : (unsigned)n;
}

/* Whether APO_CUDA_SLOTS slots of `slot_bytes` hold `task_bytes`, written without the
 * product, which could overflow. */
static int slots_hold(size_t task_bytes, size_t slot_bytes) {
    return task_bytes == 0 || (task_bytes - 1) / APO_CUDA_SLOTS < slot_bytes;
}

size_t apo__slot_grown_bytes(size_t task_bytes, size_t slot_bytes, size_t cap) {
    size_t bytes = slot_bytes;
    while (bytes > 0 && bytes < cap && !slots_hold(task_bytes, bytes))
        bytes = bytes > cap / APO_CUDA_SLOT_GROWTH ? cap : bytes * APO_CUDA_SLOT_GROWTH;
    return bytes;
}

int apo__stage_from_pageable(size_t task_bytes, unsigned published) {
    return published == 0 && task_bytes < APO_CUDA_PAGEABLE_MAX_BYTES;
}

int apo__stage_waits_for_growth(size_t task_bytes, size_t slot_bytes, size_t cap) {
    if (slot_bytes == 0)
        return 0;
    const size_t chunks = task_bytes / slot_bytes + (task_bytes % slot_bytes != 0);
    if (chunks <= APO_CUDA_GROWTH_WAIT_CHUNKS)
        return 0;
    return apo__slot_grown_bytes(task_bytes, slot_bytes, cap) > slot_bytes;
}
