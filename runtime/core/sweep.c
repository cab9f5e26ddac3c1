/* Sweeps: checking a sweep and laying its sets' grids end to end; see sweep.h. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "catalog/call_span.h"
#include "catalog/grid.h"
#include "catalog/params.h"
#include "catalog/score_ranges.h"
#include "core/ragged.h"
#include "core/sweep.h"

/* The swept parameters as the two forms give them. */
typedef struct swept {
    size_t n;                          /* swept parameters */
    const char *names[APO_MAX_PARAMS]; /* their names */
    size_t total;                      /* sets in the sweep */
} swept;

/* Whether kernel k has a parameter called `name`. */
static int kernel_has_param(const apo__kernel *k, const char *name) {
    for (size_t i = 0; i < k->n_params; i++)
        if (apo__param_named(k, i, name))
            return 1;
    return 0;
}

/* The names and the number of sets; every check that does not look at a value. */
static apo_status check_form(const apo_workload *w, const apo__kernel *k, swept *out) {
    const apo_sweep *sw = w->sweep;
    APO_CHECK_STRUCT_SIZE(sw, apo_sweep, APO_SWEEP_INIT);
    const int grid = sw->n_grid > 0, list = sw->n_names > 0;
    if (grid == list)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "%s: apo_sweep must give either a grid (n_grid > 0) or a list (n_names > "
                         "0), %s",
                         k->name, grid ? "not both" : "it gives neither: the sweep is empty");
    out->n = grid ? sw->n_grid : sw->n_names;
    if (grid ? sw->grid == NULL : sw->names == NULL)
        return apo__fail(APO_ERR_NULL, "%s: apo_sweep.%s is NULL with a count of %zu", k->name,
                         grid ? "grid" : "names", out->n);
    if (out->n > k->n_params)
        return apo__fail(APO_ERR_BAD_PARAM,
                         "%s: the sweep names %zu parameters, the kernel has %zu", k->name, out->n,
                         k->n_params);
    size_t total = 1;
    for (size_t j = 0; j < out->n; j++) {
        const char *name = grid ? sw->grid[j].name : sw->names[j];
        if (name == NULL)
            return apo__fail(APO_ERR_NULL, "%s: swept parameter %zu has a NULL name", k->name, j);
        if (!kernel_has_param(k, name))
            return apo__fail(APO_ERR_BAD_PARAM,
                             "%s: the sweep names \"%s\", which is not a parameter of %s", k->name,
                             name, k->name);
        for (size_t i = 0; i < j; i++)
            if (strcmp(out->names[i], name) == 0)
                return apo__fail(APO_ERR_BAD_PARAM, "%s: parameter %s is swept twice", k->name,
                                 name);
        for (size_t i = 0; i < w->n_params; i++)
            if (w->params != NULL && w->params[i].name != NULL &&
                strcmp(w->params[i].name, name) == 0)
                return apo__fail(APO_ERR_BAD_PARAM,
                                 "%s: parameter %s is both swept and fixed in apo_workload.params "
                                 "(give it in one place)",
                                 k->name, name);
        out->names[j] = name;
        if (grid) {
            size_t n_values = sw->grid[j].n_values;
            if (n_values == 0)
                return apo__fail(APO_ERR_INVALID_ARGUMENT,
                                 "%s: swept parameter %s has an empty list of values", k->name,
                                 name);
            if (sw->grid[j].values == NULL)
                return apo__fail(APO_ERR_NULL, "%s: swept parameter %s has values NULL", k->name,
                                 name);
            if (n_values > APO_MAX_SWEEP_SETS / total)
                return apo__fail(APO_ERR_INVALID_ARGUMENT,
                                 "%s: the sweep's grid has more than %d sets (APO_MAX_SWEEP_SETS)",
                                 k->name, APO_MAX_SWEEP_SETS);
            total *= n_values;
        }
    }
    if (list) {
        if (sw->n_sets == 0)
            return apo__fail(APO_ERR_INVALID_ARGUMENT,
                             "%s: the sweep's list has no set (n_sets is 0)", k->name);
        if (sw->n_sets > APO_MAX_SWEEP_SETS)
            return apo__fail(APO_ERR_INVALID_ARGUMENT,
                             "%s: the sweep's list has %zu sets, more than %d (APO_MAX_SWEEP_SETS)",
                             k->name, sw->n_sets, APO_MAX_SWEEP_SETS);
        if (sw->values == NULL)
            return apo__fail(APO_ERR_NULL, "%s: apo_sweep.values is NULL", k->name);
        total = sw->n_sets;
    }
    out->total = total;
    return APO_OK;
}

/* The swept values of set s, in the order of the swept names. The grid's first parameter
 * varies slowest. */
static void set_values(const apo_sweep *sw, const swept *sp, size_t s, double *values) {
    if (sw->n_grid == 0) {
        memcpy(values, sw->values + s * sp->n, sp->n * sizeof *values);
        return;
    }
    for (size_t j = sp->n; j-- > 0;) {
        size_t n_values = sw->grid[j].n_values;
        values[j] = sw->grid[j].values[s % n_values];
        s /= n_values;
    }
}

