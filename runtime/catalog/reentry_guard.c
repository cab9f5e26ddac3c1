/* The per-thread chain of user kernels being run; see reentry_guard.h. */
#include <assert.h>
#include <stddef.h>

#include "base/error.h"
#include "catalog/reentry_guard.h"

/* Frames live on the stacks of the functions that call user kernels, so the chain needs no
 * allocation and unwinds with them. */
static _Thread_local const apo__kernel_frame *innermost;

void apo__kernel_frame_push(apo__kernel_frame *frame, const apo_runtime *rt) {
    frame->rt = rt;
    frame->outer = innermost;
    innermost = frame;
}

void apo__kernel_frame_pop(const apo__kernel_frame *frame) {
    assert(innermost == frame);
    innermost = frame->outer;
}

int apo__inside_kernel_of(const apo_runtime *rt) {
    for (const apo__kernel_frame *f = innermost; f != NULL; f = f->outer)
        if (f->rt == rt)
            return 1;
    return 0;
}

apo_status apo__refuse_reentry(const char *entry, const char *subject) {
    return apo__fail(APO_ERR_INVALID_ARGUMENT,
                     "%s: called from inside a user kernel that this runtime is running; %s would "
                     "wait for itself (a kernel must not call back into its own runtime)",
                     entry, subject);
}
