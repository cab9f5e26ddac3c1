/*
 * What the files of test_kernels*.c share; see kernels_fixtures.h.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"
#include "reference.h"

/* ---- Helpers ------------------------------------------------------------------------ */

#include "kernels_fixtures.h"

double *alloc_doubles(size_t n) {
    /* At least one element, so that n == 0 never returns NULL. */
    double *p = malloc((n > 0 ? n : 1) * sizeof *p);
    cr_assert_not_null(p);
    return p;
}

/* The tile grid: tile i covers [i * len, min(n, (i + 1) * len)). Order 0 runs the tiles
 * forward, 1 backward, 2 odd tiles first then even ones. */
size_t tile_count(size_t n, size_t len) { return (n + len - 1) / len; }

size_t tile_at(size_t i, size_t count, int order) {
    if (order == 1) {
        return count - 1 - i;
    }
    if (order == 2) {
        const size_t odd = count / 2;
        return i < odd ? 2 * i + 1 : 2 * (i - odd);
    }
    return i;
}

/* A fixed pairwise tree over partials [lo, hi), the shape the runtime uses on the host. */
apo__moments merge_tree(const apo__moments *parts, size_t lo, size_t hi) {
    if (hi - lo == 1) {
        return parts[lo];
    }
    const size_t mid = lo + (hi - lo) / 2;
    apo__moments a = merge_tree(parts, lo, mid);
    apo__moments b = merge_tree(parts, mid, hi);
    apo__moments out;
    apo__cpu_moments_merge(&a, &b, &out);
    return out;
}

double rel_err(double got, double want) {
    if (got == want) {
        return 0.0;
    }
    return fabs(got - want) / fabs(want);
}
