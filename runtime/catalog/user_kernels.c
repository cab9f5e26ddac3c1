/*
 * User-registered kernels: the public descriptor checked and copied, and the glue that
 * calls its CPU function once per tile.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "catalog/cuda_views.h"
#include "catalog/kernel.h"
#include "catalog/reentry_guard.h"

#define APO_USER_TILE_DEFAULT 4096
#define APO_USER_HALO_MAX ((size_t)1 << 30)

static int valid_name(const char *name) {
    size_t len = strlen(name);
    if (len == 0 || len >= APO_NAME_MAX)
        return 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)name[i];
        if (!isalnum(c) && c != '_')
            return 0;
    }
    return 1;
}

static size_t user_axis_len(const apo__kernel *k, const double *params, size_t cols) {
    (void)k, (void)params;
    return cols;
}

static size_t user_tile_len(const apo__kernel *k, const double *params) {
    (void)params;
    return k->user_tile;
}

static uint64_t user_unit_work(const apo__kernel *k, const double *params, size_t cols) {
    (void)k, (void)params, (void)cols;
    return 1;
}

static size_t user_output_cols(const apo__kernel *k, const double *params, size_t cols,
                               size_t index) {
    (void)k, (void)params, (void)index;
    return cols;
}

/* The call the user's functions see: the workload's shape and parameters, one row's
 * range, and the arrays (host arrays for the cpu function, staged device arrays that index
 * like them for the CUDA launcher). */
static apo_kernel_call user_kernel_call(const apo__call *call, size_t row, size_t begin, size_t end,
                                        const double *const *inputs, double *const *outputs) {
    const apo__kernel *k = call->kernel;
    apo_kernel_call kc = {
        .rows = call->rows,
        .cols = call->cols,
        .row = row,
        .begin = begin,
        .end = end,
        .inputs = inputs,
        .outputs = outputs,
        .n_inputs = k->n_inputs,
        .n_outputs = k->n_outputs,
        .params = call->params,
        .n_params = k->n_params,
        .seed = call->seed,
    };
    return kc;
}

static apo_status user_run_tile(const apo__call *call, size_t row, size_t begin, size_t end,
                                double *partial) {
    (void)partial;
    const apo__kernel *k = call->kernel;
    apo_kernel_call kc = user_kernel_call(call, row, begin, end, call->inputs, call->outputs);
    apo__kernel_frame frame;
    apo__kernel_frame_push(&frame, call->ctx->rt);
    apo_status st = k->desc.cpu(&kc, k->desc.user);
    apo__kernel_frame_pop(&frame);
    /* Device loss is the backends' to report: a kernel that returns it has failed, and
     * retrying its tiles on another device would only fail again. */
    return st == APO_ERR_DEVICE_LOST ? APO_ERR_KERNEL_FAILED : st;
}

static size_t user_halo(const apo__kernel *k, const double *params) {
    (void)params;
    return k->desc.halo;
}

/* The user's CUDA launcher is called once per row segment of the chunk (a run of whole
 * tiles of one row), with device pointers in the apo_kernel_call that index like the host
 * arrays (apo__cuda_chunk): the same contract as the cpu function, over several tiles.
 * The row segments are those of the chunk's row-uniform views (cuda_views.h). */
static int user_launch(const apo__call *call, const apo__cuda_chunk *chunk, void *stream) {
    const apo__kernel *k = call->kernel;
    apo__cuda_view views[3];
    size_t n = apo__cuda_views(call, chunk, views);
    for (size_t i = 0; i < n; i++) {
        for (size_t row = views[i].row0; row < views[i].row0 + views[i].rows; row++) {
            apo_kernel_call kc =
                user_kernel_call(call, row, views[i].begin, views[i].end, chunk->in, chunk->out);
            apo__kernel_frame frame;
            apo__kernel_frame_push(&frame, call->ctx->rt);
            apo_status st = k->desc.cuda(&kc, k->desc.user, stream);
            apo__kernel_frame_pop(&frame);
            if (st != APO_OK)
                return (int)st;
        }
    }
    return 0;
}