/* Resolves set s's parameters as a call of that set alone would: the fixed ones and the
 * swept ones through the kernel's checks. A failure names the set. */
static apo_status resolve_set(const apo_workload *w, const apo__kernel *k, const swept *sp,
                              size_t s, double *params) {
    apo_param named[2 * APO_MAX_PARAMS];
    double values[APO_MAX_PARAMS];
    set_values(w->sweep, sp, s, values);
    size_t n = 0;
    for (size_t i = 0; i < w->n_params && n < APO_MAX_PARAMS; i++)
        named[n++] = w->params[i];
    for (size_t j = 0; j < sp->n; j++)
        named[n++] = (apo_param){sp->names[j], values[j]};
    char err[512];
    apo_status st = apo__resolve_params(k, named, n, params);
    if (st != APO_OK) {
        snprintf(err, sizeof err, "%s", apo_last_error());
        return apo__fail(st, "sweep set %zu: %s", s, err);
    }
    /* Ragged rows are checked row by row, each as a call of that row alone. */
    if (w->row_lengths != NULL)
        return apo__ragged_check_rows(w, k, params, s);
    if (k->validate != NULL) {
        st = k->validate(k, params, w->rows, w->cols, err, sizeof err);
        if (st != APO_OK)
            return apo__fail(st, "sweep set %zu: %s", s, err);
    }
    return APO_OK;
}

size_t apo__call_output_rows(const apo__call *call) {
    return apo__grid_sets_run(call) * call->rows;
}

/* Every set must give each output the shape of set 0's: the outputs are one block per set. */
static apo_status check_shape(const apo__kernel *k, const double *params, const double *params0,
                              size_t s, size_t cols) {
    for (size_t o = 0; o < k->n_outputs; o++) {
        size_t oc = k->output_cols(k, params, cols, o);
        size_t oc0 = k->output_cols(k, params0, cols, o);
        if (oc != oc0)
            return apo__fail(APO_ERR_BAD_PARAM,
                             "sweep set %zu: output %s has %zu columns where set 0's has %zu: "
                             "every set of a sweep must give its outputs the same shape",
                             s, k->output_names[o], oc, oc0);
    }
    return APO_OK;
}

/* The sweep's sets (or the one set of a call without a sweep): checked in form, with the
 * range run. */
static apo_status sweep_range(const apo_workload *w, const apo__kernel *k, swept *sp, size_t *first,
                              size_t *n_run) {
    *first = 0;
    *n_run = 1;
    sp->total = 1;
    if (w->sweep == NULL)
        return APO_OK;
    const apo_sweep *sw = w->sweep;
    APO_CHECK(check_form(w, k, sp));
    if (sw->first_set >= sp->total)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "%s: apo_sweep.first_set is %zu, but the sweep has %zu sets", k->name,
                         sw->first_set, sp->total);
    size_t n = sw->n_sets_run != 0 ? sw->n_sets_run : sp->total - sw->first_set;
    if (n > sp->total - sw->first_set)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "%s: sets %zu to %zu asked for (first_set + n_sets_run), but the sweep "
                         "has %zu sets",
                         k->name, sw->first_set, sw->first_set + n - 1, sp->total);
    *first = sw->first_set;
    *n_run = n;
    return APO_OK;
}

/* Adds the pieces of set s (a run set, at index i among those run) with parameters
 * `params`: the set's call alone, or each row's call alone for ragged rows. */
static apo_status add_set_pieces(const apo_workload *w, apo__call *call, size_t i,
                                 const double *params) {
    apo__grid *grid = call->grid;
    const size_t per_set = grid->ragged ? call->rows : 1;
    for (size_t r = 0; r < per_set; r++) {
        const size_t p = i * per_set + r;
        apo__call *one = &grid->pieces[p];
        *one = *call;
        one->grid = NULL;
        memcpy(one->params, params, sizeof one->params);
        if (grid->ragged) {
            one->rows = 1;
            one->cols = w->row_lengths[r];
        }
        apo__call_grid(one);
        if (!apo__grid_place(grid, p))
            return apo__fail(APO_ERR_OVERFLOW, "%s: the call's tiles overflow 64 bits",
                             call->kernel->name);
    }
    return APO_OK;
}

