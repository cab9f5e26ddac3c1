/*
 * What a run of tiles touches: the input elements it reads (its positions plus the halo of
 * earlier samples, or whole rows for kernels that draw from all of a row) and the output
 * elements its tiles write. A backend that moves data to where the tiles run (a GPU, another
 * MPI rank) ships exactly these spans, so the descriptors say them once, for every backend.
 */
#ifndef APO_RUNTIME_CATALOG_CALL_SPAN_H
#define APO_RUNTIME_CATALOG_CALL_SPAN_H

#include <stddef.h>
#include <stdint.h>

#include "catalog/kernel.h"

typedef struct apo__call_span {
    /* Element range [in_lo, in_hi) of every input array (row-major, rows x cols). */
    size_t in_lo, in_hi;
    /* Element range [out_lo, out_hi) of every output array the tiles write (rows x out_cols
     * of output 0; the written outputs share that shape). */
    size_t out_lo, out_hi;
    /* The leading outputs the tiles write; the others are finalized from partials. */
    size_t n_written;
} apo__call_span;

/* Input samples before a tile's first position that the tile reads. */
size_t apo__kernel_halo(const apo__kernel *k, const double *params);

/* Whether every tile reads its whole input row at these parameters (NULL: the kernel's own
 * trait alone, whatever its parameters). */
int apo__kernel_whole_row_input(const apo__kernel *k, const double *params);

/* Whether a GPU runs every row of `k` at these parameters as one serial chain (whole input
 * rows of a kernel whose tiles of a row are not independent: apo__cuda_impl.whole_row_serial):
 * the one place that says a kernel belongs on a cpu (docs/scheduling.md, "One serial chain per
 * row"). */
int apo__kernel_serial_rows(const apo__kernel *k, const double *params);

/* Whether any piece of `call` (each set of a sweep, each ragged row) is such a kernel at its
 * parameters. */
int apo__call_serial_rows(const apo__call *call);

/* The spans of tiles [first, end) of `call` (first < end <= call->tiles). */
void apo__call_span_of(const apo__call *call, uint64_t first, uint64_t end, apo__call_span *span);

/* Fills the tile grid of a call (axis_len, tile, tiles_per_row, tiles, unit_work) from its
 * kernel, parameters and shape, as the planner does. */
void apo__call_grid(apo__call *call);

/* Elements of work in linear tiles [first, end) of a call: in O(1), or for a sweep in O(sets
 * met), each set's tiles counted in its own grid. */
uint64_t apo__tiles_elements(const apo__call *call, uint64_t first, uint64_t end);

#endif
