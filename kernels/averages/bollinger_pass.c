/*
 * bollinger's pass shared by band widths; see bollinger_pass.h. The tile body of
 * bollinger_tile.h is included with its three stores redefined (bollinger_pass_stores.h),
 * so the pass is the very body that computes the bands, window for window, with the widths
 * left out: the "upper" output receives the sd and the "middle" the mean, and the "lower"
 * is never written.
 */
#include "bollinger_pass.h"

#include <assert.h>

#include "bollinger_pass_stores.h"
#include "bollinger_tile.h"

void apo__cpu_bollinger_pass_tile(const double *x, size_t n, size_t begin, size_t end,
                                  size_t period, double *mean, double *sd) {
    assert(x != NULL && mean != NULL && sd != NULL);
    assert(period >= 1);
    assert(begin < end && end <= n);
    (void)n;
    /* The widths do not reach the stores above; 0 is as good as any. */
    apo__bollinger_tile(x, begin, end, period, 0.0, 0.0, sd, mean, sd);
}
