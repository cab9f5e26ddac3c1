/*
 * qstick_tile.h: QSTICK(timeperiod), TA-Lib 0.8's Qstick (Chande and Kroll): the mean of the
 * candle bodies close - open over the p bars ending at t. Inputs open, close; lookback p - 1.
 *
 * Each output is its window's sum of bodies in index order, divided by p, evaluated afresh
 * (p additions a bar; TA-Lib slides a running sum in double and carries its roundings), so it
 * is a function of its window alone: tiles join, and a stream keeps its position. A window
 * holding a non-finite open or close gives NaN (the sum is then not finite, which is the test:
 * a sum that overflows is a gap too, past the catalog's range). On the CPU (APO_TILE_LANES)
 * the windows of APO_TILE_LANES consecutive bars are summed side by side, one vector lane a bar,
 * each lane adding its window's bodies from 0 in index order as the scalar loop does: the same
 * bits, with the rest of the bars (and a GPU's) in the scalar loop; up to period 512 the
 * bodies are taken once a block and several vectors of windows summed at a time
 * (apo__qstick_blocks).
 */
#ifndef APO_KERNELS_QSTICK_TILE_H
#define APO_KERNELS_QSTICK_TILE_H

#include "catalog.h"
#include "tile_vec.h"

#ifdef APO_TILE_LANES
/* The most outputs of a block, and the longest period the blocks take: a row of bodies of
 * (256 + 511) bars, 6 KiB of stack. */
#define APO_QSTICK_BLOCK 256
#define APO_QSTICK_MAX_P 512

/* The outputs from t on in blocks (p <= APO_QSTICK_MAX_P, t >= p - 1), as far as whole
 * vectors reach; returns the first bar left to the scalar loop. Each block takes its bars'
 * bodies once into a row (the loop's `close - open`, computed again for every window), then
 * sums each window over that row, APO_TV_CHAINS vectors of bars side by side
 * (apo_tv_window_sums): each lane adds its window's bodies from 0 in index order, the loop's
 * additions, so the bits are the loop's. */
static inline size_t apo__qstick_blocks(const double *open, const double *close, double *out,
                                        size_t p, size_t t, size_t end) {
    double body[APO_QSTICK_BLOCK + APO_QSTICK_MAX_P];
    const apo_tv pd = apo_tv_splat((double)p);
    while (end - t >= APO_TILE_LANES) {
        size_t n = end - t < APO_QSTICK_BLOCK ? end - t : APO_QSTICK_BLOCK;
        n -= n % APO_TILE_LANES;
        const size_t first = t + 1 - p, m = n + p - 1;
        for (size_t j = 0; j < m; j++)
            body[j] = close[first + j] - open[first + j];
        size_t g = 0;
        apo_tv sum[APO_TV_CHAINS];
        for (; n - g >= APO_TV_CHAINS * APO_TILE_LANES; g += APO_TV_CHAINS * APO_TILE_LANES) {
            apo_tv_window_sums(body + g, p, APO_TV_CHAINS, sum);
            for (size_t c = 0; c < APO_TV_CHAINS; c++)
                apo_tv_store(out + t + g + c * APO_TILE_LANES,
                             apo_tv_or_nan(apo_tv_finite(sum[c]), sum[c] / pd));
        }
        for (; g < n; g += APO_TILE_LANES) {
            apo_tv_window_sums(body + g, p, 1, sum);
            apo_tv_store(out + t + g, apo_tv_or_nan(apo_tv_finite(sum[0]), sum[0] / pd));
        }
        t += n;
    }
    return t;
}
#endif

static inline APO_HD void apo__qstick_tile(const apo__cat_io *io, size_t begin, size_t end) {
    const double *open = io->in[0], *close = io->in[1];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0];
    size_t t = apo__cat_nan_lead(out, begin, end, p - 1);
#ifdef APO_TILE_LANES
    if (p <= APO_QSTICK_MAX_P)
        t = apo__qstick_blocks(open, close, out, p, t, end);
    /* Longer windows: APO_TILE_LANES consecutive bars side by side, one lane each. */
    for (; end - t >= APO_TILE_LANES; t += APO_TILE_LANES) {
        apo_tv sum = apo_tv_splat(0.0); /* lane l: the window of bar t + l */
        for (size_t i = t + 1 - p; i <= t; i++)
            sum = sum + (apo_tv_load(close + i) - apo_tv_load(open + i));
        apo_tv_store(out + t, apo_tv_or_nan(apo_tv_finite(sum), sum / apo_tv_splat((double)p)));
    }
#endif
    for (; t < end; t++) {
        double sum = 0.0;
        for (size_t i = t + 1 - p; i <= t; i++)
            sum = sum + (close[i] - open[i]);
        out[t] = isfinite(sum) ? sum / (double)p : (double)NAN;
    }
}

#endif /* APO_KERNELS_QSTICK_TILE_H */
