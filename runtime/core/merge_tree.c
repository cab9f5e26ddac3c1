/* Largest-remainder rounding and the pairwise reduction tree; see partition.h. */
#include <assert.h>
#include <math.h>
#include <string.h>

#include "core/merge_tree.h"

void apo__largest_remainder(const double *weights, size_t n, uint64_t units, uint64_t *counts) {
    double total = 0;
    for (size_t i = 0; i < n; i++)
        total += weights[i];
    assert(total > 0);

    double frac[APO_MAX_DEVICES];
    uint64_t assigned = 0;
    for (size_t i = 0; i < n; i++) {
        double quota = (double)units * (weights[i] / total);
        double whole = floor(quota);
        counts[i] = (uint64_t)whole;
        frac[i] = weights[i] > 0 ? quota - whole : -1.0;
        assigned += counts[i];
    }
    /* Rounding of the quotas can overshoot by a unit: take it back from the smallest
     * remainders, the higher index first, so that the rule stays the mirror image. */
    while (assigned > units) {
        size_t pick = n;
        for (size_t i = n; i-- > 0;)
            if (counts[i] > 0 && (pick == n || frac[i] < frac[pick]))
                pick = i;
        counts[pick]--;
        frac[pick] = 2.0;
        assigned--;
    }
    while (assigned < units) {
        size_t pick = n;
        for (size_t i = 0; i < n; i++)
            if (frac[i] >= 0 && frac[i] <= 1.0 && (pick == n || frac[i] > frac[pick]))
                pick = i;
        if (pick == n) {
            /* Every positive-weight device already took its extra unit (possible only
             * when rounding lost more than n units): restart the round. */
            for (size_t i = 0; i < n; i++)
                if (weights[i] > 0)
                    frac[i] = 0.0;
            continue;
        }
        counts[pick]++;
        frac[pick] = -0.5; /* marks "has its extra unit" below every real remainder */
        assigned++;
    }
}

uint64_t apo__tiles_elements(const apo__call *call, uint64_t first, uint64_t end) {
    uint64_t tpr = call->tiles_per_row;
    uint64_t last_tiles = end / tpr - first / tpr; /* tiles at a row's end in [first, end) */
    uint64_t last_len = call->axis_len - (tpr - 1) * call->tile;
    uint64_t positions = (end - first - last_tiles) * call->tile + last_tiles * last_len;
    return positions * call->unit_work;
}

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