apo_status apo__user_kernel_init(apo__kernel *k, const apo_kernel_desc *d, char *err,
                                 size_t err_size) {
    memset(k, 0, sizeof *k);
    if (d->size != sizeof(apo_kernel_desc)) {
        snprintf(err, err_size,
                 "apo_kernel_desc.size is %zu, expected %zu: initialise it with "
                 "APO_KERNEL_DESC_INIT",
                 d->size, sizeof(apo_kernel_desc));
        return APO_ERR_INVALID_ARGUMENT;
    }
    if (d->name == NULL || !valid_name(d->name)) {
        snprintf(err, err_size, "kernel name must be 1 to %d characters of [A-Za-z0-9_]",
                 APO_NAME_MAX - 1);
        return APO_ERR_INVALID_ARGUMENT;
    }
    if (d->cpu == NULL) {
        snprintf(err, err_size, "kernel %s: the cpu function is required", d->name);
        return APO_ERR_INVALID_ARGUMENT;
    }
    if (d->n_inputs < 1 || d->n_inputs > APO_MAX_IO || d->n_outputs < 1 ||
        d->n_outputs > APO_MAX_IO) {
        snprintf(err, err_size, "kernel %s: needs 1 to %d inputs and outputs", d->name, APO_MAX_IO);
        return APO_ERR_INVALID_ARGUMENT;
    }
    if (d->n_params > APO_MAX_PARAMS ||
        (d->n_params > 0 && (d->param_names == NULL || d->param_defaults == NULL))) {
        snprintf(err, err_size, "kernel %s: at most %d parameters, each with a name and a default",
                 d->name, APO_MAX_PARAMS);
        return APO_ERR_INVALID_ARGUMENT;
    }
    if (d->halo > APO_USER_HALO_MAX) {
        snprintf(err, err_size, "kernel %s: halo %zu exceeds %zu", d->name, d->halo,
                 APO_USER_HALO_MAX);
        return APO_ERR_INVALID_ARGUMENT;
    }

    snprintf(k->name, sizeof k->name, "%s", d->name);
    k->n_inputs = d->n_inputs;
    k->n_outputs = d->n_outputs;
    k->n_params = d->n_params;
    for (size_t i = 0; i < d->n_inputs; i++) {
        const char *name = d->input_names != NULL ? d->input_names[i] : NULL;
        if (name == NULL) {
            snprintf(k->input_names[i], APO_NAME_MAX, "in%zu", i);
        } else if (!valid_name(name)) {
            snprintf(err, err_size, "kernel %s: input %zu has an invalid name", d->name, i);
            return APO_ERR_INVALID_ARGUMENT;
        } else {
            snprintf(k->input_names[i], APO_NAME_MAX, "%s", name);
        }
        /* The CLI and Python find a column by an input's name whatever its case, so two
         * names that differ only in case could not both be found. */
        for (size_t j = 0; j < i; j++) {
            if (strcasecmp(k->input_names[i], k->input_names[j]) == 0) {
                snprintf(err, err_size, "kernel %s: input name %s is repeated (case aside)",
                         d->name, k->input_names[i]);
                return APO_ERR_INVALID_ARGUMENT;
            }
        }
    }
    for (size_t i = 0; i < d->n_outputs; i++) {
        const char *name = d->output_names != NULL ? d->output_names[i] : NULL;
        if (name == NULL) {
            snprintf(k->output_names[i], APO_NAME_MAX, "out%zu", i);
        } else if (!valid_name(name)) {
            snprintf(err, err_size, "kernel %s: output %zu has an invalid name", d->name, i);
            return APO_ERR_INVALID_ARGUMENT;
        } else {
            snprintf(k->output_names[i], APO_NAME_MAX, "%s", name);
        }
        for (size_t j = 0; j < i; j++) {
            if (strcmp(k->output_names[i], k->output_names[j]) == 0) {
                snprintf(err, err_size, "kernel %s: output name %s is repeated", d->name,
                         k->output_names[i]);
                return APO_ERR_INVALID_ARGUMENT;
            }
        }
    }
    for (size_t i = 0; i < d->n_params; i++) {
        const char *name = d->param_names[i];
        if (name == NULL || !valid_name(name) || !isfinite(d->param_defaults[i])) {
            snprintf(err, err_size,
                     "kernel %s: parameter %zu needs a valid name and a finite default", d->name,
                     i);
            return APO_ERR_INVALID_ARGUMENT;
        }
        for (size_t j = 0; j < i; j++) {
            if (strcmp(name, k->params[j].name) == 0) {
                snprintf(err, err_size, "kernel %s: parameter name %s is repeated", d->name, name);
                return APO_ERR_INVALID_ARGUMENT;
            }
        }
        snprintf(k->params[i].name, APO_NAME_MAX, "%s", name);
        k->params[i].def = d->param_defaults[i];
        k->params[i].min = -HUGE_VAL;
        k->params[i].max = HUGE_VAL;
    }

    /* Keep only what outlives the caller's descriptor: the names were copied above. */
    k->desc = *d;
    k->desc.name = NULL;
    k->desc.input_names = NULL;
    k->desc.output_names = NULL;
    k->desc.param_names = NULL;
    k->desc.param_defaults = NULL;
    k->user_tile = d->tile != 0 ? d->tile : APO_USER_TILE_DEFAULT;
    k->halo_rule = "fixed: apo_kernel_desc.halo";
    k->axis_len = user_axis_len;
    k->tile_len = user_tile_len;
    k->unit_work = user_unit_work;
    k->output_cols = user_output_cols;
    k->run_tile = user_run_tile;
    if (d->cuda != NULL) {
        k->user_cuda = (apo__cuda_impl){k->n_outputs, user_halo, 0, user_launch, NULL, 0};
        k->cuda = &k->user_cuda;
    }
    return APO_OK;
}
