/* Ragged rows: checking the lengths and filling the outputs past them; see ragged.h. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "base/error.h"
#include "catalog/grid.h"
#include "core/ragged.h"

/* "sweep set S: " before a message about set S of a sweep, nothing without one. */
static void set_prefix(size_t set, char *out, size_t size) {
    if (set == SIZE_MAX)
        out[0] = '\0';
    else
        snprintf(out, size, "sweep set %zu: ", set);
}

apo_status apo__ragged_check_rows(const apo_workload *w, const apo__kernel *k, const double *params,
                                  size_t set) {
    if (w->row_lengths == NULL)
        return APO_OK;
    char prefix[48];
    set_prefix(set, prefix, sizeof prefix);
    /* The lengths themselves first, so that a bad length is named before a row the kernel
     * refuses. */
    for (size_t r = 0; r < w->rows; r++) {
        const size_t len = w->row_lengths[r];
        if (len == 0)
            return apo__fail(APO_ERR_INVALID_ARGUMENT,
                             "%s: row_lengths[%zu] is 0: every row needs at least one sample",
                             k->name, r);
        if (len > w->cols)
            return apo__fail(APO_ERR_INVALID_ARGUMENT,
                             "%s: row_lengths[%zu] is %zu, longer than cols (%zu), the rows' "
                             "stride",
                             k->name, r, len, w->cols);
    }
    for (size_t r = 0; r < w->rows && k->validate != NULL; r++) {
        const size_t len = w->row_lengths[r];
        char err[256];
        apo_status st = k->validate(k, params, 1, len, err, sizeof err);
        if (st != APO_OK)
            return apo__fail(st, "%srow %zu (row_lengths[%zu] = %zu samples): %s", prefix, r, r,
                             len, err);
    }
    return APO_OK;
}

void apo__ragged_fill_tails(const apo__call *call) {
    if (!apo__grid_ragged(call))
        return;
    const apo__kernel *k = call->kernel;
    for (size_t p = 0; p < apo__grid_pieces(call); p++) {
        const apo__call *row = apo__grid_piece(call, p);
        for (size_t o = 0; o < k->n_outputs; o++) {
            const size_t stride = k->output_cols(k, row->params, call->cols, o);
            const size_t own = k->output_cols(k, row->params, row->cols, o);
            for (size_t c = own; c < stride; c++)
                row->outputs[o][c] = NAN;
        }
    }
}
