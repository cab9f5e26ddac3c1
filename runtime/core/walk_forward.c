/*
 * apo_walk_forward(): the train and test ranges of a walk-forward (docs/scores.md,
 * "Walk-forward"), sorted and without repeats as a ranged scored call takes them, so that the
 * CLI, Python and the bench build the same windows from one copy.
 */
#include <stdlib.h>

#include "base/error.h"

/* A window's range before sorting, and which window and role it came from. */
typedef struct tagged {
    apo_range r;
    size_t window;
    int test;
} tagged;

static int by_begin_end(const void *pa, const void *pb) {
    const apo_range *a = &((const tagged *)pa)->r, *b = &((const tagged *)pb)->r;
    if (a->begin != b->begin)
        return a->begin < b->begin ? -1 : 1;
    return a->end < b->end ? -1 : (a->end > b->end);
}

apo_status apo_walk_forward(size_t cols, size_t train, size_t test, int anchored, size_t capacity,
                            apo_range *ranges, size_t *n_ranges, size_t *train_of, size_t *test_of,
                            size_t *n_windows) {
    if (ranges == NULL || n_ranges == NULL || train_of == NULL || test_of == NULL ||
        n_windows == NULL)
        return apo__fail(APO_ERR_NULL, "apo_walk_forward: NULL argument");
    if (train == 0 || test == 0 || train >= cols)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "apo_walk_forward: train %zu and test %zu bars over %zu: each is at least "
                         "one bar, and train leaves a bar to test",
                         train, test, cols);
    const size_t windows = (cols - train + test - 1) / test;
    if (windows > capacity || windows > APO_MAX_SCORE_RANGES / 2)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "apo_walk_forward: %zu windows of %zu test bars after %zu train bars over "
                         "%zu; at most %zu (capacity) and %d (APO_MAX_SCORE_RANGES / 2)",
                         windows, test, train, cols, capacity, APO_MAX_SCORE_RANGES / 2);
    tagged *all = malloc(2 * windows * sizeof *all);
    if (all == NULL)
        return apo__fail(APO_ERR_OUT_OF_MEMORY, "apo_walk_forward: %zu windows", windows);
    for (size_t i = 0; i < windows; i++) {
        const size_t e = train + i * test;
        all[2 * i] = (tagged){{anchored ? 0 : e - train, e}, i, 0};
        all[2 * i + 1] = (tagged){{e, e + test < cols ? e + test : cols}, i, 1};
    }
    /* Sorted by begin then end; equal ranges (a fixed train as long as the test is the test
     * before it) are one range of both windows. */
    qsort(all, 2 * windows, sizeof *all, by_begin_end);
    size_t n = 0;
    for (size_t j = 0; j < 2 * windows; j++) {
        if (n == 0 || by_begin_end(&all[j], &all[j - 1]) != 0)
            ranges[n++] = all[j].r;
        (all[j].test ? test_of : train_of)[all[j].window] = n - 1;
    }
    free(all);
    *n_ranges = n;
    *n_windows = windows;
    return APO_OK;
}
