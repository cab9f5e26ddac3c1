/*
 * How much pinned staging memory a GPU keeps and when a task waits for it: the slots' count
 * and sizes, their growth, and the pageable path of small tasks (staging_policy.c). Plain C,
 * in the devices room rather than in cuda/, so that the CUDA pipeline (devices/cuda/) and the
 * replayed GPU's timing model (devices/replay.c) follow the same figures and the same rules.
 */
#ifndef APO_RUNTIME_DEVICES_STAGING_POLICY_H
#define APO_RUNTIME_DEVICES_STAGING_POLICY_H

#include <stddef.h>

/* Staging slots per GPU. A chunk occupies one slot from its host-to-device copy until the
 * host has taken its outputs, so while the host finishes one chunk the other slots keep
 * APO_CUDA_SLOTS - 1 chunks in flight: at least three per direction. */
#define APO_CUDA_SLOTS 4

/*
 * The sizes below are plain numbers, in a header with nothing of CUDA in it, so that a timing
 * model of a GPU (a replayed H100) can read the same figures the backend pins by. Pinning is
 * slow: cudaMallocHost ran at 0.41 to 0.67 ms per MiB on an H100 machine (1.5 to 2.4 GB/s,
 * against a 20 GB/s host copy: docs/perf-log/2026-11-25-h100-first-run.md, "First run on a GPU"),
 * so 4 x 128 MiB took 211 to 343 ms, while a scored sweep's piece moves about 12 MB. The slots are
 * therefore pinned small first and grown only when a task's bytes ask for it (docs/cuda.md,
 * "Staging slots sized to the need"). */

/* A slot's device buffer: at most this much (a quarter of the budget below it), never less
 * than the minimum (below it a failed allocation is a failed device). Four slots of 128 MiB
 * move 1e8 samples of bollinger (3.2 GB) in about 24 chunks: each copy is milliseconds long,
 * far above the fixed cost of a copy or a launch. The pinned host buffers grow up to it. */
#define APO_CUDA_SLOT_MAX_BYTES ((size_t)128 << 20)
#define APO_CUDA_SLOT_MIN_BYTES ((size_t)1 << 20)
/* The pinned host buffers' first size: 8 MiB pins in about 3 to 6 ms at the measured rate,
 * and one such slot holds a scored piece of 500 series x 2,520 bars whole when paired with a
 * second one (about 12 MB); a task waits only for the slots its bytes fill. */
#define APO_CUDA_SLOT_FIRST_BYTES ((size_t)8 << 20)
/* Each growth step multiplies the pinned size by this (8, 32, 128 MiB), up to the device
 * buffer's size: a task whose chunks the slots cut (more bytes than all slots hold) asks for
 * the smallest step that holds it whole, pinned in the background and swapped in between
 * tasks, and kept for the runtime's life. */
#define APO_CUDA_SLOT_GROWTH 4
/* A task below this many bytes that finds no pinned slot ready copies straight from the
 * caller's pageable memory (the driver stages it through buffers of its own, typically 5 to
 * 15 GB/s: 1 to 2 ms for 10 MB) rather than wait for pinning; above it the staged copies'
 * speed pays for the wait. */
#define APO_CUDA_PAGEABLE_MAX_BYTES ((size_t)32 << 20)

/* Pinned slots a task of `task_bytes` bytes of slot staging waits for when each slot holds
 * `slot_bytes`: ceil(task_bytes / slot_bytes), at least 1, at most APO_CUDA_SLOTS. One slot
 * is enough for a task that fits it whole (its chunks then take turns in it). */
unsigned apo__slots_needed(size_t task_bytes, size_t slot_bytes);

/* The pinned size a task of `task_bytes` asks the slots to grow to, from `slot_bytes`, with
 * device buffers of `cap` bytes: `slot_bytes` itself when every slot together holds the task
 * (its chunks are cut by waves, not by the slots) or the slots are already at `cap`;
 * otherwise the smallest of slot_bytes x APO_CUDA_SLOT_GROWTH^k (k >= 1) whose
 * APO_CUDA_SLOTS slots hold the task, at most `cap`. */
size_t apo__slot_grown_bytes(size_t task_bytes, size_t slot_bytes, size_t cap);

/* Whether a task of `task_bytes` that finds `published` pinned slots ready copies straight
 * from pageable memory: no slot is ready and the task is below APO_CUDA_PAGEABLE_MAX_BYTES. */
int apo__stage_from_pageable(size_t task_bytes, unsigned published);

/* A task that slots of the present size would cut into more chunks than this waits for
 * larger slots before it starts, rather than run on the small ones and leave the larger to the
 * tasks after it. Each chunk costs about a millisecond or more whatever its size (a launch, a
 * wave of serial steps), and pinning the larger slots 0.2 to 0.3 s (4 x 128 MiB by
 * cudaMallocHost in 157 to 249 ms on the H200 machine of 2026-11-26,
 * docs/perf-log/2026-11-26-h200.md): there, a one-call bollinger over 1e8 samples took 531 ms in
 * 388 chunks of 8 MiB and 291 ms when it waited for 24 of 128 MiB, while one over 1e7 took 193 ms
 * in 39 chunks and 250 to 268 ms when it waited. So only a task of more than 64 chunks (512 MiB at
 * 8 MiB) waits; a scored sweep's piece (about 12 MB) never does. */
#define APO_CUDA_GROWTH_WAIT_CHUNKS 64

/* Whether a task of `task_bytes` that slots of `slot_bytes` would stage waits for the larger
 * slots apo__slot_grown_bytes() asks for (up to `cap`): it needs more than
 * APO_CUDA_GROWTH_WAIT_CHUNKS chunks at the present size, and a larger one exists. */
int apo__stage_waits_for_growth(size_t task_bytes, size_t slot_bytes, size_t cap);

#endif
