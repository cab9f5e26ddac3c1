/*
 * A GPU's state, shared by the two halves of the CUDA device: cuda_device.c (discovery,
 * opening and closing, segments, copies for the interop calls) and cuda_pipeline.c (the
 * staging pipeline that runs a task). Private to runtime/devices/cuda/; built with the
 * backend only.
 */
#ifndef APO_RUNTIME_DEVICES_CUDA_CUDA_STATE_H
#define APO_RUNTIME_DEVICES_CUDA_CUDA_STATE_H

#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "devices/cuda/pipeline_plan.h"
#include "devices/device.h"

/* A slot's buffers: at most this much each (device and pinned host alike), never less than
 * the minimum (below it a failed allocation is a failed device). Four slots of 128 MiB move
 * 1e8 samples of bollinger (3.2 GB) in about 24 chunks: each copy is milliseconds long, far
 * above the fixed cost of a copy or a launch. */
#define APO_CUDA_SLOT_MAX_BYTES ((size_t)128 << 20)
#define APO_CUDA_SLOT_MIN_BYTES ((size_t)1 << 20)
/* A GPU's streams: one per copy direction and one per slot for kernels. */
#define APO_CUDA_STREAMS (2 + APO_CUDA_SLOTS)
/* Default budget: half the free memory at discovery, at most this much. */
#define APO_CUDA_DEFAULT_BUDGET_MAX_MB 4096

/* A chunk's six timing events, in the order of its phases: each pair is recorded on the
 * stream that runs the phase, around its work only (docs/cuda.md, "Timing"). */
enum {
    APO_EV_H2D_START,
    APO_EV_H2D_END, /* on the h2d stream */
    APO_EV_KERNEL_START,
    APO_EV_KERNEL_END, /* on the slot's compute stream */
    APO_EV_D2H_START,
    APO_EV_D2H_END, /* on the d2h stream; blocking: the host waits on it */
    APO_EV_COUNT
};

/* What a chunk moves: tiles [first, end), and in every staged array the element ranges. */
typedef struct apo__chunk_plan {
    uint64_t first, end;
    size_t in_lo, in_hi;   /* of each input array */
    size_t out_lo, out_hi; /* of each GPU-written output array */
} apo__chunk_plan;

typedef struct apo__cuda_slot {
    /* The slot's own kernel stream: kernels of chunks in different slots wait only for their
     * own inputs, so they run beside each other and beside the copies (docs/cuda.md, "The
     * pipeline"). A slot's chunks still run in order: the host finishes a slot's chunk
     * before it issues the next one into it. */
    cudaStream_t compute;
    cudaEvent_t ev[APO_EV_COUNT];
    double *dev;  /* device staging */
    double *host; /* pinned staging, laid out as dev */
    apo__chunk_plan plan;
} apo__cuda_slot;

typedef struct apo__cuda_state {
    int ordinal;
    size_t budget_bytes; /* staging budget: every slot's device buffer together */
    size_t slot_bytes;   /* size of each slot buffer, once allocated */
    int staged;          /* slot buffers allocated */
    /* Pinning the slots' host memory takes hundreds of milliseconds (4 x 128 MiB: 210 to 340
     * ms on an H100 machine, docs/PERF.md), so a thread started when the GPU is opened
     * allocates them while the caller prepares its first call; a task, and closing, join it
     * first (apo__cuda_join_staging). */
    pthread_t stager;
    int stager_running;
    char stager_id[APO_ID_MAX]; /* the GPU's id, for the stager's log lines */
    /* One stream per direction, non-blocking, and one for kernels per slot: each copy
     * direction keeps one queue in issue order (one copy engine saturates a direction of
     * the link, so a chunk's inputs land whole before the next chunk's start), and each
     * phase's events sit on the stream that runs it. */
    cudaStream_t h2d, d2h;
    cudaEvent_t ref; /* the origin of a task's intervals on the GPU clock */
    apo__cuda_slot slots[APO_CUDA_SLOTS];
    /* Blocking events to wait for each stream after a failure (apo__cuda_streams' order). */
    cudaEvent_t drain[APO_CUDA_STREAMS];
    /* The running task holds an access to the call (apo__task_enter_call), and keeps it
     * across waits for the GPU when the GPU reads or writes the caller's memory itself
     * (device-resident arrays, pinned host arrays copied straight). */
    int inside, hold_across_waits;
    /* The running task writes its outputs in place at task_out (a segment being filled)
     * rather than staging them; NULL otherwise. */
    double *task_out[APO_MAX_IO];
    /* The running task's phase intervals, on the host clock (grows only). */
    apo__interval *intervals;
    size_t n_intervals, intervals_cap;
    /* Segments of the current call, kept for the gather (gather.c). */
    struct apo__gpu_segment *segments; /* cuda_device.h */
    size_t n_segments, segments_cap;
} apo__cuda_state;

/* Every stream of the GPU into `out` (APO_CUDA_STREAMS of them, NULL where not created):
 * h2d, d2h, then the slots' compute streams in slot order. */
void apo__cuda_streams(const apo__cuda_state *st, cudaStream_t out[APO_CUDA_STREAMS]);

/* Logs a failed CUDA call of a task (the task then fails and its tiles move); 1 when `e`
 * is cudaSuccess. */
int apo__cuda_check(cudaError_t e, const apo__device *dev, const char *what);

/* A pointer that indexes like `base` shifted back by `lo` elements (see apo__cuda_chunk);
 * computed on integers because it may point before the allocation. */
double *apo__cuda_biased(double *base, size_t lo);

/* Records a blocking event on `stream` and waits for it: the calling thread sleeps rather
 * than spinning (cudaStreamSynchronize spins unless the whole context is set to block). */
cudaError_t apo__cuda_wait_stream(cudaStream_t stream, cudaEvent_t blocking_event);

/* Waits for everything still in flight on the GPU's streams (after a failure, or before
 * its buffers are freed), and clears the error state. */
void apo__cuda_drain(apo__cuda_state *st);

/* The run and close operations of the CUDA device (cuda_pipeline.c, cuda_device.c). */
apo_status apo__cuda_run(apo__device *dev, const apo__call *call, uint64_t first, uint64_t end,
                         uint64_t task_index, apo__task_time *time);
void apo__cuda_free_staging(apo__cuda_state *st);
/* Starts allocating the staging buffers on a thread of their own (nothing happens when the
 * thread cannot be created: the first task allocates them); joins that thread. */
void apo__cuda_start_staging(apo__cuda_state *st, const char *id);
void apo__cuda_join_staging(apo__cuda_state *st);

/* Starts the task's segment for the gather (its outputs stay on this GPU) and points
 * task_out at it; 0 when it cannot be had (the task then peer-copies its chunks). */
int apo__cuda_open_segment(apo__device *dev, apo__cuda_state *st, const apo__call *call, size_t lo,
                           size_t hi);
/* Ends it: kept for the gather when the task succeeded, freed otherwise. */
void apo__cuda_close_segment(apo__cuda_state *st, int ok);

#endif
