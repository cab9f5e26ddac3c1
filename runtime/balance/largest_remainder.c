/* Largest-remainder rounding; see largest_remainder.h. */
#include <assert.h>
#include <math.h>

#include "apportion.h"
#include "balance/largest_remainder.h"

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
