/*
 * The first-touch pass; see first_touch.h.
 *
 * A span of few pages is written page by page without asking: a store into a page that is
 * already in memory costs a few nanoseconds (its line is one the tiles are about to write),
 * while the mincore() that would spare it is a system call of about a microsecond, a third
 * of a small call's whole cost (docs/scheduling.md, "What a device's time includes"). On
 * longer spans only pages not yet in memory are written: on warm arrays the pass costs one
 * mincore() per unit, a walk of the page table, instead of a store per page that would miss
 * the cache. There a page the caller only ever read (mapped to the shared zero page) counts
 * as in memory and is left to the tiles.
 */
#define _DEFAULT_SOURCE /* mincore() beside POSIX */
#include <sys/mman.h>
#include <unistd.h>

#include "catalog/call_span.h"
#include "devices/first_touch.h"

/* Writes the byte back as it is, in one instruction that accesses it as a write, so that a
 * page not yet in memory faults in once, writable. On x86-64 a plain `or` of 0 into memory:
 * the byte is the task's own (no other thread writes it during the pass), so it needs no
 * atomicity, and the `lock` prefix of an atomic one would make each of a short span's stores
 * wait for the last (a locked operation is ordered with every other memory access) instead
 * of letting their cache misses overlap. Elsewhere a relaxed atomic or, a single write access
 * on every architecture. */
static inline void write_in_place(unsigned char *at) {
#if defined(__x86_64__) && defined(__GNUC__)
    __asm__ __volatile__("orb $0, %0" : "+m"(*at));
#else
    __atomic_fetch_or((volatile unsigned char *)at, (unsigned char)0, __ATOMIC_RELAXED);
#endif
}

static size_t host_page_size(void) {
    long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? (size_t)p : 4096;
}

void apo__touch_plan_of(const apo__call *call, uint64_t first, uint64_t end, apo__touch_plan *t) {
    t->n = 0;
    t->units = 0;
    t->page = host_page_size();
    if (first >= end)
        return;
    apo__call_span span;
    apo__call_span_of(call, first, end, &span);
    if (span.out_hi <= span.out_lo)
        return;
    uint64_t pages = 0;
    t->n = span.n_written;
    for (size_t o = 0; o < t->n; o++) {
        t->lo[o] = (uintptr_t)(call->outputs[o] + span.out_lo);
        t->hi[o] = (uintptr_t)(call->outputs[o] + span.out_hi);
        uint64_t p = (t->hi[o] - 1) / t->page - t->lo[o] / t->page + 1;
        pages = p > pages ? p : pages;
    }
    t->units = (pages + APO_TOUCH_UNIT_PAGES - 1) / APO_TOUCH_UNIT_PAGES * t->n;
}

apo_status apo__touch_unit(apo__task_guard *g, const apo__touch_plan *t, uint64_t unit,
                           double now) {
    size_t o = (size_t)(unit % t->n);
    uintptr_t lo = t->lo[o], hi = t->hi[o], page = t->page;
    uintptr_t first_page = lo / page, last_page = (hi - 1) / page;
    uintptr_t a = first_page + unit / t->n * APO_TOUCH_UNIT_PAGES;
    if (a > last_page)
        return APO_OK; /* this output has a page fewer than the longest */
    uintptr_t b = last_page - a < APO_TOUCH_UNIT_PAGES ? last_page + 1 : a + APO_TOUCH_UNIT_PAGES;
    /* mincore() too looks at the caller's memory: only while the call is wanted. */
    if (!apo__task_enter_call_at(g, now))
        return APO_ERR_DEVICE_LOST;
    unsigned char resident[APO_TOUCH_UNIT_PAGES];
    int known = b - a > APO_TOUCH_ASK_PAGES &&
                mincore((void *)(a * page), (size_t)(b - a) * page, resident) == 0;
    for (uintptr_t p = a; p < b; p++) {
        if (known && (resident[p - a] & 1))
            continue;
        /* The first byte of the page inside the task's own span: a neighbour's elements,
         * which another device may be writing, are never touched. A read-modify-write that
         * keeps the byte: the caller's value stays until the tile writes its own (a user
         * kernel may leave elements alone), and the access is a write from the start, so
         * the page faults in once, writable (a load first would map the shared zero page and
         * fault again on the store). Volatile, so that no compiler makes the idempotent
         * operation a load. */
        uintptr_t at = p * page > lo ? p * page : lo;
        write_in_place((unsigned char *)at);
    }
    apo__task_leave_call(g);
    return APO_OK;
}
