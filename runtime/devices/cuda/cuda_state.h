/*
 * A GPU's state, shared by the two halves of the CUDA device: cuda_device.c (discovery,
 * opening and closing, copies for the interop calls) and cuda_pipeline.c (the staging
 * pipeline that runs a task), and by what both call on the GPU, cuda_gpu.c (streams,
 * errors, segments). Private to runtime/devices/cuda/; built with the backend only.
 */
#ifndef APO_RUNTIME_DEVICES_CUDA_CUDA_STATE_H
#define APO_RUNTIME_DEVICES_CUDA_CUDA_STATE_H

#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "devices/cuda/pipeline_plan.h"
#include "devices/device.h"

/* The slots' sizes (APO_CUDA_SLOT_*_BYTES, APO_CUDA_SLOT_GROWTH) and the pageable copies'
 * limit are in pipeline_plan.h, with why. */
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

/* Where the stager (cuda_staging.c) is: not started yet (a library's runtime starts it at the
 * GPU's first task); pinning the first slots; idle, waiting for a task to ask for larger
 * ones; ended (stopped, failed, or never created: a task then allocates what it needs). */
enum { APO_STAGING_NOT_STARTED, APO_STAGING_PINNING, APO_STAGING_IDLE, APO_STAGING_ENDED };

/* The slots' buffers and the thread that allocates them (cuda_staging.c; docs/cuda.md,
 * "Staging slots sized to the need"). Pinning is slow (0.41 to 0.67 ms per MiB on an H100 machine),
 * so the device buffers come first, then the pinned host buffers one slot at a time at a small
 * size, each published as it is ready: a task waits only for the slots its bytes fill. A task whose
 * bytes the slots cut asks for larger ones, which the thread pins in the background and
 * swaps in between tasks. */
typedef struct apo__cuda_staging {
    pthread_mutex_t m; /* guards every field below but `thread` */
    pthread_cond_t cv; /* broadcast at every change */
    int phase;         /* APO_STAGING_* */
    int dev_ready;     /* every slot's device buffer is allocated, of dev_bytes each */
    size_t dev_bytes;
    unsigned published; /* slots 0 .. published - 1 have pinned buffers of host_bytes */
    size_t host_bytes;
    size_t pin_cap; /* the most a slot may be grown to (lowered after a failed growth) */
    size_t grow_to; /* pinned bytes per slot a task asked for (0: none) */
    double *spare[APO_CUDA_SLOTS]; /* grown buffers of spare_bytes, not yet swapped in */
    size_t spare_bytes;
    int spare_ready;
    double *retired[APO_CUDA_SLOTS]; /* swapped-out buffers for the thread to free */
    int in_use;                      /* a task runs on the slots: no swap meanwhile */
    unsigned held;      /* calls under way that give this GPU nothing: no pinning meanwhile */
    unsigned waiting;   /* tasks in apo__cuda_take_staging: they lift `held` */
    int stop;           /* closing: the thread ends at its next step */
    int thread_started; /* a thread was created and is to be joined */
    pthread_t thread;
    char id[APO_ID_MAX]; /* the GPU's id, for the log */
} apo__cuda_staging;

typedef struct apo__cuda_state {
    int ordinal;
    size_t budget_bytes; /* staging budget: every slot's device buffer together */
    apo__cuda_staging staging;
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
    struct apo__gpu_segment *segments; /* cuda_gpu.h */
    size_t n_segments, segments_cap;
} apo__cuda_state;

/* ---- a GPU's streams, errors and segments (cuda_gpu.c) ------------------------------------- */

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

/* Starts the task's segment for the gather (its outputs stay on this GPU) and points
 * task_out at it; 0 when it cannot be had (the task then peer-copies its chunks). */
int apo__cuda_open_segment(apo__device *dev, apo__cuda_state *st, const apo__call *call, size_t lo,
                           size_t hi);
/* Ends it: kept for the gather when the task succeeded, freed otherwise. */
void apo__cuda_close_segment(apo__cuda_state *st, int ok);

/* ---- the task (cuda_pipeline.c) ------------------------------------------------------------ */

/* The run operation of the CUDA device. */
apo_status apo__cuda_run(apo__device *dev, const apo__call *call, uint64_t first, uint64_t end,
                         uint64_t task_index, apo__task_time *time);

/* ---- the staging slots (cuda_staging.c) ---------------------------------------------------- */

/* Sets up the staging's lock; 0 when it cannot be had (the GPU is then left out). */
int apo__cuda_staging_init(apo__cuda_state *st);
/* Starts allocating the slots' buffers on a thread of their own, once: later calls do
 * nothing. When the thread cannot be created, the first task allocates them itself. */
void apo__cuda_start_staging(apo__cuda_state *st, const char *id);
/* Stops the thread at its next step and joins it (closing). */
void apo__cuda_stop_staging(apo__cuda_state *st);
/* Frees every buffer and the lock; after apo__cuda_stop_staging and with nothing in flight. */
void apo__cuda_free_staging(apo__cuda_state *st);

/* What a task may use of the slots (apo__cuda_take_staging). */
typedef struct apo__staging_grant {
    unsigned slots;      /* slots 0 .. slots - 1, for apo__pipeline_drive */
    size_t slot_doubles; /* what one chunk may occupy of a slot */
    size_t dev_doubles;  /* what a chunk copied from pageable memory may occupy */
    int pageable;        /* copy the host arrays straight, from and to pageable memory */
    unsigned ready;      /* pinned slots published when the task started */
    double waited_s;     /* time spent waiting for the slots */
} apo__staging_grant;

/* Waits until the slots a task of `task_bytes` bytes of slot staging needs are ready, and
 * takes them until apo__cuda_release_staging. `pinned` says whether the task stages through
 * pinned memory at all: a task that does not (every host array pinned by the caller, or
 * device-resident, and no partials) waits for the device buffers only. A task that needs
 * pinned slots waits for apo__slots_needed() of them, or, below APO_CUDA_PAGEABLE_MAX_BYTES
 * while none is ready, copies from pageable memory instead (grant->pageable); one whose bytes
 * the slots cut asks for larger ones (apo__slot_grown_bytes) and runs on the present ones.
 * The GPU must be the calling thread's current device. Returns 0 when no staging can be had
 * (the task fails). */
int apo__cuda_take_staging(apo__cuda_state *st, const char *id, size_t task_bytes, int pinned,
                           apo__staging_grant *grant);
void apo__cuda_release_staging(apo__cuda_state *st);

/* Holds the stager's next pinning back (`delta` +1) or lets it go on (-1) while a call that
 * gives this GPU nothing runs: cudaMallocHost takes a core and the process's memory map while
 * it pins, beside a call that needs no slot (docs/cuda.md, "Staging slots sized to the need").
 * A pin already under way finishes; a task of this GPU that waits for its slots lifts the
 * hold. */
void apo__cuda_hold_staging(apo__cuda_state *st, int delta);
/* Asks for pinned slots that hold a task of `task_bytes` (apo__slot_grown_bytes), to be
 * pinned in the background: for a task held by the slot of one tile rather than by them all. */
void apo__cuda_ask_staging_growth(apo__cuda_state *st, size_t task_bytes);

#endif
