/*
 * bollinger.c: Bollinger bands, one tile of one series per call.
 *
 * What: for each t in [begin, end) with t >= period - 1, the window W_t = x[t-period+1 .. t]
 * gives middle = mean(W_t), sd = population standard deviation of W_t, upper = middle +
 * nbdev_up * sd and lower = middle - nbdev_dn * sd; earlier positions are NaN.
 *
 * Tile shape: tiles of apo__bollinger_tile_len(period) = max(4096, 16 * period) outputs; a
 * tile reads its own samples plus a halo of period - 1 samples before `begin`.
 *
 * Algorithm: a run starts with an exact evaluation of its first window (compensated sum,
 * then a second pass for the squared deviations) and then slides. The sliding state is kept
 * for y = x - K, K the rounded mean of the run's first window: while the samples stay within
 * [L, 2L], L = 0.7 K, both y and the difference of the sample entering and the one leaving
 * are exact (Sterbenz's lemma). The window sum of y is an unevaluated pair s + c updated with
 * TwoSum, so the mean is within a few ulps, and the variance follows the sliding Welford
 * update var += (d / p) * ((y_new - ybar_new) + (y_old - ybar_old)), which never forms
 * E[x^2] - mean^2 and so does not cancel. A running bound on the rounding error of the
 * variance ends the run (and the next window is evaluated exactly) before the sliding error
 * can exceed 2^-34 of it, so the accuracy holds for every window, including windows whose
 * variance is tiny next to their neighbours'. Runs also end at every tile boundary.
 * Constant windows (tracked through the last index where x changes) are emitted exactly:
 * sd = 0 and bands = middle = the constant. Counts of NaN, +inf and -inf inside the window
 * drive the non-finite policy; a window that becomes clean again starts a new run.
 *
 * Code: the tile body is the APO_HD inline apo__bollinger_tile of bollinger_tile.h, which
 * the CUDA kernel (bollinger.cu) calls too; this file adds the tile length and the host-side
 * precondition checks.
 *
 * Determinism: every output is a function of x and of the tile's `begin` only; there is no
 * state shared between tiles and the operation order is fixed (built with
 * -ffp-contract=off, and nvcc -fmad=false for the shared body), so any assignment of tiles
 * to devices or threads, CPU or GPU, gives the same bits.
 */
#include "bollinger.h"

#include "bollinger_tile.h"

#include <assert.h>

size_t apo__bollinger_tile_len(size_t period) {
    size_t len = 16 * period;
    return len > 4096 ? len : 4096;
}

void apo__cpu_bollinger_tile(const double *x, size_t n, size_t begin, size_t end, size_t period,
                             double nbdev_up, double nbdev_dn, double *upper, double *middle,
                             double *lower) {
    assert(x != NULL && upper != NULL && middle != NULL && lower != NULL);
    assert(period >= 1);
    assert(begin < end && end <= n);
    (void)n;
    apo__bollinger_tile(x, begin, end, period, nbdev_up, nbdev_dn, upper, middle, lower);
}

size_t apo__cpu_bollinger_resume_size(void) { return sizeof(apo__bollinger_cursor); }

void apo__cpu_bollinger_resume(const double *x, size_t begin, size_t stop, size_t period,
                               double nbdev_up, double nbdev_dn, void *state, int fresh,
                               double *upper, double *middle, double *lower) {
    assert(x != NULL && state != NULL && upper != NULL && middle != NULL && lower != NULL);
    assert(period >= 1);
    apo__bollinger_cursor *cur = state;
    if (fresh)
        apo__bollinger_cursor_init(cur, begin, period);
    assert(cur->t <= stop);
    apo__bollinger_advance(x, stop, period, nbdev_up, nbdev_dn, cur, upper, middle, lower);
}
