/*
 * The catalog's rule for volumes (docs/kernels.md, "Negative volume"): a traded volume is
 * never below 0, and the kernels that read one (mfi, mvwap, vwap, obv, ad, adosc) give answers out
 * of their range from a negative one (an mfi above 100), so a call or a stream update that
 * holds one is refused, naming the input, the row and the bar, before any output is
 * written. A volume that is not finite stays a gap, as before. Only the built-in kernels'
 * input named "volume" is checked: a user kernel's inputs mean what its author says.
 */
#ifndef APO_RUNTIME_CATALOG_VOLUME_INPUTS_H
#define APO_RUNTIME_CATALOG_VOLUME_INPUTS_H

#include <stddef.h>

#include "catalog/kernel.h"

/* Checks the volume input of k (a scored kernel's indicator's), if it has one: rows
 * `rows`, row r of `lengths[r]` bars (every row `cols` when lengths is NULL) starting at
 * r * stride, or right after the row before when stride is 0 (a stream update's series laid
 * end to end). Returns APO_OK, or APO_ERR_INVALID_ARGUMENT with a message that starts with
 * `fn` and names the first negative value's `row_word` (row, series) and bar. */
apo_status apo__check_volumes(const apo__kernel *k, const double *const *inputs, size_t rows,
                              size_t cols, const size_t *lengths, size_t stride, const char *fn,
                              const char *row_word);

#endif