apo_status apo__sweep_resolve(const apo_workload *w, apo__call *call) {
    call->grid = NULL;
    if (w->sweep == NULL && w->row_lengths == NULL)
        return APO_OK;
    const apo__kernel *k = call->kernel;
    swept sp = {0};
    size_t first, n_run;
    APO_CHECK(sweep_range(w, k, &sp, &first, &n_run));
    const int ragged = w->row_lengths != NULL;
    const size_t per_set = ragged ? w->rows : 1;
    if (n_run > SIZE_MAX / sizeof(apo__call) / per_set)
        return apo__fail(APO_ERR_OVERFLOW,
                         "%s: %zu sets x %zu ragged rows, one call each, overflow size_t", k->name,
                         n_run, w->rows);
    const size_t n = n_run * per_set;
    apo__grid *grid = apo__grid_new(n, ragged ? w->rows : 0);
    call->grid = grid;
    if (grid == NULL)
        return apo__fail(APO_ERR_OUT_OF_MEMORY,
                         "%s: no memory for a call of %zu pieces (%zu sets x %zu rows)", k->name, n,
                         n_run, per_set);
    grid->n_sets = n_run;
    grid->first_set = first;
    grid->total_sets = sp.total;
    grid->ragged = ragged;

    /* Every set is checked, those outside the range run too: a sweep run in pieces is
     * refused or accepted as a whole. */
    apo_status st = APO_OK;
    double params0[APO_MAX_PARAMS], params[APO_MAX_PARAMS];
    for (size_t s = 0; s < sp.total && st == APO_OK; s++) {
        double *set_params = s == 0 ? params0 : params;
        if (w->sweep != NULL)
            st = resolve_set(w, k, &sp, s, set_params);
        else {
            memcpy(set_params, call->params, sizeof params0);
            st = apo__ragged_check_rows(w, k, set_params, SIZE_MAX);
        }
        if (st == APO_OK && s > 0)
            st = check_shape(k, params, params0, s, w->cols);
        if (st == APO_OK && s >= first && s < first + n_run)
            st = add_set_pieces(w, call, s - first, set_params);
    }
    for (size_t o = 0; o < k->n_outputs && st == APO_OK; o++) {
        size_t oc = k->output_cols(k, params0, w->cols, o);
        if (oc != 0 && n_run > SIZE_MAX / sizeof(double) / oc / w->rows)
            st = apo__fail(APO_ERR_OVERFLOW,
                           "%s: output %s of %zu sets x %zu rows x %zu overflows size_t", k->name,
                           k->output_names[o], n_run, w->rows, oc);
    }
    if (st != APO_OK) {
        apo__sweep_release(call);
        return st;
    }
    /* The call describes its first piece, and counts every piece's tiles. */
    const apo__call *piece0 = apo__grid_piece(call, 0);
    memcpy(call->params, piece0->params, sizeof call->params);
    call->axis_len = piece0->axis_len;
    call->tile = piece0->tile;
    call->tiles_per_row = piece0->tiles_per_row;
    call->unit_work = piece0->unit_work;
    call->tiles = apo__grid_piece_first_tile(call, n);
    return APO_OK;
}

void apo__sweep_bind(apo__call *call) {
    apo__grid *grid = call->grid;
    if (grid == NULL)
        return;
    const apo__kernel *k = call->kernel;
    const size_t per_set = grid->ragged ? call->rows : 1;
    for (size_t r = 0; grid->ragged && r < call->rows; r++)
        for (size_t i = 0; i < k->n_inputs; i++)
            grid->row_inputs[r][i] = call->inputs != NULL ? call->inputs[i] + r * call->cols : NULL;
    for (size_t p = 0; p < grid->n_pieces; p++) {
        apo__call *one = &grid->pieces[p];
        const size_t s = p / per_set, r = p % per_set;
        const uint64_t at = apo__grid_piece_first_tile(call, p);
        one->inputs = grid->ragged ? grid->row_inputs[r] : call->inputs;
        for (size_t o = 0; o < k->n_outputs; o++) {
            /* Rows keep the stride of the call's shape, whatever their own length. */
            size_t stride = k->output_cols(k, one->params, call->cols, o);
            size_t out_at = s * call->rows * stride + (grid->ragged ? r * stride : 0);
            grid->outputs[p][o] = call->outputs != NULL ? call->outputs[o] + out_at : NULL;
        }
        one->outputs = grid->outputs[p];
        one->partials = call->partials != NULL ? call->partials + at * k->partial_len : NULL;
        one->nonfinite = call->nonfinite != NULL ? call->nonfinite + at : NULL;
        one->ctx = call->ctx;
    }
}

void apo__sweep_release(apo__call *call) {
    apo__grid_free(call->grid);
    call->grid = NULL;
    apo__score_ranges_release(call);
}

apo_status apo__sweep_set_params(const apo_workload *w, const apo__kernel *k, size_t *n_run,
                                 double **params) {
    *params = NULL;
    swept sp = {0};
    size_t first;
    APO_CHECK(sweep_range(w, k, &sp, &first, n_run));
    double *all = malloc(*n_run * APO_MAX_PARAMS * sizeof *all);
    if (all == NULL)
        return apo__fail(APO_ERR_OUT_OF_MEMORY, "%s: no memory for the parameters of %zu sets",
                         k->name, *n_run);
    /* Every set is checked, as a call's sweep checks them: a sweep is valid as a whole. The
     * slots past the kernel's parameters stay 0 (resolving writes only the kernel's): a
     * stream's saved state holds all APO_MAX_PARAMS of each set, zeros after its own. */
    double set[APO_MAX_PARAMS] = {0};
    for (size_t s = 0; s < sp.total; s++) {
        apo_status st = resolve_set(w, k, &sp, s, set);
        if (st != APO_OK) {
            free(all);
            return st;
        }
        if (s >= first && s < first + *n_run)
            memcpy(all + (s - first) * APO_MAX_PARAMS, set, sizeof set);
    }
    *params = all;
    return APO_OK;
}
