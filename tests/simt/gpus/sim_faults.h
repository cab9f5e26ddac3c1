/*
 * sim_faults.h: faults the simulated GPUs inject when a test asks (docs/cuda.md, "A simulated
 * CUDA runtime"), so that the backend's failure paths (the staging OOM retry, a failed task
 * whose tiles move, a lost GPU) run without a GPU that misbehaves on cue, and the holds and
 * counts with which tests plant ordering mistakes (an early read, an early free). Built into
 * libapportion only with -Dsimulated_gpus=true (tests/simt/gpus/sim_runtime.cc). Counts start
 * at the call that sets them; 0 turns a fault off.
 */
#ifndef APO_SIMT_GPUS_SIM_FAULTS_H
#define APO_SIMT_GPUS_SIM_FAULTS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* cudaMalloc of more than `bytes` fails with cudaErrorMemoryAllocation (0: no limit). */
void apo_simgpu_fail_mallocs_above(size_t bytes);
/* cudaHostAlloc and cudaMallocHost of more than `bytes` fail with cudaErrorMemoryAllocation
 * (0: no limit), as when the host has no more memory to pin. */
void apo_simgpu_fail_pinned_above(size_t bytes);
/* The nth cudaMalloc from now and every later one fail with cudaErrorMemoryAllocation. */
void apo_simgpu_fail_mallocs_from(unsigned long nth);
/* The nth kernel launch from now fails while it runs (cudaErrorLaunchFailure, kept by its
 * device as a CUDA context keeps it). */
void apo_simgpu_fail_launch(unsigned long nth);
/* From the nth call on `device` from now, every call on it fails with
 * cudaErrorECCUncorrectable, as after an uncorrectable error. */
void apo_simgpu_lose_device(int device, unsigned long nth);
/* Every fault off, every lost device back, every kept launch failure cleared. */
void apo_simgpu_clear_faults(void);

/* While `hold` is non-zero, every stream's thread waits before its next operation, so that
 * a test can keep a copy queued while it tries an ordering mistake (a read of the copy's
 * destination, a free of memory the copy names). A call that waits for a held stream waits
 * until the hold is lifted. */
void apo_simgpu_hold_streams(int hold);
/* Copies enqueued and not yet run, on every stream: a call of the library leaves none. */
size_t apo_simgpu_copies_in_flight(void);
/* Bytes copied from host to device memory by cudaMemcpyAsync since the process started (a
 * count, not a fault): what a test compares to see how often the inputs went over. */
size_t apo_simgpu_h2d_bytes(void);

/* Of those, the bytes read from pageable host memory (neither pinned nor registered): the
 * copies a GPU's task makes straight from a caller's ordinary arrays. */
size_t apo_simgpu_pageable_h2d_bytes(void);
/* Bytes copied from device memory into pageable host memory by cudaMemcpyAsync since the
 * process started: outputs that a GPU's task wrote back through no pinned memory of theirs
 * (staged outputs land in the staging slots, which are pinned, and count nothing). */
size_t apo_simgpu_pageable_d2h_bytes(void);

/* Holds pinned allocations back (cudaHostAlloc, cudaMallocHost): from this call the next
 * `allowed` go through, and every later one waits, inside the call, until
 * apo_simgpu_release_pinning(). A test thus stops a GPU's staging after a chosen slot and
 * sees what a task does with the slots published so far (docs/cuda.md, "Staging slots sized to the
 * need"). */
void apo_simgpu_hold_pinning(unsigned long allowed);
void apo_simgpu_release_pinning(void);
/* Pinned allocations waiting on the hold now. */
unsigned long apo_simgpu_pinning_waiting(void);
/* Bytes of pinned host memory allocated and not yet freed (registered ranges not counted);
 * their number into *allocations when it is not NULL. */
size_t apo_simgpu_pinned_bytes(size_t *allocations);

#ifdef __cplusplus
}
#endif

#endif /* APO_SIMT_GPUS_SIM_FAULTS_H */
