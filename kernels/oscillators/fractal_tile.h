/*
 * fractal_tile.h: FRACTAL, TA-Lib 0.8's Williams fractal. Inputs high, low; outputs swinghigh,
 * swinglow; parameters leftbars (2) and rightbars (2); the lookback is leftbars + rightbars.
 *
 * Definition (TA-Lib's): at bar t, the window of the leftbars + rightbars + 1 bars ending at t
 * has its pivot rightbars bars back; swinghigh is 100 where the pivot's high is above every
 * other high of the window, strictly (a tie is no swing), else 0, and swinglow 100 where the
 * pivot's low is below every other low, strictly. A swing is so reported at the bar that
 * confirms it, rightbars bars after the pivot. Comparisons alone: TA-Lib's values exactly.
 *
 * Tiles: each position reads its own window (leftbars + rightbars bars back, the lookback), so
 * any grid gives the same values. The scan is TA-Lib's, window by window: a window costs its
 * length, as TA-Lib's; on the CPU the windows of APO_TILE_LANES consecutive bars are scanned
 * side by side (apo__fractal_lanes).
 *
 * Gaps: a window holding a bar whose high or low is not finite gives NaN in both outputs.
 */
#ifndef APO_KERNELS_FRACTAL_TILE_H
#define APO_KERNELS_FRACTAL_TILE_H

#include "catalog.h"
#include "tile_vec.h"

/* Bar t's two outputs (t >= span = left + right). */
static inline APO_HD void apo__fractal_bar(const apo__cat_io *io, size_t t, size_t left,
                                           size_t span) {
    const double *high = io->in[0], *low = io->in[1];
    const size_t pivot = t - span + left;
    const double pivot_high = high[pivot], pivot_low = low[pivot];
    /* The others' extremes, and whether every bar of the window is finite. */
    double other_high = -INFINITY, other_low = INFINITY;
    int finite = isfinite(pivot_high) && isfinite(pivot_low);
    for (size_t i = t - span; i <= t; i++) {
        if (i == pivot)
            continue;
        const double h = high[i], l = low[i];
        finite &= isfinite(h) && isfinite(l);
        other_high = h > other_high ? h : other_high;
        other_low = l < other_low ? l : other_low;
    }
    if (!finite) {
        io->out[0][t] = io->out[1][t] = NAN;
        return;
    }
    io->out[0][t] = pivot_high > other_high ? 100.0 : 0.0;
    io->out[1][t] = pivot_low < other_low ? 100.0 : 0.0;
}

#ifdef APO_TILE_LANES
/* Bars t .. t + APO_TILE_LANES - 1 (t >= span) side by side, one a lane: apo__fractal_bar's
 * picks and comparisons as selects, the window's finiteness from x - x (+0 for a finite x, NaN
 * else), so no branch a sample. Only comparisons decide the outputs (100, 0 or the NAN
 * constant), so the same values; the scalar scan took about 5 ns a bar on a Zen 4, its
 * branches learnt by TA-Lib's at 1e4 bars replayed (docs/perf-log/2026-11-27-zen4-catalog.md). */
static inline void apo__fractal_lanes(const apo__cat_io *io, size_t t, size_t left, size_t span) {
    const double *high = io->in[0] + (t - span), *low = io->in[1] + (t - span);
    const apo_tv pivot_high = apo_tv_load(high + left), pivot_low = apo_tv_load(low + left);
    apo_tv other_high = apo_tv_splat(-INFINITY), other_low = apo_tv_splat(INFINITY);
    apo_tv gaps = (pivot_high - pivot_high) + (pivot_low - pivot_low);
    for (size_t j = 0; j <= span; j++) {
        if (j == left)
            continue;
        const apo_tv h = apo_tv_load(high + j), l = apo_tv_load(low + j);
        gaps += (h - h) + (l - l);
        other_high = apo_tv_pick((apo_tm)(h > other_high), h, other_high);
        other_low = apo_tv_pick((apo_tm)(l < other_low), l, other_low);
    }
    const apo_tm finite = (apo_tm)(gaps == 0.0);
    const apo_tv hundred = apo_tv_splat(100.0), zero = apo_tv_splat(0.0);
    apo_tv_store(
        io->out[0] + t,
        apo_tv_or_nan(finite, apo_tv_pick((apo_tm)(pivot_high > other_high), hundred, zero)));
    apo_tv_store(io->out[1] + t, apo_tv_or_nan(finite, apo_tv_pick((apo_tm)(pivot_low < other_low),
                                                                   hundred, zero)));
}
#endif

static inline APO_HD void apo__fractal_tile(const apo__cat_io *io, size_t begin, size_t end) {
    const size_t left = (size_t)io->p[0], right = (size_t)io->p[1], span = left + right;
    size_t t = begin;
    for (; t < end && t < span; t++)
        io->out[0][t] = io->out[1][t] = NAN;
#ifdef APO_TILE_LANES
    for (; t + APO_TILE_LANES <= end; t += APO_TILE_LANES)
        apo__fractal_lanes(io, t, left, span);
#endif
    for (; t < end; t++)
        apo__fractal_bar(io, t, left, span);
}

#endif /* APO_KERNELS_FRACTAL_TILE_H */
