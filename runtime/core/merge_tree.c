/* The pairwise merge tree; see merge_tree.h. */
#include <assert.h>
#include <string.h>

#include "core/merge_tree.h"

static void reduce_range(const apo__kernel *k, const double *partials, uint64_t first,
                         uint64_t count, double *out, double *scratch) {
    size_t len = k->partial_len;
    if (count == 1) {
        memcpy(out, partials + first * len, len * sizeof(double));
        return;
    }
    uint64_t half = count / 2;
    double *left = scratch;
    reduce_range(k, partials, first, half, left, scratch + len);
    reduce_range(k, partials, first + half, count - half, out, scratch + len);
    k->merge(left, out, out);
}

void apo__reduce_pairwise(const apo__kernel *k, const double *partials, uint64_t first,
                          uint64_t count, double *out, double *scratch) {
    assert(count > 0);
    reduce_range(k, partials, first, count, out, scratch);
}
