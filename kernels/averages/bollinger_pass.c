/*
 * bollinger's pass shared by band widths; see bollinger_pass.h. The body is
 * bollinger_pass_tile.h's (bollinger_tile.h's with the pass's stores), which the scored
 * kernels' CUDA launcher (kernels/scores/scored.cu) runs too; the pass in vector lanes is
 * kernels/dispatch/pass_lanes_entry.h's.
 */
#include "bollinger_pass.h"

#include <assert.h>

#include "bollinger_pass_tile.h"

void apo__cpu_bollinger_pass_tile(const double *x, size_t n, size_t begin, size_t end,
                                  size_t period, double *mean, double *sd) {
    assert(x != NULL && mean != NULL && sd != NULL);
    assert(period >= 1);
    assert(begin < end && end <= n);
    (void)n;
    apo__bollinger_pass_tile(x, begin, end, period, mean, sd);
}
