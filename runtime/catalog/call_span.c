/* The spans of a run of tiles; see call_span.h. */
#include "catalog/call_span.h"

#include "catalog/grid.h"

/* The built-ins describe their halo in their CUDA descriptor, which exists (without a
 * launcher) in every build; a user kernel's halo is in its public descriptor. */
size_t apo__kernel_halo(const apo__kernel *k, const double *params) {
    if (k->cuda != NULL && k->cuda->halo != NULL)
        return k->cuda->halo(k, params);
    return k->builtin ? 0 : k->desc.halo;
}

int apo__kernel_whole_row_input(const apo__kernel *k, const double *params) {
    if (k->cuda == NULL)
        return 0;
    if (k->cuda->whole_row_input)
        return 1;
    return params != NULL && k->cuda->whole_row_at != NULL && k->cuda->whole_row_at(k, params);
}

int apo__kernel_serial_rows(const apo__kernel *k, const double *params) {
    return k->cuda != NULL && k->cuda->whole_row_serial && apo__kernel_whole_row_input(k, params);
}

int apo__call_serial_rows(const apo__call *call) {
    /* A catalog kernel's trait holds at every parameter but matype's (ma, bbands): one look
     * answers for a sweep's every set unless the kernel has such a parameter. */
    const apo__kernel *k = call->kernel;
    if (k->cuda == NULL || !k->cuda->whole_row_serial)
        return 0;
    if (apo__kernel_whole_row_input(k, NULL))
        return 1;
    for (size_t p = 0; p < apo__grid_pieces(call); p++)
        if (apo__kernel_serial_rows(k, apo__grid_piece(call, p)->params))
            return 1;
    return 0;
}

/* Outputs a tile writes: the GPU's leading outputs for the built-ins (the rest come from
 * partials); all of a user kernel's. */
static size_t written_outputs(const apo__kernel *k) {
    if (k->builtin && k->cuda != NULL)
        return k->cuda->n_outputs;
    return k->n_outputs;
}

void apo__call_span_of(const apo__call *call, uint64_t first, uint64_t end, apo__call_span *span) {
    const apo__kernel *k = call->kernel;
    size_t ra, ba, ea, rb, bb, eb;
    apo__tile_range(call, first, &ra, &ba, &ea);
    apo__tile_range(call, end - 1, &rb, &bb, &eb);
    if (apo__kernel_whole_row_input(k, call->params)) {
        span->in_lo = ra * call->cols;
        span->in_hi = (rb + 1) * call->cols;
    } else {
        size_t lo = ra * call->cols + ba;
        size_t halo = apo__kernel_halo(k, call->params);
        span->in_lo = lo > halo ? lo - halo : 0;
        span->in_hi = rb * call->cols + eb;
    }
    span->n_written = written_outputs(k);
    if (span->n_written == 0) {
        span->out_lo = span->out_hi = 0;
        return;
    }
    size_t oc = k->output_cols(k, call->params, call->cols, 0);
    span->out_lo = ra * oc + ba;
    span->out_hi = rb * oc + eb;
}

void apo__call_grid(apo__call *call) {
    const apo__kernel *k = call->kernel;
    call->axis_len = k->axis_len(k, call->params, call->cols);
    call->tile = k->tile_len(k, call->params);
    call->tiles_per_row = (call->axis_len + call->tile - 1) / call->tile;
    call->tiles = (uint64_t)call->rows * call->tiles_per_row;
    call->unit_work = k->unit_work(k, call->params, call->cols);
}

/* Elements of tiles [first, end) of a call of one piece, in its own grid. */
static uint64_t piece_elements(const apo__call *call, uint64_t first, uint64_t end) {
    /* All of a grid of rows x tiles_per_row, which is what a one-device call asks about
     * (four times a call): its rows' full lengths, the sum below without its two divisions
     * (tens of cycles each). */
    if (first == 0 && end == call->tiles && end == (uint64_t)call->rows * call->tiles_per_row)
        return (uint64_t)call->rows * call->axis_len * call->unit_work;
    uint64_t tpr = call->tiles_per_row;
    uint64_t last_tiles = end / tpr - first / tpr; /* tiles at a row's end in [first, end) */
    uint64_t last_len = call->axis_len - (tpr - 1) * call->tile;
    uint64_t positions = (end - first - last_tiles) * call->tile + last_tiles * last_len;
    return positions * call->unit_work;
}

/* A sweep's or ragged call's elements: each piece's part of the run counted in its own
 * grid. */
uint64_t apo__tiles_elements(const apo__call *call, uint64_t first, uint64_t end) {
    /* A call of one piece is its own grid: no walk over the pieces (a small call asks
     * this five times). */
    if (call->grid == NULL)
        return first < end ? piece_elements(call, first, end) : 0;
    uint64_t total = 0;
    apo__grid_iter it;
    apo__grid_run run;
    apo__grid_iter_init(&it, call, first, end);
    while (apo__grid_iter_next(&it, &run))
        total += piece_elements(run.call, run.first, run.end);
    return total;
}
