/*
 * Refusing negative volumes (volume_inputs.h).
 */
#include "catalog/volume_inputs.h"

#include <math.h>
#include <string.h>

#include "base/error.h"
#include "catalog/scored_kernels.h"

/* The input of k that holds volumes, or k->n_inputs when it has none. */
static size_t volume_input(const apo__kernel *k) {
    const apo__kernel *ind = k->scoring != NULL ? k->scoring->indicator : k;
    if (!ind->builtin)
        return k->n_inputs;
    for (size_t i = 0; i < ind->n_inputs; i++)
        if (strcmp(ind->input_names[i], "volume") == 0)
            return i;
    return k->n_inputs;
}

apo_status apo__check_volumes(const apo__kernel *k, const double *const *inputs, size_t rows,
                              size_t cols, const size_t *lengths, size_t stride, const char *fn,
                              const char *row_word) {
    const size_t v = volume_input(k);
    if (v >= k->n_inputs)
        return APO_OK;
    const double *x = inputs[v];
    size_t at = 0;
    for (size_t r = 0; r < rows; r++) {
        const size_t n = lengths != NULL ? lengths[r] : cols;
        const double *row = x + (stride > 0 ? r * stride : at);
        /* A branch-free scan: negative volumes are rare, so the row is read once at the
         * memory's speed and searched again only when it holds one. -inf is a gap. */
        int bad = 0;
        for (size_t t = 0; t < n; t++)
            bad |= row[t] < 0 && row[t] > -INFINITY;
        for (size_t t = 0; bad && t < n; t++)
            if (row[t] < 0 && row[t] > -INFINITY)
                return apo__fail(APO_ERR_INVALID_ARGUMENT,
                                 "%s: %s: input %zu (volume) is %.17g at %s %zu, bar %zu: a volume "
                                 "is never negative (a non-finite one is a gap)",
                                 fn, k->name, v, row[t], row_word, r, t);
        at += n;
    }
    return APO_OK;
}
