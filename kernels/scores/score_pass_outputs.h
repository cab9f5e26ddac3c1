/*
 * score_pass_outputs.h: an indicator's outputs at a bar of a scored kernel's pass
 * (runtime/catalog/score_pass.h says what a pass is), for the host and the GPU alike: the
 * runtime's scored tile (runtime/catalog/scored_kernels.c) and the scored kernels' CUDA
 * launcher (scored.cu) take each bar's outputs from here, so both fold the same values.
 */
#ifndef APO_SCORE_PASS_OUTPUTS_H
#define APO_SCORE_PASS_OUTPUTS_H

#include "apo_hd.h"
#include "bollinger_pass.h"

/* The kinds of pass. */
enum {
    APO_SCORE_PASS_TILE = 0,        /* the indicator's tile: its outputs as they are */
    APO_SCORE_PASS_BOLLINGER_WIDTHS /* bollinger's mean and sd, bands per width */
};

/* The indicator's outputs at position i of a pass of kind `kind`, for a set with indicator
 * parameters `params`: bitwise those its own tile would store, or with `compared` set, the
 * same values but for the bits of a NaN (for a built-in rule, which only compares the outputs
 * and asks whether they are finite; a user's rule sees the stored bits). `in` holds the
 * pass's doubles per bar (bollinger's: the sd, then the mean). */
static inline APO_HD void apo__score_pass_outputs_of(int kind, const double *params,
                                                     const double *const *in, size_t i,
                                                     size_t n_outputs, int compared, double *out) {
    if (kind == APO_SCORE_PASS_BOLLINGER_WIDTHS) {
        if (compared)
            apo__bollinger_pass_bands_compared(in[1][i], in[0][i], params[1], params[2], out);
        else
            apo__bollinger_pass_bands(in[1][i], in[0][i], params[1], params[2], out);
        return;
    }
    for (size_t k = 0; k < n_outputs; k++)
        out[k] = in[k][i];
}

#endif /* APO_SCORE_PASS_OUTPUTS_H */
