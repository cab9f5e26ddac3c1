/* Largest-remainder rounding, tile element counts and the pairwise tree, on exact cases. */
#include <criterion/criterion.h>
#include <string.h>

#include "balance/largest_remainder.h"
#include "catalog/call_span.h"
#include "core/merge_tree.h"

static void split(const double *w, size_t n, uint64_t units, const uint64_t *expect) {
    uint64_t got[APO_MAX_DEVICES];
    apo__largest_remainder(w, n, units, got);
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(got[i], expect[i], "units %llu device %zu: got %llu expected %llu",
                     (unsigned long long)units, i, (unsigned long long)got[i],
                     (unsigned long long)expect[i]);
}

Test(partition, largest_remainder_exact_cases) {
    split((double[]){1, 1, 1}, 3, 10, (uint64_t[]){4, 3, 3}); /* tie: lowest index */
    split((double[]){1, 1, 1}, 3, 11, (uint64_t[]){4, 4, 3});
    split((double[]){0.5, 0.3, 0.2}, 3, 7, (uint64_t[]){4, 2, 1}); /* 3.5 2.1 1.4 */
    split((double[]){1, 2, 8}, 3, 100, (uint64_t[]){9, 18, 73});   /* 9.09 18.18 72.73 */
    split((double[]){0, 1, 0}, 3, 5, (uint64_t[]){0, 5, 0});
    split((double[]){1, 0, 1}, 3, 1, (uint64_t[]){1, 0, 0});
    split((double[]){1, 1}, 2, 0, (uint64_t[]){0, 0});
    split((double[]){2, 2}, 2, 1, (uint64_t[]){1, 0});
    split((double[]){0.2, 0.2, 0.2, 0.2, 0.2}, 5, 3, (uint64_t[]){1, 1, 1, 0, 0});
}

Test(partition, largest_remainder_always_adds_up) {
    double w[7];
    for (uint64_t units = 0; units < 500; units++) {
        for (size_t i = 0; i < 7; i++)
            w[i] = (double)((units * 31 + i * 17) % 13) / 7.0;
        w[units % 7] += 0.25; /* never all zero */
        uint64_t got[7], sum = 0;
        apo__largest_remainder(w, 7, units, got);
        for (size_t i = 0; i < 7; i++) {
            sum += got[i];
            if (w[i] == 0)
                cr_assert_eq(got[i], 0);
        }
        cr_assert_eq(sum, units);
    }
}

Test(partition, tile_elements_counts_ragged_rows) {
    apo__call call;
    memset(&call, 0, sizeof call);
    call.axis_len = 10;
    call.tile = 4;
    call.tiles_per_row = 3; /* tiles of 4, 4, 2 */
    call.rows = 3;
    call.tiles = 9;
    call.unit_work = 1;
    cr_assert_eq(apo__tiles_elements(&call, 0, 9), 30);
    cr_assert_eq(apo__tiles_elements(&call, 0, 3), 10);
    cr_assert_eq(apo__tiles_elements(&call, 2, 4), 6);
    cr_assert_eq(apo__tiles_elements(&call, 2, 3), 2);
    cr_assert_eq(apo__tiles_elements(&call, 4, 4), 0);
    call.unit_work = 5;
    cr_assert_eq(apo__tiles_elements(&call, 1, 6), 5 * (4 + 2 + 4 + 4 + 2));
}

/* A merge that is not associative, so the result spells out the tree's shape. */
static void digits(const double *a, const double *b, double *out) { out[0] = a[0] * 10 + b[0]; }

Test(partition, pairwise_tree_is_fixed) {
    apo__kernel k;
    memset(&k, 0, sizeof k);
    k.partial_len = 1;
    k.merge = digits;
    double p[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    double out, scratch[64];
    apo__reduce_pairwise(&k, p, 0, 1, &out, scratch);
    cr_assert_eq(out, 1);
    apo__reduce_pairwise(&k, p, 0, 3, &out, scratch); /* 1 (2 3) */
    cr_assert_eq(out, 1 * 10 + 23);
    apo__reduce_pairwise(&k, p, 0, 4, &out, scratch); /* (1 2) (3 4) */
    cr_assert_eq(out, 12 * 10 + 34);
    apo__reduce_pairwise(&k, p, 2, 5, &out, scratch); /* (3 4) (5 (6 7)) */
    cr_assert_eq(out, 34 * 10 + (5 * 10 + 67));
}
