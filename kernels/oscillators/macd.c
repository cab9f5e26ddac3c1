/*
 * macd.c: MACD (moving average convergence/divergence), one tile of one series per call.
 *
 * What: with k(p) = 2 / (p + 1) and the EMA update e = (x - e) * k + e, the slow EMA is
 * seeded with the mean of the first `slow` samples and the fast EMA with the mean of the
 * `fast` samples ending at that seed index; macd = fast EMA - slow EMA from the seed index
 * on; the signal line is the EMA(signal) of macd, seeded with the mean of the first
 * `signal` macd values; hist = macd - signal. All three outputs are NaN before the signal
 * seed index, (slow-1)+(signal-1) on finite data. This is TA-Lib's definition.
 *
 * Non-finite samples are gaps: their outputs are NaN and the EMA states skip them, and the
 * seeds count finite samples only. On finite data this is exactly the definition above;
 * unlike TA-Lib, one NaN does not poison the rest of the series.
 *
 * Tile shape: tiles of apo__macd_tile_len() = max(16384, 16 H) outputs, where
 * H = apo__macd_warmup() is also the halo. The EMA is a recurrence, so a tile [begin, end)
 * re-runs the definition above on the sub-series starting at w0 = max(0, begin - H) and
 * emits [begin, end) only. For the first tile (w0 = 0) this is the definition itself. For
 * later tiles the seeds differ from the whole-series states, but their influence on the
 * outputs is multiplied by (1 - k)^steps: H adds D(p) = ceil(64 ln 2 / -ln(1 - k(p))) steps
 * for the slow EMA and for the signal EMA beyond their seed indices, so by `begin` each
 * seed's influence is below 2^-64 of the data scale, far below one rounding of the outputs.
 *
 * Code: the tile body is the APO_HD inline apo__macd_tile of macd_tile.h, which the CUDA
 * kernel (macd.cu) calls too. This file keeps what needs libm or runs only on the host: the
 * warm-up H (apo__macd_warmup, with log and log1p), which it computes here and passes to the
 * shared body, the tile length and the precondition checks. Several tiles at once on a
 * vector path: macd_lanes.h and lanes_dispatch.c.
 *
 * Determinism: the outputs of a tile depend on x, the parameters and `begin` only; no state
 * crosses tiles and the operation order is fixed (built with -ffp-contract=off, and nvcc
 * -fmad=false for the shared body). The libm log in apo__macd_warmup only sizes the tile
 * grid and the warm-up from the parameters, and is evaluated on the host for both the CPU
 * and the CUDA kernels, so both re-read the same samples.
 */
#include "macd.h"

#include "macd_tile.h"

#include <assert.h>
#include <math.h>

/* Steps after which the EMA(p) forgets its seed to below 2^-64. */
static size_t decay_steps(size_t p) {
    const double k = 2.0 / ((double)p + 1.0);
    if (k >= 1.0) {
        /* An EMA of period 1 is the sample itself and forgets its seed at once. */
        return 0;
    }
    return (size_t)ceil(64.0 * log(2.0) / -log1p(-k));
}

size_t apo__macd_warmup(size_t fast, size_t slow, size_t signal) {
    assert(fast >= 1 && slow >= 1 && signal >= 1);
    if (fast > slow) {
        slow = fast;
    }
    return (slow - 1) + (signal - 1) + decay_steps(slow) + decay_steps(signal);
}

size_t apo__macd_tile_len(size_t fast, size_t slow, size_t signal) {
    size_t len = 16 * apo__macd_warmup(fast, slow, signal);
    return len > 16384 ? len : 16384;
}

void apo__cpu_macd_tile(const double *x, size_t n, size_t begin, size_t end, size_t fast,
                        size_t slow, size_t signal, double *macd, double *signal_line,
                        double *hist) {
    assert(x != NULL && macd != NULL && signal_line != NULL && hist != NULL);
    assert(begin < end && end <= n);
    assert(fast >= 1 && slow >= 1 && signal >= 1);
    (void)n;
    /* apo__macd_warmup takes the larger of fast and slow itself, so it needs no swap. */
    const size_t h = apo__macd_warmup(fast, slow, signal);
    apo__macd_tile(x, begin, end, fast, slow, signal, h, macd, signal_line, hist);
}
