/*
 * The first-touch pass of the host devices: before a task computes its tiles, it writes once
 * into every page of the caller's output elements it owns that is not yet in memory (into
 * every page of a short span, where asking would cost more), so that the page faults of
 * fresh arrays are paid, and timed, apart from the computing (docs/scheduling.md, "What a
 * device's time includes"). host_tiles.c runs it before each unit of tiles, over that unit's
 * elements.
 */
#ifndef APO_RUNTIME_DEVICES_FIRST_TOUCH_H
#define APO_RUNTIME_DEVICES_FIRST_TOUCH_H

#include <stddef.h>
#include <stdint.h>

#include "apportion.h"
#include "catalog/kernel.h"
#include "devices/task_guard.h"

/* Pages of one output per unit of the pass (2 MiB of 4 KiB pages, one transparent huge
 * page): one access to the call, so an abandoned task stops within about a millisecond of
 * faults, while the guard and the one mincore() per unit cost next to nothing. */
#define APO_TOUCH_UNIT_PAGES 512

/* Spans of one output up to this many pages (128 KiB of 4 KiB pages) are touched page by
 * page without asking mincore() which are in memory: 32 stores into warm pages took 0.45 us
 * where the system call took 1.1 to 1.4 us (first_touch.c). */
#define APO_TOUCH_ASK_PAGES 32

/* The output bytes a task's tiles write, cut into units: unit u is chunk u / n of output
 * u % n, a chunk being APO_TOUCH_UNIT_PAGES pages. */
typedef struct apo__touch_plan {
    uintptr_t lo[APO_MAX_IO], hi[APO_MAX_IO]; /* output o's bytes [lo, hi) */
    size_t n;                                 /* outputs the tiles write */
    size_t page;                              /* the host's page size */
    uint64_t units;
} apo__touch_plan;

/* The plan of tiles [first, end) of `call` (none when first == end); reads the call, so it
 * belongs inside an access to it. */
void apo__touch_plan_of(const apo__call *call, uint64_t first, uint64_t end, apo__touch_plan *t);

/* Touches unit `unit` of the plan within one access to the call (guard `g`, entered at
 * `now`, a reading of apo__now() taken just before): only bytes of the plan's own elements,
 * so that other tiles' stores into the same pages never meet it. Returns
 * APO_ERR_DEVICE_LOST, having touched nothing, when the task is abandoned or late. */
apo_status apo__touch_unit(apo__task_guard *g, const apo__touch_plan *t, uint64_t unit, double now);

#endif
