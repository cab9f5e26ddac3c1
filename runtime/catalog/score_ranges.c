/*
 * The ranges of a scored call; see score_ranges.h.
 */
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "catalog/score_ranges.h"
#include "catalog/scored_kernels.h"

/* The call's kernel, scoring, ranges and chains in one block, freed as one. */
struct apo__ranged_kernel {
    apo__kernel kernel;
    apo__scoring scoring;
    apo__cuda_impl cuda; /* the scored kernel's, without a launcher: GPUs take no share */
    apo__score_ranges ranges;
    apo_range *range;
    size_t *first;
};

/* Refuses a range that is empty or past cols, or that does not come after the one before it
 * (by begin, then end): the chains are runs of equal begins, and a range given twice would
 * be scored twice for nothing. */
static apo_status check_ranges(const apo__kernel *k, const apo_range *r, size_t n, size_t cols) {
    for (size_t i = 0; i < n; i++) {
        if (!(r[i].begin < r[i].end) || r[i].end > cols)
            return apo__fail(APO_ERR_INVALID_ARGUMENT,
                             "%s: range %zu is [%zu, %zu): a range holds at least one bar and "
                             "ends at cols (%zu) at the latest",
                             k->name, i, r[i].begin, r[i].end, cols);
        if (i == 0)
            continue;
        const apo_range *p = &r[i - 1];
        if (r[i].begin < p->begin || (r[i].begin == p->begin && r[i].end <= p->end))
            return apo__fail(APO_ERR_INVALID_ARGUMENT,
                             "%s: range %zu [%zu, %zu) comes %s range %zu [%zu, %zu): ranges are "
                             "sorted by begin and then end, each given once",
                             k->name, i, r[i].begin, r[i].end,
                             r[i].begin == p->begin && r[i].end == p->end ? "again after"
                                                                          : "before",
                             i - 1, p->begin, p->end);
    }
    return APO_OK;
}

apo_status apo__score_ranges_attach(const apo_workload *w, apo__call *call) {
    const apo__kernel *k = call->kernel;
    if (w->ranges == NULL && w->n_ranges == 0)
        return APO_OK;
    if (k->scoring == NULL)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "%s: ranges (apo_workload.ranges) are for scored calls: name a rule "
                         "(apo_workload.score)",
                         k->name);
    if (w->ranges == NULL)
        return apo__fail(APO_ERR_NULL, "%s: apo_workload.ranges is NULL with n_ranges %zu", k->name,
                         w->n_ranges);
    if (w->n_ranges == 0 || w->n_ranges > APO_MAX_SCORE_RANGES)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "%s: %zu ranges; a ranged call takes 1 to %d (NULL ranges: the whole "
                         "series)",
                         k->name, w->n_ranges, APO_MAX_SCORE_RANGES);
    apo_status st = check_ranges(k, w->ranges, w->n_ranges, w->cols);
    if (st != APO_OK)
        return st;
    const size_t n = w->n_ranges;
    apo__ranged_kernel *rk = calloc(1, sizeof *rk);
    apo_range *range = malloc(n * sizeof *range);
    size_t *first = malloc((n + 1) * sizeof *first);
    if (rk == NULL || range == NULL || first == NULL) {
        free(rk), free(range), free(first);
        return apo__fail(APO_ERR_OUT_OF_MEMORY, "%s: no memory for %zu ranges", k->name, n);
    }
    memcpy(range, w->ranges, n * sizeof *range);
    size_t chains = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || range[i].begin != range[i - 1].begin)
            first[chains++] = i;
    first[chains] = n;
    rk->range = range;
    rk->first = first;
    rk->ranges = (apo__score_ranges){n, range, chains, first};
    rk->scoring = *k->scoring;
    rk->scoring.ranges = &rk->ranges;
    rk->kernel = *k;
    rk->kernel.scoring = &rk->scoring;
    if (k->cuda != NULL) {
        rk->cuda = *k->cuda;
        rk->cuda.launch = NULL;
        rk->kernel.cuda = &rk->cuda;
    }
    call->kernel = &rk->kernel;
    call->ranged = rk;
    return APO_OK;
}

void apo__score_ranges_release(apo__call *call) {
    apo__ranged_kernel *rk = call->ranged;
    if (rk == NULL)
        return;
    free(rk->range), free(rk->first), free(rk);
    call->ranged = NULL;
}
