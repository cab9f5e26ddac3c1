/*
 * Which runtimes' user kernels the current thread is inside. A user kernel that calls back
 * into the runtime running it (apo_distribute_workload(), apo_profile_auto_balance()) would
 * wait forever for the call lock its own call holds; with this record the call can see that
 * and fail at once instead. Each thread keeps its own chain of frames, innermost first, so
 * a kernel of one runtime may still call into another.
 */
#ifndef APO_RUNTIME_CATALOG_REENTRY_GUARD_H
#define APO_RUNTIME_CATALOG_REENTRY_GUARD_H

#include "apportion.h"

typedef struct apo__kernel_frame {
    const apo_runtime *rt;
    const struct apo__kernel_frame *outer;
} apo__kernel_frame;

/* Marks this thread as inside a user kernel of `rt` until the matching pop. */
void apo__kernel_frame_push(apo__kernel_frame *frame, const apo_runtime *rt);
void apo__kernel_frame_pop(const apo__kernel_frame *frame);

/* Whether this thread is inside a user kernel that `rt` is running. */
int apo__inside_kernel_of(const apo_runtime *rt);

/* The refusal of `entry` (a public function's name) called from inside a user kernel of the
 * runtime it was given: `subject` ("the call", "it") would wait for itself. Returns
 * APO_ERR_INVALID_ARGUMENT with the message set. */
apo_status apo__refuse_reentry(const char *entry, const char *subject);

#endif
