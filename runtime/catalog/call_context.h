/*
 * What one run of a call needs besides its kernel and grid: where its arrays live, the
 * events its GPU work waits for, the runtime running it, and the tag it learns under. The
 * grid (catalog/grid.h) is the same whoever runs the call; this is not, so it is kept apart,
 * resolved once per call by core/ (core/distribute.c; a serving rank's in cluster/serve.c)
 * and shared by pointer with every piece of the grid (apo__call.ctx). Here rather than in
 * core/ because the devices and the user kernels' reentry guard read it.
 */
#ifndef APO_RUNTIME_CATALOG_CALL_CONTEXT_H
#define APO_RUNTIME_CATALOG_CALL_CONTEXT_H

#include <stddef.h>

#include "apportion.h"

typedef struct apo__call_ctx {
    /* Where the arrays live: -1 host memory, else the CUDA ordinal of the GPU holding all
     * inputs (in_gpu) or all outputs (out_gpu) (apportion_cuda.h). */
    int in_gpu, out_gpu;
    /* GPUs other than out_gpu keep their outputs resident for one grouped gather after the
     * phase, instead of peer-copying them chunk by chunk (devices/cuda/gather.c). */
    int gather_resident;
    /* CUDA events (cudaEvent_t) that every GPU task of the call makes its streams wait for
     * before it touches the call's arrays: the caller's work on them, which the call must
     * come after (apportion_cuda.h). None for host arrays. */
    void *const *wait_events;
    size_t n_wait_events;
    /* The runtime running the call, so that a user kernel calling back into it is caught
     * (reentry_guard.h); NULL outside apo__distribute_placed(). */
    const apo_runtime *rt;
    /* The workload tag the call learns under (NULL: none) and whether it learns: passed on
     * to serving ranks, whose own models then follow the caller's choice. */
    const char *tag;
    int learn;
    /* Nothing reads the devices' times of this run: no report was asked for and the call
     * does not learn. The cpu and sim devices then skip the first-touch pass, whose only
     * purpose is to time the faults apart, and read the clock only for the deadline
     * (docs/scheduling.md, "A call whose times nobody reads"). 0 wherever that is not known. */
    int times_unread;
    /* A cpu computes with the threads it keeps beside GPUs even when no GPU has work: a
     * profiling run, which times the configuration its model describes (core/profiling.c). */
    int hold_host_beside;
} apo__call_ctx;

/* The context of a call on host arrays that no runtime call runs (a stream's update, a
 * call being resolved or planned): no GPU, no events, no runtime, no tag, no learning. */
extern const apo__call_ctx apo__call_ctx_host;

#endif
